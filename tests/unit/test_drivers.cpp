// Drivers are plug-ins (runtime/drivers/driver.hpp): the runtime sets its machine up from the
// drivers it is given and runs each worker with its own driver's loop.
//  - this build's drivers number the CPU workers first, then the emulated devices, each with a
//    memory node of its own;
//  - the template driver (runtime/drivers/template/), added beside the CPU driver, gives a
//    runtime whose tasks run on its workers and whose data moves to its nodes and back: a
//    chain of non-commutative updates alternating between the host and each device gives the
//    data of a sequential run;
//  - a driver that takes cores for its own workers leaves the CPU workers the others.
#include "runtime/core/runtime_impl.hpp"
#include "runtime/drivers/cpu/cpu_driver.hpp"
#include "runtime/drivers/template/template_driver.hpp"

#include "common/runtime_sweep.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

namespace {

namespace rt = tessera::rt;
namespace detail = tessera::rt::detail;
using tessera::test::affine;

void affine_vec_cpu(rt::Vector<int64_t> v, int64_t a)
{
    for (int64_t& x : v) x = affine(x, a);
}
const rt::Codelet<rt::Vector<int64_t>, int64_t> affine_vec{.name = "affine_vec",
                                                           .cpu = &affine_vec_cpu};

std::unique_ptr<rt::Runtime> runtime_over(rt::RuntimeConfig config,
                                          std::vector<std::unique_ptr<detail::Driver>> drivers)
{
    auto impl = std::make_unique<detail::RuntimeImpl>(std::move(config), std::move(drivers));
    return detail::Internals::adopt_runtime<rt::Runtime>(std::move(impl));
}

TEST(Drivers, ThisBuildNumbersCpuWorkersFirstThenEmulatedDevices)
{
    rt::Runtime r{{.ncpus = 2, .nemu = 2, .perfmodel_dir = "none"}};
    ASSERT_GE(r.worker_count(), 4u);
    EXPECT_EQ(r.worker(0).arch, rt::Arch::cpu);
    EXPECT_EQ(r.worker(1).arch, rt::Arch::cpu);
    EXPECT_EQ(r.worker(2).arch, rt::Arch::emu);
    EXPECT_EQ(r.worker(3).arch, rt::Arch::emu);
    auto nodes = r.memory_nodes();
    ASSERT_GE(nodes.size(), 3u);
    EXPECT_EQ(nodes[0].kind, rt::NodeKind::host);
    EXPECT_EQ(r.worker(2).memory_node, 1);
    EXPECT_EQ(r.worker(3).memory_node, 2);
    EXPECT_EQ(nodes[1].kind, rt::NodeKind::emu);
    EXPECT_EQ(nodes[2].kind, rt::NodeKind::emu);
}

TEST(Drivers, TheTemplateDriverRunsTasksOnItsOwnNodes)
{
    for (char const* sched : {"eager", "dmdas"}) {
        std::vector<std::unique_ptr<detail::Driver>> drivers;
        drivers.push_back(detail::make_cpu_driver());
        drivers.push_back(detail::make_template_driver(2));
        auto r = runtime_over({.ncpus = 1, .scheduler = sched, .perfmodel_dir = "none"},
                              std::move(drivers));
        ASSERT_EQ(r->worker_count(), 3u) << sched;
        ASSERT_EQ(r->memory_nodes().size(), 3u) << sched;
        for (rt::WorkerId w : {1u, 2u}) {
            EXPECT_EQ(r->worker(w).arch, rt::Arch::emu) << sched;
            EXPECT_EQ(r->worker(w).memory_node, int(w)) << sched;
        }
        std::vector<int64_t> data(1000), want(1000);
        for (std::size_t i = 0; i < data.size(); ++i) data[i] = want[i] = int64_t(i);
        {
            rt::Handle h{*r, rt::Vector<int64_t>{data.data(), int64_t(data.size())}};
            for (int64_t t = 0; t < 30; ++t) {
                for (int64_t& x : want) x = affine(x, t);
                r->submit(affine_vec, readwrite(h), rt::value(t),
                          rt::on_worker(rt::WorkerId(t % 3)));
            }
            r->wait_all();
        }
        EXPECT_EQ(data, want) << sched;
        auto done = r->executed_per_worker();
        EXPECT_EQ(done, (std::vector<uint64_t>{10, 10, 10})) << sched;
    }
}

/// A driver with no worker of its own that asks for one core (as a GPU's worker does).
class TakesOneCore final : public detail::Driver {
public:
    std::string_view name() const noexcept override { return "takes-one-core"; }
    unsigned discover(rt::RuntimeConfig&) override { return 1; }
    void add_to(detail::Machine&, rt::RuntimeConfig const&) override {}
    void run_worker(detail::RuntimeImpl&, rt::WorkerId) override {}
};

TEST(Drivers, CoresTakenByADriverAreLeftByTheCpuWorkers)
{
    if (std::getenv("TESSERA_NCPU")) GTEST_SKIP() << "TESSERA_NCPU sets the CPU workers";
    std::vector<std::unique_ptr<detail::Driver>> plain, with_taker;
    plain.push_back(detail::make_cpu_driver());
    with_taker.push_back(detail::make_cpu_driver());
    with_taker.push_back(std::make_unique<TakesOneCore>());
    auto a = runtime_over({.perfmodel_dir = "none"}, std::move(plain));
    auto b = runtime_over({.perfmodel_dir = "none"}, std::move(with_taker));
    const unsigned cores = a->worker_count();
    EXPECT_EQ(b->worker_count(), std::max(1u, cores - 1))
        << "the CPU workers took the driver's core";
    EXPECT_EQ(b->config().ncuda, 0) << "a build's runtime without a GPU driver has no GPU";
}

/// MPI's progress thread listens for workers falling asleep: a free core lets it poll often.
TEST(Drivers, AWorkerFallingAsleepCallsTheSleepListenerUntilItIsRemoved)
{
    rt::Runtime r{{.ncpus = 1, .nemu = 0, .perfmodel_dir = "none"}};
    detail::Parking& parking = detail::Internals::impl(r).parking();
    std::atomic<int> calls{0};
    std::vector<int64_t> data(100, 1);
    rt::Handle h{r, rt::Vector<int64_t>{data.data(), int64_t(data.size())}};
    auto run_one_task = [&] {
        r.submit(affine_vec, readwrite(h), rt::value(int64_t(1)));
        r.wait_all();
    };
    parking.set_sleep_listener([&] { calls.fetch_add(1); });
    run_one_task();
    // the worker falls asleep once the task is done, maybe after wait_all returns
    for (int i = 0; i < 10000 && calls.load() == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_GE(calls.load(), 1);
    EXPECT_TRUE(parking.any_idle());
    parking.set_sleep_listener(nullptr);
    const int heard = calls.load();
    run_one_task();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(calls.load(), heard);
}

}  // namespace
