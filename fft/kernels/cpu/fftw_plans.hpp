// FFTW behind one call per transform batch: a plan is made once per shape (the lengths,
// strides, direction, alignment and in-place-ness), kept for the life of the process, and
// executed on any arrays of that shape with FFTW's new-array execute. Plans are made on
// scratch arrays of the same alignment, never on the caller's data, so that planning with
// FFTW_MEASURE overwrites nothing. Thread-safe: FFTW's planner is serialized here, its
// execution is not. The only file of fft/ that names FFTW's precisions. Internal.
#pragma once

#include <complex>
#include <cstdint>
#include <string>

namespace tessera::fft::kernels::cpu {

/// Which transform: complex to complex, real to half-spectrum, half-spectrum to real.
enum class Kind : uint8_t { c2c, r2c, c2r };

/// `howmany` 1D transforms of length n: transform t reads its element k at
/// in[k istride + t idist] and writes at out[k ostride + t odist], strides in elements of
/// the arrays' own types (real for r2c's input and c2r's output). FFTW's plan_many_dft with
/// rank 1, no embedding.
struct Batch {
    Kind kind = Kind::c2c;
    int n = 0;
    int howmany = 1;
    int istride = 1, idist = 0;
    int ostride = 1, odist = 0;
    int sign = -1;  ///< FFTW_FORWARD (-1) or FFTW_BACKWARD (+1); c2c only

    /// Elements of one input and one output transform (n/2 + 1 on the half-spectrum's side).
    int n_in() const noexcept { return kind == Kind::c2r ? n / 2 + 1 : n; }
    int n_out() const noexcept { return kind == Kind::r2c ? n / 2 + 1 : n; }
};

/// `howmany` complex transforms of length n along the rows of a column-major block whose
/// columns are `stride` elements apart (element k of row t at k stride + t), both arrays
/// alike. Sizes fit in int (checked at the API, or by the caller).
inline Batch rows_batch(int64_t n, int64_t howmany, int64_t stride, int sign)
{
    return {.kind = Kind::c2c,
            .n = int(n),
            .howmany = int(howmany),
            .istride = int(stride),
            .idist = 1,
            .ostride = int(stride),
            .odist = 1,
            .sign = sign};
}

/// Executes `b` from `in` to `out` (the same pointer for in place) in precision R (float or
/// double); `in` and `out` point to std::complex<R> or R as the kind says. A shape first seen
/// is planned then (FFTW_ESTIMATE, or FFTW_MEASURE while a Measuring lives); a shape already
/// planned keeps its plan.
template <class R> void execute(Batch const& b, void* in, void* out);

/// Whether `b` on arrays aligned as `in` and `out` has (or, planned now, would have) a
/// measured plan. FFTW_ESTIMATE's plans of strided batches can be ten times slower than its
/// measured ones (2.7 ms against 0.15 ms for 256 strided transforms of 256 points on this
/// project's machine): callers gather such data instead unless the plan was measured.
template <class R> bool measured(Batch const& b, void const* in, void const* out);

/// While one lives (on any thread), shapes planned for the first time are planned with
/// FFTW_MEASURE: a plan made with Tessera's `measure` runs its transform once on scratch
/// arrays inside one, so that its tasks' shapes are measured before its first execute.
class Measuring {
public:
    Measuring() noexcept;
    ~Measuring();
    Measuring(Measuring const&) = delete;
    Measuring& operator=(Measuring const&) = delete;
};

/// FFTW's wisdom of both precisions (the plans made so far and their measurements), as text,
/// and its import (false when FFTW refuses the text).
std::string export_wisdom();
bool import_wisdom(std::string const& wisdom);

}  // namespace tessera::fft::kernels::cpu
