// Data handles (include/tessera/rt/handle.hpp, interfaces.hpp), over every registered
// scheduler x {1, 2, 4} workers:
//  - registration of each interface (Variable, Vector, Matrix with ld > m, Block with ldy > nx
//    and ldz > ldy*ny): tasks see exactly the described elements, the padding is untouched;
//  - acquire/release ordering against tasks: an acquire waits for the earlier writer (and R/RW
//    for the earlier readers when it writes), a task submitted while a guard is held waits for
//    the release when it conflicts with the guard's mode, and not when both only read;
//  - unregister (explicit, by the destructor, by move assignment) waits for the handle's tasks
//    and leaves the result in the user's buffer; it is idempotent;
//  - bad registrations (null pointer, negative sizes, ld < m, bad block strides) throw
//    InvalidArgument; empty and moved-from handles are not registered.
#include "common/runtime_sweep.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

namespace {

namespace rt = tessera::rt;
using namespace tessera::test;
using tessera::InvalidArgument;

void fill_vec_cpu(rt::Vector<double> x, double base)
{
    for (int64_t i = 0; i < x.n; ++i) x[i] = base + double(i * i);
}
const rt::Codelet<rt::Vector<double>, double> fill_vec{.name = "fill_vec", .cpu = &fill_vec_cpu};

void fill_mat_cpu(rt::Matrix<double> a, double base)
{
    for (int64_t j = 0; j < a.n; ++j)
        for (int64_t i = 0; i < a.m; ++i) a(i, j) = base + double(i + 10 * j);
}
const rt::Codelet<rt::Matrix<double>, double> fill_mat{.name = "fill_mat", .cpu = &fill_mat_cpu};

void scale_mat_cpu(rt::Matrix<double> a, double s)
{
    for (int64_t j = 0; j < a.n; ++j)
        for (int64_t i = 0; i < a.m; ++i) a(i, j) *= s;
}
const rt::Codelet<rt::Matrix<double>, double> scale_mat{.name = "scale_mat", .cpu = &scale_mat_cpu};

void fill_block_cpu(rt::Block<double> b, double base)
{
    for (int64_t k = 0; k < b.nz; ++k)
        for (int64_t j = 0; j < b.ny; ++j)
            for (int64_t i = 0; i < b.nx; ++i) b(i, j, k) = base + double(i + 10 * j + 100 * k);
}
const rt::Codelet<rt::Block<double>, double> fill_block{.name = "fill_block",
                                                        .cpu = &fill_block_cpu};

/// A slow writer: sleeps, then stores a.
void slow_set_cpu(rt::Variable<int64_t> x, int64_t a)
{
    std::this_thread::sleep_for(20ms);
    *x = a;
}
const rt::Codelet<rt::Variable<int64_t>, int64_t> slow_set{.name = "slow_set",
                                                           .cpu = &slow_set_cpu};

/// A slow reader: sleeps, then copies x into y.
void slow_copy_cpu(rt::Variable<int64_t const> x, rt::Variable<int64_t> y)
{
    std::this_thread::sleep_for(20ms);
    *y = *x;
}
const rt::Codelet<rt::Variable<int64_t const>, rt::Variable<int64_t>> slow_copy{
    .name = "slow_copy", .cpu = &slow_copy_cpu};

/// A reader that holds the handle until the gate opens.
void gated_read_cpu(rt::Variable<int64_t const> x, Gate* g, int64_t* seen)
{
    *seen = *x;
    gate_cpu(g);
}
const rt::Codelet<rt::Variable<int64_t const>, Gate*, int64_t*> gated_read{.name = "gated_read",
                                                                           .cpu = &gated_read_cpu};

class Handles : public RuntimeSweep {};

// ---- registration of each interface -------------------------------------------------------------

TEST_P(Handles, VariableRoundTrip)
{
    auto rt = make_runtime();
    int64_t x = 5;
    rt::Handle h{*rt, rt::Variable<int64_t>{&x}};
    EXPECT_TRUE(h.registered());
    EXPECT_EQ(h.view().ptr, &x);
    rt->submit(add_var, rt::readwrite(h), rt::value(int64_t{3}));
    EXPECT_EQ(*h.acquire<rt::Mode::R>().view(), 8);
    rt->submit(affine_var, rt::readwrite(h), rt::value(int64_t{1}));
    h.unregister();
    EXPECT_FALSE(h.registered());
    EXPECT_EQ(x, 25);
}

TEST_P(Handles, VectorRoundTrip)
{
    auto rt = make_runtime();
    std::vector<double> x(100, -1);
    {
        rt::Handle h{*rt, rt::Vector<double>{x.data(), 100}};
        EXPECT_EQ(h.view().n, 100);
        rt->submit(fill_vec, rt::write(h), rt::value(0.5));
    }
    for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(x[std::size_t(i)], 0.5 + double(i * i));
}

// A read-only handle over const memory: tasks read it (on every node of the sweep: with
// emulated devices its data is copied there), the sum of what they read equals the sum of the
// memory, and nothing is ever written to it. Write accesses do not compile.
template <class H> concept WritableThrough = requires(H& h)
{
    rt::write(h.handle());
};
static_assert(!WritableThrough<rt::ReadOnlyHandle<rt::Vector<double>>>,
              "a read-only handle takes no write access");

void sum_into_cpu(rt::Vector<double const> x, rt::Variable<double> sum)
{
    for (double v : x) *sum += v;
}
const rt::Codelet<rt::Vector<double const>, rt::Variable<double>> sum_into{.name = "sum_into",
                                                                           .cpu = &sum_into_cpu};

TEST_P(Handles, ReadOnlyHandleOverConstMemoryIsReadAndNeverWritten)
{
    auto rt = make_runtime();
    std::vector<double> storage(300);
    for (std::size_t i = 0; i < storage.size(); ++i) storage[i] = double(i % 7) - 2.5;
    const std::vector<double> expected = storage;
    double const* x = storage.data();
    std::vector<double> sums(8, 0.0);
    {
        rt::ReadOnlyHandle h{*rt, rt::Vector<double const>{x, 300}};
        EXPECT_TRUE(h.registered());
        std::vector<rt::Handle<rt::Variable<double>>> hs;
        for (double& s : sums) hs.emplace_back(*rt, rt::Variable<double>{&s});
        for (auto& hsum : hs) rt->submit(sum_into, rt::read(h), rt::readwrite(hsum));
        rt->wait_all();
    }
    double want = 0;
    for (double v : expected) want += v;
    for (double s : sums) EXPECT_EQ(s, want);
    EXPECT_EQ(storage, expected);
    EXPECT_THROW((rt::ReadOnlyHandle{*rt, rt::Vector<double const>{nullptr, 3}}), InvalidArgument);
}

TEST_P(Handles, MatrixWithPaddingLeavesThePaddingAlone)
{
    auto rt = make_runtime();
    constexpr int64_t m = 5, n = 4, ld = 7;
    constexpr double sentinel = -777;
    std::vector<double> a(ld * n, sentinel);
    {
        rt::Handle h{*rt, rt::Matrix<double>{a.data(), m, n, ld}};
        auto v = h.view();
        EXPECT_EQ(v.m, m);
        EXPECT_EQ(v.n, n);
        EXPECT_EQ(v.ld, ld);
        rt->submit(fill_mat, rt::write(h), rt::value(1.0));
        rt->submit(scale_mat, rt::readwrite(h), rt::value(2.0));
        auto g = h.acquire<rt::Mode::R>();
        EXPECT_EQ(g.view().ld, ld);
        EXPECT_EQ(g.view()(4, 3), 2.0 * (1 + 4 + 30));
    }
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < ld; ++i) {
            double want = i < m ? 2.0 * (1 + double(i + 10 * j)) : sentinel;
            EXPECT_EQ(a[std::size_t(i + j * ld)], want) << "(" << i << ", " << j << ")";
        }
}

TEST_P(Handles, BlockWithPaddingLeavesThePaddingAlone)
{
    auto rt = make_runtime();
    constexpr int64_t nx = 3, ny = 2, nz = 3, ldy = 4, ldz = 11;  // ldz > ldy * ny
    constexpr double sentinel = -777;
    std::vector<double> b(ldz * nz, sentinel);
    {
        rt::Handle h{*rt, rt::Block<double>{b.data(), nx, ny, nz, ldy, ldz}};
        rt->submit(fill_block, rt::write(h), rt::value(1.0));
    }
    for (int64_t k = 0; k < nz; ++k)
        for (int64_t e = 0; e < ldz; ++e) {
            int64_t i = e % ldy, j = e / ldy;
            double want = (i < nx && j < ny) ? 1.0 + double(i + 10 * j + 100 * k) : sentinel;
            EXPECT_EQ(b[std::size_t(e + k * ldz)], want) << "element " << e << " of plane " << k;
        }
}

TEST_P(Handles, EmptyExtentsAreValid)
{
    auto rt = make_runtime();
    double storage = 3;
    rt::Handle v{*rt, rt::Vector<double>{&storage, 0}};
    rt::Handle a{*rt, rt::Matrix<double>{&storage, 0, 0, 1}};
    rt->submit(fill_vec, rt::write(v), rt::value(1.0));
    rt->submit(fill_mat, rt::write(a), rt::value(1.0));
    rt->wait_all();
    EXPECT_EQ(storage, 3) << "a task on an empty view touched memory";
}

// ---- acquire / release ordering ----------------------------------------------------------------

TEST_P(Handles, AcquireWaitsForTheWriter)
{
    auto rt = make_runtime();
    int64_t x = 0;
    rt::Handle h{*rt, rt::Variable<int64_t>{&x}};
    for (int64_t k = 1; k <= 3; ++k) {
        rt->submit(slow_set, rt::write(h), rt::value(k));
        if (k % 2)
            EXPECT_EQ(*h.acquire<rt::Mode::R>().view(), k);
        else
            EXPECT_EQ(*h.acquire<rt::Mode::RW>().view(), k);
    }
}

TEST_P(Handles, WritingAcquireWaitsForTheReaders)
{
    auto rt = make_runtime();
    int64_t x = 7;
    std::vector<int64_t> copies(4, 0);
    rt::Handle h{*rt, rt::Variable<int64_t>{&x}};
    std::vector<rt::Handle<rt::Variable<int64_t>>> hc;
    for (auto& c : copies) {
        hc.emplace_back(*rt, rt::Variable<int64_t>{&c});
        rt->submit(slow_copy, rt::read(h), rt::write(hc.back()));
    }
    {
        auto g = h.acquire<rt::Mode::RW>();  // write after read: every reader is done
        *g.view() = 100;
    }
    hc.clear();
    for (int64_t c : copies) EXPECT_EQ(c, 7) << "a reader saw the application's later write";
}

TEST_P(Handles, TaskWaitsForTheReleaseOfAWritingGuard)
{
    auto rt = make_runtime();
    int64_t x = 1;
    rt::Handle h{*rt, rt::Variable<int64_t>{&x}};
    auto g = h.acquire<rt::Mode::RW>();
    auto t = rt->submit(affine_var, rt::readwrite(h), rt::value(int64_t{1}));
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(t.done()) << "the task ran while the application held the data";
    *g.view() = 10;
    g.release();
    ASSERT_TRUE(completes(t));
    EXPECT_EQ(*h.acquire<rt::Mode::R>().view(), 31);
}

TEST_P(Handles, ReadingGuardBlocksWritersButNotReaders)
{
    auto rt = make_runtime();
    int64_t x = 4, y = 0;
    rt::Handle h{*rt, rt::Variable<int64_t>{&x}};
    rt::Handle hy{*rt, rt::Variable<int64_t>{&y}};
    std::optional<rt::AcquireGuard<rt::Variable<int64_t const>>> g;
    g.emplace(h.acquire<rt::Mode::R>());
    auto reader = rt->submit(copy_var, rt::read(h), rt::write(hy));
    EXPECT_TRUE(completes(reader)) << "a reader waited for a reading guard";
    auto writer = rt->submit(set_var, rt::write(h), rt::value(int64_t{9}));
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(writer.done()) << "a writer ran while the application read the data";
    EXPECT_EQ(*g->view(), 4);
    g.reset();  // the guard's destructor releases
    ASSERT_TRUE(completes(writer));
    EXPECT_EQ(*h.acquire<rt::Mode::R>().view(), 9);
    EXPECT_EQ(*hy.acquire<rt::Mode::R>().view(), 4);
}

TEST_P(Handles, ReadingAcquireDoesNotWaitForReaders)
{
    auto rt = make_runtime();
    int64_t x = 12, seen = 0;
    rt::Handle h{*rt, rt::Variable<int64_t>{&x}};
    Gate gate;
    auto opener = gate.opener();
    auto reader = rt->submit(gated_read, rt::read(h), rt::value(&gate), rt::value(&seen));
    ASSERT_TRUE(gate.wait_entered());
    {
        auto g = h.acquire<rt::Mode::R>();  // returns while the reader still runs
        EXPECT_EQ(*g.view(), 12);
        EXPECT_FALSE(reader.done());
    }
    gate.open();
    reader.wait();
    EXPECT_FALSE(gate.timed_out);
    EXPECT_EQ(seen, 12);
}

TEST_P(Handles, GuardReleaseIsIdempotentAndMovable)
{
    auto rt = make_runtime();
    int64_t x = 2;
    rt::Handle h{*rt, rt::Variable<int64_t>{&x}};
    auto g1 = h.acquire<rt::Mode::RW>();
    auto g2 = std::move(g1);
    g1.release();  // moved from: no effect
    auto t = rt->submit(add_var, rt::readwrite(h), rt::value(int64_t{1}));
    std::this_thread::sleep_for(10ms);
    EXPECT_FALSE(t.done());
    g2.release();
    g2.release();
    ASSERT_TRUE(completes(t));
    EXPECT_EQ(*h.acquire<rt::Mode::R>().view(), 3);
}

// ---- unregistration -----------------------------------------------------------------------------

TEST_P(Handles, UnregisterWaitsForTasksAndLeavesTheData)
{
    auto rt = make_runtime();
    int64_t x = 1, expected = 1;
    rt::Handle h{*rt, rt::Variable<int64_t>{&x}};
    rt->submit(slow_set, rt::write(h), rt::value(int64_t{2}));
    expected = 2;
    for (int64_t k = 0; k < 50; ++k) {
        rt->submit(affine_var, rt::readwrite(h), rt::value(k));
        expected = affine(expected, k);
    }
    h.unregister();
    EXPECT_EQ(x, expected);
    EXPECT_FALSE(h.registered());
    h.unregister();  // idempotent
    EXPECT_EQ(x, expected);
}

TEST_P(Handles, DestructorUnregisters)
{
    auto rt = make_runtime();
    std::vector<double> v(64, 0);
    {
        rt::Handle h{*rt, rt::Vector<double>{v.data(), 64}};
        rt->submit(fill_vec, rt::write(h), rt::value(3.0));
    }
    for (int64_t i = 0; i < 64; ++i) EXPECT_EQ(v[std::size_t(i)], 3.0 + double(i * i));
}

TEST_P(Handles, MoveTransfersTheRegistration)
{
    auto rt = make_runtime();
    int64_t a = 1, b = 100;
    rt::Handle ha{*rt, rt::Variable<int64_t>{&a}};
    rt::Handle<rt::Variable<int64_t>> moved{std::move(ha)};
    EXPECT_FALSE(ha.registered());
    EXPECT_EQ(rt::detail::Internals::state(ha), nullptr);  // the record went with the move
    EXPECT_TRUE(moved.registered());
    rt->submit(slow_set, rt::write(moved), rt::value(int64_t{5}));
    rt::Handle hb{*rt, rt::Variable<int64_t>{&b}};
    moved = std::move(hb);  // unregisters `a` first: waits for slow_set
    EXPECT_EQ(a, 5);
    EXPECT_FALSE(hb.registered());
    rt->submit(add_var, rt::readwrite(moved), rt::value(int64_t{1}));
    moved.unregister();
    EXPECT_EQ(b, 101);
}

TESSERA_INSTANTIATE_SWEEP(Handles);

// ---- bad registrations and empty handles -------------------------------------------------------

TEST(HandleArguments, BadRegistrationsThrow)
{
    rt::Runtime rt{{.ncpus = 1}};
    double d[64] = {};
    using V = rt::Vector<double>;
    using M = rt::Matrix<double>;
    using B = rt::Block<double>;
    EXPECT_THROW((rt::Handle{rt, rt::Variable<double>{nullptr}}), InvalidArgument);
    EXPECT_THROW((rt::Handle{rt, V{nullptr, 4}}), InvalidArgument);
    EXPECT_THROW((rt::Handle{rt, V{d, -1}}), InvalidArgument);
    EXPECT_THROW((rt::Handle{rt, M{nullptr, 2, 2, 2}}), InvalidArgument);
    EXPECT_THROW((rt::Handle{rt, M{d, 4, 2, 3}}), InvalidArgument) << "ld < m";
    EXPECT_THROW((rt::Handle{rt, M{d, -1, 2, 3}}), InvalidArgument);
    EXPECT_THROW((rt::Handle{rt, M{d, 2, -2, 3}}), InvalidArgument);
    EXPECT_THROW((rt::Handle{rt, B{nullptr, 2, 2, 2, 2, 4}}), InvalidArgument);
    EXPECT_THROW((rt::Handle{rt, B{d, 3, 2, 2, 2, 6}}), InvalidArgument) << "ldy < nx";
    EXPECT_THROW((rt::Handle{rt, B{d, 2, 3, 2, 2, 5}}), InvalidArgument) << "ldz < ldy * ny";
    EXPECT_THROW((rt::Handle{rt, B{d, 2, 2, -1, 2, 4}}), InvalidArgument);
    // the limits themselves are fine
    EXPECT_NO_THROW((rt::Handle{rt, M{d, 3, 2, 3}}));
    EXPECT_NO_THROW((rt::Handle{rt, B{d, 2, 3, 2, 2, 6}}));
}

TEST(HandleArguments, EmptyHandleIsNotRegistered)
{
    rt::Runtime rt{{.ncpus = 1}};
    rt::Handle<rt::Vector<double>> h;
    EXPECT_FALSE(h.registered());
    EXPECT_EQ(rt::detail::Internals::state(h), nullptr);
    EXPECT_THROW(h.view(), InvalidArgument);
    EXPECT_THROW(h.acquire<rt::Mode::R>(), InvalidArgument);
    EXPECT_NO_THROW(h.unregister());
    double d[4] = {};
    rt::Handle g{rt, rt::Vector<double>{d, 4}};
    g.unregister();
    EXPECT_THROW(g.view(), InvalidArgument);
    EXPECT_THROW(g.acquire<rt::Mode::RW>(), InvalidArgument);
}

}  // namespace
