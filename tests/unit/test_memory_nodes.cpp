// Checks data across memory nodes with emulated accelerators: MSI coherency between every pair
// of nodes (host and 2 emulated devices), concurrent readers, partitioning while the valid data
// sits on devices, eviction on devices capped at a few tiles (exact results, written-back data),
// prefetch, link statistics, and the pinned allocator. Every test runs under every policy.
#include "common/runtime_sweep.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <numeric>
#include <vector>

namespace {

namespace rt = tessera::rt;

void fill(rt::Vector<double> v, double x)
{
    for (auto& e : v) e = x;
}
void check_equal(rt::Vector<const double> v, double x, rt::Variable<int64_t> mismatches)
{
    for (double e : v) *mismatches += (e != x);
}
void add_to(rt::Vector<double> v, double x)
{
    for (auto& e : v) e += x;
}
const rt::Codelet<rt::Vector<double>, double> fill_cl{.name = "fill", .cpu = &fill};
const rt::Codelet<rt::Vector<const double>, double, rt::Variable<int64_t>> check_cl{
    .name = "check", .cpu = &check_equal};
const rt::Codelet<rt::Vector<double>, double> add_cl{.name = "add", .cpu = &add_to};

class MemoryNodes : public testing::TestWithParam<std::string> {
protected:
    rt::RuntimeConfig config(std::optional<std::string> emu_memory = std::nullopt) const
    {
        return {.ncpus = 2, .scheduler = GetParam(), .nemu = 2, .emu_memory = emu_memory};
    }
};

TEST_P(MemoryNodes, NodesAndWorkers)
{
    rt::Runtime r{config()};
    auto nodes = r.memory_nodes();
    ASSERT_EQ(nodes.size(), 3u);
    EXPECT_EQ(nodes[0].kind, rt::NodeKind::host);
    EXPECT_EQ(nodes[1].kind, rt::NodeKind::emu);
    ASSERT_EQ(r.worker_count(), 4u);
    EXPECT_EQ(r.worker(2).arch, rt::Arch::emu);
    EXPECT_EQ(r.worker(2).memory_node, 1);
    EXPECT_EQ(r.worker(3).memory_node, 2);
}

// Without GPUs (emulated devices copy with memcpy), user memory is never page-locked.
TEST_P(MemoryNodes, NoPinningWithoutGpus)
{
    rt::Runtime r{config()};
    std::vector<char> big(rt::Runtime::default_pin_threshold * 2);
    EXPECT_FALSE(r.pin_for_transfers(big.data(), big.size()).pinned());
}

// Write on each worker's node, read on every other node: the reader always sees the write.
TEST_P(MemoryNodes, CoherencyMatrix)
{
    rt::Runtime r{config()};
    std::vector<double> x(1000, 0.0);
    int64_t mismatches = 0;
    rt::Handle hx{r, rt::Vector<double>{x.data(), 1000}};
    rt::Handle hm{r, rt::Variable<int64_t>{&mismatches}};
    double value = 0;
    for (unsigned writer = 0; writer < r.worker_count(); ++writer) {
        for (unsigned reader = 0; reader < r.worker_count(); ++reader) {
            value += 1;
            r.submit(fill_cl, write(hx), rt::value(value), rt::on_worker(writer));
            r.submit(check_cl, read(hx), rt::value(value), readwrite(hm), rt::on_worker(reader));
        }
    }
    r.wait_all();
    hm.unregister();
    EXPECT_EQ(mismatches, 0);
    hx.unregister();
    EXPECT_EQ(x[999], value);  // unregister brought the last write home
}

// A read-modify-write chain hopping across nodes: every hop sees the previous one.
TEST_P(MemoryNodes, ReadWriteChainAcrossNodes)
{
    rt::Runtime r{config()};
    std::vector<double> x(256, 0.0);
    {
        rt::Handle hx{r, rt::Vector<double>{x.data(), 256}};
        for (int i = 0; i < 200; ++i)
            r.submit(add_cl, readwrite(hx), rt::value(1.0), rt::on_worker(unsigned(i * 7 % 4)));
    }
    for (double e : x) ASSERT_EQ(e, 200.0);
}

// Concurrent readers on every node after one write on a device.
TEST_P(MemoryNodes, ConcurrentReaders)
{
    rt::Runtime r{config()};
    std::vector<double> x(4096, 0.0);
    int64_t mismatches = 0;
    {
        rt::Handle hx{r, rt::Vector<double>{x.data(), 4096}};
        rt::Handle hm{r, rt::Variable<int64_t>{&mismatches}};
        r.submit(fill_cl, write(hx), rt::value(7.0), rt::on_worker(2));
        std::vector<int64_t> local(64, 0);
        std::vector<rt::Handle<rt::Variable<int64_t>>> hl;
        for (auto& l : local) hl.emplace_back(r, rt::Variable<int64_t>{&l});
        for (int i = 0; i < 64; ++i) r.submit(check_cl, read(hx), rt::value(7.0), readwrite(hl[i]));
        r.wait_all();
        hl.clear();
        EXPECT_EQ(std::accumulate(local.begin(), local.end(), int64_t(0)), 0);
    }
    EXPECT_EQ(x[0], 7.0);
}

// Device to device goes through the host: one write on device 1, one read on device 2.
TEST_P(MemoryNodes, DeviceToDeviceThroughHost)
{
    rt::Runtime r{config()};
    std::vector<double> x(512, 0.0);
    int64_t mismatches = 0;
    rt::Handle hx{r, rt::Vector<double>{x.data(), 512}};
    rt::Handle hm{r, rt::Variable<int64_t>{&mismatches}};
    r.submit(fill_cl, write(hx), rt::value(3.0), rt::on_worker(2));
    r.wait_all();
    r.reset_link_stats();
    r.submit(check_cl, read(hx), rt::value(3.0), readwrite(hm), rt::on_worker(3));
    r.wait_all();
    uint64_t to_host = 0, to_dev2 = 0, direct = 0;
    for (auto const& l : r.link_stats()) {
        if (l.src == 1 && l.dst == 0) to_host += l.bytes;
        if (l.src == 0 && l.dst == 2) to_dev2 += l.bytes;
        if (l.src == 1 && l.dst == 2) direct += l.bytes;
    }
    EXPECT_EQ(to_host, 512 * sizeof(double));
    EXPECT_EQ(to_dev2, 512 * sizeof(double) + sizeof(int64_t));  // and the mismatch counter
    EXPECT_EQ(direct, 0u);
    hm.unregister();
    EXPECT_EQ(mismatches, 0);
}

void scale_tile(rt::Matrix<double> a, double s)
{
    for (int64_t j = 0; j < a.n; ++j)
        for (int64_t i = 0; i < a.m; ++i) a(i, j) = a(i, j) * s + 1;
}
const rt::Codelet<rt::Matrix<double>, double> scale_cl{.name = "scale_tile", .cpu = &scale_tile};

// Partition while the valid data is on a device; pieces modified on different nodes; unpartition
// gathers them; the parent then reads right on a device.
TEST_P(MemoryNodes, PartitionWithDataOnDevices)
{
    rt::Runtime r{config()};
    int64_t m = 37, n = 29, ld = 41;
    std::vector<double> a(std::size_t(ld * n), -1.0), expect(a);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i)
            a[std::size_t(i + j * ld)] = expect[std::size_t(i + j * ld)] = double(i + 100 * j);
    auto apply = [&](int64_t i0, int64_t i1, int64_t j0, int64_t j1, double s) {
        for (int64_t j = j0; j < j1; ++j)
            for (int64_t i = i0; i < i1; ++i)
                expect[std::size_t(i + j * ld)] = expect[std::size_t(i + j * ld)] * s + 1;
    };
    {
        rt::Handle A{r, rt::Matrix<double>{a.data(), m, n, ld}};
        r.submit(scale_cl, readwrite(A), rt::value(2.0),
                 rt::on_worker(2));  // valid on device 1 only
        apply(0, m, 0, n, 2.0);
        {
            auto tiles = rt::partition(A, rt::tiles(3, 2));
            for (int64_t j = 0; j < 2; ++j)
                for (int64_t i = 0; i < 3; ++i)
                    r.submit(scale_cl, readwrite(tiles(i, j)), rt::value(double(i + j + 2)),
                             rt::on_worker(unsigned((i + 2 * j) % 4)));
            // balanced pieces: rows 13, 12, 12; columns 15, 14
            int64_t rows[] = {0, 13, 25, 37}, cols[] = {0, 15, 29};
            for (int64_t j = 0; j < 2; ++j)
                for (int64_t i = 0; i < 3; ++i)
                    apply(rows[i], rows[i + 1], cols[j], cols[j + 1], double(i + j + 2));
        }
        r.submit(scale_cl, readwrite(A), rt::value(0.5), rt::on_worker(3));
        apply(0, m, 0, n, 0.5);
    }
    EXPECT_EQ(a, expect);  // padding rows m..ld-1 untouched (-1)
}

void tile_gemm(rt::Matrix<const double> a, rt::Matrix<const double> b, rt::Matrix<double> c)
{
    for (int64_t j = 0; j < c.n; ++j)
        for (int64_t k = 0; k < a.n; ++k)
            for (int64_t i = 0; i < c.m; ++i) c(i, j) += a(i, k) * b(k, j);
}
const rt::Codelet<rt::Matrix<const double>, rt::Matrix<const double>, rt::Matrix<double>>
    gemm_emu_only{.name = "tile_gemm", .where = rt::ArchMask::emu, .cpu = &tile_gemm};

// 64 tiles of C (8 x 8) by a tiled GEMM on the devices only, each device capped at 6 tiles of
// memory: evictions happen, Modified tiles are written back, the result is exact.
TEST_P(MemoryNodes, EvictionUnderPressure)
{
    constexpr int64_t nt = 8, b = 16, n = nt * b;
    std::size_t tile_bytes = b * b * sizeof(double);
    rt::Runtime r{config(std::to_string(6 * tile_bytes))};
    std::vector<double> A(n * n), B(n * n), C(n * n, 0.0), ref(n * n, 0.0);
    for (int64_t i = 0; i < n * n; ++i) {  // small integers: every sum is exact in double
        A[std::size_t(i)] = double(i % 7) - 3;
        B[std::size_t(i)] = double(i % 5) - 2;
    }
    for (int64_t j = 0; j < n; ++j)
        for (int64_t k = 0; k < n; ++k)
            for (int64_t i = 0; i < n; ++i)
                ref[std::size_t(i + j * n)] +=
                    A[std::size_t(i + k * n)] * B[std::size_t(k + j * n)];
    {
        rt::Handle hA{r, rt::Matrix<double>{A.data(), n, n, n}};
        rt::Handle hB{r, rt::Matrix<double>{B.data(), n, n, n}};
        rt::Handle hC{r, rt::Matrix<double>{C.data(), n, n, n}};
        auto tA = rt::partition(hA, rt::tiles(nt, nt));
        auto tB = rt::partition(hB, rt::tiles(nt, nt));
        auto tC = rt::partition(hC, rt::tiles(nt, nt));
        for (int64_t k = 0; k < nt; ++k)
            for (int64_t j = 0; j < nt; ++j)
                for (int64_t i = 0; i < nt; ++i)
                    r.submit(gemm_emu_only, read(tA(i, k)), read(tB(k, j)), readwrite(tC(i, j)));
        r.wait_all();
        auto nodes = r.memory_nodes();
        EXPECT_GT(nodes[1].evictions + nodes[2].evictions, 0u);
        EXPECT_LE(nodes[1].used, 6 * tile_bytes);
        EXPECT_LE(nodes[2].used, 6 * tile_bytes);
    }
    EXPECT_EQ(C, ref);
}

// A buffer that can never fit on a device is an error of the task, not a hang.
TEST_P(MemoryNodes, BufferLargerThanDeviceFails)
{
    rt::Runtime r{config("4KB")};
    std::vector<double> x(4096, 0.0);  // 32 KB
    rt::Handle hx{r, rt::Vector<double>{x.data(), 4096}};
    auto t = r.submit(add_cl, readwrite(hx), rt::value(1.0), rt::on_worker(2));
    EXPECT_THROW(t.wait(), tessera::Error);
    EXPECT_THROW(r.wait_all(), tessera::Error);
    // what read the failed task's output is cancelled; a fresh write starts over, on the host
    auto cancelled = r.submit(add_cl, readwrite(hx), rt::value(1.0), rt::on_worker(0));
    r.submit(fill_cl, write(hx), rt::value(4.0), rt::on_worker(0));
    r.submit(add_cl, readwrite(hx), rt::value(1.0), rt::on_worker(1));
    r.wait_all();  // the error was reported once already
    EXPECT_TRUE(cancelled.cancelled());
    EXPECT_THROW(cancelled.wait(), tessera::Error);
    hx.unregister();
    EXPECT_EQ(x[0], 5.0);
}

// A task whose buffers each fit on a device, but not all together, fails too: it would wait
// for room that its own buffers take. The data it read stays valid where it was.
TEST_P(MemoryNodes, DataLargerThanDeviceTogetherFails)
{
    rt::Runtime r{config("20KB")};
    std::vector<double> x(1024, 1.0), y(1024, 2.0), z(1024, 3.0);  // 8 KB each, 24 KB together
    rt::Handle hx{r, rt::Vector<double>{x.data(), 1024}}, hy{r, rt::Vector<double>{y.data(), 1024}},
        hz{r, rt::Vector<double>{z.data(), 1024}};
    const rt::Codelet<rt::Vector<const double>, rt::Vector<const double>, rt::Vector<double>> sum3{
        .name = "sum3",
        .cpu = +[](rt::Vector<const double> a, rt::Vector<const double> b, rt::Vector<double> c) {
            for (int64_t i = 0; i < c.n; ++i) c[i] += a[i] + b[i];
        }};
    auto t = r.submit(sum3, read(hx), read(hy), readwrite(hz), rt::on_worker(2));
    try {
        t.wait();
        ADD_FAILURE() << "the task ran on a device too small for its data";
    } catch (tessera::Error const& e) {
        EXPECT_NE(std::string(e.what()).find(
                      "task 'sum3': its data, 24576 bytes together, can never fit"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_THROW(r.wait_all(), tessera::Error);
    // the same handle twice is one buffer: x, x and y fit together
    r.submit(sum3, read(hx), read(hx), readwrite(hy), rt::on_worker(2));
    r.wait_all();
    hy.unregister();
    hz.unregister();
    EXPECT_EQ(y[0], 4.0);
    EXPECT_EQ(z[0], 3.0);
}

// A task the policy places never goes to a device too small for its data: the cores run it.
// (On an H200 with a GPU capped at 4 MB, zgemm tiles of 5.3 MB went to the GPU and failed.) A
// task that only such devices could run is refused at submission, naming the memory.
TEST_P(MemoryNodes, DataLargerThanDeviceRunsOnTheCores)
{
    rt::Runtime r{config("20KB")};
    std::vector<double> x(1024, 1.0), y(1024, 2.0), z(1024, 0.0);  // 8 KB each, 24 KB together
    rt::Handle hx{r, rt::Vector<double>{x.data(), 1024}}, hy{r, rt::Vector<double>{y.data(), 1024}},
        hz{r, rt::Vector<double>{z.data(), 1024}};
    static std::atomic<int> on_device{0};
    on_device = 0;
    using Sum3 = void(rt::Vector<const double>, rt::Vector<const double>, rt::Vector<double>);
    Sum3* sum = +[](rt::Vector<const double> a, rt::Vector<const double> b, rt::Vector<double> c) {
        for (int64_t i = 0; i < c.n; ++i) c[i] += a[i] + b[i];
    };
    Sum3* sum_on_device =
        +[](rt::Vector<const double> a, rt::Vector<const double> b, rt::Vector<double> c) {
            ++on_device;
            for (int64_t i = 0; i < c.n; ++i) c[i] += a[i] + b[i];
        };
    const rt::Codelet<rt::Vector<const double>, rt::Vector<const double>, rt::Vector<double>> sum3{
        .name = "sum3", .cpu = sum, .emu = sum_on_device};
    for (int i = 0; i < 40; ++i) r.submit(sum3, read(hx), read(hy), readwrite(hz));
    EXPECT_NO_THROW(r.wait_all());
    EXPECT_EQ(on_device.load(), 0);
    // the same handle twice is one buffer: x, x and y (16 KB) fit on a device
    const rt::Codelet<rt::Vector<const double>, rt::Vector<const double>, rt::Vector<double>>
        sum3_on_device{.name = "sum3_on_device", .where = rt::ArchMask::emu, .cpu = sum_on_device};
    r.submit(sum3_on_device, read(hx), read(hx), readwrite(hy));
    r.wait_all();
    EXPECT_EQ(on_device.load(), 1);
    try {
        r.submit(sum3_on_device, read(hx), read(hy), readwrite(hz));
        ADD_FAILURE() << "a task no unit can hold was submitted";
    } catch (tessera::InvalidArgument const& e) {
        EXPECT_NE(std::string(e.what()).find("the units' memory: its data takes 24576 bytes"),
                  std::string::npos)
            << e.what();
    }
    hz.unregister();
    EXPECT_EQ(z[0], 40 * 3.0);
}

TEST_P(MemoryNodes, PrefetchMovesDataOnce)
{
    rt::Runtime r{config()};
    std::vector<double> x(1024, 2.0);
    int64_t mismatches = 0;
    rt::Handle hx{r, rt::Vector<double>{x.data(), 1024}};
    rt::Handle hm{r, rt::Variable<int64_t>{&mismatches}};
    r.prefetch(hx, 1);
    r.submit(check_cl, read(hx), rt::value(2.0), readwrite(hm), rt::on_worker(2));
    r.wait_all();
    uint64_t to_dev1 = 0, count = 0;
    for (auto const& l : r.link_stats())
        if (l.src == 0 && l.dst == 1) to_dev1 += l.bytes, count += l.transfers;
    EXPECT_EQ(count, 2u);  // x once (prefetched), and the mismatch counter
    EXPECT_EQ(to_dev1, 1024 * sizeof(double) + sizeof(int64_t));
    hm.unregister();
    EXPECT_EQ(mismatches, 0);
    EXPECT_THROW(r.prefetch(hx, 7), tessera::InvalidArgument);
}

// The application's acquire sees a device's write.
TEST_P(MemoryNodes, AcquireBringsDataHome)
{
    rt::Runtime r{config()};
    std::vector<double> x(100, 0.0);
    rt::Handle hx{r, rt::Vector<double>{x.data(), 100}};
    r.submit(fill_cl, write(hx), rt::value(5.0), rt::on_worker(3));
    {
        auto g = hx.acquire<rt::Mode::R>();
        EXPECT_EQ(g.view()[42], 5.0);
    }
    {
        auto g = hx.acquire<rt::Mode::RW>();
        g.view()[0] = 9.0;
    }
    int64_t mismatches = 0;
    rt::Handle hm{r, rt::Variable<int64_t>{&mismatches}};
    std::vector<double> first(1);
    r.submit(add_cl, readwrite(hx), rt::value(1.0), rt::on_worker(2));
    r.wait_all();
    auto g = hx.acquire<rt::Mode::R>();
    EXPECT_EQ(g.view()[0], 10.0);
    EXPECT_EQ(g.view()[1], 6.0);
}

// Seed 001's hit ratio: a task counts as a hit on its worker's node when every buffer it reads
// was valid there as it started; a write-only access needs nothing.
TEST_P(MemoryNodes, HitStatsCountTasksWhoseDataWasAlreadyValid)
{
    const rt::Codelet<rt::Vector<const double>> read_only{.name = "read_only",
                                                          .cpu = +[](rt::Vector<const double>) {}};
    rt::Runtime r{config()};
    std::vector<double> x(100, 1.0);
    rt::Handle hx{r, rt::Vector<double>{x.data(), 100}};
    r.reset_link_stats();
    r.submit(read_only, read(hx), rt::on_worker(2));  // node 1: copied there, a miss
    r.wait_all();
    r.submit(read_only, read(hx), rt::on_worker(2));  // node 1 again: a hit
    r.submit(read_only, read(hx), rt::on_worker(0));  // the host: a hit
    r.wait_all();
    std::vector<double> y(100, 0.0);
    rt::Handle hy{r, rt::Vector<double>{y.data(), 100}};
    r.submit(fill_cl, write(hy), rt::value(2.0), rt::on_worker(3));  // node 2, write only: a hit
    r.wait_all();
    auto stats = r.hit_stats();
    ASSERT_EQ(stats.size(), 3u);
    EXPECT_EQ(stats[0].node, 0);
    EXPECT_EQ(stats[0].tasks, 1u);
    EXPECT_EQ(stats[0].hits, 1u);
    EXPECT_EQ(stats[1].tasks, 2u);
    EXPECT_EQ(stats[1].hits, 1u);
    EXPECT_EQ(stats[2].tasks, 1u);
    EXPECT_EQ(stats[2].hits, 1u);
    r.reset_link_stats();
    for (auto const& s : r.hit_stats()) EXPECT_EQ(s.tasks, 0u);
}

INSTANTIATE_TEST_SUITE_P(EveryPolicy, MemoryNodes, testing::ValuesIn(rt::policies().names()),
                         [](auto const& info) { return tessera::test::sanitize(info.param); });

// A device's link is full duplex: a copy to the device and one from it, queued together, take
// one latency, not two (each direction has its own channel).
std::atomic<int64_t> mismatches_seen{0};
void count_mismatches(rt::Vector<const double> v, double x)
{
    for (double e : v) mismatches_seen += (e != x);
}
const rt::Codelet<rt::Vector<const double>, double> count_cl{.name = "count_mismatches",
                                                             .cpu = &count_mismatches};

TEST(TransferChannels, CopiesToAndFromADeviceOverlap)
{
    constexpr int latency_ms = 200;  // the bus calibration copies 24 times: 4.8 s
    rt::Runtime r{{.ncpus = 1,
                   .scheduler = "eager",
                   .nemu = 1,
                   .emu_latency_us = latency_ms * 1000,
                   .perfmodel_dir = "none"}};
    std::vector<double> to(64, 1.0), from(64, 0.0);
    rt::Handle h_to{r, rt::Vector<double>{to.data(), 64}};
    rt::Handle h_from{r, rt::Vector<double>{from.data(), 64}};
    r.submit(fill_cl, write(h_from), rt::value(3.0), rt::on_worker(1));  // valid only on the device
    r.wait_all();
    r.reset_link_stats();
    mismatches_seen = 0;
    const auto start = std::chrono::steady_clock::now();
    r.prefetch(h_to, 1);  // host -> device
    {
        auto g = h_from.acquire<rt::Mode::R>();  // device -> host, meanwhile
        EXPECT_EQ(g.view()[7], 3.0);
    }
    r.submit(count_cl, read(h_to), rt::value(1.0), rt::on_worker(1));  // finds `to` there
    r.wait_all();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(mismatches_seen.load(), 0);
    ASSERT_EQ(r.link_stats().size(), 2u);
    for (auto const& l : r.link_stats()) EXPECT_EQ(l.transfers, 1u) << l.src << " -> " << l.dst;
    // one channel for both directions would take two latencies
    EXPECT_GE(ms, 0.95 * latency_ms);
    EXPECT_LT(ms, 1.5 * latency_ms) << "the copies to and from the device did not overlap";
}

TEST(PinnedMemory, AllocatorRoundTrip)
{
    std::vector<double, rt::PinnedAllocator<double>> v(1 << 16, 1.5);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % 4096, 0u);
    EXPECT_EQ(std::accumulate(v.begin(), v.end(), 0.0), 1.5 * (1 << 16));
    EXPECT_EQ(rt::allocate_pinned(0), nullptr);
    rt::free_pinned(nullptr);
    void* ordinary = rt::allocate_host(5000, false);  // no CUDA call; freed the same way
    EXPECT_EQ(reinterpret_cast<uintptr_t>(ordinary) % 4096, 0u);
    rt::free_pinned(ordinary);
}

TEST(ParseBytes, Units)
{
    EXPECT_EQ(rt::parse_bytes("16MB", "x"), 16u << 20);
    EXPECT_EQ(rt::parse_bytes("512KiB", "x"), 512u << 10);
    EXPECT_EQ(rt::parse_bytes("2g", "x"), std::size_t(2) << 30);
    EXPECT_EQ(rt::parse_bytes("1048576", "x"), 1u << 20);
    EXPECT_THROW(rt::parse_bytes("lots", "TESSERA_EMU_MEM"), tessera::InvalidArgument);
    EXPECT_THROW(rt::parse_bytes("3 parsecs", "TESSERA_EMU_MEM"), tessera::InvalidArgument);
    EXPECT_THROW((rt::Runtime{{.ncpus = 1, .nemu = 1, .emu_memory = "many"}}),
                 tessera::InvalidArgument);
}

}  // namespace
