// The cores a runtime uses are those its process may run on: a process started bound to some
// cores (mpirun binds each rank to its own, taskset) pins its workers there, so that the
// workers of two such processes never share a core, and gets one worker per such core by
// default. Before, every rank of an mpirun pinned its first worker to the machine's core 0.
#include "runtime/core/topology.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>
#include <sched.h>

#include <cstdlib>
#include <thread>

namespace {

namespace rt = tessera::rt;

const rt::Codelet<int*> where_cl{.name = "test_where",
                                 .cpu = [](int* cpu) { *cpu = sched_getcpu(); }};

/// The last CPU this process may run on, or -1.
int last_allowed_cpu()
{
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
    int last = -1;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &allowed)) last = c;
    return last;
}

TEST(Topology, AThreadBoundToOneCoreMakesARuntimeThatRunsThere)
{
    const int last = last_allowed_cpu();
    if (last < 1) GTEST_SKIP() << "needs a second CPU";
    std::thread([last] {  // this thread makes the runtime, bound as an mpirun rank would be
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(last, &one);
        ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);  // 0: the calling thread
        EXPECT_EQ(tessera::rt::detail::Topology().cores(), 1u);
        rt::Runtime r{
            {.ncpus = 1, .pin_workers = true, .nemu = 0, .ncuda = 0, .perfmodel_dir = "none"}};
        int cpu = -1;
        r.submit(where_cl, rt::value(&cpu));
        r.wait_all();
        EXPECT_EQ(cpu, last) << "the worker was pinned outside the process's cores";
        if (!std::getenv("TESSERA_NCPU")) {
            rt::Runtime d{{.nemu = 0, .ncuda = 0, .perfmodel_dir = "none"}};
            EXPECT_EQ(d.worker_count(), 1u) << "one worker per core the process may use";
        }
    })
        .join();
}

}  // namespace
