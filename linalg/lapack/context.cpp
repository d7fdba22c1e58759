// The library's runtime for the LAPACK-style and C APIs, started on first use, and the
// automatic tile size.
#include <tessera/la/context.hpp>

#include <tessera/error.hpp>

#include "linalg/lapack/library_call.hpp"
#include "linalg/lapack/strips.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace tessera::inline la {

namespace {
struct Library {
    std::mutex m;
    std::condition_variable changed;  // `calls` dropped to 0, or a finalize() ended
    std::unique_ptr<rt::Runtime> rt;
    int64_t calls = 0;          // LAPACK-style calls holding rt (detail::LibraryCall)
    bool finalizing = false;    // a finalize() waits for the calls: new ones wait for it
    ~Library() { rt.reset(); }  // at exit: waits for the tasks, stops the workers
};
thread_local int calls_on_this_thread = 0;  // LibraryCall nesting (posv's potrf)
Library& library()
{
    static Library lib;
    return lib;
}
std::atomic<int64_t> tile_size_override{0};
}  // namespace

void init(rt::RuntimeConfig config)
{
    Library& lib = library();
    std::lock_guard lock(lib.m);
    require(!lib.rt,
            "tessera::init: the runtime is already running (call tessera::finalize first)");
    lib.rt = std::make_unique<rt::Runtime>(std::move(config));
}

void finalize() noexcept
{
    Library& lib = library();
    std::unique_ptr<rt::Runtime> r;
    {
        std::unique_lock lock(lib.m);
        lib.changed.wait(lock, [&] { return !lib.finalizing; });  // another finalize() first
        lib.finalizing =
            true;  // new calls wait: a steady stream of them would never let calls reach 0
        lib.changed.wait(lock, [&] { return lib.calls == 0; });
        r = std::move(lib.rt);
        lib.finalizing = false;
    }
    lib.changed.notify_all();
    // Stopped outside the lock: its tasks may still ask for the library's runtime.
    r.reset();
}

bool initialized() noexcept
{
    Library& lib = library();
    std::lock_guard lock(lib.m);
    return lib.rt != nullptr;
}

rt::Runtime& runtime()
{
    Library& lib = library();
    std::lock_guard lock(lib.m);
    if (!lib.rt) lib.rt = std::make_unique<rt::Runtime>();
    return *lib.rt;
}

detail::LibraryCall::LibraryCall(char const* routine) : traced_(routine)
{
    Library& lib = library();
    std::unique_lock lock(lib.m);
    if (calls_on_this_thread == 0) lib.changed.wait(lock, [&] { return !lib.finalizing; });
    if (!lib.rt) lib.rt = std::make_unique<rt::Runtime>();
    rt_ = lib.rt.get();
    ++lib.calls;
    ++calls_on_this_thread;
}

detail::LibraryCall::~LibraryCall()
{
    Library& lib = library();
    --calls_on_this_thread;
    std::lock_guard lock(lib.m);
    if (--lib.calls == 0) lib.changed.notify_all();
}

bool detail::inside_library_call() noexcept
{
    return calls_on_this_thread > 0;
}

void set_tile_size(int64_t nb)
{
    if (nb < 0)
        throw InvalidArgument("set_tile_size: nb = " + std::to_string(nb) +
                              " must be >= 0 (0: automatic)");
    tile_size_override.store(nb, std::memory_order_relaxed);
}

bool tile_size_is_set() noexcept
{
    return tile_size_override.load(std::memory_order_relaxed) != 0;
}

namespace {
/// A best tile size measured with tessera-bench on the 2-core reference machine
/// (docs/tile-size.md): nb at order n.
struct MeasuredBest {
    double n, nb;
};
// dpotrf: a tile must be large for OpenBLAS to run near its peak inside a task (a 768 tile
// gemm runs 20% faster than a 256 one), yet small enough to leave every worker work on the
// critical path of the factorization, so the best size grows with n. posv (a factorization
// and a solve) has the same best sizes.
constexpr MeasuredBest cholesky_best[] = {
    {1000, 192}, {2000, 320}, {4000, 512}, {8000, 768}, {16000, 1024}};
// dpotri: trtri and lauum run a trsm or trmm on every off-diagonal tile, slower per flop
// than gemm, and the diagonal tiles' trtri runs at half of gemm's speed: fewer, larger tiles
// win once the matrix has enough of them.
constexpr MeasuredBest inverse_best[] = {{1000, 192}, {2000, 512}, {4000, 768}, {8000, 1024}};
// dgeqrf (the compact form): a panel is a whole column of tiles, factored by one SPMD task,
// and each update applies its kb reflectors at once (gemm's inner dimension kb): 192 already
// runs gemqrt near gemm's speed, while larger panels lengthen the critical path.
constexpr MeasuredBest qr_best[] = {{500, 64}, {1000, 96}, {2000, 128}, {4000, 192}, {8000, 224}};

/// nb at order n, interpolated in log-log between the measured points, flat beyond the ends.
template <std::size_t N> double interpolate(MeasuredBest const (&best)[N], double n)
{
    double nb = best[0].nb;
    for (std::size_t i = 1; i < N; ++i)
        if (n >= best[i - 1].n) {
            const double t =
                std::min(1.0, std::log(n / best[i - 1].n) / std::log(best[i].n / best[i - 1].n));
            nb = best[i - 1].nb * std::pow(best[i].nb / best[i - 1].nb, t);
        }
    return nb;
}

bool has_cuda_workers(rt::Runtime& rt)
{
    for (unsigned w = 0; w < rt.worker_count(); ++w)
        if (rt.worker(rt::WorkerId(w)).arch == rt::Arch::cuda) return true;
    return false;
}
}  // namespace

int64_t tile_size(Routine routine, [[maybe_unused]] char precision, int64_t n)
{
    if (int64_t nb = tile_size_override.load(std::memory_order_relaxed)) return nb;
    const double x = double(std::max<int64_t>(n, 1));
    const bool inverse =
        routine == Routine::potri || routine == Routine::getri;  // getri: potri's until measured
    double nb = inverse                     ? interpolate(inverse_best, x)
                : routine == Routine::geqrf ? interpolate(qr_best, x)
                                            : interpolate(cholesky_best, x);
    // More workers need more tiles: the same critical path shared by more units.
    const unsigned workers = initialized() ? runtime().worker_count()
                                           : std::max(1u, std::thread::hardware_concurrency());
    nb *= std::sqrt(2.0 / std::max(2u, workers));
    // The precision does not move the best size: spotrf ran best with dpotrf's sizes (192,
    // 256, 384 to 768, 768 at n = 1000 to 8000), and zpotrf at n = 4000 with 512 (0.99x
    // LAPACKE, 384 only 0.89x).
    // A triangular solve has n/nb steps of little work each: smaller tiles keep both busy.
    // getrf, getrs and gesv take the Cholesky family's sizes until their own are measured.
    if (routine == Routine::potrs || routine == Routine::getrs) nb = std::max(192.0, nb * 0.5);
    // gemm has no critical path: the LAPACK-style gemm gives each task whole rows of A and
    // columns of B (linalg/lapack/gemm.cpp). On cores alone, C is cut into one strip per
    // worker (strips.hpp). With accelerators, t x t tiles of C with t^2 >= 4 workers and a
    // multiple of them (every worker gets as many) are enough.
    if (routine == Routine::gemm) {
        if (initialized())
            if (const int64_t width = detail::strip_width(runtime(), n)) return width;
        const unsigned w = std::max(1u, workers);
        auto t = unsigned(std::ceil(std::sqrt(4.0 * w)));
        while ((t * t) % w != 0) ++t;
        return std::max<int64_t>(std::min<int64_t>(n, 32), (n + t - 1) / t);
    }
    // A GPU runs a tile's kernel in tens of microseconds, near the cost of scheduling it, and
    // reaches its speed only on large tiles: at least 960 (the tile size of the seeds' GPU
    // experiments, thesis chapter 7), however many CPU workers share the machine. Not yet
    // measured on a GPU (docs/gpu-validation.md).
    if (initialized() && has_cuda_workers(runtime())) nb = std::max(nb, double(gpu_min_tile_size));
    // Round to a multiple of 32 (SIMD- and cache-friendly); at least 3 tile rows when possible.
    int64_t result = std::max<int64_t>(32, int64_t(nb + 16) / 32 * 32);
    return std::max<int64_t>(1, std::min(result, std::max<int64_t>(32, (n + 2) / 3)));
}

int64_t tile_size(Routine routine, char precision, int64_t m, int64_t n)
{
    // m = 20000 on 2 cores, against LAPACKE: n = 100, 0.74x as one panel (the recursive kernel,
    // its tiles shared by the ranks), 0.32x as 3 tile columns; n = 200, 1.02x against 0.81x;
    // but n = 256, 0.86x against 0.92x (docs/benchmarks.md).
    if (routine == Routine::getrf && !tile_size_is_set() && n >= 1 && n <= 200 && m >= 4 * n)
        return n;
    // The same for geqrf: m = 100000, n = 200 on 2 cores, 1.54x LAPACKE as one panel, 1.34x
    // as two.
    if (routine == Routine::geqrf && !tile_size_is_set() && n >= 1 && n <= 256 && m >= 4 * n)
        return n;
    return tile_size(routine, precision, std::min(m, n));
}

}  // namespace tessera::inline la
