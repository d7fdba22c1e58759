// A Sequence's memory is bounded by the runtime's pending-task window, not by the number of
// tasks it has seen (include/tessera/la/sequence.hpp): 2 million small tasks, each a call of
// its own, keep the resident memory growth under 200 MB (keeping every task until wait()
// took about 400 bytes per task, 800 MB); a task failing after thousands of others is still
// the one wait() rethrows and failed_call() names.
#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <iostream>
#include <stdexcept>

namespace {

namespace rt = tessera::rt;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool sanitized = true;  // shadow memory and quarantines: resident sizes mean nothing
#else
constexpr bool sanitized = false;
#endif

/// The process's resident memory in bytes (/proc/self/statm: pages).
int64_t resident_bytes()
{
    std::ifstream statm("/proc/self/statm");
    int64_t total = 0, resident = 0;
    statm >> total >> resident;
    return resident * int64_t(sysconf(_SC_PAGESIZE));
}

const rt::Codelet<> nothing{.name = "nothing", .cpu = +[] {}};
const rt::Codelet<int64_t> fail_at{.name = "fail_at", .cpu = +[](int64_t k) {
                                       throw std::runtime_error("task " + std::to_string(k) + " failed");
                                   }};

TEST(SequenceMemory, TwoMillionTasksGrowTheResidentMemoryByLessThan200MB)
{
    const int64_t ntasks = sanitized ? 200'000 : 2'000'000;
    rt::Runtime r{{.ncpus = 2, .scheduler = "dmdas", .perfmodel_dir = "none"}};
    {
        tessera::Sequence warm{r};  // the task pool at its steady size (the window's tasks)
        for (int i = 0; i < 30'000; ++i) warm.submit(nothing);
        EXPECT_EQ(warm.wait(), 0);
    }
    const int64_t before = resident_bytes();
    int64_t peak = before;
    tessera::Sequence s{r};
    for (int64_t i = 0; i < ntasks; ++i) {
        s.submit(nothing);
        if (i % 100'000 == 0) peak = std::max(peak, resident_bytes());
    }
    peak = std::max(peak, resident_bytes());
    EXPECT_EQ(s.wait(), 0);
    std::cout << "resident memory: " << (before >> 20) << " MB before, grew by " << ((peak - before) >> 20) << " MB\n";
    if (!sanitized) EXPECT_LT(peak - before, int64_t(200) << 20) << "resident memory grew by " << (peak - before) << " bytes";
}

TEST(SequenceMemory, ATaskFailingAfterThousandsIsReportedAndNamed)
{
    rt::Runtime r{{.ncpus = 2, .scheduler = "eager", .perfmodel_dir = "none"}};
    tessera::Sequence s{r};
    for (int i = 0; i < 5000; ++i) s.submit(nothing);
    s.submit(fail_at, rt::value(int64_t{5001}));
    for (int i = 0; i < 5000; ++i) s.submit(nothing);  // a no-op once the failure is known
    try {
        (void)s.wait();
        FAIL() << "the failure was lost";
    } catch (std::runtime_error const& e) {
        EXPECT_STREQ(e.what(), "task 5001 failed");
    }
    ASSERT_TRUE(s.failed_call().has_value());
    EXPECT_EQ(s.failed_call()->routine, "fail_at");
    EXPECT_EQ(s.failed_call()->number, 5001);
}

}  // namespace
