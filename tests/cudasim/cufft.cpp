// cuFFT of the simulator (sim.hpp): plans with a work area, and the complex transforms.
// - A plan is made (cufftMakePlanMany, or cufftPlanMany) for contiguous data only, as Tessera
//   asks (advanced layouts: CUFFT_NOT_SUPPORTED). Its work area, of cufftEstimateMany's size,
//   is device memory from cudaMalloc: on a full device the plan fails with CUFFT_ALLOC_FAILED,
//   as cuFFT's does.
// - cufftExecC2C / Z2Z queue, on the plan's stream, an unnormalized DFT of each of the `batch`
//   arrays (dimensions n[0] slowest, as cuFFT's), computed directly in double precision:
//       X[k] = sum_j x[j] exp(s 2 pi i j k / N) along each dimension, s = -1 forward, +1 inverse,
//   in O(N^2) per line: tests keep the lines they send to a simulated GPU short.
//   The pointers are checked as a kernel's.
// - cufftExecR2C / D2Z and C2R / Z2D: one-dimensional plans, out of place (in place:
//   CUFFT_NOT_SUPPORTED), the basic layout (batch b's N reals at b N, its N/2 + 1 complex
//   numbers at b (N/2 + 1)): X[k] = sum_j x[j] exp(-2 pi i j k / N) for k <= N/2, and back
//   x[j] = Re sum_k X[k] exp(2 pi i j k / N) over the Hermitian extension X[N - k] = conj X[k]
//   (the imaginary parts of X[0] and X[N/2] count for nothing, as in cuFFT). C2R leaves its
//   input NaN, since cuFFT's may overwrite it: a caller that reads it again finds out.
#include "tests/cudasim/sim.hpp"

#include <cufft.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <numbers>
#include <vector>

namespace tessera::cudasim {
namespace {

struct Plan {
    bool made = false;
    std::vector<int> n;  // dimensions, slowest first
    int batch = 1;
    cufftType type = CUFFT_Z2Z;
    cudaStream_t stream = nullptr;
    void* work = nullptr;  // device memory, freed with the plan
};

std::mutex plans_m;
std::map<cufftHandle, Plan>& plans()
{
    static auto* all = new std::map<cufftHandle, Plan>;  // outlives static destruction order
    return *all;
}

std::size_t element_bytes(cufftType t)
{
    return t == CUFFT_C2C || t == CUFFT_R2C || t == CUFFT_C2R ? 8 : 16;
}

bool is_real(cufftType t)
{
    return t == CUFFT_R2C || t == CUFFT_C2R || t == CUFFT_D2Z || t == CUFFT_Z2D;
}

std::size_t elements(std::vector<int> const& n)
{
    std::size_t e = 1;
    for (int d : n) e *= std::size_t(d);
    return e;
}

/// The simulated work area: one copy of the data (a real plan's is of that order).
std::size_t work_bytes(std::vector<int> const& n, int batch, cufftType t)
{
    return elements(n) * std::size_t(batch) * std::max<std::size_t>(element_bytes(t), 8);
}

/// exp(sign 2 pi i m / len) for m < len, computed in long double.
std::vector<std::complex<double>> twiddle_table(std::size_t len, int sign)
{
    std::vector<std::complex<double>> w(len);
    for (std::size_t m = 0; m < len; ++m)
        w[m] = std::complex<double>(std::polar(1.0L, sign * 2 * std::numbers::pi_v<long double> *
                                                         (long double)(m) / (long double)(len)));
    return w;
}

/// In place, along every dimension of each of `batch` arrays of shape n. The twiddles come
/// from a table of exp(s 2 pi i m / len) indexed by j k mod len (exact), so that the error
/// stays at cuFFT's level (a few eps log len) for long lines too.
template <class C> void dft(C* data, std::vector<int> const& n, int batch, int sign)
{
    const std::size_t total = elements(n);
    std::vector<std::complex<double>> line, out;
    for (int b = 0; b < batch; ++b) {
        C* a = data + std::size_t(b) * total;
        std::size_t stride = total;
        for (int len : n) {
            stride /= std::size_t(len);  // distance between neighbours along this dimension
            const std::size_t L = std::size_t(len);
            line.resize(L);
            out.resize(L);
            const auto twiddle = twiddle_table(L, sign);
            for (std::size_t first = 0; first < total; ++first) {
                if ((first / stride) % L != 0) continue;  // not the start of a line
                for (std::size_t j = 0; j < L; ++j) line[j] = a[first + j * stride];
                for (std::size_t k = 0; k < L; ++k) {
                    std::complex<double> sum = 0;
                    for (std::size_t j = 0, jk = 0; j < L; ++j, jk = (jk + k) % L)
                        sum += line[j] * twiddle[jk];
                    out[k] = sum;
                }
                for (std::size_t k = 0; k < L; ++k) a[first + k * stride] = C(out[k]);
            }
        }
    }
}

/// A copy of plan h, made for transforms of `type`, in p.
cufftResult made_plan(cufftHandle h, cufftType type, Plan& p)
{
    std::lock_guard lock(plans_m);
    auto it = plans().find(h);
    if (it == plans().end() || !it->second.made) return CUFFT_INVALID_PLAN;
    if (it->second.type != type) return CUFFT_INVALID_TYPE;
    p = it->second;
    return CUFFT_SUCCESS;
}

template <class C>
cufftResult exec(cufftHandle h, cufftType type, void* in, void* out, int direction)
{
    Plan p;
    if (cufftResult r = made_plan(h, type, p); r != CUFFT_SUCCESS) return r;
    if (direction != CUFFT_FORWARD && direction != CUFFT_INVERSE) return CUFFT_INVALID_VALUE;
    Device& d = device_of(p.stream);
    if (d.fault.load() != cudaSuccess) return CUFFT_EXEC_FAILED;
    const std::size_t bytes = elements(p.n) * std::size_t(p.batch) * sizeof(C);
    if (!kernel_touches(d, in, bytes, "cufftExec: input") ||
        !kernel_touches(d, out, bytes, "cufftExec: output"))
        return CUFFT_SUCCESS;
    submit(p.stream, [p, in, out, bytes, direction] {
        if (in != out) std::memcpy(out, in, bytes);
        dft(static_cast<C*>(out), p.n, p.batch, direction == CUFFT_FORWARD ? -1 : 1);
    });
    return CUFFT_SUCCESS;
}

/// The forward transforms of `batch` arrays of len reals (x) to their len/2 + 1 first
/// frequencies (X), or (backward) the len reals of the half-spectra's Hermitian extensions.
template <class R>
void real_dft(bool forward, void const* in, void* out, std::size_t len, int batch)
{
    const std::size_t half = len / 2 + 1;
    const auto w = twiddle_table(len, forward ? -1 : 1);
    for (int b = 0; b < batch; ++b) {
        if (forward) {
            R const* x = static_cast<R const*>(in) + std::size_t(b) * len;
            auto* X = static_cast<std::complex<R>*>(out) + std::size_t(b) * half;
            for (std::size_t k = 0; k < half; ++k) {
                std::complex<double> sum = 0;
                for (std::size_t j = 0, jk = 0; j < len; ++j, jk = (jk + k) % len)
                    sum += double(x[j]) * w[jk];
                X[k] = std::complex<R>(sum);
            }
            continue;
        }
        auto const* X = static_cast<std::complex<R> const*>(in) + std::size_t(b) * half;
        R* x = static_cast<R*>(out) + std::size_t(b) * len;
        for (std::size_t j = 0; j < len; ++j) {
            double sum = 0;
            for (std::size_t k = 0, jk = 0; k < len; ++k, jk = (jk + j) % len) {
                const std::complex<double> v = k < half
                                                   ? std::complex<double>(X[k])
                                                   : std::conj(std::complex<double>(X[len - k]));
                sum += (v * w[jk]).real();
            }
            x[j] = R(sum);
        }
    }
}

template <class R> cufftResult exec_real(cufftHandle h, cufftType type, void* in, void* out)
{
    Plan p;
    if (cufftResult r = made_plan(h, type, p); r != CUFFT_SUCCESS) return r;
    if (p.n.size() != 1 || in == out) return CUFFT_NOT_SUPPORTED;
    Device& d = device_of(p.stream);
    if (d.fault.load() != cudaSuccess) return CUFFT_EXEC_FAILED;
    const bool forward = type == CUFFT_R2C || type == CUFFT_D2Z;
    const std::size_t len = std::size_t(p.n[0]), batch = std::size_t(p.batch);
    const std::size_t reals = len * batch * sizeof(R),
                      complexes = (len / 2 + 1) * batch * sizeof(std::complex<R>);
    if (!kernel_touches(d, in, forward ? reals : complexes, "cufftExec: input") ||
        !kernel_touches(d, out, forward ? complexes : reals, "cufftExec: output"))
        return CUFFT_SUCCESS;
    submit(p.stream, [forward, in, out, len, batch, complexes] {
        real_dft<R>(forward, in, out, len, int(batch));
        if (!forward)  // cuFFT's C2R may overwrite its input
            std::fill_n(static_cast<R*>(in), complexes / sizeof(R),
                        std::numeric_limits<R>::quiet_NaN());
    });
    return CUFFT_SUCCESS;
}

}  // namespace
}  // namespace tessera::cudasim

using namespace tessera::cudasim;

extern "C" {

cufftResult cufftCreate(cufftHandle* plan)
{
    static std::atomic<int> next{1};
    if (!plan) return CUFFT_INVALID_VALUE;
    std::lock_guard lock(plans_m);
    *plan = next++;
    plans()[*plan] = Plan{};
    return CUFFT_SUCCESS;
}

cufftResult cufftEstimateMany(int rank, int* n, int*, int, int, int*, int, int, cufftType type,
                              int batch, size_t* work)
{
    if (rank < 1 || rank > 3 || !n || batch < 1 || !work) return CUFFT_INVALID_VALUE;
    *work = work_bytes(std::vector<int>(n, n + rank), batch, type);
    return CUFFT_SUCCESS;
}

cufftResult cufftMakePlanMany(cufftHandle plan, int rank, int* n, int* inembed, int, int,
                              int* onembed, int, int, cufftType type, int batch, size_t* work)
{
    if (rank < 1 || rank > 3 || !n || batch < 1) return CUFFT_INVALID_VALUE;
    for (int i = 0; i < rank; ++i)
        if (n[i] < 1) return CUFFT_INVALID_SIZE;
    if (inembed || onembed) return CUFFT_NOT_SUPPORTED;  // contiguous data only
    if (is_real(type) && rank != 1) return CUFFT_NOT_SUPPORTED;
    Plan made;
    made.n.assign(n, n + rank);
    made.batch = batch;
    made.type = type;
    const std::size_t bytes = work_bytes(made.n, batch, type);
    if (cudaMalloc(&made.work, bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        return CUFFT_ALLOC_FAILED;
    }
    made.made = true;
    if (work) *work = bytes;
    std::lock_guard lock(plans_m);
    auto it = plans().find(plan);
    if (it == plans().end() || it->second.made) {
        cudaFree(made.work);
        return CUFFT_INVALID_PLAN;
    }
    made.stream = it->second.stream;
    it->second = made;
    return CUFFT_SUCCESS;
}

cufftResult cufftPlanMany(cufftHandle* plan, int rank, int* n, int* inembed, int istride, int idist,
                          int* onembed, int ostride, int odist, cufftType type, int batch)
{
    if (cufftResult r = cufftCreate(plan); r != CUFFT_SUCCESS) return r;
    cufftResult r = cufftMakePlanMany(*plan, rank, n, inembed, istride, idist, onembed, ostride,
                                      odist, type, batch, nullptr);
    if (r != CUFFT_SUCCESS) cufftDestroy(*plan);
    return r;
}

cufftResult cufftSetStream(cufftHandle plan, cudaStream_t stream)
{
    std::lock_guard lock(plans_m);
    auto it = plans().find(plan);
    if (it == plans().end()) return CUFFT_INVALID_PLAN;
    it->second.stream = stream;
    return CUFFT_SUCCESS;
}

cufftResult cufftDestroy(cufftHandle plan)
{
    void* work = nullptr;
    {
        std::lock_guard lock(plans_m);
        auto it = plans().find(plan);
        if (it == plans().end()) return CUFFT_INVALID_PLAN;
        work = it->second.work;
        plans().erase(it);
    }
    if (work) cudaFree(work);
    return CUFFT_SUCCESS;
}

cufftResult cufftExecC2C(cufftHandle plan, cufftComplex* in, cufftComplex* out, int direction)
{
    return exec<std::complex<float>>(plan, CUFFT_C2C, in, out, direction);
}

cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex* in, cufftDoubleComplex* out,
                         int direction)
{
    return exec<std::complex<double>>(plan, CUFFT_Z2Z, in, out, direction);
}

cufftResult cufftExecR2C(cufftHandle plan, cufftReal* in, cufftComplex* out)
{
    return exec_real<float>(plan, CUFFT_R2C, in, out);
}
cufftResult cufftExecC2R(cufftHandle plan, cufftComplex* in, cufftReal* out)
{
    return exec_real<float>(plan, CUFFT_C2R, in, out);
}
cufftResult cufftExecD2Z(cufftHandle plan, cufftDoubleReal* in, cufftDoubleComplex* out)
{
    return exec_real<double>(plan, CUFFT_D2Z, in, out);
}
cufftResult cufftExecZ2D(cufftHandle plan, cufftDoubleComplex* in, cufftDoubleReal* out)
{
    return exec_real<double>(plan, CUFFT_Z2D, in, out);
}

}  // extern "C"
