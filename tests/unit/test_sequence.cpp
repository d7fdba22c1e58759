// Sequence (include/tessera/la/sequence.hpp):
//  - LAPACK's info is a reduction: the smallest positive info of any task is returned and the
//    call that recorded it named; it cancels nothing unless recorded with OnInfo::stops, which
//    fails the sequence (its tasks not yet started do not run, later calls submit nothing);
//  - its memory is bounded by the runtime's pending-task window, not by the number of tasks
//    it has seen: 2 million small tasks, each a call of its own, keep the resident memory
//    growth under 200 MB (keeping every task until wait() grew it by 930 MB); a task failing
//    after thousands of others is still the one wait() rethrows and failed_call() names.
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
const rt::Codelet<int64_t> fail_at{
    .name = "fail_at",
    .cpu = +[](int64_t k) { throw std::runtime_error("task " + std::to_string(k) + " failed"); }};

// ---- info ----------------------------------------------------------------------------------

/// A tile task of a factorization: records iinfo > 0 found in its tile at global offset kk.
void record_info_cpu(rt::Variable<int64_t> ran, int64_t kk, int64_t iinfo, tessera::InfoTarget info)
{
    *ran += 1;
    if (iinfo > 0) info.record(kk + iinfo);
}
const rt::Codelet<rt::Variable<int64_t>, int64_t, int64_t, tessera::InfoTarget> record_info{
    .name = "record_info", .cpu = &record_info_cpu};

TEST(SequenceInfo, AnInfoThatContinuesCancelsNothingAndTheSmallestIsReturned)
{
    for (int ncpus : {1, 2}) {
        rt::Runtime r{{.ncpus = ncpus, .scheduler = "dmdas", .perfmodel_dir = "none"}};
        int64_t ran = 0;
        tessera::Sequence s{r};
        {
            rt::Handle h{r, rt::Variable<int64_t>{&ran}};
            {
                const auto call = s.call("getrf");
                for (int64_t k = 0; k < 10; ++k)  // zero pivots in tiles 7 and 3: 705, then 305
                    s.submit(record_info, rt::readwrite(h), rt::value(100 * k),
                             rt::value(k == 7 || k == 3 ? int64_t{5} : 0),
                             rt::value(s.info_target()));
            }
            {
                const auto call = s.call("getrs");  // a later call still runs
                for (int k = 0; k < 5; ++k)
                    s.submit(record_info, rt::readwrite(h), rt::value(int64_t{0}),
                             rt::value(int64_t{0}), rt::value(s.info_target()));
            }
            EXPECT_EQ(s.wait(), 305);
        }
        EXPECT_EQ(ran, 15) << "an info that continues cancelled tasks";
        EXPECT_FALSE(s.failed());
        ASSERT_TRUE(s.failed_call().has_value());
        EXPECT_EQ(s.failed_call()->routine, "getrf");
        EXPECT_EQ(s.failed_call()->number, 1);
    }
}

TEST(SequenceInfo, AnInfoThatStopsCancelsWhatHasNotStarted)
{
    rt::Runtime r{{.ncpus = 2, .scheduler = "dmdas", .perfmodel_dir = "none"}};
    int64_t ran = 0;
    tessera::Sequence s{r};
    {
        rt::Handle h{r, rt::Variable<int64_t>{&ran}};
        {
            const auto call = s.call("potrf");
            for (int64_t k = 0; k < 10; ++k)  // a chain by data: nothing after tile 3 may run
                s.submit(record_info, rt::readwrite(h), rt::value(100 * k),
                         rt::value(k == 3 ? int64_t{2} : 0),
                         rt::value(s.info_target(tessera::OnInfo::stops)));
        }
        EXPECT_EQ(s.wait(), 302);
    }
    EXPECT_EQ(ran, 4);
    EXPECT_TRUE(s.failed());
    EXPECT_EQ(s.failed_call()->routine, "potrf");
}

// ---- memory --------------------------------------------------------------------------------

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
    std::cout << "resident memory: " << (before >> 20) << " MB before, grew by "
              << ((peak - before) >> 20) << " MB\n";
    if (!sanitized) {
        EXPECT_LT(peak - before, int64_t(200) << 20)
            << "resident memory grew by " << (peak - before) << " bytes";
    }
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
