// cuFFT of the simulator (sim.hpp): plans with a work area, and the complex transforms.
// - A plan is made (cufftMakePlanMany, or cufftPlanMany) for contiguous data only, as Tessera
//   asks (advanced layouts: CUFFT_NOT_SUPPORTED). Its work area, of cufftEstimateMany's size,
//   is device memory from cudaMalloc: on a full device the plan fails with CUFFT_ALLOC_FAILED,
//   as cuFFT's does.
// - cufftExecC2C / Z2Z queue, on the plan's stream, an unnormalized DFT of each of the `batch`
//   arrays (dimensions n[0] slowest, as cuFFT's):
//       X[k] = sum_j x[j] exp(s 2 pi i j k / N) along each dimension, s = -1 forward, +1 inverse.
//   FFTW computes it, as OpenBLAS computes the simulated cuBLAS: O(N log N), at cuFFT's
//   accuracy. The pointers are checked as a kernel's.
// - cufftExecR2C / D2Z and C2R / Z2D: one-dimensional plans, out of place (in place:
//   CUFFT_NOT_SUPPORTED), the basic layout (batch b's N reals at b N, its N/2 + 1 complex
//   numbers at b (N/2 + 1)): X[k] = sum_j x[j] exp(-2 pi i j k / N) for k <= N/2, and back
//   x[j] = Re sum_k X[k] exp(2 pi i j k / N) over the Hermitian extension X[N - k] = conj X[k]
//   (the imaginary parts of X[0] and X[N/2] count for nothing, as in cuFFT and FFTW). C2R
//   leaves its input NaN, since cuFFT's may overwrite it: a caller that reads it again finds
//   out.
// - A kernel reads its input and writes its output through memcpy, from and into a copy that
//   FFTW transforms: the sanitizers see those accesses (FFTW's own are not instrumented).
#include "tests/cudasim/sim.hpp"

#include <cufft.h>
#include <fftw3.h>

#include <algorithm>
#include <atomic>
#include <complex>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
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

/// FFTW's API of precision R.
template <class R> struct Fftw;
template <> struct Fftw<double> {
    using complex = fftw_complex;
    static constexpr auto plan_c2c = &fftw_plan_many_dft;
    static constexpr auto plan_r2c = &fftw_plan_many_dft_r2c;
    static constexpr auto plan_c2r = &fftw_plan_many_dft_c2r;
    static constexpr auto execute = &fftw_execute;
    static constexpr auto destroy = &fftw_destroy_plan;
};
template <> struct Fftw<float> {
    using complex = fftwf_complex;
    static constexpr auto plan_c2c = &fftwf_plan_many_dft;
    static constexpr auto plan_r2c = &fftwf_plan_many_dft_r2c;
    static constexpr auto plan_c2r = &fftwf_plan_many_dft_c2r;
    static constexpr auto execute = &fftwf_execute;
    static constexpr auto destroy = &fftwf_destroy_plan;
};

/// FFTW's planner is not thread-safe, and the simulated streams plan while the library's
/// tasks plan too: FFTW's hook serializes every planner call of the process (both precisions),
/// installed as the simulator is loaded, before any thread plans. The hook does not cover
/// fftw_planner_nthreads and fftw_plan_with_nthreads (the library's tasks call them), which
/// create FFTW's planner on first use as planning does: one plan of each precision, made
/// here, creates both planners before any thread can.
const bool fftw_planner_is_thread_safe = [] {
    fftw_make_planner_thread_safe();
    fftwf_make_planner_thread_safe();
    fftw_complex z[1];
    fftwf_complex c[1];
    fftw_destroy_plan(fftw_plan_dft_1d(1, z, z, FFTW_FORWARD, FFTW_ESTIMATE));
    fftwf_destroy_plan(fftwf_plan_dft_1d(1, c, c, FFTW_FORWARD, FFTW_ESTIMATE));
    return true;
}();

/// Plans (FFTW_ESTIMATE: the arrays are left alone), runs and destroys one transform.
template <class R, class MakePlan> void run_fftw(MakePlan make_plan)
{
    auto plan = make_plan();
    Fftw<R>::execute(plan);
    Fftw<R>::destroy(plan);
}

/// In place, along every dimension of each of `batch` contiguous arrays of shape n.
template <class R> void dft(std::complex<R>* data, std::vector<int> const& n, int batch, int sign)
{
    auto* a = reinterpret_cast<typename Fftw<R>::complex*>(data);
    const int dist = int(elements(n));
    run_fftw<R>([&] {
        return Fftw<R>::plan_c2c(int(n.size()), n.data(), batch, a, nullptr, 1, dist, a, nullptr, 1,
                                 dist, sign, FFTW_ESTIMATE);
    });
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

template <class R>
cufftResult exec(cufftHandle h, cufftType type, void* in, void* out, int direction)
{
    using C = std::complex<R>;
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
        std::vector<C> data(bytes / sizeof(C));
        std::memcpy(data.data(), in, bytes);
        dft<R>(data.data(), p.n, p.batch,
               direction == CUFFT_FORWARD ? FFTW_FORWARD : FFTW_BACKWARD);
        std::memcpy(out, data.data(), bytes);
    });
    return CUFFT_SUCCESS;
}

/// The forward transforms of `batch` arrays of len reals (in) to their len/2 + 1 first
/// frequencies (out), or (backward) the len reals of the half-spectra's Hermitian extensions.
template <class R>
void real_dft(bool forward, void const* in, void* out, int len, int batch, std::size_t in_bytes,
              std::size_t out_bytes)
{
    using C = typename Fftw<R>::complex;
    const int half = len / 2 + 1;
    // vectors of complex numbers: aligned for either kind of element
    std::vector<std::complex<R>> x(in_bytes / sizeof(R) / 2 + 1), y(out_bytes / sizeof(R) / 2 + 1);
    std::memcpy(x.data(), in, in_bytes);
    run_fftw<R>([&] {
        return forward ? Fftw<R>::plan_r2c(1, &len, batch, reinterpret_cast<R*>(x.data()), nullptr,
                                           1, len, reinterpret_cast<C*>(y.data()), nullptr, 1, half,
                                           FFTW_ESTIMATE)
                       : Fftw<R>::plan_c2r(1, &len, batch, reinterpret_cast<C*>(x.data()), nullptr,
                                           1, half, reinterpret_cast<R*>(y.data()), nullptr, 1, len,
                                           FFTW_ESTIMATE);
    });
    std::memcpy(out, y.data(), out_bytes);
}

template <class R> cufftResult exec_real(cufftHandle h, cufftType type, void* in, void* out)
{
    Plan p;
    if (cufftResult r = made_plan(h, type, p); r != CUFFT_SUCCESS) return r;
    if (p.n.size() != 1 || in == out) return CUFFT_NOT_SUPPORTED;
    Device& d = device_of(p.stream);
    if (d.fault.load() != cudaSuccess) return CUFFT_EXEC_FAILED;
    const bool forward = type == CUFFT_R2C || type == CUFFT_D2Z;
    const int len = p.n[0], batch = p.batch;
    const std::size_t reals = std::size_t(len) * std::size_t(batch) * sizeof(R),
                      complexes =
                          std::size_t(len / 2 + 1) * std::size_t(batch) * sizeof(std::complex<R>);
    if (!kernel_touches(d, in, forward ? reals : complexes, "cufftExec: input") ||
        !kernel_touches(d, out, forward ? complexes : reals, "cufftExec: output"))
        return CUFFT_SUCCESS;
    submit(p.stream, [forward, in, out, len, batch, reals, complexes] {
        real_dft<R>(forward, in, out, len, batch, forward ? reals : complexes,
                    forward ? complexes : reals);
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
    return exec<float>(plan, CUFFT_C2C, in, out, direction);
}

cufftResult cufftExecZ2Z(cufftHandle plan, cufftDoubleComplex* in, cufftDoubleComplex* out,
                         int direction)
{
    return exec<double>(plan, CUFFT_Z2Z, in, out, direction);
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
