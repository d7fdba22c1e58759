/// @file fft2d.hpp
/// Two-dimensional (and large one-dimensional) discrete Fourier transforms, computed as tasks
/// on every core and GPU:
/// plans like FFTW's over arrays, and tile forms over TileMatrix that chain with the linear
/// algebra in a Sequence. A bad argument (a bad sign, sizes or tile sizes that do not match,
/// a null array) throws InvalidArgument before anything is computed.
///
///     std::vector<std::complex<double>> a(n0 * n1);               // row-major, as in FFTW
///     auto plan = tessera::fft::Plan<double>::dft_2d(n0, n1, a.data(), a.data(), Sign::forward);
///     plan.execute();                                              // a = DFT(a), in place
///
/// The transform is FFTW's, unnormalized: for an n0 x n1 array x,
///
///     y[k0][k1] = sum_{j0 < n0, j1 < n1} x[j0][j1] exp(sign 2 pi i (j0 k0 / n0 + j1 k1 / n1)),
///
/// so that a forward transform then a backward one multiplies by n0 n1. The real forms keep
/// FFTW's half-spectrum: an n0 x n1 real array has the n0 x (n1/2 + 1) complex coefficients
/// of its last dimension's nonnegative frequencies (the others are their conjugates).
///
/// How it runs. An n0 x n1 row-major array is the n1 x n0 column-major matrix M. Its 2D
/// transform is M's column transforms then its row transforms; a tile column's columns are
/// one task, then a tile row's rows (StarPU-FFT's two passes, thesis section 8.3.2):
///
///     columns of tile column j:  n1-point FFTs  (FFTW's batched plans on a core,
///           |                                     cuFFT on a GPU)
///           v  every tile column done
///     rows of tile row i:        n0-point FFTs
///
/// On the cores a task transforms its tiles where they are (one FFTW call when they are
/// pieces of one array) or a few columns or rows at a time through a buffer that stays in
/// cache; on a GPU it gathers them into its workspace. Small transforms (fewer than
/// `direct_points` points) run the same two passes on the calling thread.
#pragma once

#include <tessera/la/sequence.hpp>
#include <tessera/la/tile_matrix.hpp>

#include <complex>
#include <concepts>
#include <cstdint>
#include <memory>
#include <string>

namespace tessera::fft {

/// The precisions of the transforms.
template <class R> concept Real = std::same_as<R, float> || std::same_as<R, double>;

/// The sign of the exponent: FFTW_FORWARD (-1) and FFTW_BACKWARD (+1).
enum class Sign : int { forward = -1, backward = +1 };

/// Planner flags, FFTW's values: `estimate` plans by heuristics at once; `measure` times
/// FFTW's candidate kernels for each shape the plan will run (seconds for large sizes). Unlike
/// FFTW's, Tessera's planning never touches the arrays given to the plan.
inline constexpr unsigned estimate = 1u << 6;  ///< FFTW_ESTIMATE
inline constexpr unsigned measure = 0;         ///< FFTW_MEASURE

/// 2D transforms of fewer points than this run their two passes on the calling thread: the
/// tasks would cost more than they share.
inline constexpr int64_t direct_points = 128 * 128;
/// A 1D transform of fewer points than this (or of n with no divisor from 32 to sqrt(n)) runs
/// as one FFTW call on the calling thread; a larger one as the four-step's tasks.
inline constexpr int64_t direct_points_1d = int64_t(1) << 16;

// ---- tile forms ---------------------------------------------------------------------------

/// A = DFT2(A), in place: the 2D transform of the m x n matrix A with exponent `sign`,
/// unnormalized. Submits and returns; the tasks belong to sequence `s`.
template <Real R> void dft_2d_async(Sign sign, TileMatrix<std::complex<R>>& A, Sequence& s);
/// out = DFT2(in); in and out of the same size and tile size, not overlapping.
template <Real R>
void dft_2d_async(Sign sign, TileMatrix<std::complex<R>> const& in,
                  TileMatrix<std::complex<R>>& out, Sequence& s);
/// out = the half-spectrum of the real m x n matrix in: the (m/2 + 1) x n coefficients of the
/// nonnegative frequencies of its first dimension (the contiguous one), forward. out has
/// in's tile size.
template <Real R>
void dft_r2c_2d_async(TileMatrix<R> const& in, TileMatrix<std::complex<R>>& out, Sequence& s);
/// out = the real m x n matrix whose half-spectrum is in ((m/2 + 1) x n), backward and
/// unnormalized (m n times the inverse of dft_r2c_2d). in is overwritten (as FFTW's c2r
/// overwrites its input).
template <Real R>
void dft_c2r_2d_async(TileMatrix<std::complex<R>>& in, TileMatrix<R>& out, Sequence& s);

// The blocking forms: each submits into a sequence of its own, waits, and rethrows a task's
// failure.
/// A = DFT2(A) in place, as dft_2d_async; waits.
template <Real R> void dft_2d(Sign sign, TileMatrix<std::complex<R>>& A);
/// out = DFT2(in), as dft_2d_async; waits.
template <Real R>
void dft_2d(Sign sign, TileMatrix<std::complex<R>> const& in, TileMatrix<std::complex<R>>& out);
/// out = the half-spectrum of the real in, as dft_r2c_2d_async; waits.
template <Real R> void dft_r2c_2d(TileMatrix<R> const& in, TileMatrix<std::complex<R>>& out);
/// out = the real matrix of half-spectrum in, as dft_c2r_2d_async (in is overwritten); waits.
template <Real R> void dft_c2r_2d(TileMatrix<std::complex<R>>& in, TileMatrix<R>& out);

/// The tile size the plans use for an n0 x n1 transform on runtime `rt`: enough tile rows and
/// columns for every worker in both passes, larger with GPUs.
int64_t tile_size(rt::Runtime const& rt, int64_t n0, int64_t n1);

// ---- plans over arrays (FFTW's interface) -------------------------------------------------

/// A transform of fixed size, direction and arrays, run by execute() on the library's runtime
/// (la::runtime()) as often as wanted; FFTW's new-array execute runs it on other arrays of the
/// same kind (in place if it was). Arrays are row-major, as in FFTW. Move-only.
template <Real R> class Plan {
public:
    using Complex = std::complex<R>;  ///< the complex type of the plan's precision

    /// The n0 x n1 complex transform from `in` to `out` (in == out: in place). Throws
    /// InvalidArgument naming the argument when n0 or n1 < 1, an array is null, `sign` is
    /// neither forward nor backward, `flags` holds anything but estimate or measure, or the
    /// arrays overlap without being the same (the other plans check their arguments alike).
    static Plan dft_2d(int64_t n0, int64_t n1, Complex* in, Complex* out, Sign sign,
                       unsigned flags = estimate);
    /// The n-point 1D complex transform from `in` to `out` (in == out: in place). A large n
    /// runs as tasks, by Bailey's four-step algorithm: with n = n1 n2 (n1 near sqrt(n)), n1
    /// transforms of n2 points, twiddles, n2 transforms of n1 points and a transpose; the
    /// others as one FFTW call (see direct_points_1d).
    static Plan dft_1d(int64_t n, Complex* in, Complex* out, Sign sign, unsigned flags = estimate);
    /// `howmany` complex transforms of rank 1 (n[0] points) or 2 (n[0] x n[1], row-major),
    /// transform t from in + t idist to out + t odist (FFTW's plan_many_dft with contiguous
    /// elements; in place when in == out, then with idist == odist). The batch runs as tasks
    /// at once: rank 1 a block of transforms per task, rank 2 each transform's two passes
    /// (a small one as two tasks). Throws InvalidArgument naming the argument for a rank
    /// other than 1 or 2, sizes < 1, a distance under a transform's points, or null arrays.
    static Plan dft_many(int rank, int64_t const* n, int64_t howmany, Complex* in, int64_t idist,
                         Complex* out, int64_t odist, Sign sign, unsigned flags = estimate);
    /// The real n0 x n1 `in` to its n0 x (n1/2 + 1) half-spectrum `out`, forward. In place
    /// when `in` is `out`'s memory, with FFTW's padded rows: in's rows are 2 (n1/2 + 1) reals
    /// apart.
    static Plan dft_r2c_2d(int64_t n0, int64_t n1, R* in, Complex* out, unsigned flags = estimate);
    /// The n0 x (n1/2 + 1) half-spectrum `in` to the real n0 x n1 `out`, backward; `in` is
    /// overwritten. In place when `out` is `in`'s memory (padded rows, as above).
    static Plan dft_c2r_2d(int64_t n0, int64_t n1, Complex* in, R* out, unsigned flags = estimate);

    /// Takes over the other plan; a moved-from plan throws InvalidArgument if executed.
    ///@{
    Plan(Plan&&) noexcept;
    Plan& operator=(Plan&&) noexcept;
    ///@}
    ~Plan();

    /// Computes the transform on the plan's arrays (waits for it; rethrows a task's failure).
    void execute() const;
    /// The same on other arrays, in place exactly when the plan is (FFTW's new-array execute):
    /// execute_dft for the complex plans, execute_dft_r2c and execute_dft_c2r for the real ones
    /// (c2r overwrites `in`). Waits. Throws InvalidArgument for a null array, a plan of
    /// another kind, in-placeness that differs from the plan's, or arrays that overlap without
    /// being the same.
    ///@{
    void execute_dft(Complex* in, Complex* out) const;
    void execute_dft_r2c(R* in, Complex* out) const;
    void execute_dft_c2r(Complex* in, R* out) const;
    ///@}

    /// The sizes: n0 x n1 for the 2D plans (n1 the contiguous dimension, the real one for r2c
    /// and c2r), n0 = n and n1 = 1 for the 1D ones, one transform's for dft_many; 0 when moved
    /// from.
    ///@{
    int64_t n0() const noexcept;
    int64_t n1() const noexcept;
    ///@}

private:
    struct State;  // fft/algorithms/plan.cpp
    explicit Plan(std::unique_ptr<State> s) noexcept;
    std::unique_ptr<State> s_;
};

/// FFTW's wisdom (the measurements of the plans made so far, both precisions) as text, and
/// its import (false when FFTW refuses the text): `measure` plans made after an import of the
/// same machine's wisdom cost nothing.
///@{
std::string export_wisdom();
bool import_wisdom(std::string const& wisdom);
///@}

extern template class Plan<float>;
extern template class Plan<double>;

}  // namespace tessera::fft
