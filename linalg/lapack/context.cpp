// The library's runtime for the LAPACK-style and C APIs, started on first use, and the
// automatic tile size.
#include <tessera/la/context.hpp>

#include <tessera/error.hpp>

#include <algorithm>
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

int64_t tile_size(Routine routine, char precision, int64_t n)
{
    if (int64_t nb = tile_size_override.load(std::memory_order_relaxed)) return nb;
    // Measured on the 2-core reference machine with tessera-bench (docs/tile-size.md): the
    // tile must be large enough for BLAS to run near its peak (256-320 in double, larger in
    // single whose kernels need more work per byte, smaller in complex whose tiles weigh 2x
    // and do 4x the flops), and small enough that the matrix has a few tiles per worker.
    const bool complex = precision == 'c' || precision == 'z';
    int64_t best = precision == 's' ? 384 : complex ? 192 : 288;
    if (routine == Routine::gemm || routine == Routine::symm) best += best / 3;  // no critical path
    // Small matrices: at least 3 tile rows so that the workers have something to share.
    const int64_t small = std::max<int64_t>(32, (n + 2) / 3);
    return std::max<int64_t>(1, std::min(best, small));
}

}  // namespace tessera::la
