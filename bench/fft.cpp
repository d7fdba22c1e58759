// tessera-bench fft2d and fft1d: the 2D transform of an n x n array (or the 1D transform of n
// points) through Tessera's plan (its tasks
// on the library's runtime) against FFTW's own multithreaded 2D plan, with as many threads as
// Tessera has workers (its 1D plan), in the same run. Both plan with FFTW_MEASURE (the setting;
// --flags estimate for both otherwise), out of place, plan time excluded; after a warm-up of
// each, their executes alternate (--reps and --peer-reps of them; medians). GFlop/s as FFTW counts them: 5 N log2 N for N
// complex points, half for a real transform. The residual is ||y - y_fftw||_2 / ||y_fftw||_2
// over (log2 N eps), under 5 for a correct transform. With GPUs (fft2d c2c), cuFFT's 2D
// transform on data already on the GPU is timed too: gpu_peer_seconds, gpu_ratio. c2r
// transforms the half-spectrum of random reals back, from a fresh copy of it before each
// execute of either side (both destroy their input; the copies are not timed).
#include "bench/bench.hpp"

#include <tessera/fft/fft2d.hpp>
#include <tessera/la/context.hpp>
#include <tessera/rt/runtime.hpp>

#include <fftw3.h>

#if TESSERA_HAVE_CUDA
#include "bench/cuda/gpu_peers.hpp"
#endif

#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace tessera::bench {
namespace {

template <class R> using Cx = std::complex<R>;

/// The transform benchmarked: complex, real to half-spectrum, or back.
enum class Kind { c2c, r2c, c2r };

/// FFTW's threaded 2D plan of precision R: planned once, executed with run().
template <class R> class FftwPeer {
public:
    using Plan = std::conditional_t<std::is_same_v<R, float>, fftwf_plan, fftw_plan>;
    /// n0 = 0: the 1D transform of n1 points.
    FftwPeer(Kind kind, int n0, int n1, void* in, void* out, int threads, unsigned flags)
    {
        if constexpr (std::is_same_v<R, float>) {
            fftwf_init_threads();
            fftwf_plan_with_nthreads(threads);
            plan_ =
                n0 == 0             ? fftwf_plan_dft_1d(n1, static_cast<fftwf_complex*>(in),
                                                        static_cast<fftwf_complex*>(out), FFTW_FORWARD, flags)
                : kind == Kind::r2c ? fftwf_plan_dft_r2c_2d(n0, n1, static_cast<float*>(in),
                                                            static_cast<fftwf_complex*>(out), flags)
                : kind == Kind::c2r
                    ? fftwf_plan_dft_c2r_2d(n0, n1, static_cast<fftwf_complex*>(in),
                                            static_cast<float*>(out), flags)
                    : fftwf_plan_dft_2d(n0, n1, static_cast<fftwf_complex*>(in),
                                        static_cast<fftwf_complex*>(out), FFTW_FORWARD, flags);
        } else {
            fftw_init_threads();
            fftw_plan_with_nthreads(threads);
            plan_ = n0 == 0 ? fftw_plan_dft_1d(n1, static_cast<fftw_complex*>(in),
                                               static_cast<fftw_complex*>(out), FFTW_FORWARD, flags)
                    : kind == Kind::r2c
                        ? fftw_plan_dft_r2c_2d(n0, n1, static_cast<double*>(in),
                                               static_cast<fftw_complex*>(out), flags)
                    : kind == Kind::c2r
                        ? fftw_plan_dft_c2r_2d(n0, n1, static_cast<fftw_complex*>(in),
                                               static_cast<double*>(out), flags)
                        : fftw_plan_dft_2d(n0, n1, static_cast<fftw_complex*>(in),
                                           static_cast<fftw_complex*>(out), FFTW_FORWARD, flags);
        }
        require(plan_ != nullptr, "fft2d: FFTW could not plan the peer's transform");
    }
    ~FftwPeer()
    {
        if constexpr (std::is_same_v<R, float>)
            fftwf_destroy_plan(plan_);
        else
            fftw_destroy_plan(plan_);
    }
    FftwPeer(FftwPeer const&) = delete;
    FftwPeer& operator=(FftwPeer const&) = delete;
    void run() const
    {
        if constexpr (std::is_same_v<R, float>)
            fftwf_execute(plan_);
        else
            fftw_execute(plan_);
    }

private:
    Plan plan_;
};

/// ||y - ref||_2 / ||ref||_2 (T real or complex).
template <class T> double relative_error(std::vector<T> const& y, std::vector<T> const& ref)
{
    long double num = 0, den = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        num += std::norm(std::complex<long double>(y[i]) - std::complex<long double>(ref[i]));
        den += std::norm(std::complex<long double>(ref[i]));
    }
    return double(std::sqrt(num / den));
}

/// `half` (n x (n/2 + 1)) = the 2D half-spectrum of n x n random reals, FFTW's r2c of them,
/// so that c2r transforms a spectrum with the symmetry of a real array.
template <class R>
void half_spectrum_of_random_reals(int n, std::vector<Cx<R>>& half, std::mt19937_64& g)
{
    std::vector<R> reals(std::size_t(n) * std::size_t(n));
    std::uniform_real_distribution<R> u(-1, 1);
    for (auto& v : reals) v = u(g);
    FftwPeer<R>(Kind::r2c, n, n, reals.data(), half.data(), 1, FFTW_ESTIMATE).run();
}

/// fft2d (one_d false): n x n arrays; fft1d: n points.
template <class R> int run_fft(Options const& o, Report& report, bool one_d)
{
    const auto ns = o.integers("n", one_d ? std::vector<int64_t>{1 << 20, 1 << 22, 1 << 24}
                                          : std::vector<int64_t>{1024, 2048, 4096, 8192});
    const auto kinds = one_d ? std::vector<std::string>{"c2c"} : o.list("kind", {"c2c", "r2c"});
    const int64_t reps = o.integer("reps", 3), peer_reps = o.integer("peer-reps", reps);
    const std::string flags_text = o.text("flags", "measure");
    require(flags_text == "measure" || flags_text == "estimate",
            "--flags must be measure or estimate, not '" + flags_text + "'");
    const unsigned flags = flags_text == "measure" ? FFTW_MEASURE : FFTW_ESTIMATE;
    const std::optional<int> ncpus = o.given_integer("ncpus"), ncuda = o.given_integer("ncuda");
    const int nemu = int(o.integer("nemu", 0));
    const auto scheds = o.policies({"dmdas"});
    require(reps >= 1 && peer_reps >= 1, "--reps and --peer-reps must be >= 1");
    for (int64_t n : ns)
        require(n >= 1 && n <= (one_d ? int64_t(1) << 30 : 65536),
                one_d ? "--n must be between 1 and 2^30" : "--n must be between 1 and 65536");
    for (auto const& k : kinds)
        require(k == "c2c" || k == "r2c" || k == "c2r",
                "--kind must be c2c, r2c or c2r, not '" + k + "'");
    const std::string letter = std::is_same_v<R, float> ? "s" : "d";

    for (std::string const& kind : kinds)
        for (int64_t n : ns)
            for (std::string const& sched : scheds) {
                const Kind k = kind == "r2c" ? Kind::r2c : kind == "c2r" ? Kind::c2r : Kind::c2c;
                const bool real = k != Kind::c2c;
                const int N = int(n);
                const std::size_t points = one_d ? std::size_t(n) : std::size_t(n) * std::size_t(n);
                const std::size_t half = std::size_t(n) * std::size_t(n / 2 + 1);
                // complex input (c2c, c2r's half-spectrum), real input (r2c); the outputs alike
                std::vector<Cx<R>> in_c(k == Kind::c2c ? points : k == Kind::c2r ? half : 0);
                std::vector<Cx<R>> out(k == Kind::c2c   ? points
                                       : k == Kind::r2c ? half
                                                        : 0),
                    peer_out(out.size());
                std::vector<R> in_r(k == Kind::r2c ? points : 0),
                    out_r(k == Kind::c2r ? points : 0), peer_out_r(out_r.size());
                std::mt19937_64 g(42);
                std::uniform_real_distribution<R> u(-1, 1);
                if (k == Kind::c2r)
                    half_spectrum_of_random_reals<R>(N, in_c, g);
                else
                    for (auto& v : in_c) v = {u(g), u(g)};
                for (auto& v : in_r) v = u(g);
                void* in = k == Kind::r2c ? static_cast<void*>(in_r.data())
                                          : static_cast<void*>(in_c.data());
                void* peer_result = k == Kind::c2r ? static_cast<void*>(peer_out_r.data())
                                                   : static_cast<void*>(peer_out.data());

                la::finalize();
                la::init({.ncpus = ncpus,
                          .scheduler = scheduler_of(sched),
                          .nemu = nemu,
                          .ncuda = ncuda});
                const int workers = int(la::runtime().worker_count());
                [[maybe_unused]] unsigned gpus = 0;
                for (unsigned w = 0; w < la::runtime().worker_count(); ++w)
                    gpus += la::runtime().worker(rt::WorkerId(w)).arch == rt::Arch::cuda;
                const unsigned plan_flags = flags_text == "measure" ? fft::measure : fft::estimate;
                auto plan =
                    one_d ? fft::Plan<R>::dft_1d(n, in_c.data(), out.data(), fft::Sign::forward,
                                                 plan_flags)
                    : k == Kind::r2c
                        ? fft::Plan<R>::dft_r2c_2d(n, n, in_r.data(), out.data(), plan_flags)
                    : k == Kind::c2r
                        ? fft::Plan<R>::dft_c2r_2d(n, n, in_c.data(), out_r.data(), plan_flags)
                        : fft::Plan<R>::dft_2d(n, n, in_c.data(), out.data(), fft::Sign::forward,
                                               plan_flags);
                // FFTW's plan with Tessera's workers asleep (they never spin): FFTW_MEASURE
                // overwrites the arrays while planning, so the input is restored after it
                std::vector<Cx<R>> save_c = in_c;
                std::vector<R> save_r = in_r;
                FftwPeer<R> fftw(k, one_d ? 0 : N, N, in, peer_result, workers, flags);
                in_c = save_c;
                in_r = save_r;
                // c2r destroys its input: each execute of either side starts from a copy
                const auto fresh_input = [&] {
                    if (k == Kind::c2r) in_c = save_c;
                };
                // Interleaved, a warm-up of each first: on this shared machine the load drifts
                // over a run, and both sides then see the same drift.
                std::vector<double> times, peer;
                for (int64_t r = 0; r <= std::max(reps, peer_reps); ++r) {
                    if (r <= reps) {
                        fresh_input();
                        const double t = seconds_of([&] { plan.execute(); });
                        if (r > 0) times.push_back(t);
                    }
                    if (r <= peer_reps) {
                        fresh_input();
                        const double t = seconds_of([&] { fftw.run(); });
                        if (r > 0) peer.push_back(t);
                    }
                }
                la::finalize();
                const double flops =
                    (real ? 2.5 : 5.0) * double(points) * std::log2(double(points));
                Result res;
                res.bench = one_d ? "fft1d" : "fft2d";
                res.variant = letter + "fft_" + (one_d ? "1d" : kind);
                res.labels = {{"sched", sched.empty() ? "default" : sched},
                              {"workers", std::to_string(workers)},
                              {"flags", flags_text}};
                res.sizes = {{"n", double(n)}};
                res.seconds = median(times);
                res.gflops = flops / res.seconds * 1e-9;
                res.peer = std::string("fftw") + (std::is_same_v<R, float> ? "f" : "") + "_" +
                           kind + (one_d ? "_1d_threads" : "_2d_threads");
                res.peer_seconds = median(peer);
                res.peer_gflops = flops / res.peer_seconds * 1e-9;
                res.ratio = res.peer_seconds / res.seconds;
                res.residual =
                    (k == Kind::c2r ? relative_error(out_r, peer_out_r)
                                    : relative_error(out, peer_out)) /
                    (std::log2(double(points)) * double(std::numeric_limits<R>::epsilon()));
#if TESSERA_HAVE_CUDA
                if (gpus > 0 && !real &&
                    !one_d) {  // cuFFT on data already on the GPU, copies not timed
                    const double gpu = bench::gpu::fft2d_seconds<R>(n, n, in_c.data(), reps);
                    res.labels.push_back({"gpus", std::to_string(gpus)});
                    res.labels.push_back(
                        {"gpu_peer", std::is_same_v<R, float> ? "cufftExecC2C" : "cufftExecZ2Z"});
                    res.extra.push_back({"gpu_peer_seconds", gpu});
                    res.extra.push_back({"gpu_peer_gflops", flops / gpu * 1e-9});
                    res.extra.push_back({"gpu_ratio", gpu / res.seconds});
                }
#endif
                report.add(res);
            }
    return 0;
}

/// The subcommand's --precision: float or double.
int run_precision(Options const& o, Report& r, bool one_d)
{
    const std::string p = o.text("precision", "d");
    if (p == "s") return run_fft<float>(o, r, one_d);
    require(p == "d", "--precision must be s or d, not '" + p + "'");
    return run_fft<double>(o, r, one_d);
}

Register fft2d_reg{
    {"fft2d",
     "2D FFT of an n x n array (a plan's execute) against FFTW's threaded 2D plan: GFlop/s, ratio",
     "tessera-bench fft2d [--n 1024,2048,4096,8192] [--precision s|d] [--kind c2c,r2c,c2r] "
     "[--flags measure|estimate] [--sched dmdas,ws,...] [--ncpus k] [--nemu k] [--ncuda k] "
     "[--reps 3] [--peer-reps reps] [--json]",
     {"n", "precision", "kind", "flags", "sched", "ncpus", "nemu", "ncuda", "reps", "peer-reps"},
     [](Options const& o, Report& r) { return run_precision(o, r, false); }}};
Register fft1d_reg{
    {"fft1d",
     "1D FFT of n points (a plan's execute: the four-step's tasks) against FFTW's threaded 1D plan",
     "tessera-bench fft1d [--n 1048576,4194304,16777216] [--precision s|d] [--flags "
     "measure|estimate] "
     "[--sched dmdas,...] [--ncpus k] [--nemu k] [--ncuda k] [--reps 3] [--peer-reps reps] "
     "[--json]",
     {"n", "precision", "flags", "sched", "ncpus", "nemu", "ncuda", "reps", "peer-reps"},
     [](Options const& o, Report& r) { return run_precision(o, r, true); }}};

}  // namespace
}  // namespace tessera::bench
