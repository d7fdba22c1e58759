// Span parameters (include/tessera/rt/span.hpp): a codelet parameter that takes a variable
// number of buffers, over every registered scheduler x {1, 2, 4} workers (and with 2 emulated
// devices in the "emu" re-runs):
//  - the kernel sees every element, in the order of the range, beside single buffers and values;
//  - each element has its own implicit dependencies: the recorded graph has exactly the edges
//    a task passing the same handles one by one would have;
//  - chains of overlapping spans with a non-commutative update give the data of a sequential
//    run, on the host and on emulated devices (transfers, eviction);
//  - an empty span; the same handle twice in one span is merged (one replica, one dependency);
//  - bad elements are refused, naming the argument and the element, and nothing is submitted;
//  - an SPMD task gets the same span on every rank;
//  - compile-time binding: read_all binds only to a read-only span, a const range of handles
//    only to read_all.
#include "common/runtime_sweep.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <random>
#include <set>
#include <span>
#include <thread>
#include <tuple>
#include <vector>

namespace {

namespace rt = tessera::rt;
using namespace tessera::test;
using tessera::InvalidArgument;
using Kind = rt::DependencyKind;
using Vec = rt::Vector<int64_t>;
using CVec = rt::Vector<int64_t const>;
using V = rt::Variable<int64_t>;
using CV = rt::Variable<int64_t const>;
using VecHandle = rt::Handle<Vec>;

// ---- compile-time binding ---------------------------------------------------------------------

using ReadSpan = rt::Codelet<rt::Span<CVec>>;
using WriteSpan = rt::Codelet<rt::Span<Vec>>;
using Handles = std::vector<VecHandle>;
using HandlePtrs = std::vector<VecHandle*>;
using ReadAll = decltype(rt::read_all(std::declval<Handles const&>()));
using ReadWriteAll = decltype(rt::readwrite_all(std::declval<Handles&>()));
using WriteAllPtrs = decltype(rt::write_all(std::declval<HandlePtrs const&>()));
static_assert(rt::SubmittableWith<ReadSpan, ReadAll>);
static_assert(rt::SubmittableWith<WriteSpan, ReadWriteAll>);
static_assert(rt::SubmittableWith<WriteSpan, WriteAllPtrs>);  // pointers name writable handles
static_assert(!rt::SubmittableWith<WriteSpan, ReadAll>,
              "read_all must not bind to a writable span");
static_assert(!rt::SubmittableWith<ReadSpan, ReadWriteAll>,
              "readwrite_all binds to a writable span only");
static_assert(!rt::SubmittableWith<ReadSpan, rt::Access<Vec, rt::Mode::R>>,
              "a single buffer is not a span");
static_assert(!rt::SubmittableWith<rt::Codelet<CVec>, ReadAll>, "a span is not a single buffer");
static_assert(!rt::SubmittableWith<rt::Codelet<rt::Span<rt::Vector<double const>>>, ReadAll>,
              "the span's interface must match the handles'");
template <class R> concept ReadWritableAll = requires(R&& r)
{
    rt::readwrite_all(std::forward<R>(r));
};
static_assert(!ReadWritableAll<Handles const&>, "a const range of handles can only be read");
static_assert(ReadWritableAll<std::array<VecHandle*, 2>>);
static_assert(ReadWritableAll<std::vector<std::reference_wrapper<VecHandle>>&>);
static_assert(std::ranges::random_access_range<rt::Span<Vec>>);

// ---- codelets ---------------------------------------------------------------------------------

/// v[i] = 3 v[i] + a + k for each element k of the span (not commutative: order matters).
void affine_all_cpu(rt::Span<Vec> vs, int64_t a)
{
    int64_t k = 0;
    for (Vec v : vs) {
        for (int64_t& x : v) x = affine(x, a + k);
        ++k;
    }
}
const rt::Codelet<rt::Span<Vec>, int64_t> affine_all{.name = "affine_all", .cpu = &affine_all_cpu};

/// Mixed parameters: out = sum over the span of every element + x, written into each of the
/// second span's vectors' first entries, and into y.
struct MixedSeen {
    std::size_t read_count = 0, written_count = 0;
};
void mixed_cpu(CV x, rt::Span<CVec> in, MixedSeen* seen, rt::Span<Vec> out, V y)
{
    int64_t s = *x;
    for (std::size_t k = 0; k < in.size(); ++k)
        for (int64_t e : in[k]) s += e;
    for (Vec v : out) v[0] = s;
    *y = s;
    seen->read_count = in.size();
    seen->written_count = out.size();
}
const rt::Codelet<CV, rt::Span<CVec>, MixedSeen*, rt::Span<Vec>, V> mixed{.name = "mixed_spans",
                                                                          .cpu = &mixed_cpu};

void count_elements_cpu(rt::Span<CVec> in, std::atomic<int64_t>* n)
{
    n->fetch_add(int64_t(in.size()));
}
const rt::Codelet<rt::Span<CVec>, std::atomic<int64_t>*> count_elements{.name = "count_elements",
                                                                        .cpu = &count_elements_cpu};

/// Records the addresses the kernel sees.
void addresses_cpu(rt::Span<Vec> vs, std::vector<int64_t const*>* seen)
{
    for (Vec v : vs) seen->push_back(v.ptr);
    for (Vec v : vs) v[0] += 1;
}
const rt::Codelet<rt::Span<Vec>, std::vector<int64_t const*>*> addresses{.name = "span_addresses",
                                                                         .cpu = &addresses_cpu};

/// Registers n vectors of `len` entries each, element k of vector j = 100 j + k.
struct Vectors {
    std::vector<std::vector<int64_t>> data;
    std::vector<VecHandle> h;
    Vectors(rt::Runtime& r, std::size_t n, int64_t len)
    {
        data.resize(n);
        for (std::size_t j = 0; j < n; ++j) {
            data[j].resize(std::size_t(len));
            for (int64_t k = 0; k < len; ++k) data[j][std::size_t(k)] = int64_t(100 * j) + k;
        }
        for (auto& d : data) h.emplace_back(r, Vec{d.data(), int64_t(d.size())});
    }
    std::vector<VecHandle*> pick(std::vector<std::size_t> const& idx)
    {
        std::vector<VecHandle*> out;
        for (std::size_t i : idx) out.push_back(&h[i]);
        return out;
    }
};

class Spans : public RuntimeSweep {};

TEST_P(Spans, KernelSeesEveryElementBesideSingleBuffersAndValues)
{
    auto r = make_runtime();
    Vectors in(*r, 5, 3), out(*r, 4, 2);
    int64_t x = 7, y = 0;
    MixedSeen seen;
    {
        rt::Handle hx{*r, V{&x}}, hy{*r, V{&y}};
        r->submit(mixed, rt::read(hx), rt::read_all(in.h), rt::value(&seen),
                  rt::write_all(out.pick({3, 1, 0, 2})), rt::readwrite(hy));
        r->wait_all();
    }
    in.h.clear();
    out.h.clear();
    // 7 + sum_j sum_k (100 j + k) = 7 + 3 * 100 * (0+1+2+3+4) + 5 * (0+1+2)
    const int64_t want = 7 + 3000 + 15;
    EXPECT_EQ(y, want);
    EXPECT_EQ(seen.read_count, 5u);
    EXPECT_EQ(seen.written_count, 4u);
    for (auto const& v : out.data) EXPECT_EQ(v[0], want);
}

TEST_P(Spans, EachElementHasTheDependenciesOfASingleBuffer)
{
    auto r = make_runtime();
    Vectors v(*r, 6, 4);
    r->record_dependencies(true);
    // writers of elements 1 and 4, then one task reading the span {1, 2, 4}, then a writer of 2
    auto w1 = r->submit(affine_all, rt::readwrite_all(v.pick({1})), rt::value(int64_t{1}));
    auto w4 = r->submit(affine_all, rt::readwrite_all(v.pick({4})), rt::value(int64_t{1}));
    auto w5 = r->submit(affine_all, rt::readwrite_all(v.pick({5})),
                        rt::value(int64_t{1}));  // not in the span
    std::atomic<int64_t> n{0};
    auto reader = r->submit(count_elements, rt::read_all(v.pick({1, 2, 4})), rt::value(&n));
    auto w2 = r->submit(affine_all, rt::readwrite_all(v.pick({2})), rt::value(int64_t{1}));
    auto all = r->submit(affine_all, rt::readwrite_all(v.h), rt::value(int64_t{2}));
    r->wait_all();
    EXPECT_EQ(n.load(), 3);
    // `all` reads and writes every element: it reads after the last writer of 1, 2, 4 and 5
    // and overwrites what `reader` read of 1 and 4 (2's reader is already followed by w2)
    std::set<Edge> want{{w1.id(), reader.id(), Kind::read_after_write},
                        {w4.id(), reader.id(), Kind::read_after_write},
                        {reader.id(), w2.id(), Kind::write_after_read},
                        {w1.id(), all.id(), Kind::read_after_write},
                        {w2.id(), all.id(), Kind::read_after_write},
                        {w4.id(), all.id(), Kind::read_after_write},
                        {w5.id(), all.id(), Kind::read_after_write},
                        {reader.id(), all.id(), Kind::write_after_read}};
    EXPECT_EQ(edge_set(r->recorded_dependencies()), want);
}

TEST_P(Spans, OverlappingSpansGiveTheDataOfASequentialRun)
{
    auto r = make_runtime();
    constexpr std::size_t nvec = 8;
    constexpr int64_t len = 64;
    constexpr int ntasks = 60;
    std::mt19937 rng(5);
    std::vector<std::vector<std::size_t>> picks(ntasks);
    for (auto& p : picks) {
        std::size_t count = rng() % 5;  // 0 to 4 elements, in a random order
        for (std::size_t i = 0; i < count; ++i) {
            std::size_t j = rng() % nvec;
            if (std::find(p.begin(), p.end(), j) == p.end()) p.push_back(j);
        }
    }
    // the sequential run, by the same update, in submission order
    std::vector<std::vector<int64_t>> want(nvec, std::vector<int64_t>(len));
    for (std::size_t j = 0; j < nvec; ++j)
        for (int64_t k = 0; k < len; ++k) want[j][std::size_t(k)] = int64_t(100 * j) + k;
    for (int t = 0; t < ntasks; ++t)
        for (std::size_t e = 0; e < picks[std::size_t(t)].size(); ++e)
            for (int64_t& x : want[picks[std::size_t(t)][e]]) x = affine(x, t + int64_t(e));
    Vectors v(*r, nvec, len);
    for (int t = 0; t < ntasks; ++t)
        r->submit(affine_all, rt::readwrite_all(v.pick(picks[std::size_t(t)])),
                  rt::value(int64_t{t}));
    v.h.clear();  // unregisters: valid data back in the user's buffers
    EXPECT_EQ(v.data, want);
}

TEST_P(Spans, AnEmptySpanRunsItsTask)
{
    auto r = make_runtime();
    std::atomic<int64_t> n{0};
    std::vector<VecHandle*> none;
    std::atomic<int64_t> ran{0};
    auto t = r->submit(count_elements, rt::read_all(none), rt::value(&n),
                       rt::callback([&] { ran.fetch_add(1); }));
    ASSERT_TRUE(completes(t));
    EXPECT_EQ(n.load(), 0);
    EXPECT_EQ(ran.load(), 1);
}

TEST_P(Spans, TheSameHandleTwiceIsMergedIntoOneBuffer)
{
    auto r = make_runtime();
    Vectors v(*r, 3, 2);
    r->record_dependencies(true);
    auto before = r->submit(affine_all, rt::readwrite_all(v.pick({1})), rt::value(int64_t{0}));
    std::vector<int64_t const*> seen;
    auto twice = r->submit(addresses, rt::readwrite_all(v.pick({1, 0, 1})), rt::value(&seen));
    r->wait_all();
    auto edges = r->recorded_dependencies();
    ASSERT_EQ(seen.size(), 3u);
    EXPECT_EQ(seen[0], seen[2]) << "both elements must see the same replica";
    EXPECT_NE(seen[0], seen[1]);
    EXPECT_EQ(std::count_if(edges.begin(), edges.end(),
                            [&](rt::DependencyEdge const& e) { return e.to == twice.id(); }),
              1)
        << "one dependency on the task before, not one per element";
    EXPECT_EQ(edges.at(0).from, before.id());
    v.h.clear();
    EXPECT_EQ(v.data[1][0], affine(100, 0) + 2);  // incremented once per element naming it
    EXPECT_EQ(v.data[0][0], 1);
}

TEST_P(Spans, ABadElementIsNamedAndNothingIsSubmitted)
{
    auto r = make_runtime();
    Vectors v(*r, 4, 2);
    v.h[3].unregister();
    std::vector<VecHandle*> with_unregistered{&v.h[0], &v.h[1], &v.h[3]};
    try {
        r->submit(affine_all, rt::readwrite_all(with_unregistered), rt::value(int64_t{1}));
        FAIL() << "an unregistered element was accepted";
    } catch (InvalidArgument const& e) {
        EXPECT_NE(std::string(e.what()).find("argument 1, element 2: handle is not registered"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_EQ(r->pending_tasks(), 0);
    {
        auto part = rt::partition(v.h[2], rt::blocks(2));
        std::vector<VecHandle*> with_partitioned{&v.h[1], &v.h[2]};
        EXPECT_THROW(
            try {
                r->submit(affine_all, rt::readwrite_all(with_partitioned), rt::value(int64_t{1}));
            } catch (InvalidArgument const& e) {
                EXPECT_NE(
                    std::string(e.what()).find("argument 1, element 1: handle is partitioned"),
                    std::string::npos)
                    << e.what();
                throw;
            },
            InvalidArgument);
    }
    EXPECT_EQ(r->pending_tasks(), 0);
    // the elements accepted before the bad one hold nothing back: they can be written at once
    auto t = r->submit(affine_all, rt::readwrite_all(v.pick({0, 1, 2})), rt::value(int64_t{0}));
    EXPECT_TRUE(completes(t));
    v.h.resize(3);
    v.h.clear();
    EXPECT_EQ(v.data[0][0], affine(0, 0));
    EXPECT_EQ(v.data[1][0], affine(100, 1));
}

TESSERA_INSTANTIATE_SWEEP(Spans);

// ---- parallel tasks ---------------------------------------------------------------------------

std::atomic<int> spmd_ranks_seen{0};
/// Each rank updates the elements k with k % size == rank: every element exactly once.
void spmd_all_cpu(rt::Span<Vec> vs)
{
    unsigned r = rt::parallel_rank(), s = rt::parallel_size();
    if (s > 1) spmd_ranks_seen.fetch_add(1);
    for (std::size_t k = r; k < vs.size(); k += s)
        for (int64_t& x : vs[k]) x += 1;
    std::this_thread::sleep_for(std::chrono::microseconds(1000 / s));
}
constexpr rt::PerfModel spmd_all_model{"test_spmd_span"};
const rt::Codelet<rt::Span<Vec>> spmd_all{.name = "spmd_span",
                                          .cpu = &spmd_all_cpu,
                                          .model = &spmd_all_model,
                                          .type = rt::ParallelKind::spmd,
                                          .max_parallelism = 2};

TEST(SpanParallelTasks, SpmdRanksShareTheSpan)
{
    spmd_ranks_seen = 0;
    rt::Runtime r{{.ncpus = 2, .scheduler = "dmdas", .perfmodel_dir = "none"}};
    Vectors v(r, 7, 16);
    for (int i = 0; i < 40; ++i) {
        r.submit(spmd_all, rt::readwrite_all(v.h));
        r.wait_all();  // one at a time: a free group of 2 ends it first once calibrated
    }
    v.h.clear();
    for (std::size_t j = 0; j < 7; ++j)
        for (int64_t k = 0; k < 16; ++k)
            ASSERT_EQ(v.data[j][std::size_t(k)], int64_t(100 * j) + k + 40);
    EXPECT_GT(spmd_ranks_seen.load(), 0) << "no task ran on a combined worker";
}

// ---- emulated devices with little memory: spans move, and are evicted, element by element ------

TEST(SpanEmulatedDevices, SpansLargerThanHalfADeviceMoveAndGiveTheSequentialData)
{
    // 2 devices of 64 KB; 12 vectors of 8 KB; spans of 4 to 6 of them (32 to 48 KB): a device
    // holds one span's data, so that every task evicts what the one before left there. Every
    // other task is bound to a device, the others placed by the policy.
    for (char const* sched : {"eager", "dmda", "dmdas", "ws"}) {
        rt::Runtime r{{.ncpus = 1,
                       .scheduler = sched,
                       .nemu = 2,
                       .emu_memory = "64KB",
                       .perfmodel_dir = "none"}};
        constexpr std::size_t nvec = 12;
        constexpr int64_t len = 1024;
        std::vector<std::vector<int64_t>> want(nvec, std::vector<int64_t>(len));
        for (std::size_t j = 0; j < nvec; ++j)
            for (int64_t k = 0; k < len; ++k) want[j][std::size_t(k)] = int64_t(100 * j) + k;
        Vectors v(r, nvec, len);
        std::mt19937 rng(9);
        for (int t = 0; t < 40; ++t) {
            std::vector<std::size_t> p;
            while (p.size() < 4 + rng() % 3) {
                std::size_t j = rng() % nvec;
                if (std::find(p.begin(), p.end(), j) == p.end()) p.push_back(j);
            }
            for (std::size_t e = 0; e < p.size(); ++e)
                for (int64_t& x : want[p[e]]) x = affine(x, t + int64_t(e));
            if (t % 2)  // every other task on a device, alternately: data moves between the two
                r.submit(affine_all, rt::readwrite_all(v.pick(p)), rt::value(int64_t{t}),
                         rt::on_worker(1 + (t / 2) % 2));
            else  // the others where the policy puts them
                r.submit(affine_all, rt::readwrite_all(v.pick(p)), rt::value(int64_t{t}));
        }
        r.wait_all();
        auto done = r.executed_per_worker();
        v.h.clear();
        EXPECT_EQ(v.data, want) << sched;
        EXPECT_GE(done[1] + done[2], 20u)
            << sched << ": the bound tasks did not run on the devices";
    }
}

}  // namespace
