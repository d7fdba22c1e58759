// The library's runtime for the LAPACK-style and C APIs, started on first use, and the
// automatic tile size.
#include <tessera/la/context.hpp>

#include <tessera/error.hpp>

#include "linalg/lapack/strips.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <thread>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

namespace tessera::inline la {

namespace {
struct Library {
    std::mutex m;
    std::unique_ptr<rt::Runtime> rt;
    ~Library() { rt.reset(); }  // at exit: waits for the tasks, stops the workers
};
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
    require(!lib.rt, "tessera::init: the runtime is already running (call tessera::finalize first)");
    lib.rt = std::make_unique<rt::Runtime>(std::move(config));
}

void finalize() noexcept
{
    Library& lib = library();
    std::unique_ptr<rt::Runtime> r;
    {
        std::lock_guard lock(lib.m);
        r = std::move(lib.rt);
    }
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

void set_tile_size(int64_t nb)
{
    require(nb >= 0, "set_tile_size: nb = " + std::to_string(nb) + " must be >= 0 (0: automatic)");
    tile_size_override.store(nb, std::memory_order_relaxed);
}

bool tile_size_is_set() noexcept { return tile_size_override.load(std::memory_order_relaxed) != 0; }

int64_t tile_size(Routine routine, char precision, int64_t n)
{
    if (int64_t nb = tile_size_override.load(std::memory_order_relaxed)) return nb;
    // The best tile sizes of dpotrf measured with tessera-bench on 2 cores (docs/tile-size.md):
    // a tile must be large for OpenBLAS to run near its peak inside a task (a 768 tile gemm
    // runs 20% faster than a 256 one), yet small enough to leave every worker work on the
    // critical path of the factorization, so the best size grows with n.
    struct Point {
        double n, nb;
    };
    static constexpr Point measured[] = {{1000, 192}, {2000, 320}, {4000, 512}, {8000, 768}, {16000, 1024}};
    const double x = double(std::max<int64_t>(n, 1));
    double nb = measured[0].nb;
    for (std::size_t i = 1; i < std::size(measured); ++i)
        if (x >= measured[i - 1].n) {  // log-log interpolation, flat beyond the ends
            const double t = std::min(1.0, std::log(x / measured[i - 1].n) / std::log(measured[i].n / measured[i - 1].n));
            nb = measured[i - 1].nb * std::pow(measured[i].nb / measured[i - 1].nb, t);
        }
    // More workers need more tiles: the same critical path shared by more units.
    const unsigned workers = initialized() ? runtime().worker_count() : std::max(1u, std::thread::hardware_concurrency());
    nb *= std::sqrt(2.0 / std::max(2u, workers));
    // Single precision needs more work per tile for the same speed (zpotrf at n = 4000 ran
    // best with the double-precision size: 512 gave 0.99x LAPACKE, 384 only 0.89x).
    if (precision == 's') nb *= 1.25;
    // A triangular solve has n/nb steps of little work each: smaller tiles keep both busy.
    if (routine == Routine::potrs) nb = std::max(192.0, nb * 0.5);
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
    // Round to a multiple of 32 (SIMD- and cache-friendly); at least 3 tile rows when possible.
    int64_t result = std::max<int64_t>(32, int64_t(nb + 16) / 32 * 32);
    return std::max<int64_t>(1, std::min(result, std::max<int64_t>(32, (n + 2) / 3)));
}

}  // namespace tessera::la
