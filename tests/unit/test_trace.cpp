// The trace recorder (Runtime::start_trace, TESSERA_TRACE) and the trace file's reader: a
// trace holds every task that ran, exactly once, with its times in order; its edges are the
// graph's (against record_dependencies); its transfers add up to the link statistics; tracing
// leaves results bit-identical; bad traces are reported with their byte offset.
#include "common/temp_dir.hpp"

#include "runtime/trace/trace_file.hpp"

#include <tessera/la.hpp>
#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace rt = tessera::rt;
namespace trace = tessera::rt::trace;
using tessera::test::TempDir;

void add_one(rt::Vector<double> v)
{
    for (auto& e : v) e += 1;
}
const rt::Codelet<rt::Vector<double>> add_one_cl{.name = "add_one", .cpu = &add_one};
void sum_into(rt::Vector<double> y, rt::Vector<const double> x)
{
    for (int64_t i = 0; i < y.n; ++i) y[i] += x[i];
}
const rt::Codelet<rt::Vector<double>, rt::Vector<const double>> sum_cl{.name = "sum_into",
                                                                       .cpu = &sum_into};

std::string read_all(std::string const& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// A chain and a fan over 4 handles: 4 x 5 add_one, then 3 sum_into; the graph has edges of
// every implicit kind.
int submit_graph(rt::Runtime& r, std::vector<rt::Handle<rt::Vector<double>>>& h)
{
    int tasks = 0;
    for (int round = 0; round < 5; ++round)
        for (auto& x : h) r.submit(add_one_cl, readwrite(x)), ++tasks;
    for (std::size_t k = 1; k < h.size(); ++k)
        r.submit(sum_cl, readwrite(h[0]), read(h[k])), ++tasks;
    return tasks;
}

TEST(Trace, HoldsEveryTaskOnceWithOrderedTimesAndTheGraphsEdges)
{
    TempDir dir;
    const std::string path = (dir.path / "run.trace").string();
    rt::Runtime r{rt::RuntimeConfig{.ncpus = 2, .perfmodel_dir = "none"}};
    std::vector<std::vector<double>> data(4, std::vector<double>(1000, 1.0));
    std::vector<rt::Handle<rt::Vector<double>>> h;
    for (auto& d : data) h.emplace_back(r, rt::Vector<double>{d.data(), int64_t(d.size())});
    h[0].set_label("x0");
    r.record_dependencies(true);
    r.start_trace(path);
    EXPECT_TRUE(r.tracing());
    int tasks;
    {
        const rt::TracedCall call{"my_call"};
        tasks = submit_graph(r, h);
    }
    r.wait_all();
    r.stop_trace();
    EXPECT_FALSE(r.tracing());

    trace::Trace t = trace::read_file(path);
    ASSERT_EQ(int(t.tasks.size()), tasks);
    std::set<uint64_t> seqs;
    for (trace::TaskRecord const& k : t.tasks) {
        seqs.insert(k.seq);
        EXPECT_LT(k.worker, r.worker_count());
        EXPECT_TRUE(k.submit <= k.ready && k.ready <= k.begin && k.begin <= k.start &&
                    k.start <= k.end);
        EXPECT_LE(k.end, t.end);
        EXPECT_EQ(k.status, trace::TaskStatus::ok);
        EXPECT_EQ(t.calls.at(k.call), "my_call");
        EXPECT_EQ(k.bytes % (1000 * sizeof(double)), 0u);
        const std::string name = t.codelets.at(k.codelet);
        EXPECT_TRUE(name == "add_one" || name == "sum_into") << name;
        if (name == "sum_into") {
            EXPECT_EQ(k.tile, "x0");  // the handle it writes
        }
    }
    EXPECT_EQ(int(seqs.size()), tasks);  // each once
    // the edges, in the order the runtime added them, are those record_dependencies saw
    EXPECT_EQ(t.edges, r.recorded_dependencies());
    EXPECT_FALSE(t.edges.empty());
    ASSERT_EQ(t.workers.size(), r.worker_count());
    EXPECT_EQ(t.workers[0].arch, "cpu");
    EXPECT_EQ(t.meta_value("scheduler"), std::string(r.scheduler()));
}

TEST(Trace, WrittenAgainReadsTheSame)
{
    TempDir dir;
    const std::string path = (dir.path / "run.trace").string();
    {
        rt::Runtime r{rt::RuntimeConfig{.ncpus = 2, .perfmodel_dir = "none"}};
        std::vector<double> d(64, 0.0);
        rt::Handle x{r, rt::Vector<double>{d.data(), 64}};
        r.start_trace(path);
        for (int i = 0; i < 10; ++i) r.submit(add_one_cl, readwrite(x));
        r.wait_all();
        r.stop_trace();
    }
    const std::string text = read_all(path);
    std::istringstream in(text);
    std::ostringstream again;
    trace::write(again, trace::read(in));
    EXPECT_EQ(again.str(), text);
}

TEST(Trace, TransfersAddUpToTheLinkStatistics)
{
    TempDir dir;
    const std::string path = (dir.path / "run.trace").string();
    rt::Runtime r{rt::RuntimeConfig{.ncpus = 1, .nemu = 1, .perfmodel_dir = "none"}};
    std::vector<double> d(4096, 0.0);
    rt::Handle x{r, rt::Vector<double>{d.data(), int64_t(d.size())}};
    r.reset_link_stats();
    r.start_trace(path);
    for (int i = 0; i < 6; ++i)  // back and forth between the host and the device
        r.submit(add_one_cl, readwrite(x), rt::on_worker(rt::WorkerId(i % 2)));
    r.wait_all();
    r.stop_trace();
    trace::Trace t = trace::read_file(path);
    uint64_t transfers = 0, bytes = 0;
    for (rt::LinkStats const& l : r.link_stats()) transfers += l.transfers, bytes += l.bytes;
    uint64_t traced_bytes = 0;
    for (trace::TransferRecord const& x : t.transfers) {
        traced_bytes += x.bytes;
        EXPECT_LE(x.start, x.end);
        EXPECT_TRUE(x.src == 0 || x.dst == 0);
    }
    EXPECT_GT(transfers, 0u);
    EXPECT_EQ(t.transfers.size(), transfers);
    EXPECT_EQ(traced_bytes, bytes);
    ASSERT_EQ(t.nodes.size(), 2u);
    EXPECT_EQ(t.nodes[1].kind, "emu");
    EXPECT_EQ(t.workers[1].arch, "emu");
}

// A tile Cholesky gives the same bits with and without a trace (each tile's updates run in
// submission order whatever the schedule), and its tasks carry their tiles' coordinates.
TEST(Trace, LeavesResultsBitIdentical)
{
    const int64_t n = 300, nb = 64;
    auto factor = [&](bool traced, trace::Trace* out) {
        TempDir dir;
        rt::Runtime r{rt::RuntimeConfig{.ncpus = 2, .perfmodel_dir = "none"}};
        tessera::TileMatrix<double> A(r, n, n, nb);
        tessera::generate_hpd(A, 100.0, 7);
        if (traced) r.start_trace((dir.path / "t").string());
        EXPECT_EQ(tessera::potrf(A), 0);
        if (traced) {
            r.stop_trace();
            *out = trace::read_file((dir.path / "t").string());
        }
        std::vector<double> a(std::size_t(n * n));
        tessera::tiles_to_lapack(A, a.data(), n);
        return a;
    };
    trace::Trace t;
    const std::vector<double> plain = factor(false, nullptr), traced = factor(true, &t);
    EXPECT_TRUE(plain == traced);
    const int64_t nt = (n + nb - 1) / nb;  // potrf + trsm + syrk + gemm tasks of the lower factor
    EXPECT_EQ(int64_t(t.tasks.size()), nt + nt * (nt - 1) / 2 * 2 + nt * (nt - 1) * (nt - 2) / 6);
    for (trace::TaskRecord const& k : t.tasks) EXPECT_EQ(k.tile.front(), '(') << k.tile;
}

void nap(rt::Vector<double> v)
{
    std::this_thread::sleep_for(std::chrono::microseconds(500));
    v[0] += 1;
}
const rt::Codelet<rt::Vector<double>> nap_cl{.name = "nap", .cpu = &nap};

// A chain of 20 naps on 2 workers: the critical path is the whole chain (20 times the mean
// nap, i.e. the work), the area bound half of it; no bound exceeds the run.
// Workers asleep when the trace starts and still asleep when it stops show asleep throughout:
// the summary would otherwise count that time as runtime overhead (seen on an H200's host,
// 2026-11-27: 14 idle cores "100% overhead" in a traced dpotrf).
TEST(Trace, SleepsAcrossItsStartAndStopAreRecorded)
{
    TempDir dir;
    const std::string path = (dir.path / "asleep.trace").string();
    rt::Runtime r{rt::RuntimeConfig{.ncpus = 2, .perfmodel_dir = "none"}};
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // both workers fall asleep
    r.start_trace(path);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    r.stop_trace();
    const trace::Trace t = trace::read_file(path);
    const int64_t length = t.end - std::stoll(t.meta_value("start_ns"));
    ASSERT_GT(length, 90'000'000);
    std::vector<int64_t> asleep(r.worker_count(), 0);
    for (trace::IdleRecord const& i : t.idles) asleep.at(i.worker) += i.end - i.start;
    for (unsigned w = 0; w < r.worker_count(); ++w)
        EXPECT_GT(double(asleep[w]), 0.9 * double(length)) << "worker " << w;
}

TEST(Trace, BoundsOfAChain)
{
    rt::Runtime r{rt::RuntimeConfig{.ncpus = 2, .perfmodel_dir = "none"}};
    EXPECT_THROW((void)r.trace_bounds(), tessera::InvalidArgument);  // no trace yet
    std::vector<double> d(16, 0.0);
    rt::Handle x{r, rt::Vector<double>{d.data(), 16}};
    r.start_trace();
    for (int i = 0; i < 20; ++i) r.submit(nap_cl, readwrite(x));
    r.wait_all();
    r.stop_trace();
    if (!rt::area_bound_available()) GTEST_SKIP() << "built without GLPK";
    const rt::TraceBounds b = r.trace_bounds();
    ASSERT_EQ(b.types.size(), 1u);
    EXPECT_EQ(b.types[0].count, 20u);
    ASSERT_EQ(b.classes.size(), 1u);
    EXPECT_EQ(b.classes[0].workers, 2);
    const double work = 20 * b.types[0].seconds.at("cpu");
    EXPECT_GE(work, 20 * 500e-6);
    EXPECT_NEAR(b.critical_path.seconds, work, 1e-9 * work);
    EXPECT_EQ(b.critical_path.tasks.size(), 20u);
    EXPECT_NEAR(b.area.seconds, work / 2, 1e-6 * work);
    EXPECT_LE(b.critical_path.seconds, b.makespan);
    EXPECT_EQ(b.seconds(), b.critical_path.seconds);
}

TEST(Trace, RefusesMisuseNamingTheCall)
{
    rt::Runtime r{rt::RuntimeConfig{.ncpus = 1, .perfmodel_dir = "none"}};
    EXPECT_THROW(r.stop_trace(), tessera::InvalidArgument);
    EXPECT_THROW(r.start_trace("/nonexistent-dir/x.trace"), tessera::InvalidArgument);
    EXPECT_FALSE(r.tracing());
    r.start_trace();
    try {
        r.start_trace();
        ADD_FAILURE() << "a second start_trace was accepted";
    } catch (tessera::InvalidArgument const& e) {
        EXPECT_NE(std::string(e.what()).find("start_trace"), std::string::npos);
    }
    r.stop_trace();
}

TEST(Trace, EnvironmentTracesTheWholeRunIntoNumberedFiles)
{
    TempDir dir;
    const std::string path = (dir.path / "env.trace").string();
    ::setenv("TESSERA_TRACE", path.c_str(), 1);
    for (int k = 0; k < 2; ++k) {
        rt::Runtime r{rt::RuntimeConfig{.ncpus = 1, .perfmodel_dir = "none"}};
        std::vector<double> d(8, 0.0);
        rt::Handle x{r, rt::Vector<double>{d.data(), 8}};
        r.submit(add_one_cl, readwrite(x));
    }
    ::unsetenv("TESSERA_TRACE");
    // this process's first runtime of TESSERA_TRACE writes FILE, the next FILE.2 (the count
    // is per process: another test of this executable may have traced first)
    int found = 0;
    for (auto const& e : std::filesystem::directory_iterator(dir.path)) {
        trace::Trace t = trace::read_file(e.path().string());
        EXPECT_EQ(t.tasks.size(), 1u) << e.path();
        ++found;
    }
    EXPECT_EQ(found, 2);
}

// Malformed traces: the message names the byte offset of the first bad line.
uint64_t error_offset(std::string const& text)
{
    std::istringstream in(text);
    try {
        trace::read(in);
    } catch (trace::TraceFormatError const& e) {
        EXPECT_NE(std::string(e.what()).find("byte " + std::to_string(e.offset())),
                  std::string::npos)
            << e.what();
        return e.offset();
    }
    ADD_FAILURE() << "accepted:\n" << text;
    return 0;
}

TEST(TraceFile, ReportsMalformedInputWithItsByteOffset)
{
    const std::string head = "#tessera-trace 1\nnode\t0\thost\thost\nworker\t0\tcpu\t0\tcpu 0\n"
                             "codelet\t0\tk\n";
    const std::string task = "task\t1\t0\t0\t0\t1\t2\t3\t4\t5\t8\tab\tok\t-\n";
    EXPECT_NO_THROW({
        std::istringstream in(head + task + "end\t9\n");
        trace::read(in);
    });
    EXPECT_EQ(error_offset("not a trace\n"), 0u);
    EXPECT_EQ(error_offset("#tessera-trace 2\n"), 0u);
    EXPECT_EQ(error_offset(head + "task\t1\t0\t0\t0\t1\t2\tx\t4\t5\t8\tab\tok\t-\nend\t9\n"),
              head.size());                                           // a bad integer
    EXPECT_EQ(error_offset(head + task), (head + task).size());       // no end record
    EXPECT_EQ(error_offset(head + task.substr(0, 10)), head.size());  // cut mid-line
    EXPECT_EQ(error_offset(head + "task\t1\t0\t3\t0\t1\t2\t3\t4\t5\t8\tab\tok\t-\nend\t9\n"),
              head.size());  // an unknown worker
    EXPECT_EQ(error_offset(head + "task\t1\t0\t0\t0\t5\t2\t3\t4\t5\t8\tab\tok\t-\nend\t9\n"),
              head.size());  // ready before submit
    EXPECT_EQ(error_offset(head + "bogus\t1\nend\t9\n"), head.size());
}

}  // namespace
