// Checks the placement rules of seed 001's work-stealing policies on hand-made situations, with
// 1 core and 2 emulated devices (workers 0, 1, 2 on memory nodes 0, 1, 2). A big vector A is
// valid on worker 2's node only, a small vector B on the host only; one task then reads or
// writes them, and the policy's decision log says which worker's mailbox it was placed in
// (a thief may run it elsewhere afterwards, as the seed allows):
//  - dws (Algorithm 2) puts it where most of its bytes are valid: worker 2, whatever it writes;
//  - law (Algorithm 3) puts it with the valid copy of what it writes (owner computes): worker 2
//    when it writes A, worker 0 when it writes B while reading A.
#include "common/temp_dir.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

namespace rt = tessera::rt;
namespace fs = std::filesystem;
using tessera::test::TempDir;

void fill(rt::Vector<double> v, double x)
{
    for (auto& e : v) e = x;
}
const rt::Codelet<rt::Vector<double>, double> fill_cl{.name = "fill", .cpu = &fill};
const rt::Codelet<rt::Vector<const double>, rt::Vector<const double>> probe_cl{
    .name = "probe", .cpu = +[](rt::Vector<const double>, rt::Vector<const double>) {}};
const rt::Codelet<rt::Vector<double>, rt::Vector<const double>> probe_writes_a_cl{
    .name = "probe_writes_a", .cpu = +[](rt::Vector<double>, rt::Vector<const double>) {}};
const rt::Codelet<rt::Vector<const double>, rt::Vector<double>> probe_writes_b_cl{
    .name = "probe_writes_b", .cpu = +[](rt::Vector<const double>, rt::Vector<double>) {}};

enum class Probe { reads_both, writes_a, writes_b };

// The worker `policy` placed the probe task on (its decision log), with A (64 KB) valid on
// node 2 only and B (1 KB) on the host only.
int worker_of_probe(std::string const& policy, Probe probe)
{
    TempDir dir;
    fs::path log = dir.path / "sched.log";
    {
        rt::Runtime r{rt::RuntimeConfig{.ncpus = 1,
                                        .scheduler = policy,
                                        .nemu = 2,
                                        .perfmodel_dir = "none",
                                        .sched_log = log.string()}};
        EXPECT_EQ(r.worker_count(), 3u);
        EXPECT_EQ(r.worker(2).memory_node, 2);
        std::vector<double> a(8192, 0.0), b(128, 0.0);
        rt::Handle ha{r, rt::Vector<double>{a.data(), int64_t(a.size())}};
        rt::Handle hb{r, rt::Vector<double>{b.data(), int64_t(b.size())}};
        r.submit(fill_cl, write(ha), rt::value(1.0), rt::on_worker(2));  // A: on node 2 only
        r.submit(fill_cl, write(hb), rt::value(2.0), rt::on_worker(0));  // B: on the host only
        r.wait_all();
        switch (probe) {
        case Probe::reads_both:
            r.submit(probe_cl, read(ha), read(hb));
            break;
        case Probe::writes_a:
            r.submit(probe_writes_a_cl, readwrite(ha), read(hb));
            break;
        case Probe::writes_b:
            r.submit(probe_writes_b_cl, read(ha), readwrite(hb));
            break;
        }
        r.wait_all();
    }
    std::ifstream in(log);
    std::string line;
    int worker = -1;
    while (std::getline(in, line)) {
        if (line.find(" task probe") == std::string::npos) continue;  // bound tasks are not logged
        EXPECT_EQ(worker, -1) << "the probe was placed twice: " << line;
        auto at = line.find("-> worker ");
        EXPECT_NE(at, std::string::npos) << line;
        if (at != std::string::npos) worker = std::stoi(line.substr(at + 10));
        std::cout << line << "\n";
    }
    return worker;
}

TEST(DataAwareWorkStealing, RunsATaskWhereMostOfItsBytesAreValid)
{
    EXPECT_EQ(worker_of_probe("dws", Probe::reads_both), 2);
    EXPECT_EQ(worker_of_probe("dws", Probe::writes_a), 2);
    EXPECT_EQ(worker_of_probe("dws", Probe::writes_b), 2);  // 64 KB there against 1 KB home
}

TEST(LocalityAwareWorkStealing, RunsATaskWhereWhatItWritesIsValid)
{
    EXPECT_EQ(worker_of_probe("law", Probe::writes_a), 2);
    EXPECT_EQ(worker_of_probe("law", Probe::writes_b), 0);  // owner computes, not most bytes
}

TEST(DataAwarePolicies, AreRegisteredUnderTheSeedsNamesToo)
{
    EXPECT_TRUE(rt::policies().contains("data-aware-ws"));
    EXPECT_TRUE(rt::policies().contains("locality-aware-ws"));
    EXPECT_EQ(rt::policies().create("data-aware-ws")->name(), "dws");
    EXPECT_EQ(rt::policies().create("locality-aware-ws")->name(), "law");
}

}  // namespace
