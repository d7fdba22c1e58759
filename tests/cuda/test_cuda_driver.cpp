// The CUDA driver on a GPU: workers and memory nodes, coherency between the host, an
// emulated device and the GPU, transfers overlapping kernels, eviction on a GPU capped at a
// few tiles, HEFT counting the tasks a GPU has in flight, a cuBLAS GEMM codelet against
// OpenBLAS, device errors reaching the wait, write-backs that fail (simulator only), the bus
// calibration and user arrays page-locked while GPUs copy them. They run on a real GPU, or on
// the CUDA simulator in a -DTESSERA_ENABLE_CUDA=SIM tree (tests/cudasim/sim.hpp). Without
// either, every test is reported as skipped (ctest: "Skipped").
#include "common/decision_log.hpp"
#include "common/runtime_sweep.hpp"  // Gate
#include "common/temp_dir.hpp"
#include "cuda/test_kernels.hpp"
#include "runtime/data/coherency.hpp"            // gather_home_attempts
#include "runtime/drivers/cuda/cuda_driver.hpp"  // cuda_tasks_in_flight
#include "runtime/trace/trace_file.hpp"
#if TESSERA_CUDA_SIM
#include "tests/cudasim/sim.hpp"
#endif

#include <tessera/error.hpp>
#include <tessera/rt/cuda.hpp>
#include <tessera/tessera.hpp>

#include <cblas.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <complex>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

namespace {

namespace rt = tessera::rt;
using clock_type = std::chrono::steady_clock;

// ---- codelets with a CPU and a CUDA implementation ---------------------------------------------

void fill_cpu(rt::Vector<double> v, double x)
{
    for (auto& e : v) e = x;
}
void fill_cuda(rt::CudaContext const& c, rt::Vector<double> v, double x)
{
    tessera_test::launch_fill(v.ptr, v.n, x, c.stream);
}
void add_cpu(rt::Vector<double> v, double x)
{
    for (auto& e : v) e += x;
}
void add_cuda(rt::CudaContext const& c, rt::Vector<double> v, double x)
{
    tessera_test::launch_add(v.ptr, v.n, x, c.stream);
}
void check_cpu(rt::Vector<const double> v, double x, rt::Variable<int64_t> mismatches)
{
    for (double e : v) *mismatches += (e != x);
}
void check_cuda(rt::CudaContext const& c, rt::Vector<const double> v, double x,
                rt::Variable<int64_t> mismatches)
{
    tessera_test::launch_count_mismatches(v.ptr, v.n, x, mismatches.ptr, c.stream);
}

const rt::Codelet<rt::Vector<double>, double> fill_cl{
    .name = "cuda_test_fill", .cpu = &fill_cpu, .cuda = &fill_cuda};
const rt::Codelet<rt::Vector<double>, double> add_cl{
    .name = "cuda_test_add", .cpu = &add_cpu, .cuda = &add_cuda};
const rt::Codelet<rt::Vector<double>, double> add_gpu_only_cl{
    .name = "cuda_test_add_gpu_only", .where = rt::ArchMask::cuda, .cuda = &add_cuda};
const rt::Codelet<rt::Vector<const double>, double, rt::Variable<int64_t>> check_cl{
    .name = "cuda_test_check", .cpu = &check_cpu, .cuda = &check_cuda};

/// True in a tree built on the CUDA simulator (-DTESSERA_ENABLE_CUDA=SIM), whose "GPU" is host
/// threads: the tests that time a real GPU's link and kernels relax their figures there.
#if TESSERA_CUDA_SIM
constexpr bool simulated_gpu = true;
// two simulated GPUs (read at the first CUDA call): the tests that ask for one get the first
const bool two_simulated_gpus = setenv("TESSERA_CUDASIM_DEVICES", "2", 0) == 0;
#else
constexpr bool simulated_gpu = false;
#endif

/// The first CUDA worker, or skips the test.
#define REQUIRE_GPU(r, w)                                                                          \
    rt::WorkerId w = 0;                                                                            \
    {                                                                                              \
        bool found = false;                                                                        \
        for (rt::WorkerId k = 0; k < (r).worker_count() && !found; ++k)                            \
            if ((r).worker(k).arch == rt::Arch::cuda) w = k, found = true;                         \
        if (!found) GTEST_SKIP() << "no GPU: the CUDA driver's tests need one";                    \
    }

rt::RuntimeConfig config(int nemu = 0, std::optional<std::string> cuda_memory = std::nullopt)
{
    return {.ncpus = 1,
            .scheduler = "dmdas",
            .nemu = nemu,
            .ncuda = 1,
            .cuda_memory = cuda_memory,
            .perfmodel_dir = "none"};
}

TEST(CudaDriver, EachGpuIsAWorkerAndAMemoryNode)
{
    rt::Runtime r{config()};
    REQUIRE_GPU(r, gpu);
    auto nodes = r.memory_nodes();
    int node = r.worker(gpu).memory_node;
    ASSERT_LT(std::size_t(node), nodes.size());
    EXPECT_EQ(nodes[std::size_t(node)].kind, rt::NodeKind::cuda);
    EXPECT_GT(nodes[std::size_t(node)].capacity, 0u);
    EXPECT_EQ(r.worker(0).arch, rt::Arch::cpu);
}

// Write on each worker's node (host core, emulated device, GPU), read on every other node.
TEST(CudaDriver, CoherencyBetweenHostEmulatedAndGpu)
{
    rt::Runtime r{config(1)};
    REQUIRE_GPU(r, gpu);
    ASSERT_EQ(r.worker_count(), 3u);  // a core, the emulated device, the GPU
    ASSERT_EQ(r.worker(gpu).memory_node, 2);
    std::vector<double> x(100000, 0.0);
    int64_t mismatches = 0;
    rt::Handle hx{r, rt::Vector<double>{x.data(), int64_t(x.size())}};
    rt::Handle hm{r, rt::Variable<int64_t>{&mismatches}};
    double value = 0;
    for (unsigned writer = 0; writer < r.worker_count(); ++writer)
        for (unsigned reader = 0; reader < r.worker_count(); ++reader) {
            value += 1;
            r.submit(fill_cl, write(hx), rt::value(value), rt::on_worker(writer));
            r.submit(check_cl, read(hx), rt::value(value), readwrite(hm), rt::on_worker(reader));
        }
    // a read-modify-write chain hopping across the three nodes
    for (int i = 0; i < 60; ++i)
        r.submit(add_cl, readwrite(hx), rt::value(1.0), rt::on_worker(unsigned(i % 3)));
    r.wait_all();
    hm.unregister();
    EXPECT_EQ(mismatches, 0);
    hx.unregister();
    for (double e : x) ASSERT_EQ(e, value + 60);
}

// A span parameter on a GPU: each element of the span is a buffer of its own on the GPU's node
// (fetched, written back, evicted like a single buffer). A GPU of 64 KB holds one span of
// 4 x 16 KB at a time, so that each task evicts what the one before left; a chain of overlapping
// spans hopping between the core and the GPU gives the sequential result.
void add_all_cpu(rt::Span<rt::Vector<double>> vs, double x)
{
    for (rt::Vector<double> v : vs) add_cpu(v, x);
}
void add_all_cuda(rt::CudaContext const& c, rt::Span<rt::Vector<double>> vs, double x)
{
    for (rt::Vector<double> v : vs) add_cuda(c, v, x);
}
const rt::Codelet<rt::Span<rt::Vector<double>>, double> add_all_cl{
    .name = "cuda_test_add_all", .cpu = &add_all_cpu, .cuda = &add_all_cuda};

TEST(CudaDriver, SpanElementsMoveAndAreEvictedOneByOne)
{
    rt::Runtime r{config(0, "64KB")};
    REQUIRE_GPU(r, gpu);
    constexpr std::size_t nvec = 10, len = 2048;  // 16 KB each
    std::vector<std::vector<double>> x(nvec, std::vector<double>(len, 0.0));
    std::vector<double> want(nvec, 0.0);
    {
        std::vector<rt::Handle<rt::Vector<double>>> h;
        for (auto& v : x) h.emplace_back(r, rt::Vector<double>{v.data(), int64_t(len)});
        std::mt19937 rng(3);
        for (int t = 0; t < 40; ++t) {
            std::vector<rt::Handle<rt::Vector<double>>*> span;
            while (span.size() < 4) {
                std::size_t j = rng() % nvec;
                if (std::find(span.begin(), span.end(), &h[j]) == span.end()) span.push_back(&h[j]);
            }
            for (auto* e : span) want[std::size_t(e - h.data())] += t;
            r.submit(add_all_cl, rt::readwrite_all(span), rt::value(double(t)),
                     rt::on_worker(t % 3 == 0 ? 0 : gpu));
        }
        r.wait_all();
    }
    for (std::size_t j = 0; j < nvec; ++j)
        for (double e : x[j]) ASSERT_EQ(e, want[j]) << "vector " << j;
}

/// The runtime's CUDA workers.
std::vector<rt::WorkerId> cuda_workers(rt::Runtime& r)
{
    std::vector<rt::WorkerId> gpus;
    for (rt::WorkerId w = 0; w < r.worker_count(); ++w)
        if (r.worker(w).arch == rt::Arch::cuda) gpus.push_back(w);
    return gpus;
}

// Two GPUs: data written on one is read on the other, and a read-modify-write chain hops
// between them. Where the GPUs have peer access, the copies between them go directly (the
// link between their two nodes carries them), else through the host. On the CUDA simulator
// this file asks for two devices (TESSERA_CUDASIM_DEVICES=2), with peer access.
TEST(CudaDriver, CoherencyBetweenTwoGpus)
{
    rt::RuntimeConfig two = config();
    two.ncuda = 2;
    rt::Runtime r{two};
    std::vector<rt::WorkerId> gpus = cuda_workers(r);
    if (gpus.size() < 2) GTEST_SKIP() << "needs two GPUs";
    std::vector<double> x(50000, 0.0);
    int64_t mismatches = 0;
    {
        rt::Handle hx{r, rt::Vector<double>{x.data(), int64_t(x.size())}};
        rt::Handle hm{r, rt::Variable<int64_t>{&mismatches}};
        r.submit(fill_cl, write(hx), rt::value(1.0), rt::on_worker(gpus[0]));
        r.submit(check_cl, read(hx), rt::value(1.0), readwrite(hm), rt::on_worker(gpus[1]));
        for (int i = 0; i < 20; ++i)
            r.submit(add_cl, readwrite(hx), rt::value(1.0),
                     rt::on_worker(gpus[std::size_t(i % 2)]));
        r.submit(check_cl, read(hx), rt::value(21.0), readwrite(hm), rt::on_worker(gpus[0]));
        r.wait_all();
    }
    EXPECT_EQ(mismatches, 0);
    for (double e : x) ASSERT_EQ(e, 21.0);

    int a = r.worker(gpus[0]).memory_node, b = r.worker(gpus[1]).memory_node, ordinal_a = 0,
        ordinal_b = 1;
    int peer = 0;
    ASSERT_EQ(cudaDeviceCanAccessPeer(&peer, ordinal_a, ordinal_b), cudaSuccess);
    uint64_t direct = 0;
    for (rt::LinkStats const& l : r.link_stats())
        if ((int(l.src) == a && int(l.dst) == b) || (int(l.src) == b && int(l.dst) == a))
            direct += l.transfers;
    if (peer)
        EXPECT_GE(direct, 20u) << "peer access: the chain's copies go from GPU to GPU";
    else
        EXPECT_EQ(direct, 0u) << "no peer access: copies go through the host";
}

// While a 0.3 s kernel runs, the next task's 32 MB are copied in and the task is launched
// behind it: its implementation is called well before the kernel can have ended. (Were the
// copy to wait for the kernel, the launch would come at least 0.3 s after the first one.) The
// copy takes a few ms on a GPU. On the CUDA simulator copies and first-touch allocations are
// host memcpy and memset, up to 0.2 s under ThreadSanitizer, so the kernel runs 3 s there.
std::atomic<int64_t> spin_launched{0}, touch_launched{0};
constexpr double spin_seconds = simulated_gpu ? 3.0 : 0.3;
int64_t now_ns()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               clock_type::now().time_since_epoch())
        .count();
}

// Keeps the GPU busy for spin_seconds; notes when it was launched.
const rt::Codelet<rt::Vector<double>> spin_cl{
    .name = "cuda_test_spin",
    .where = rt::ArchMask::cuda,
    .cuda = [](rt::CudaContext const& c, rt::Vector<double>) {
        spin_launched = now_ns();
        tessera_test::launch_spin(spin_seconds, c.stream);
    }};
// v += 1; notes when it was launched.
const rt::Codelet<rt::Vector<double>> touch_cl{
    .name = "cuda_test_touch",
    .where = rt::ArchMask::cuda,
    .cuda = [](rt::CudaContext const& c, rt::Vector<double> v) {
        touch_launched = now_ns();
        tessera_test::launch_add(v.ptr, v.n, 1.0, c.stream);
    }};
/// Seconds from the spin task's launch to the touch task's.
double touch_after_spin()
{
    return double(touch_launched - spin_launched) * 1e-9;
}

TEST(CudaDriver, TransfersOverlapKernels)
{
    rt::Runtime r{config()};
    REQUIRE_GPU(r, gpu);
    std::vector<double> small(16, 0.0), big(std::size_t(4) << 20, 1.0);  // 32 MB to copy in
    rt::Handle hs{r, rt::Vector<double>{small.data(), int64_t(small.size())}};
    rt::Handle hb{r, rt::Vector<double>{big.data(), int64_t(big.size())}};
    r.submit(spin_cl, readwrite(hs), rt::on_worker(gpu));
    r.submit(touch_cl, readwrite(hb), rt::on_worker(gpu));
    r.wait_all();
    EXPECT_GT(touch_after_spin(), 0.0);
    EXPECT_LT(touch_after_spin(), spin_seconds * 2 / 3)
        << "the second task's copy waited for the first task's kernel";
    hb.unregister();
    EXPECT_EQ(big.front(), 2.0);
    EXPECT_EQ(big.back(), 2.0);
}

// ---- HEFT and the tasks in flight ---------------------------------------------------------------

using tessera::test::Gate;
void wait_for_the_gate(void* gate)
{
    tessera::test::gate_cpu(static_cast<Gate*>(gate));
}
// A GPU task of `flops` (1 s per 2e10 at the GPU's default speed before any measurement)
// whose stream waits for the gate.
void gated_cuda(rt::CudaContext const& c, Gate* g, double)
{
    cudaLaunchHostFunc(c.stream, &wait_for_the_gate, g);
}
constexpr auto flops_of_gated = [](Gate* const&, double const& flops) { return flops; };
const rt::Codelet<Gate*, double> gated_gpu_task{.name = "gated_gpu_task",
                                                .where = rt::ArchMask::cuda,
                                                .cuda = &gated_cuda,
                                                .flops = flops_of_gated};
const rt::Codelet<Gate*, double> gated_gpu_probe{.name = "gated_gpu_probe",
                                                 .where = rt::ArchMask::cuda,
                                                 .cuda = &gated_cuda,
                                                 .flops = flops_of_gated};

// A GPU worker starts up to cuda_tasks_in_flight tasks before the first one ends. Ten tasks
// of 1 s are given to the GPU, whose stream is held by a gate: up to 4 start and the others
// wait in the queue. A probe of 1 s placed then is expected to end 11 s after the first
// task started, not 1 s after the last one started plus the queue (8 s): every task started
// and not ended counts in the GPU's expected end.
TEST(CudaDriver, HeftCountsEveryTaskInFlightOnAGpu)
{
    namespace fs = std::filesystem;
    const fs::path log =
        fs::temp_directory_path() / ("tessera-inflight-" + std::to_string(::getpid()) + ".log");
    fs::remove(log);
    {
        rt::RuntimeConfig c = config();
        c.sched_log = log.string();
        rt::Runtime r{c};
        REQUIRE_GPU(r, gpu);
        (void)gpu;  // the policy places the tasks
        Gate g;
        auto opener = g.opener();
        for (int i = 0; i < 10; ++i) r.submit(gated_gpu_task, rt::value(&g), rt::value(2e10));
        ASSERT_TRUE(g.wait_entered());
        std::this_thread::sleep_for(
            std::chrono::milliseconds(50));  // the worker starts the next ones
        r.submit(gated_gpu_probe, rt::value(&g), rt::value(2e10));
        g.open();
        r.wait_all();
        EXPECT_FALSE(g.timed_out.load());
    }
    auto probe = tessera::test::last_decision(log, "gated_gpu_probe");
    fs::remove(log);
    ASSERT_TRUE(probe);
    EXPECT_GT(probe->expected_wait, 10.0)
        << "the GPU's tasks in flight were left out of its expected end";
    EXPECT_LT(probe->expected_wait, 11.1);
}

// x += value after keeping the GPU busy for `seconds`: tasks that stay in flight a while.
void slow_add_cuda(rt::CudaContext const& c, rt::Vector<double> v, double x, double seconds)
{
    tessera_test::launch_spin(seconds, c.stream);
    tessera_test::launch_add(v.ptr, v.n, x, c.stream);
}
const rt::Codelet<rt::Vector<double>, double, double> slow_add_cl{
    .name = "cuda_test_slow_add", .where = rt::ArchMask::cuda, .cuda = &slow_add_cuda};

// Four tasks queued together on the GPU's stream, each a kernel of `kernel` seconds: the trace
// shows each running its own kernel, one after the other (the GPU's events), not from its launch
// to its completion (the host's stamps: 1, 2, 3 and 4 kernels long, all overlapping; seen on an
// H200 as a GPU worker 120% busy, 2026-11-27).
TEST(CudaDriver, TraceShowsWhenTheKernelsRan)
{
    rt::Runtime r{config()};
    REQUIRE_GPU(r, gpu);
    constexpr double kernel = simulated_gpu ? 0.2 : 0.05;
    std::vector<std::vector<double>> v(4, std::vector<double>(16, 0.0));
    std::vector<rt::Handle<rt::Vector<double>>> h;
    for (auto& x : v) h.emplace_back(r, rt::Vector<double>{x.data(), int64_t(x.size())});
    for (auto& x : h) r.submit(add_cl, readwrite(x), rt::value(1.0), rt::on_worker(gpu));
    r.wait_all();  // the data on the GPU, so that the four are queued at once
    tessera::test::TempDir dir;
    const std::string path = (dir.path / "gpu.trace").string();
    r.start_trace(path);
    for (auto& x : h)
        r.submit(slow_add_cl, readwrite(x), rt::value(1.0), rt::value(kernel), rt::on_worker(gpu));
    r.wait_all();
    r.stop_trace();
    const rt::trace::Trace t = rt::trace::read_file(path);
    std::vector<rt::trace::TaskRecord> ran;
    for (rt::trace::TaskRecord const& k : t.tasks)
        if (t.codelets.at(k.codelet) == "cuda_test_slow_add") ran.push_back(k);
    ASSERT_EQ(ran.size(), 4u);
    std::sort(ran.begin(), ran.end(),
              [](auto const& a, auto const& b) { return a.start < b.start; });
    auto seconds = [](int64_t ns) { return double(ns) * 1e-9; };
    const int64_t slack = 200'000;  // the GPU's clock set against the host's: a few µs
    // a spin counts cycles at the GPU's highest clock: it may run longer, the same for all
    int64_t shortest = INT64_MAX;
    for (auto const& k : ran) shortest = std::min(shortest, k.end - k.start);
    EXPECT_GE(seconds(shortest), 0.9 * kernel);
    for (std::size_t i = 0; i < ran.size(); ++i) {
        EXPECT_LT(double(ran[i].end - ran[i].start), 1.5 * double(shortest))
            << "task " << i << " lasts from its launch, not from its kernel's start";
        if (i > 0) {
            EXPECT_GE(ran[i].start + slack, ran[i - 1].end) << "tasks " << i - 1 << ", " << i;
        }
    }
}

// A GPU that may hold 3 tiles serves 8: replicas are evicted (Modified ones written back
// first) and every result is exact. With `kernel_seconds`, each task's kernel lasts that
// long, so that the tasks in flight still hold their tiles when the next one needs room.
void expect_eight_tiles_served(rt::Runtime& r, rt::WorkerId gpu, double kernel_seconds = 0)
{
    constexpr int64_t n = 1 << 17;  // 1 MiB tiles
    std::vector<std::vector<double>> tiles(8, std::vector<double>(n, 0.0));
    {
        std::vector<rt::Handle<rt::Vector<double>>> h;
        for (auto& t : tiles) h.emplace_back(r, rt::Vector<double>{t.data(), n});
        for (int round = 0; round < 5; ++round)
            for (std::size_t i = 0; i < h.size(); ++i)
                if (kernel_seconds > 0)
                    r.submit(slow_add_cl, readwrite(h[i]), rt::value(double(i + 1)),
                             rt::value(kernel_seconds), rt::on_worker(gpu));
                else
                    r.submit(add_cl, readwrite(h[i]), rt::value(double(i + 1)), rt::on_worker(gpu));
        r.wait_all();
        auto nodes = r.memory_nodes();
        auto const& node = nodes[std::size_t(r.worker(gpu).memory_node)];
        EXPECT_GT(node.evictions, 0u);
        EXPECT_LE(node.used, node.capacity);
    }
    for (std::size_t i = 0; i < tiles.size(); ++i)
        for (double e : tiles[i]) ASSERT_EQ(e, 5.0 * double(i + 1)) << "tile " << i;
}

TEST(CudaDriver, EvictionOnAGpuCappedAtAFewTiles)
{
    rt::Runtime r{config(0, "3MB")};
    REQUIRE_GPU(r, gpu);
    expect_eight_tiles_served(r, gpu);
}

// The same while another task's kernel runs: to make room for the next task's tile of
// `c_elements`, the node evicts an unused 1 MB replica without waiting for that kernel
// (cudaFree would: it synchronizes the whole device), so the next task is launched well
// before the kernel can have ended. `meanwhile` runs while the two tasks are in flight. With
// Launch::any_time (a GPU without memory pools, where the free waits for the kernel), when the
// next task was launched is not checked.
enum class Launch { before_the_kernel_ends, any_time };
void expect_eviction_not_to_wait_for_the_kernel_in_flight(
    rt::Runtime& r, rt::WorkerId gpu, int64_t c_elements,
    std::function<void()> const& meanwhile = [] {}, Launch launch = Launch::before_the_kernel_ends)
{
    constexpr int64_t tile = (1 << 20) / sizeof(double);
    std::vector<double> a(tile, 0.0), b(tile, 0.0), c(std::size_t(c_elements), 0.0), small(16, 0.0);
    rt::Handle ha{r, rt::Vector<double>{a.data(), tile}}, hb{r, rt::Vector<double>{b.data(), tile}};
    rt::Handle hc{r, rt::Vector<double>{c.data(), c_elements}};
    rt::Handle hs{r, rt::Vector<double>{small.data(), int64_t(small.size())}};
    for (auto* h : {&ha, &hb, &hs})
        r.submit(add_cl, readwrite(*h), rt::value(1.0), rt::on_worker(gpu));
    r.wait_all();  // 2 MB of the 3 held by replicas no task uses
    r.submit(spin_cl, readwrite(hs), rt::on_worker(gpu));
    r.submit(touch_cl, readwrite(hc), rt::on_worker(gpu));  // needs a or b evicted
    meanwhile();
    r.wait_all();
    auto nodes = r.memory_nodes();
    EXPECT_GT(nodes[std::size_t(r.worker(gpu).memory_node)].evictions, 0u);
    EXPECT_GT(touch_after_spin(), 0.0);
    if (launch == Launch::before_the_kernel_ends) {
        EXPECT_LT(touch_after_spin(), spin_seconds * 2 / 3)
            << "the eviction waited for the kernel in flight";
    }
    for (auto* h : {&ha, &hb, &hc, &hs}) h->unregister();
    for (auto const* v : {&a, &b, &c, &small})
        EXPECT_EQ(std::count(v->begin(), v->end(), 1.0), std::ptrdiff_t(v->size()))
            << "a replica was lost";
}

// A tile of another size: the evicted replica is freed, and the node's memory comes from the
// GPU's pool, freed with cudaFreeAsync on a stream of its own.
TEST(CudaDriver, EvictionDoesNotWaitForTheKernelsInFlight)
{
    rt::Runtime r{config(0, "3MB")};
    REQUIRE_GPU(r, gpu);
    int pools = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0), cudaSuccess);
    if (!pools) GTEST_SKIP() << "no memory pools on this GPU: the node frees with cudaFree";
    expect_eviction_not_to_wait_for_the_kernel_in_flight(r, gpu, (1 << 20) / sizeof(double) + 8);
}

// A tile of the same size: the evicted replica's buffer serves the new one as it is, with no
// free and no allocation, so that even a GPU without memory pools does not wait (ctest runs
// this case again on a simulated GPU without pools, where it fails if the node calls cudaFree).
TEST(CudaDriver, EvictionHandsOverABufferOfTheSameSize)
{
    rt::Runtime r{config(0, "3MB")};
    REQUIRE_GPU(r, gpu);
    expect_eviction_not_to_wait_for_the_kernel_in_flight(r, gpu, (1 << 20) / sizeof(double));
}

// The same when a smaller replica of another size is less recently used than the one of the
// size asked for: evicting it does not make room enough, so both are evicted, and the one of
// the size asked for is handed over. The smaller one goes to the allocation cache rather than
// to cudaFree, so that even without memory pools the next task does not wait for the kernel
// (ctest runs this case on a simulated GPU without pools, where it fails if the node frees it).
TEST(CudaDriver, EvictionHandsOverABufferOfTheSameSizeAndKeepsTheOthersItEvicted)
{
    rt::Runtime r{config(0, "3MB")};
    REQUIRE_GPU(r, gpu);
    constexpr int64_t mb = (1 << 20) / sizeof(double);
    // 0.25 + 1 + 1 MB unused, and 0.5 MB in use by the kernel: 1 MB more needs the first
    // two evicted
    std::vector<double> x(mb / 4, 0.0), a(mb, 0.0), b(mb, 0.0), c(mb, 0.0), busy(mb / 2, 0.0);
    std::vector<rt::Handle<rt::Vector<double>>> h;
    for (auto* v : {&x, &a, &b, &c, &busy})
        h.emplace_back(r, rt::Vector<double>{v->data(), int64_t(v->size())});
    for (int i : {0, 1, 2, 4})
        r.submit(add_cl, readwrite(h[std::size_t(i)]), rt::value(1.0), rt::on_worker(gpu));
    r.wait_all();
    r.submit(spin_cl, readwrite(h[4]), rt::on_worker(gpu));
    r.submit(touch_cl, readwrite(h[3]), rt::on_worker(gpu));
    r.wait_all();
    const auto nodes = r.memory_nodes();
    auto const& node = nodes[std::size_t(r.worker(gpu).memory_node)];
    EXPECT_EQ(node.evictions, 2u);
    EXPECT_GT(node.cached, 0u) << "the smaller replica evicted went to the cache";
    EXPECT_GT(touch_after_spin(), 0.0);
    EXPECT_LT(touch_after_spin(), spin_seconds * 2 / 3)
        << "the eviction waited for the kernel in flight";
    for (auto& handle : h) handle.unregister();
    for (auto const* v : {&x, &a, &b, &c, &busy})
        EXPECT_EQ(std::count(v->begin(), v->end(), 1.0), std::ptrdiff_t(v->size()))
            << "a replica was lost";
}

// A tile of another size on a GPU without memory pools: the evicted replica is freed with
// cudaFree, which waits for the kernel in flight, and so does the task that needs the room.
// The node's lock is not held meanwhile, so the node's other users (the transfers, the
// replicas' releases, here memory_nodes()) do not wait with it. (ctest runs this case on a
// simulated GPU without pools, where it fails if the node frees under its lock; with pools
// nothing waits.)
TEST(CudaDriver, AFreeThatWaitsForTheGpuDoesNotHoldItsNode)
{
    rt::Runtime r{config(0, "3MB")};
    REQUIRE_GPU(r, gpu);
    double seconds_in_memory_nodes = -1;
    auto time_memory_nodes_while_the_kernel_runs = [&] {
        std::this_thread::sleep_for(
            std::chrono::duration<double>(spin_seconds / 3));  // the free is waiting
        const auto start = clock_type::now();
        (void)r.memory_nodes();
        seconds_in_memory_nodes = std::chrono::duration<double>(clock_type::now() - start).count();
    };
    int pools = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0), cudaSuccess);
    expect_eviction_not_to_wait_for_the_kernel_in_flight(
        r, gpu, (1 << 20) / sizeof(double) + 8, time_memory_nodes_while_the_kernel_runs,
        pools ? Launch::before_the_kernel_ends : Launch::any_time);
    EXPECT_GE(seconds_in_memory_nodes, 0.0);
    EXPECT_LT(seconds_in_memory_nodes, spin_seconds / 3)
        << "memory_nodes() waited for a free that waits for the GPU";
}

#if TESSERA_CUDA_SIM
// The same with the cap on the simulated device itself, below what the memory node believes
// it may hold: cudaMalloc runs out (cudaErrorMemoryAllocation), which counts as a full node,
// so the node evicts and retries instead of failing. (A real GPU's memory cannot be made this
// small.)
TEST(CudaDriver, CudaMallocRunningOutLeadsToEvictionAndRetry)
{
    rt::Runtime r{config(0, "64MB")};
    REQUIRE_GPU(r, gpu);
    const std::size_t before = tessera::cudasim::leave_free(0, std::size_t(3) << 20);
    expect_eight_tiles_served(r, gpu);
    tessera::cudasim::set_capacity(0, before);
}

// The same while the tasks in flight hold the only memory eviction could free: the worker
// completes them before it asks for room again (waiting for room would wait for itself, and
// fail after 10 s).
TEST(CudaDriver, CudaMallocRunningOutWhileTasksAreInFlight)
{
    rt::Runtime r{config(0, "64MB")};
    REQUIRE_GPU(r, gpu);
    const std::size_t before = tessera::cudasim::leave_free(0, std::size_t(3) << 20);
    const auto start = clock_type::now();
    expect_eight_tiles_served(r, gpu, 0.02);
    EXPECT_LT(std::chrono::duration<double>(clock_type::now() - start).count(), 9.0)
        << "a stall waited for room";
    tessera::cudasim::set_capacity(0, before);
}

// A write-back that fails while the node evicts to make room: the replica whose write-back
// failed keeps the only valid copy, so nothing the user registered is lost. The task that
// needed the room fails with the copy's DeviceError, and the data is written back once the
// copies work again (here at unregistration).
TEST(CudaDriver, AWriteBackThatFailsDuringEvictionLosesNothing)
{
    rt::Runtime r{config(0, "3MB")};
    REQUIRE_GPU(r, gpu);
    constexpr int64_t mb = (1 << 20) / sizeof(double);
    std::vector<double> a(mb, 1.0), b(mb, 1.0), c(2 * mb, 1.0);
    rt::Handle ha{r, rt::Vector<double>{a.data(), mb}}, hb{r, rt::Vector<double>{b.data(), mb}};
    rt::Handle hc{r, rt::Vector<double>{c.data(), 2 * mb}};
    for (auto* h : {&ha, &hb}) r.submit(add_cl, readwrite(*h), rt::value(1.0), rt::on_worker(gpu));
    r.wait_all();  // a and b valid on the GPU alone (2.0), 2 MB of the 3
    auto evictions = [&] {
        return r.memory_nodes()[std::size_t(r.worker(gpu).memory_node)].evictions;
    };
    const auto evictions_before = evictions();
    tessera::cudasim::refuse_copies_to_host(0, 1);
    r.submit(touch_cl, readwrite(hc),
             rt::on_worker(gpu));  // 2 MB more: a evicted, written back first
    std::string error;
    try {
        r.wait_all();
    } catch (tessera::DeviceError const& e) {
        error = e.what();
    }
    EXPECT_NE(error.find("cudaErrorUnknown"), std::string::npos) << "wait_all: '" << error << "'";
    EXPECT_EQ(evictions(), evictions_before) << "a replica whose write-back failed was evicted";
    tessera::cudasim::refuse_copies_to_host(0, 0);
    for (auto* h : {&ha, &hb, &hc}) h->unregister();
    EXPECT_EQ(std::count(a.begin(), a.end(), 2.0), mb) << "a's modified replica was lost";
    EXPECT_EQ(std::count(b.begin(), b.end(), 2.0), mb) << "b's modified replica was lost";
    EXPECT_EQ(std::count(c.begin(), c.end(), 1.0), 2 * mb) << "the failed task changed c";
}

/// Three 1 MB tiles modified on the GPU by tasks that are done, on a simulated device left
/// with 4 MB: 1 MB is still free, and more needs them evicted (written back first). For memory
/// allocated outside the node: a workspace, a cuFFT plan's work area.
class GpuFullOfUnusedReplicas {
public:
    static constexpr int64_t tile = (1 << 20) / sizeof(double);

    GpuFullOfUnusedReplicas(rt::Runtime& r, rt::WorkerId gpu)
        : tiles_(3, std::vector<double>(tile, 1.0))
    {
        for (auto& t : tiles_) handles_.emplace_back(r, rt::Vector<double>{t.data(), tile});
        before_ = tessera::cudasim::leave_free(0, std::size_t(4) << 20);
        for (auto& h : handles_) r.submit(add_cl, readwrite(h), rt::value(1.0), rt::on_worker(gpu));
        r.wait_all();
    }
    /// Keeps the GPU busy with a task on each tile lasting `seconds` (adding 0): while they
    /// are in flight, the replicas are in use.
    void keep_busy(rt::Runtime& r, rt::WorkerId gpu, double seconds)
    {
        for (auto& h : handles_)
            r.submit(slow_add_cl, readwrite(h), rt::value(0.0), rt::value(seconds),
                     rt::on_worker(gpu));
    }
    /// Unregisters the tiles, gives the device its capacity back, and checks that no tile's
    /// modified replica was lost.
    void release_and_check()
    {
        for (auto& h : handles_) h.unregister();
        tessera::cudasim::set_capacity(0, before_);
        for (auto const& t : tiles_)
            EXPECT_EQ(std::count(t.begin(), t.end(), 2.0), tile) << "a modified replica was lost";
    }

private:
    std::vector<std::vector<double>> tiles_;
    std::vector<rt::Handle<rt::Vector<double>>> handles_;
    std::size_t before_ = 0;
};

// CUDA only: fills a workspace of `elements` with x, then copies its head to v.
const rt::Codelet<rt::Vector<double>, double, int64_t> fill_through_workspace_cl{
    .name = "cuda_test_fill_through_workspace",
    .where = rt::ArchMask::cuda,
    .cuda = [](rt::CudaContext const& c, rt::Vector<double> v, double x, int64_t elements) {
        auto* w = static_cast<double*>(c.workspace(std::size_t(elements) * sizeof(double)));
        tessera_test::launch_fill(w, elements, x, c.stream);
        rt::cuda_check(cudaMemcpyAsync(v.ptr, w, std::size_t(v.n) * sizeof(double),
                                       cudaMemcpyDeviceToDevice, c.stream),
                       "cudaMemcpyAsync");
    }};

/// 1 MB of data fits beside the replicas of `full`; its 2 MB of workspace only once two of
/// them are evicted: the task runs instead of failing, and nothing is lost.
void expect_workspace_served(rt::Runtime& r, rt::WorkerId gpu, double busy_seconds)
{
    constexpr int64_t tile = GpuFullOfUnusedReplicas::tile;
    std::vector<double> out(tile, 0.0);
    rt::Handle ho{r, rt::Vector<double>{out.data(), tile}};
    GpuFullOfUnusedReplicas full(r, gpu);
    if (busy_seconds > 0) full.keep_busy(r, gpu, busy_seconds);
    r.submit(fill_through_workspace_cl, write(ho), rt::value(7.0), rt::value(2 * tile),
             rt::on_worker(gpu));
    EXPECT_NO_THROW(r.wait_all());
    EXPECT_GE(r.memory_nodes()[std::size_t(r.worker(gpu).memory_node)].evictions, 2u);
    ho.unregister();
    full.release_and_check();
    EXPECT_EQ(std::count(out.begin(), out.end(), 7.0), tile);
}

// A workspace (what cuSOLVER and cuFFT need beside the data) that the GPU, full of replicas no
// task uses, has no room for: the node evicts them (writing the modified ones back).
TEST(CudaDriver, WorkspaceWithNoRoomEvictsUnusedReplicas)
{
    rt::Runtime r{config(0, "64MB")};
    REQUIRE_GPU(r, gpu);
    expect_workspace_served(r, gpu, 0);
}

// The same while the worker's earlier tasks, still in flight, use those replicas: it
// completes them first (only its thread can), then the node evicts.
TEST(CudaDriver, WorkspaceWithNoRoomCompletesTheTasksInFlightFirst)
{
    rt::Runtime r{config(0, "64MB")};
    REQUIRE_GPU(r, gpu);
    expect_workspace_served(r, gpu, 0.2);
}
#endif

// ---- cuFFT through the worker's plans ----------------------------------------------------------

/// The unnormalized forward DFT of the rows x cols row-major complex array a (cuFFT's layout:
/// the first dimension slowest), computed directly.
std::vector<std::complex<double>> dft_2d(std::vector<std::complex<double>> const& a, int rows,
                                         int cols)
{
    std::vector<std::complex<double>> out(a.size());
    for (int k = 0; k < rows; ++k)
        for (int l = 0; l < cols; ++l) {
            std::complex<double> sum = 0;
            for (int i = 0; i < rows; ++i)
                for (int j = 0; j < cols; ++j)
                    sum +=
                        a[std::size_t(i * cols + j)] *
                        std::polar(1.0, -2 * M_PI * (double(i * k) / rows + double(j * l) / cols));
            out[std::size_t(k * cols + l)] = sum;
        }
    return out;
}

/// CUDA only: the forward 2D transform, in place, of the (dims[0] x dims[1]) complex<double>
/// array held as 2 dims[0] dims[1] doubles, with the worker's cached plan.
void fft_2d_cuda(rt::CudaContext const& c, rt::Vector<double> v, int rows, int cols)
{
    const int dims[2] = {rows, cols};
    cufftHandle plan = c.fft_plan(2, dims, 1, CUFFT_Z2Z);
    auto* data = reinterpret_cast<cufftDoubleComplex*>(v.ptr);
    rt::cuda_check(cufftExecZ2Z(plan, data, data, CUFFT_FORWARD), "cufftExecZ2Z");
}
const rt::Codelet<rt::Vector<double>, int, int> fft_2d_cl{
    .name = "cuda_test_fft_2d", .where = rt::ArchMask::cuda, .cuda = &fft_2d_cuda};

std::vector<std::complex<double>> random_complex(std::size_t count, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<std::complex<double>> a(count);
    for (auto& e : a) e = {u(gen), u(gen)};
    return a;
}

/// Runs fft_2d_cl on the GPU on `count` arrays of rows x cols and checks each against dft_2d.
void expect_transforms(rt::Runtime& r, rt::WorkerId gpu, int rows, int cols, int count)
{
    const std::size_t size = std::size_t(rows * cols);
    std::vector<std::vector<std::complex<double>>> arrays, want;
    for (int i = 0; i < count; ++i) {
        arrays.push_back(random_complex(size, unsigned(i + 1)));
        want.push_back(dft_2d(arrays.back(), rows, cols));
    }
    {
        std::vector<rt::Handle<rt::Vector<double>>> h;
        for (auto& a : arrays)
            h.emplace_back(
                r, rt::Vector<double>{reinterpret_cast<double*>(a.data()), int64_t(2 * size)});
        for (auto& hi : h)
            r.submit(fft_2d_cl, readwrite(hi), rt::value(rows), rt::value(cols),
                     rt::on_worker(gpu));
        r.wait_all();
    }
    for (int i = 0; i < count; ++i) {
        double error = 0, scale = 0;
        for (std::size_t k = 0; k < size; ++k) {
            error = std::max(error, std::abs(arrays[std::size_t(i)][k] - want[std::size_t(i)][k]));
            scale = std::max(scale, std::abs(want[std::size_t(i)][k]));
        }
        EXPECT_LT(error, 1e-12 * scale * double(rows + cols)) << "array " << i;
    }
}

// A codelet's CUDA implementation transforms with the worker's cuFFT plan (made once for the
// shape, bound to the worker's stream): 2D transforms of several arrays, non-square and not
// powers of two, against the DFT computed on the host.
TEST(CudaDriver, FftPlanOfTheWorkerTransformsOnItsStream)
{
    rt::Runtime r{config()};
    REQUIRE_GPU(r, gpu);
    expect_transforms(r, gpu, 12, 10, 3);
    expect_transforms(r, gpu, 7, 16, 2);
}

#if TESSERA_CUDA_SIM
// A plan whose work area finds the GPU full of replicas no task uses: the node evicts them,
// the plan is made again, and the transform runs instead of failing. The same while earlier
// tasks in flight use those replicas: the worker completes them first.
TEST(CudaDriver, FftPlanWithNoRoomEvictsUnusedReplicas)
{
    for (double busy_seconds : {0.0, 0.2}) {
        SCOPED_TRACE("earlier tasks in flight for " + std::to_string(busy_seconds) + " s");
        rt::Runtime r{config(0, "64MB")};  // a new worker: no plan made yet
        REQUIRE_GPU(r, gpu);
        GpuFullOfUnusedReplicas full(r, gpu);
        if (busy_seconds > 0) full.keep_busy(r, gpu, busy_seconds);
        // the array (256 x 256 complex: 1 MB) fits beside the tiles, its plan's work area (as
        // much again, on the simulator) only once one of them is evicted
        std::vector<std::complex<double>> a(256 * 256, std::complex<double>(0)),
            want(a.size(), 1.0);
        a[0] = 1.0;  // the transform of a unit impulse is all ones
        rt::Handle ha{
            r, rt::Vector<double>{reinterpret_cast<double*>(a.data()), int64_t(2 * a.size())}};
        r.submit(fft_2d_cl, readwrite(ha), rt::value(256), rt::value(256), rt::on_worker(gpu));
        EXPECT_NO_THROW(r.wait_all());
        EXPECT_GE(r.memory_nodes()[std::size_t(r.worker(gpu).memory_node)].evictions, 1u);
        ha.unregister();
        full.release_and_check();
        EXPECT_EQ(a, want);
    }
}
#endif

// A kernel that fails to launch fails its task with DeviceError, instead of passing for a
// success; such an error is not sticky, so the GPU goes on with the next task.
TEST(CudaDriver, KernelLaunchErrorReachesTheWait)
{
    rt::Runtime r{config()};
    REQUIRE_GPU(r, gpu);
    const rt::Codelet<rt::Vector<double>> misconfigured{
        .name = "cuda_test_misconfigured",
        .where = rt::ArchMask::cuda,
        .cuda = [](rt::CudaContext const& c, rt::Vector<double>) {
            tessera_test::launch_misconfigured(c.stream);
        }};
    std::vector<double> x(8, 1.0), y(8, 1.0);
    rt::Handle hx{r, rt::Vector<double>{x.data(), 8}};
    rt::Handle hy{r, rt::Vector<double>{y.data(), 8}};
    r.submit(misconfigured, readwrite(hx), rt::on_worker(gpu));
    EXPECT_THROW(r.wait_all(), tessera::DeviceError);
    EXPECT_FALSE(r.worker_retired(gpu)) << "a launch error is not a fault of the GPU";
    r.submit(add_cl, readwrite(hy), rt::value(1.0), rt::on_worker(gpu));
    EXPECT_NO_THROW(r.wait_all());
    hx.unregister();
    hy.unregister();
    EXPECT_EQ(x[0], 1.0);  // the failed task wrote nothing
    EXPECT_EQ(y[0], 2.0);
}

// C = alpha A B + beta C with cublasDgemm on the GPU against OpenBLAS on the host.
void gemm_cpu(rt::Matrix<const double> a, rt::Matrix<const double> b, rt::Matrix<double> c,
              double alpha, double beta)
{
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(c.m), int(c.n), int(a.n), alpha,
                a.ptr, int(a.ld), b.ptr, int(b.ld), beta, c.ptr, int(c.ld));
}
void gemm_cuda(rt::CudaContext const& ctx, rt::Matrix<const double> a, rt::Matrix<const double> b,
               rt::Matrix<double> c, double alpha, double beta)
{
    rt::cuda_check(cublasDgemm(ctx.cublas, CUBLAS_OP_N, CUBLAS_OP_N, int(c.m), int(c.n), int(a.n),
                               &alpha, a.ptr, int(a.ld), b.ptr, int(b.ld), &beta, c.ptr, int(c.ld)),
                   "cublasDgemm");
}
const rt::Codelet<rt::Matrix<const double>, rt::Matrix<const double>, rt::Matrix<double>, double,
                  double>
    gemm_cl{.name = "cuda_test_dgemm", .cpu = &gemm_cpu, .cuda = &gemm_cuda};

TEST(CudaDriver, CublasGemmCodeletMatchesOpenBlas)
{
    rt::Runtime r{config()};
    REQUIRE_GPU(r, gpu);
    const int64_t m = 300, n = 200, k = 250, lda = 310;  // lda > m: a strided tile crosses the bus
    std::mt19937_64 gen(7);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> a(std::size_t(lda * k)), b(std::size_t(k * n)), c(std::size_t(m * n));
    for (auto* v : {&a, &b, &c})
        for (auto& e : *v) e = u(gen);
    std::vector<double> expect = c;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, int(m), int(n), int(k), 1.5, a.data(),
                int(lda), b.data(), int(k), -0.5, expect.data(), int(m));
    {
        rt::Handle ha{r, rt::Matrix<double>{a.data(), m, k, lda}};
        rt::Handle hb{r, rt::Matrix<double>{b.data(), k, n, k}};
        rt::Handle hc{r, rt::Matrix<double>{c.data(), m, n, m}};
        r.submit(gemm_cl, read(ha), read(hb), readwrite(hc), rt::value(1.5), rt::value(-0.5),
                 rt::on_worker(gpu));
    }
    double err = 0, norm = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
        err = std::max(err, std::abs(c[i] - expect[i]));
        norm = std::max(norm, std::abs(expect[i]));
    }
    EXPECT_LT(err, 1e-13 * double(k) * norm);
}

// A cuBLAS call refused inside a task fails that task with DeviceError, rethrown by the wait;
// a task that reads its output is cancelled, never run.
TEST(CudaDriver, LibraryErrorReachesTheWaitAndCancelsDependents)
{
    rt::Runtime r{config()};
    REQUIRE_GPU(r, gpu);
    const rt::Codelet<rt::Vector<double>> bad{
        .name = "cuda_test_bad_gemm",
        .where = rt::ArchMask::cuda,
        .cuda = [](rt::CudaContext const& c, rt::Vector<double> v) {
            double one = 1;
            rt::cuda_check(cublasDgemm(c.cublas, CUBLAS_OP_N, CUBLAS_OP_N, -1, 1, 1, &one, v.ptr, 1,
                                       v.ptr, 1, &one, v.ptr, 1),
                           "cublasDgemm");
        }};
    std::vector<double> x(8, 1.0);
    std::atomic<int> ran{0};
    rt::Handle hx{r, rt::Vector<double>{x.data(), 8}};
    r.submit(bad, readwrite(hx), rt::on_worker(gpu));
    r.submit(add_cl, readwrite(hx), rt::value(1.0), rt::callback([&] { ++ran; }));
    EXPECT_THROW(r.wait_all(), tessera::DeviceError);
    EXPECT_EQ(ran.load(), 0);
    hx.unregister();
    EXPECT_EQ(x[0], 1.0);  // the failed task wrote nothing: the data is what it was
}

// The bus calibration measured the GPU's links: bandwidths of a PCIe or NVLink link (on the
// CUDA simulator, of host memcpy: only a finite positive figure is asked for there).
TEST(CudaDriver, BusCalibrationMeasuresTheGpuLinks)
{
    rt::Runtime r{config()};
    REQUIRE_GPU(r, gpu);
    rt::NodeId node = rt::NodeId(r.worker(gpu).memory_node);
    const std::size_t bytes = std::size_t(256) << 20;
    for (auto [src, dst] : {std::pair{rt::host_node, node}, std::pair{node, rt::host_node}}) {
        double t = r.predicted_transfer_time(src, dst, bytes);
        double gbps = double(bytes) / t / 1e9;
        EXPECT_GT(gbps, simulated_gpu ? 0.01 : 2.0) << src << "->" << dst;
        EXPECT_LT(gbps, 1000.0) << src << "->" << dst;
        std::printf("bus %u->%u: %.1f GB/s for 256 MiB\n", src, dst, gbps);
    }
}

// A LAPACK-style call page-locks a large user array while it runs, and leaves it pageable
// after; a region already pinned is left alone; the result is the same either way.
TEST(CudaDriver, UserArraysArePinnedWhileGpusCopyThem)
{
    rt::RuntimeConfig c = config();
    c.cuda_pin_threshold = "16MB";  // whatever TESSERA_CUDA_PIN_THRESHOLD says
    rt::Runtime r{c};
    REQUIRE_GPU(r, gpu);
    std::vector<double> big(r.pin_threshold() / sizeof(double) + 1, 1.0), small(1000, 1.0);
    {
        rt::PinnedRegion a = r.pin_for_transfers(big.data(), big.size() * sizeof(double));
        EXPECT_TRUE(a.pinned());
        // Copies from and to the page-locked array: written on the GPU, read back on the host.
        rt::Handle h{r, rt::Vector<double>{big.data(), int64_t(big.size())}};
        r.submit(add_cl, readwrite(h), rt::value(2.0), rt::on_worker(gpu));
        h.unregister();
        for (double e : big) ASSERT_EQ(e, 3.0);
        rt::PinnedRegion again = r.pin_for_transfers(big.data(), big.size() * sizeof(double));
        EXPECT_FALSE(again.pinned()) << "a region is registered once";
        EXPECT_FALSE(r.pin_for_transfers(small.data(), small.size() * sizeof(double)).pinned())
            << "below the threshold, registering does not pay";
    }
    rt::PinnedRegion after = r.pin_for_transfers(big.data(), big.size() * sizeof(double));
    EXPECT_TRUE(after.pinned()) << "the first registration was undone";
}

// The threshold is the user's to set (RuntimeConfig::cuda_pin_threshold): "never" leaves
// every array pageable, a lower size pins smaller arrays.
TEST(CudaDriver, ThePinThresholdIsConfigurable)
{
    std::vector<double> two_mb((std::size_t(2) << 20) / sizeof(double), 1.0);
    for (auto [threshold, pinned] :
         {std::pair{"never", false}, std::pair{"1MB", true}, std::pair{"4MB", false}}) {
        rt::RuntimeConfig c = config();
        c.cuda_pin_threshold = threshold;
        rt::Runtime r{c};
        REQUIRE_GPU(r, gpu);
        (void)gpu;
        EXPECT_EQ(r.pin_for_transfers(two_mb.data(), two_mb.size() * sizeof(double)).pinned(),
                  pinned)
            << threshold;
    }
}

// Tile storage is page-locked for a runtime with GPUs, and ordinary memory without them:
// TESSERA_NCUDA=0 must not create a CUDA context through cudaHostAlloc.
TEST(CudaDriver, TransferMemoryIsPinnedOnlyWithGpus)
{
    auto kind = [](void* p) {
        cudaPointerAttributes a{};
        EXPECT_EQ(cudaPointerGetAttributes(&a, p), cudaSuccess);
        return a.type;
    };
    {
        rt::Runtime r{config()};
        REQUIRE_GPU(r, gpu);
        (void)gpu;
        std::unique_ptr<void, void (*)(void*)> p(r.allocate_for_transfers(1 << 20),
                                                 &rt::free_pinned);
        EXPECT_EQ(kind(p.get()), cudaMemoryTypeHost);
    }
    rt::RuntimeConfig without = config();
    without.ncuda = 0;
    rt::Runtime r{without};
    std::unique_ptr<void, void (*)(void*)> p(r.allocate_for_transfers(1 << 20), &rt::free_pinned);
    ASSERT_NE(p.get(), nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p.get()) % 4096, 0u) << "page-aligned";
    EXPECT_EQ(kind(p.get()), cudaMemoryTypeUnregistered);
}

// ---- faults: last in the file ------------------------------------------------------------------
// A fault leaves this process's CUDA context unusable for good. ctest runs each case in a
// process of its own; run as one program, the cases after the first fault skip.

/// Set by a test about to fault the GPU: the later fault tests of this process skip.
bool gpu_faulted_in_this_process = false;

#define SKIP_IF_THE_GPU_FAULTED_BEFORE()                                                           \
    if (gpu_faulted_in_this_process)                                                               \
    GTEST_SKIP() << "an earlier test of this process faulted the GPU (ctest runs each alone)"

const rt::Codelet<rt::Vector<double>> trap_cl{
    .name = "cuda_test_trap",
    .where = rt::ArchMask::cuda,
    .cuda = [](rt::CudaContext const& c, rt::Vector<double>) {
        tessera_test::launch_trap(c.stream);
    }};

/// Ends the process (a test failure for ctest) if the scope is not left within `seconds`: a
/// wait that hangs fails instead of holding the suite until its timeout.
class HangGuard {
public:
    HangGuard(double seconds, char const* what)
        : thread_([this, seconds, what] {
              std::unique_lock lock(m_);
              if (!cv_.wait_for(lock, std::chrono::duration<double>(seconds),
                                [&] { return done_; })) {
                  std::fprintf(stderr, "hang: %s after %.0f s\n", what, seconds);
                  std::_Exit(1);
              }
          })
    {}
    ~HangGuard()
    {
        {
            std::lock_guard lock(m_);
            done_ = true;
        }
        cv_.notify_one();
        thread_.join();
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;  // last: starts once the rest is ready
};

// A kernel that traps: the device's error surfaces at the task's end event as DeviceError.
TEST(CudaDriver, DeviceFaultReachesTheWait)
{
    SKIP_IF_THE_GPU_FAULTED_BEFORE();
    rt::Runtime r{config()};
    REQUIRE_GPU(r, gpu);
    std::vector<double> x(8, 1.0);
    rt::Handle hx{r, rt::Vector<double>{x.data(), 8}};
    gpu_faulted_in_this_process = true;
    r.submit(trap_cl, readwrite(hx), rt::on_worker(gpu));
    EXPECT_THROW(r.wait_all(), tessera::DeviceError);
}

/// Whether the application can read h: false when the data was lost with the GPU, or a task
/// that wrote it failed (acquire throws DeviceError); then `value` is untouched.
bool read_first(rt::Handle<rt::Vector<double>>& h, double& value)
{
    try {
        auto g = h.acquire<rt::Mode::R>();
        value = g.view()[0];
        for (double e : g.view())
            if (e != value) return false;
        return true;
    } catch (tessera::DeviceError const&) {
        return false;
    }
}

// A fault that corrupts the GPU's context retires its worker: the cores take what was queued
// for the GPU and everything after; only the GPU's tasks in flight behind the fault fail. A
// task that only the GPU could run fails with DeviceError (and cancels its successors)
// instead of waiting for a worker that never comes. Every scheduler hands the GPU's queue back.
class GpuFault : public ::testing::TestWithParam<std::string> {
protected:
    /// One CPU worker and one GPU, under the policy of the case.
    static rt::RuntimeConfig scheduled_config()
    {
        rt::RuntimeConfig c = config();
        c.scheduler = GetParam();
        return c;
    }
};

TEST_P(GpuFault, RetiresTheGpuAndTheCoresTakeItsTasks)
{
    SKIP_IF_THE_GPU_FAULTED_BEFORE();
    rt::Runtime r{scheduled_config()};
    REQUIRE_GPU(r, gpu);

    std::vector<double> t(8, 1.0);
    rt::Handle ht{r, rt::Vector<double>{t.data(), 8}};
    constexpr int chains = 48;
    std::vector<std::vector<double>> ys(chains, std::vector<double>(512, 0.0));
    std::vector<rt::Handle<rt::Vector<double>>> hy;
    for (auto& y : ys) hy.emplace_back(r, rt::Vector<double>{y.data(), 512});

    gpu_faulted_in_this_process = true;
    r.submit(trap_cl, readwrite(ht), rt::on_worker(gpu));  // first in the GPU's queue
    for (auto& h : hy) {  // the policy places some on the GPU: queued behind the trap
        r.submit(fill_cl, write(h), rt::value(1.0));
        r.submit(add_cl, readwrite(h), rt::value(2.0));
    }
    EXPECT_THROW(r.wait_all(), tessera::DeviceError);
    EXPECT_TRUE(r.worker_retired(gpu));
    EXPECT_FALSE(r.worker_retired(0));

    // Only the tasks in flight on the GPU behind the trap failed: their chains hold 0 or 1
    // (the data stayed on the host), or their data was lost with the GPU. The others ran.
    int broken = 0;
    for (auto& h : hy) {
        double v = 0;
        bool readable = read_first(h, v);
        if (readable && v == 3.0) continue;
        ++broken;
        if (readable) { EXPECT_TRUE(v == 0.0 || v == 1.0) << v; }
    }
    EXPECT_LE(broken, int(rt::detail::cuda_tasks_in_flight) - 1);

    // From now on the cores run everything
    auto executed = r.executed_per_worker();
    std::vector<double> z(512, 0.0);
    rt::Handle hz{r, rt::Vector<double>{z.data(), 512}};
    for (int k = 0; k < 20; ++k) r.submit(add_cl, readwrite(hz), rt::value(1.0));
    EXPECT_NO_THROW(r.wait_all());
    double v = 0;
    ASSERT_TRUE(read_first(hz, v));
    EXPECT_EQ(v, 20.0);
    EXPECT_EQ(r.executed_per_worker()[gpu], executed[gpu]);

    hz.unregister();
    EXPECT_EQ(z[0], 20.0);

    // A task that only the GPU could run fails at once, and so does its successor; the data
    // keeps its value. Likewise a task bound to the GPU.
    std::vector<double> u(512, 5.0), b(512, 7.0);
    rt::Handle hu{r, rt::Vector<double>{u.data(), 512}};
    rt::Handle hb{r, rt::Vector<double>{b.data(), 512}};
    r.submit(add_gpu_only_cl, readwrite(hu), rt::value(100.0));
    r.submit(add_cl, readwrite(hu), rt::value(1000.0));
    try {
        r.wait_all();
        ADD_FAILURE() << "a CUDA-only task ran after its GPU was retired";
    } catch (tessera::DeviceError const& e) {
        EXPECT_NE(std::string(e.what()).find("retired"), std::string::npos) << e.what();
    }
    r.submit(add_cl, readwrite(hb), rt::value(1.0), rt::on_worker(gpu));
    try {
        r.wait_all();
        ADD_FAILURE() << "a task bound to the retired GPU ran";
    } catch (tessera::DeviceError const& e) {
        EXPECT_NE(std::string(e.what()).find("retired"), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)r.worker_retired(r.worker_count()), tessera::InvalidArgument);
    EXPECT_FALSE(read_first(hu, v)) << "its last writer failed";
    hu.unregister();
    hb.unregister();
    EXPECT_EQ(u[0], 5.0);
    EXPECT_EQ(b[0], 7.0);
}

// A push woke the GPU alone (the most recently idle worker) for a task either unit can run;
// the GPU took its bound tasks first, faulted and retired. The core, still asleep, must look
// again: the task waits in a shared queue or a deque it steals from. (It hung with eager,
// prio, ws and lws in most runs before the retirement woke every sleeper.)
TEST_P(GpuFault, SleepingCoresWakeForTheTasksTheGpuLeft)
{
    SKIP_IF_THE_GPU_FAULTED_BEFORE();
    rt::Runtime r{scheduled_config()};
    REQUIRE_GPU(r, gpu);
    rt::WorkerId core = gpu == 0 ? 1 : 0;
    std::vector<std::vector<double>> data(6, std::vector<double>(8, 0.0));
    std::vector<rt::Handle<rt::Vector<double>>> h;
    for (auto& d : data) h.emplace_back(r, rt::Vector<double>{d.data(), 8});
    // the GPU becomes the most recently idle worker
    r.submit(add_cl, readwrite(h[0]), rt::value(1.0), rt::on_worker(core));
    r.wait_all();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    r.submit(add_cl, readwrite(h[1]), rt::value(1.0), rt::on_worker(gpu));
    r.wait_all();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));

    gpu_faulted_in_this_process = true;
    r.submit(add_cl, readwrite(h[5]), rt::value(1.0));  // wakes one worker: the GPU
    r.submit(trap_cl, readwrite(h[0]), rt::on_worker(gpu));
    for (std::size_t i = 1; i < 4; ++i) r.submit(touch_cl, readwrite(h[i]), rt::on_worker(gpu));
    {
        HangGuard guard(60, "wait_all after the GPU retired");
        EXPECT_THROW(r.wait_all(), tessera::DeviceError);
    }
    EXPECT_TRUE(r.worker_retired(gpu));
    double v = 0;
    if (read_first(h[5], v)) {  // else the GPU had launched it before the trap: it failed in flight
        EXPECT_EQ(v, 1.0);
    }
}

// Data whose only valid copy was on the GPU when it faulted is lost: reading it throws
// DeviceError (and leaves the handle usable: it used to hang its unregistration), and
// unregistering it leaves the user's buffer as it was, the next wait reporting the loss.
TEST(CudaDriver, DataLostWithAFaultedGpuIsReportedNotWaitedFor)
{
    SKIP_IF_THE_GPU_FAULTED_BEFORE();
    rt::Runtime r{config()};
    REQUIRE_GPU(r, gpu);
    std::vector<double> x(64, 1.0), t(8, 0.0);
    rt::Handle hx{r, rt::Vector<double>{x.data(), 64}};
    rt::Handle ht{r, rt::Vector<double>{t.data(), 8}};
    r.submit(fill_cl, write(hx), rt::value(5.0), rt::on_worker(gpu));  // valid on the GPU alone
    r.wait_all();
    gpu_faulted_in_this_process = true;
    r.submit(trap_cl, readwrite(ht), rt::on_worker(gpu));
    EXPECT_THROW(r.wait_all(), tessera::DeviceError);
    double v = 0;
    {
        HangGuard guard(60, "reading and unregistering data lost with the GPU");
        EXPECT_FALSE(read_first(hx, v));
        hx.unregister();
    }
    EXPECT_EQ(x[0], 1.0) << "the buffer keeps what it held";
    EXPECT_THROW(r.wait_all(), tessera::DeviceError);
}

#if TESSERA_CUDA_SIM
// Unregistration is the last chance to bring a GPU's only valid copy home: a write-back that
// fails is tried again, so that one or two refused copies lose nothing (and report nothing);
// only when every attempt fails is the data lost, the buffer keeping what it held and the
// next wait reporting the failure. Reading the data on the host (acquire) after a refused copy
// throws, and leaves the GPU's copy valid for the next read.
TEST(CudaDriver, AWriteBackThatFailsIsTriedAgainAtUnregistration)
{
    SKIP_IF_THE_GPU_FAULTED_BEFORE();
    rt::Runtime r{config()};
    REQUIRE_GPU(r, gpu);
    std::vector<std::vector<double>> x(4, std::vector<double>(64, 1.0));
    std::vector<rt::Handle<rt::Vector<double>>> h;
    for (auto& v : x) h.emplace_back(r, rt::Vector<double>{v.data(), 64});
    for (auto& handle : h) r.submit(add_cl, readwrite(handle), rt::value(1.0), rt::on_worker(gpu));
    r.wait_all();  // valid on the GPU alone (2.0)

    tessera::cudasim::refuse_copies_to_host(0, 1);
    EXPECT_THROW((void)h[0].acquire<rt::Mode::R>(), tessera::DeviceError);
    double value = 0;
    EXPECT_TRUE(read_first(h[0], value));
    EXPECT_EQ(value, 2.0) << "the refused read lost the GPU's copy";

    static_assert(rt::detail::gather_home_attempts == 3);
    for (int refused : {1, 2}) {
        tessera::cudasim::refuse_copies_to_host(0, refused);
        h[std::size_t(refused)].unregister();
        EXPECT_EQ(x[std::size_t(refused)][0], 2.0) << refused << " refused copies lost the data";
    }
    EXPECT_NO_THROW(r.wait_all()) << "a write-back that succeeded on a later attempt is no error";

    tessera::cudasim::refuse_copies_to_host(0, rt::detail::gather_home_attempts);
    h[3].unregister();
    tessera::cudasim::refuse_copies_to_host(0, 0);
    EXPECT_EQ(x[3][0], 1.0) << "the buffer keeps what it held";
    EXPECT_THROW(r.wait_all(), tessera::DeviceError);
    h[0].unregister();
    EXPECT_EQ(x[0][0], 2.0);
}
#endif

// Tasks of a group whose trap cancelled it, queued on the GPU when it retired, end cancelled
// (no error of their own), as anywhere else; only the tasks in flight fail with the fault.
TEST(CudaDriver, TasksOfACancelledGroupLeftOnARetiredGpuEndCancelled)
{
    SKIP_IF_THE_GPU_FAULTED_BEFORE();
    rt::Runtime r{config()};
    REQUIRE_GPU(r, gpu);
    std::vector<std::vector<double>> data(9, std::vector<double>(8, 0.0));
    std::vector<rt::Handle<rt::Vector<double>>> h;
    for (auto& d : data) h.emplace_back(r, rt::Vector<double>{d.data(), 8});
    rt::CancelToken group;
    gpu_faulted_in_this_process = true;
    r.submit(trap_cl, readwrite(h[0]), rt::on_worker(gpu), rt::cancelled_by(group));
    std::vector<rt::TaskRef> tasks;
    for (std::size_t i = 1; i < h.size(); ++i)
        tasks.push_back(r.submit(add_cl, readwrite(h[i]), rt::value(1.0), rt::on_worker(gpu),
                                 rt::cancelled_by(group)));
    EXPECT_THROW(r.wait_all(), tessera::DeviceError);
    EXPECT_TRUE(group.cancelled());
    int cancelled = 0;
    for (rt::TaskRef const& t : tasks) {
        EXPECT_NE(t.failed(), t.cancelled()) << "each fails in flight or is cancelled";
        cancelled += t.cancelled();
    }
    EXPECT_GE(cancelled, int(tasks.size()) - int(rt::detail::cuda_tasks_in_flight - 1));
}

// With two GPUs, the one in service runs the CUDA-only tasks, and a read finds the data on it
// rather than on the retired one, which held a valid copy too.
TEST(CudaDriver, TheOtherGpuCarriesOnAfterOneRetires)
{
    SKIP_IF_THE_GPU_FAULTED_BEFORE();
    rt::RuntimeConfig two = config();
    two.ncuda = 2;
    rt::Runtime r{two};
    std::vector<rt::WorkerId> gpus = cuda_workers(r);
    if (gpus.size() < 2) GTEST_SKIP() << "needs two GPUs";
    std::vector<double> x(4096, 0.0), y(4096, 0.0), t(8, 0.0);
    rt::Handle hx{r, rt::Vector<double>{x.data(), 4096}};
    rt::Handle hy{r, rt::Vector<double>{y.data(), 4096}};
    rt::Handle ht{r, rt::Vector<double>{t.data(), 8}};
    int64_t mismatches = 0;
    rt::Handle hm{r, rt::Variable<int64_t>{&mismatches}};
    // x valid on both GPUs and not on the host
    r.submit(fill_cl, write(hx), rt::value(3.0), rt::on_worker(gpus[0]));
    r.submit(check_cl, read(hx), rt::value(3.0), readwrite(hm), rt::on_worker(gpus[1]));
    r.wait_all();

    gpu_faulted_in_this_process = true;
    r.submit(trap_cl, readwrite(ht), rt::on_worker(gpus[0]));
    EXPECT_THROW(r.wait_all(), tessera::DeviceError);
    EXPECT_TRUE(r.worker_retired(gpus[0]));
    EXPECT_FALSE(r.worker_retired(gpus[1]));

    for (int k = 0; k < 10; ++k) r.submit(add_gpu_only_cl, readwrite(hy), rt::value(1.0));
    EXPECT_NO_THROW(r.wait_all());
    hy.unregister();
    EXPECT_EQ(y[0], 10.0);
    hx.unregister();  // from the GPU in service
    EXPECT_NO_THROW(r.wait_all());
    EXPECT_EQ(x[0], 3.0);
    EXPECT_EQ(x[4095], 3.0);
    hm.unregister();
    EXPECT_EQ(mismatches, 0);
}

#if TESSERA_CUDA_SIM
std::atomic<int> gpu_ordinal_seen{-1};
void note_gpu_cuda(rt::CudaContext const&, rt::Vector<double>)
{
    int ordinal = -1;
    if (cudaGetDevice(&ordinal) == cudaSuccess) gpu_ordinal_seen = ordinal;
}
const rt::Codelet<rt::Vector<double>> note_gpu_cl{
    .name = "cuda_test_note_gpu", .where = rt::ArchMask::cuda, .cuda = &note_gpu_cuda};

// A GPU that refuses its context (here simulated GPU 0, as in exclusive-process mode held by
// another process) is left out with a one-line notice naming it, and the next GPU serves
// instead of the runtime failing to start.
TEST(CudaDriver, AGpuThatRefusesItsContextIsLeftOutWithANotice)
{
    tessera::cudasim::set_unavailable(0, true);
    testing::internal::CaptureStderr();
    std::optional<rt::Runtime> r;
    try {
        r.emplace(config());  // one GPU asked for
    } catch (...) {}
    const std::string notice = testing::internal::GetCapturedStderr();
    tessera::cudasim::set_unavailable(0, false);
    ASSERT_TRUE(r) << "the runtime did not start";
    EXPECT_NE(notice.find("CUDA device 0 left out: cudaMemGetInfo"), std::string::npos) << notice;
    REQUIRE_GPU(*r, gpu);
    std::vector<double> x(16, 0.0);
    rt::Handle hx{*r, rt::Vector<double>{x.data(), 16}};
    r->submit(note_gpu_cl, readwrite(hx), rt::on_worker(gpu));
    r->wait_all();
    EXPECT_EQ(gpu_ordinal_seen.load(), 1);
}
#endif

INSTANTIATE_TEST_SUITE_P(Schedulers, GpuFault,
                         ::testing::Values("eager", "prio", "random", "ws", "lws", "dm", "dmda",
                                           "dmdas", "dmdasd"));

}  // namespace
