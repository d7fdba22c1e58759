// The 2D transforms of tile matrices: stage 1 (the columns) one task per tile column, stage 2
// (the rows) one task per tile row; every stage-2 task waits for the stage-1 tasks of the
// tiles it reads, by data.
#include <tessera/fft/fft2d.hpp>

#include "fft/algorithms/columns.hpp"
#include "fft/algorithms/real_in_place.hpp"
#include "fft/codelets/fft.hpp"
#include "fft/kernels/cpu/split_rows.hpp"
#include "linalg/algorithms/operands.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace tessera::fft {
namespace {

template <class T> using TileRef = typename TileMatrix<T>::Tile;

/// Tile column j of A, as the span arguments take it.
template <class T> std::vector<TileRef<T>*> tile_column(TileMatrix<T>& A, int64_t j)
{
    std::vector<TileRef<T>*> c(A.mt());
    for (int64_t i = 0; i < A.mt(); ++i) c[i] = &A(i, j);
    return c;
}
template <class T> std::vector<TileRef<T> const*> tile_column(TileMatrix<T> const& A, int64_t j)
{
    std::vector<TileRef<T> const*> c(A.mt());
    for (int64_t i = 0; i < A.mt(); ++i) c[i] = &A(i, j);
    return c;
}

/// Whether rt has a GPU worker.
bool has_cuda_worker(rt::Runtime const& rt)
{
    for (unsigned w = 0; w < rt.worker_count(); ++w)
        if (rt.worker(rt::WorkerId(w)).arch == rt::Arch::cuda) return true;
    return false;
}

/// How stage 2 transforms rows (TESSERA_FFT_ROWS, read once): `strided` along the tile rows
/// where they are, `transposed` through transposes of the tiles, `automatic` by the stride.
enum class RowStage { automatic, strided, transposed };
RowStage row_stage_asked()
{
    static const RowStage asked = [] {
        char const* v = std::getenv("TESSERA_FFT_ROWS");
        const std::string text = v ? v : "";
        return text == "strided"      ? RowStage::strided
               : text == "transposed" ? RowStage::transposed
                                      : RowStage::automatic;
    }();
    return asked;
}

/// Row strides from which the rows of a tile are transformed through transposes. Where the
/// rows split across the columns (fft/kernels/cpu/split_rows.hpp), from 128 KiB: on 2 cores
/// at n = 8192 the transform ran at 1.08 to 1.11x FFTW's threaded plan with the transposes,
/// 1.04 to 1.05x with the split; at 4096 (64 KiB) at 1.02 to 1.11x with the transposes, 1.18
/// to 1.34x with the split (three runs each). Elsewhere from 64 KiB:
/// FFTW's strided batches took 0.59 s of stage 2 at 8192 against 0.30 s for the transposes
/// and the contiguous transforms (FFTW's own 2D plan transposes there too), and at 4096 the
/// transposes were 3 to 5% faster.
constexpr std::size_t transposed_row_stride = 64 * 1024, transposed_split_row_stride = 128 * 1024;

/// Whether stage 2 of A goes through transposes: A square (so that its tiles pair up) and
/// TESSERA_FFT_ROWS=transposed, or else the rows strided as said above on a runtime without
/// GPUs. (A GPU's row stage already transposes each tile row into its workspace, and the
/// tile transposes have not been timed on one: docs/gpu-validation.md.)
template <Real R> bool rows_through_transposes(TileMatrix<std::complex<R>>& A)
{
    const RowStage asked = row_stage_asked();
    if (asked == RowStage::strided || A.m() != A.n() || A.mt() < 1) return false;
    if (asked == RowStage::transposed) return true;
    const int64_t ld = A(0, 0).view().ld;
    const std::size_t stride = std::size_t(ld) * sizeof(std::complex<R>);
    const bool split = kernels::cpu::column_split(A(0, 0).view().m, A.n(), ld) > 0;
    return !has_cuda_worker(A.runtime()) &&
           stride >= (split ? transposed_split_row_stride : transposed_row_stride);
}

/// A = A^T in place, tile by tile: tile (i, j) swapped transposed with tile (j, i).
template <Real R> void submit_transpose(TileMatrix<std::complex<R>>& A, Sequence& s)
{
    for (int64_t j = 0; j < A.nt(); ++j) {
        s.submit(cl::transpose<R>, rt::readwrite(A(j, j)));
        for (int64_t i = j + 1; i < A.mt(); ++i)
            s.submit(cl::swap_transposed<R>, rt::readwrite(A(i, j)), rt::readwrite(A(j, i)));
    }
}

/// Stage 2 of A: the row transforms of each tile row; on a large square A, the column
/// transforms of A^T between two transposes.
template <Real R> void submit_rows(Sign sign, TileMatrix<std::complex<R>>& A, Sequence& s)
{
    if (rows_through_transposes<R>(A)) {
        submit_transpose<R>(A, s);
        for (int64_t j = 0; j < A.nt(); ++j) {
            auto column = tile_column(A, j);
            s.submit(cl::columns<R>, rt::read_all(column), rt::readwrite_all(column),
                     rt::value(int(sign)));
        }
        submit_transpose<R>(A, s);
        return;
    }
    std::vector<TileRef<std::complex<R>>*> row(A.nt());
    for (int64_t i = 0; i < A.mt(); ++i) {
        for (int64_t j = 0; j < A.nt(); ++j) row[j] = &A(i, j);
        s.submit(cl::rows<R>, rt::readwrite_all(row), rt::value(int(sign)));
    }
}

/// Every tile of A, in column order, as the span arguments take it.
template <class T> std::vector<TileRef<T> const*> all_tiles(TileMatrix<T> const& A)
{
    std::vector<TileRef<T> const*> tiles;
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = 0; i < A.mt(); ++i) tiles.push_back(&A(i, j));
    return tiles;
}

/// Whether every worker of rt is a CPU core (no GPU, no emulated accelerator), so that every
/// task of a transform sees the tiles where the caller's arrays hold them.
bool only_cpu_workers(rt::Runtime const& rt)
{
    for (unsigned w = 0; w < rt.worker_count(); ++w)
        if (rt.worker(rt::WorkerId(w)).arch != rt::Arch::cpu) return false;
    return rt.worker_count() > 0;
}

/// Whether the tiles of A are the pieces of one column-major array (a wrapped array).
template <class T> bool in_one_array(TileMatrix<T> const& A)
{
    if (A.mt() == 0 || A.nt() == 0) return false;
    const auto first = A(0, 0).view();
    for (int64_t j = 0; j < A.nt(); ++j)
        for (int64_t i = 0; i < A.mt(); ++i) {
            const auto t = A(i, j).view();
            if (t.ld != first.ld || t.ptr != first.ptr + i * A.nb() + j * A.nb() * first.ld)
                return false;
        }
    return true;
}

/// n1 of the digit-reversed order (fft/kernels/cpu/digit_reversed.hpp) for an out-of-place
/// transform whose stage 2 transforms the tile rows of `rows` and whose stage 1 reads or
/// writes `other`, or 0 where its stages keep the natural order. The order saves stage 2's
/// permutation where its tile rows would split across their columns; stage 1 then reads its
/// columns from all over its input, so both must be single arrays in memory, on a runtime of
/// CPU workers alone. It goes before the transposes of large square arrays (unless
/// TESSERA_FFT_ROWS=transposed): at n = 8192 on 2 cores, c2c took 0.74 to 0.77 s through
/// it, 1.09 to 1.11 s through the transposes (three interleaved runs).
template <class T, Real R>
int64_t digit_reversal(TileMatrix<T> const& other, TileMatrix<std::complex<R>>& rows)
{
    // each column task lists every tile of its input: at most 2^16 such reads in all (the
    // tiles of 64 cores' 128 x 128 would be 2 million, and their submission a visible cost)
    constexpr int64_t max_tile_reads = int64_t(1) << 16;
    const int64_t input_tiles = std::max(other.mt() * other.nt(), rows.mt() * rows.nt());
    if (!only_cpu_workers(rows.runtime()) || !in_one_array(other) || !in_one_array(rows) ||
        row_stage_asked() == RowStage::transposed || rows.nt() * input_tiles > max_tile_reads)
        return 0;
    const int64_t n = rows.n(), ld = std::max(other(0, 0).view().ld, rows(0, 0).view().ld);
    const int64_t n1 = kernels::cpu::column_split(rows.tile_m(0), n, ld);
    // FFTW's int distances: n1 or n / n1 columns of either matrix apart
    if (n1 == 0 || n / n1 * ld > INT_MAX) return 0;
    return n1;
}

/// Stage 2 of out from the digit-reversed order of n1 x (n / n1).
template <Real R>
void submit_rows_digit_reversed(Sign sign, TileMatrix<std::complex<R>>& out, int64_t n1,
                                Sequence& s)
{
    std::vector<TileRef<std::complex<R>>*> row(out.nt());
    for (int64_t i = 0; i < out.mt(); ++i) {
        for (int64_t j = 0; j < out.nt(); ++j) row[j] = &out(i, j);
        s.submit(cl::rows_digit_reversed<R>, rt::readwrite_all(row), rt::value(int(sign)),
                 rt::value(n1));
    }
}

/// Throws InvalidArgument unless `b` (named `name_b`) has the tile size of `a` and the given
/// size.
template <class A, class B>
void require_shape(std::string const& routine, char const* name_a, A const& a, char const* name_b,
                   B const& b, int64_t m, int64_t n)
{
    require(b.m() == m && b.n() == n && (m == 0 || n == 0 || a.nb() == b.nb()), [&] {
        return routine + ": " + name_b + " is " + std::to_string(b.m()) + " x " +
               std::to_string(b.n()) + " with tiles of " + std::to_string(b.nb()) + "; for " +
               name_a + " (" + std::to_string(a.m()) + " x " + std::to_string(a.n()) +
               ", tiles of " + std::to_string(a.nb()) + ") it must be " + std::to_string(m) +
               " x " + std::to_string(n) + " with tiles of " + std::to_string(a.nb());
    });
}

void require_sign(std::string const& routine, Sign sign)
{
    require(sign == Sign::forward || sign == Sign::backward,
            routine + ": sign must be Sign::forward or Sign::backward");
}

}  // namespace

template <Real R> void dft_2d_async(Sign sign, TileMatrix<std::complex<R>>& A, Sequence& s)
{
    using C = std::complex<R>;
    require_sign("dft_2d", sign);
    const auto call = la::detail::begin_call<C>(s, "dft_2d", {{"A", A, true}});
    if (A.m() == 0 || A.n() == 0) return;
    for (int64_t j = 0; j < A.nt(); ++j) {
        auto column = tile_column(A, j);
        s.submit(cl::columns<R>, rt::read_all(column), rt::readwrite_all(column),
                 rt::value(int(sign)));
    }
    submit_rows<R>(sign, A, s);
}

template <Real R>
void dft_2d_async(Sign sign, TileMatrix<std::complex<R>> const& in,
                  TileMatrix<std::complex<R>>& out, Sequence& s)
{
    using C = std::complex<R>;
    require_sign("dft_2d", sign);
    require_shape("dft_2d", "in", in, "out", out, in.m(), in.n());
    const auto call = la::detail::begin_call<C>(s, "dft_2d", {{"in", in}, {"out", out, true}});
    if (in.m() == 0 || in.n() == 0) return;
    if (const int64_t n1 = digit_reversal<C, R>(in, out); n1 > 0) {
        const auto source = all_tiles(in);
        for (int64_t j = 0; j < out.nt(); ++j) {
            auto to = tile_column(out, j);
            s.submit(cl::columns_digit_reversed<R>, rt::read_all(source), rt::write_all(to),
                     rt::value(int(sign)), rt::value(j * out.nb()), rt::value(out.n()),
                     rt::value(n1));
        }
        submit_rows_digit_reversed<R>(sign, out, n1, s);
        return;
    }
    for (int64_t j = 0; j < in.nt(); ++j) {
        auto from = tile_column(in, j);
        auto to = tile_column(out, j);
        s.submit(cl::columns<R>, rt::read_all(from), rt::write_all(to), rt::value(int(sign)));
    }
    submit_rows<R>(sign, out, s);
}

template <Real R>
void dft_r2c_2d_async(TileMatrix<R> const& in, TileMatrix<std::complex<R>>& out, Sequence& s)
{
    using C = std::complex<R>;
    require_shape("dft_r2c_2d", "in", in, "out", out, in.m() / 2 + 1, in.n());
    la::detail::require_usable_on<R>(s, "dft_r2c_2d", {{"in", in}});
    const auto call = la::detail::begin_call<C>(s, "dft_r2c_2d", {{"out", out, true}});
    if (in.m() == 0 || in.n() == 0) return;
    if (const int64_t n1 = digit_reversal<R, R>(in, out); n1 > 0) {
        const auto source = all_tiles(in);
        for (int64_t j = 0; j < out.nt(); ++j) {
            auto to = tile_column(out, j);
            s.submit(cl::columns_r2c_digit_reversed<R>, rt::read_all(source), rt::write_all(to),
                     rt::value(in.m()), rt::value(j * out.nb()), rt::value(out.n()), rt::value(n1));
        }
        submit_rows_digit_reversed<R>(Sign::forward, out, n1, s);
        return;
    }
    for (int64_t j = 0; j < in.nt(); ++j) {
        auto from = tile_column(in, j);
        auto to = tile_column(out, j);
        s.submit(cl::columns_r2c<R>, rt::read_all(from), rt::write_all(to), rt::value(in.m()));
    }
    submit_rows<R>(Sign::forward, out, s);
}

template <Real R>
void dft_c2r_2d_async(TileMatrix<std::complex<R>>& in, TileMatrix<R>& out, Sequence& s)
{
    using C = std::complex<R>;
    require_shape("dft_c2r_2d", "out", out, "in", in, out.m() / 2 + 1, out.n());
    la::detail::require_usable_on<R>(s, "dft_c2r_2d", {{"out", out, true}});
    const auto call = la::detail::begin_call<C>(s, "dft_c2r_2d", {{"in", in, true}});
    if (out.m() == 0 || out.n() == 0) return;
    if (const int64_t n1 = digit_reversal<R, R>(out, in); n1 > 0) {
        std::vector<TileRef<C>*> row(in.nt());
        for (int64_t i = 0; i < in.mt(); ++i) {
            for (int64_t j = 0; j < in.nt(); ++j) row[j] = &in(i, j);
            s.submit(cl::rows_into_digit_reversed<R>, rt::readwrite_all(row),
                     rt::value(int(Sign::backward)), rt::value(n1));
        }
        const auto source = all_tiles(std::as_const(in));
        for (int64_t j = 0; j < out.nt(); ++j) {
            auto to = tile_column(out, j);
            s.submit(cl::columns_c2r_digit_reversed<R>, rt::read_all(source), rt::write_all(to),
                     rt::value(out.m()), rt::value(j * out.nb()), rt::value(out.n()),
                     rt::value(n1));
        }
        return;
    }
    submit_rows<R>(Sign::backward, in, s);
    for (int64_t j = 0; j < in.nt(); ++j) {
        auto from = tile_column(in, j);
        auto to = tile_column(out, j);
        s.submit(cl::columns_c2r<R>, rt::readwrite_all(from), rt::write_all(to),
                 rt::value(out.m()));
    }
}

namespace detail {

template <Real R>
void columns_async(Sign sign, TileMatrix<std::complex<R>> const& in,
                   TileMatrix<std::complex<R>>& out, Sequence& s)
{
    using C = std::complex<R>;
    require_shape("dft_many", "in", in, "out", out, in.m(), in.n());
    const bool in_place = &in == &out;
    const auto call =
        in_place ? la::detail::begin_call<C>(s, "dft_many", {{"out", out, true}})
                 : la::detail::begin_call<C>(s, "dft_many", {{"in", in}, {"out", out, true}});
    for (int64_t j = 0; j < out.nt(); ++j) {
        auto from = tile_column(in, j);
        auto to = tile_column(out, j);
        if (in_place)
            s.submit(cl::columns<R>, rt::read_all(from), rt::readwrite_all(to),
                     rt::value(int(sign)));
        else
            s.submit(cl::columns<R>, rt::read_all(from), rt::write_all(to), rt::value(int(sign)));
    }
}

template <Real R> void r2c_in_place_async(int64_t m, TileMatrix<std::complex<R>>& A, Sequence& s)
{
    using C = std::complex<R>;
    const auto call = la::detail::begin_call<C>(s, "dft_r2c_2d", {{"A", A, true}});
    if (m == 0 || A.n() == 0) return;
    std::vector<TileRef<R> const*> none;
    for (int64_t j = 0; j < A.nt(); ++j) {
        auto column = tile_column(A, j);
        s.submit(cl::columns_r2c<R>, rt::read_all(none), rt::readwrite_all(column), rt::value(m));
    }
    submit_rows<R>(Sign::forward, A, s);
}

template <Real R> void c2r_in_place_async(int64_t m, TileMatrix<std::complex<R>>& A, Sequence& s)
{
    using C = std::complex<R>;
    const auto call = la::detail::begin_call<C>(s, "dft_c2r_2d", {{"A", A, true}});
    if (m == 0 || A.n() == 0) return;
    submit_rows<R>(Sign::backward, A, s);
    std::vector<TileRef<R>*> none;
    for (int64_t j = 0; j < A.nt(); ++j) {
        auto column = tile_column(A, j);
        s.submit(cl::columns_c2r<R>, rt::readwrite_all(column), rt::write_all(none), rt::value(m));
    }
}

}  // namespace detail

template <Real R> void dft_2d(Sign sign, TileMatrix<std::complex<R>>& A)
{
    if (!A) return;
    synchronously(A.runtime(), [&](Sequence& s) { dft_2d_async<R>(sign, A, s); });
}
template <Real R>
void dft_2d(Sign sign, TileMatrix<std::complex<R>> const& in, TileMatrix<std::complex<R>>& out)
{
    if (!out) return;
    synchronously(out.runtime(), [&](Sequence& s) { dft_2d_async<R>(sign, in, out, s); });
}
template <Real R> void dft_r2c_2d(TileMatrix<R> const& in, TileMatrix<std::complex<R>>& out)
{
    if (!out) return;
    synchronously(out.runtime(), [&](Sequence& s) { dft_r2c_2d_async<R>(in, out, s); });
}
template <Real R> void dft_c2r_2d(TileMatrix<std::complex<R>>& in, TileMatrix<R>& out)
{
    if (!in) return;
    synchronously(in.runtime(), [&](Sequence& s) { dft_c2r_2d_async<R>(in, out, s); });
}

int64_t tile_size(rt::Runtime const& rt, int64_t n0, int64_t n1)
{
    // Each pass has about two tasks per worker (stage 1 has n0 / nb, stage 2 n1 / nb); a GPU
    // gets tiles of at least 1024, where its transforms and copies run at speed.
    const int64_t workers = std::max<int64_t>(1, rt.worker_count());
    const int64_t n = std::max<int64_t>({n0, n1, 1});
    int64_t nb = (n + 2 * workers - 1) / (2 * workers);
    nb = std::max<int64_t>(32, (nb + 31) / 32 * 32);
    if (has_cuda_worker(rt)) nb = std::max<int64_t>(nb, 1024);
    return std::min(nb, n);
}

#define TESSERA_INSTANTIATE(R)                                                                     \
    template void dft_2d_async<R>(Sign, TileMatrix<std::complex<R>>&, Sequence&);                  \
    template void dft_2d_async<R>(Sign, TileMatrix<std::complex<R>> const&,                        \
                                  TileMatrix<std::complex<R>>&, Sequence&);                        \
    template void dft_r2c_2d_async<R>(TileMatrix<R> const&, TileMatrix<std::complex<R>>&,          \
                                      Sequence&);                                                  \
    template void dft_c2r_2d_async<R>(TileMatrix<std::complex<R>>&, TileMatrix<R>&, Sequence&);    \
    template void dft_2d<R>(Sign, TileMatrix<std::complex<R>>&);                                   \
    template void dft_2d<R>(Sign, TileMatrix<std::complex<R>> const&,                              \
                            TileMatrix<std::complex<R>>&);                                         \
    template void dft_r2c_2d<R>(TileMatrix<R> const&, TileMatrix<std::complex<R>>&);               \
    template void dft_c2r_2d<R>(TileMatrix<std::complex<R>>&, TileMatrix<R>&);                     \
    template void detail::columns_async<R>(Sign, TileMatrix<std::complex<R>> const&,               \
                                           TileMatrix<std::complex<R>>&, Sequence&);               \
    template void detail::r2c_in_place_async<R>(int64_t, TileMatrix<std::complex<R>>&, Sequence&); \
    template void detail::c2r_in_place_async<R>(int64_t, TileMatrix<std::complex<R>>&, Sequence&);
TESSERA_INSTANTIATE(float)
TESSERA_INSTANTIATE(double)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::fft
