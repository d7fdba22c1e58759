// Partitioning filters (include/tessera/rt/filter.hpp), over every registered scheduler x
// {1, 2, 4} workers:
//  - blocks() of a vector, row_blocks()/col_blocks()/tiles() of a matrix with uneven sizes:
//    balanced pieces (n/k or n/k + 1, the larger first) that alias the parent's memory with the
//    parent's leading dimension, and tasks writing each piece produce the right whole matrix
//    (padding untouched);
//  - recursion (a tile split again into row blocks), and pieces run concurrently;
//  - partitioning waits for the parent's tasks, unpartitioning (explicit or by the destructor)
//    waits for the pieces' tasks and gives the parent back;
//  - misuse throws InvalidArgument: the parent used while partitioned, partitioning twice,
//    too many or zero pieces, a filter that does not fit the interface, unpartitioning a
//    partition whose piece is itself partitioned.
#include "common/runtime_sweep.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace {

namespace rt = tessera::rt;
using namespace tessera::test;
using tessera::InvalidArgument;

void fill_vec_cpu(rt::Vector<int64_t> x, int64_t base)
{
    for (int64_t i = 0; i < x.n; ++i) x[i] = base + i;
}
/// x[i] = base + i (local index).
const rt::Codelet<rt::Vector<int64_t>, int64_t> fill_vec{.name = "fill_vec", .cpu = &fill_vec_cpu};

void add_vec_cpu(rt::Vector<int64_t> x, int64_t a)
{
    for (int64_t& e : x) e += a;
}
const rt::Codelet<rt::Vector<int64_t>, int64_t> add_vec{.name = "add_vec", .cpu = &add_vec_cpu};

void sum_vec_cpu(rt::Vector<int64_t const> x, rt::Variable<int64_t> s)
{
    *s = std::accumulate(x.begin(), x.end(), int64_t{0});
}
const rt::Codelet<rt::Vector<int64_t const>, rt::Variable<int64_t>> sum_vec{.name = "sum_vec",
                                                                            .cpu = &sum_vec_cpu};

void fill_mat_cpu(rt::Matrix<int64_t> a, int64_t base)
{
    for (int64_t j = 0; j < a.n; ++j)
        for (int64_t i = 0; i < a.m; ++i) a(i, j) = base + 100 * i + j;
}
/// a(i, j) = base + 100 i + j (local indices).
const rt::Codelet<rt::Matrix<int64_t>, int64_t> fill_mat{.name = "fill_mat", .cpu = &fill_mat_cpu};

void slow_add_vec_cpu(rt::Vector<int64_t> x, int64_t a)
{
    std::this_thread::sleep_for(10ms);
    for (int64_t& e : x) e += a;
}
const rt::Codelet<rt::Vector<int64_t>, int64_t> slow_add_vec{.name = "slow_add_vec",
                                                             .cpu = &slow_add_vec_cpu};

void rendezvous_vec_cpu(rt::Vector<int64_t> x, Rendezvous* r)
{
    rendezvous_cpu(r);
    for (int64_t& e : x) e += 1;
}
const rt::Codelet<rt::Vector<int64_t>, Rendezvous*> rendezvous_vec{.name = "rendezvous_vec",
                                                                   .cpu = &rendezvous_vec_cpu};

/// The balanced split of n into k pieces: sizes n/k or n/k + 1, the larger first.
std::vector<int64_t> balanced(int64_t n, int64_t k)
{
    std::vector<int64_t> s(std::size_t(k), n / k);
    for (int64_t p = 0; p < n % k; ++p) s[std::size_t(p)] += 1;
    return s;
}
std::vector<int64_t> offsets(std::vector<int64_t> const& sizes)
{
    std::vector<int64_t> o(sizes.size(), 0);
    for (std::size_t p = 1; p < sizes.size(); ++p) o[p] = o[p - 1] + sizes[p - 1];
    return o;
}

class Filters : public RuntimeSweep {};

TEST_P(Filters, VectorBlocks)
{
    auto rt = make_runtime();
    std::vector<int64_t> x(10, -1);
    rt::Handle h{*rt, rt::Vector<int64_t>{x.data(), 10}};
    {
        auto p = rt::partition(h, rt::blocks(3));
        ASSERT_EQ(p.size(), 3);
        std::vector<int64_t> want_n{4, 3, 3}, want_off{0, 4, 7};
        for (int64_t b = 0; b < 3; ++b) {
            auto v = p[b].view();
            EXPECT_EQ(v.n, want_n[std::size_t(b)]);
            EXPECT_EQ(v.ptr, x.data() + want_off[std::size_t(b)]);
            rt->submit(fill_vec, rt::write(p[b]), rt::value(1000 * b));
        }
        for (int64_t b = 0; b < 3; ++b)
            rt->submit(add_vec, rt::readwrite(p[b]), rt::value(int64_t{5}));
    }
    // the parent is back, and reads what the pieces wrote
    std::vector<int64_t> want;
    for (int64_t b = 0; b < 3; ++b)
        for (int64_t i = 0; i < std::vector<int64_t>{4, 3, 3}[std::size_t(b)]; ++i)
            want.push_back(1000 * b + i + 5);
    {
        auto g = h.acquire<rt::Mode::R>();
        EXPECT_EQ(std::vector<int64_t>(g.view().begin(), g.view().end()), want);
    }
}

TEST_P(Filters, RowAndColumnBlocks)
{
    auto rt = make_runtime();
    constexpr int64_t m = 7, n = 5, ld = 9;
    constexpr int64_t sentinel = -99;
    std::vector<int64_t> a(ld * n, sentinel);
    rt::Handle h{*rt, rt::Matrix<int64_t>{a.data(), m, n, ld}};
    {
        auto rows = rt::partition(h, rt::row_blocks(3));
        EXPECT_EQ(rows.size(), 3);
        EXPECT_EQ(rows.rows(), 3);
        EXPECT_EQ(rows.cols(), 1);
        auto sz = balanced(m, 3), off = offsets(sz);
        for (int64_t i = 0; i < 3; ++i) {
            auto v = rows(i, 0).view();
            EXPECT_EQ(v.m, sz[std::size_t(i)]);
            EXPECT_EQ(v.n, n);
            EXPECT_EQ(v.ld, ld);
            EXPECT_EQ(v.ptr, a.data() + off[std::size_t(i)]);
            EXPECT_EQ(rt::detail::Internals::state(rows[i]),
                      rt::detail::Internals::state(rows(i, 0)));
            rt->submit(fill_mat, rt::write(rows(i, 0)), rt::value(10000 * i));
        }
    }
    for (int64_t j = 0; j < n; ++j)
        for (int64_t r = 0; r < ld; ++r) {
            int64_t want = sentinel;
            if (r < m) {
                int64_t i = r < 3 ? 0 : (r < 5 ? 1 : 2),
                        local = r - (i == 0 ? 0 : (i == 1 ? 3 : 5));
                want = 10000 * i + 100 * local + j;
            }
            EXPECT_EQ(a[std::size_t(r + j * ld)], want) << "row " << r << " col " << j;
        }
    {
        auto cols = rt::partition(h, rt::col_blocks(3));
        EXPECT_EQ(cols.rows(), 1);
        EXPECT_EQ(cols.cols(), 3);
        auto sz = balanced(n, 3), off = offsets(sz);
        for (int64_t j = 0; j < 3; ++j) {
            auto v = cols(0, j).view();
            EXPECT_EQ(v.m, m);
            EXPECT_EQ(v.n, sz[std::size_t(j)]);
            EXPECT_EQ(v.ld, ld);
            EXPECT_EQ(v.ptr, a.data() + off[std::size_t(j)] * ld);
            rt->submit(fill_mat, rt::write(cols(0, j)), rt::value(10000 * j));
        }
        cols.unpartition();
        for (int64_t c = 0; c < n; ++c)
            for (int64_t r = 0; r < ld; ++r) {
                int64_t j = c < 2 ? 0 : (c < 4 ? 1 : 2), local = c - 2 * j;
                int64_t want = r < m ? 10000 * j + 100 * r + local : sentinel;
                EXPECT_EQ(a[std::size_t(r + c * ld)], want) << "row " << r << " col " << c;
            }
    }
}

TEST_P(Filters, UnevenTilesBuildTheWholeMatrix)
{
    auto rt = make_runtime();
    constexpr int64_t m = 10, n = 7, ld = 12, mt = 3, nt = 2;
    constexpr int64_t sentinel = -99;
    std::vector<int64_t> a(ld * n, sentinel);
    rt::Handle h{*rt, rt::Matrix<int64_t>{a.data(), m, n, ld}};
    auto rs = balanced(m, mt), cs = balanced(n, nt), ro = offsets(rs), co = offsets(cs);
    ASSERT_EQ(rs, (std::vector<int64_t>{4, 3, 3}));
    ASSERT_EQ(cs, (std::vector<int64_t>{4, 3}));
    {
        auto p = rt::partition(h, rt::tiles(mt, nt));
        ASSERT_EQ(p.size(), mt * nt);
        for (int64_t j = 0; j < nt; ++j)
            for (int64_t i = 0; i < mt; ++i) {
                EXPECT_EQ(rt::detail::Internals::state(p[i + j * mt]),
                          rt::detail::Internals::state(p(i, j)))
                    << "column-major order";
                auto v = p(i, j).view();
                EXPECT_EQ(v.m, rs[std::size_t(i)]);
                EXPECT_EQ(v.n, cs[std::size_t(j)]);
                EXPECT_EQ(v.ld, ld);
                EXPECT_EQ(v.ptr, a.data() + ro[std::size_t(i)] + co[std::size_t(j)] * ld);
                rt->submit(fill_mat, rt::write(p(i, j)), rt::value(100000 * i + 10000 * j));
            }
    }  // the destructor unpartitions
    for (int64_t c = 0; c < n; ++c)
        for (int64_t r = 0; r < ld; ++r) {
            int64_t want = sentinel;
            if (r < m) {
                int64_t i = r < 4 ? 0 : (r < 7 ? 1 : 2), j = c < 4 ? 0 : 1;
                want = 100000 * i + 10000 * j + 100 * (r - ro[std::size_t(i)]) +
                       (c - co[std::size_t(j)]);
            }
            EXPECT_EQ(a[std::size_t(r + c * ld)], want) << "row " << r << " col " << c;
        }
}

TEST_P(Filters, RecursivePartitioning)
{
    auto rt = make_runtime();
    constexpr int64_t m = 8, n = 6, ld = 8;
    std::vector<int64_t> a(ld * n, 0);
    rt::Handle h{*rt, rt::Matrix<int64_t>{a.data(), m, n, ld}};
    {
        auto tiles = rt::partition(h, rt::tiles(2, 2));  // 4x3 tiles
        for (int64_t j = 0; j < 2; ++j)
            for (int64_t i = 0; i < 2; ++i)
                rt->submit(fill_mat, rt::write(tiles(i, j)), rt::value(int64_t{1}));
        {
            auto halves =
                rt::partition(tiles(1, 0), rt::row_blocks(2));  // rows 4-5 and 6-7 of columns 0-2
            ASSERT_EQ(halves.size(), 2);
            EXPECT_EQ(halves[1].view().ptr, a.data() + 6);
            EXPECT_EQ(halves[1].view().m, 2);
            EXPECT_EQ(halves[1].view().n, 3);
            EXPECT_EQ(halves[1].view().ld, ld);
            // the partitioned tile is off limits, and so is unpartitioning its parent
            EXPECT_THROW(rt->submit(fill_mat, rt::write(tiles(1, 0)), rt::value(int64_t{0})),
                         InvalidArgument);
            EXPECT_THROW(tiles.unpartition(), InvalidArgument);
            rt->submit(fill_mat, rt::write(halves[0]), rt::value(int64_t{5000}));
            rt->submit(fill_mat, rt::write(halves[1]), rt::value(int64_t{7000}));
            halves.unpartition();
        }
        rt->submit(fill_mat, rt::write(tiles(0, 1)), rt::value(int64_t{9000}));
        tiles.unpartition();
    }
    for (int64_t c = 0; c < n; ++c)
        for (int64_t r = 0; r < m; ++r) {
            int64_t want;
            if (r >= 4 && c < 3)
                want = (r < 6 ? 5000 + 100 * (r - 4) : 7000 + 100 * (r - 6)) + c;
            else if (r < 4 && c >= 3)
                want = 9000 + 100 * r + (c - 3);
            else
                want = 1 + 100 * (r % 4) + (c % 3);
            EXPECT_EQ(a[std::size_t(r + c * ld)], want) << "row " << r << " col " << c;
        }
}

TEST_P(Filters, PartitionWaitsForTheParentsTasksAndUnpartitionForThePieces)
{
    auto rt = make_runtime();
    std::vector<int64_t> x(12, 0);
    rt::Handle h{*rt, rt::Vector<int64_t>{x.data(), 12}};
    for (int k = 0; k < 3; ++k) rt->submit(slow_add_vec, rt::readwrite(h), rt::value(int64_t{1}));
    auto p = rt::partition(h, rt::blocks(4));
    for (int64_t e : x) EXPECT_EQ(e, 3) << "partitioned before the parent's tasks completed";
    for (int64_t b = 0; b < 4; ++b)
        rt->submit(slow_add_vec, rt::readwrite(p[b]), rt::value(10 * (b + 1)));
    p.unpartition();
    for (int64_t i = 0; i < 12; ++i)
        EXPECT_EQ(x[std::size_t(i)], 3 + 10 * (i / 3 + 1)) << "element " << i;
    // usable again, and ordered after the pieces' tasks
    int64_t s = 0;
    rt::Handle hs{*rt, rt::Variable<int64_t>{&s}};
    rt->submit(sum_vec, rt::read(h), rt::write(hs));
    EXPECT_EQ(*hs.acquire<rt::Mode::R>().view(), 36 + 3 * 10 * (1 + 2 + 3 + 4));
    p.unpartition();  // idempotent
}

TEST_P(Filters, ParentIsOffLimitsWhilePartitioned)
{
    auto rt = make_runtime();
    std::vector<int64_t> x(8, 0);
    int64_t s = 0;
    rt::Handle h{*rt, rt::Vector<int64_t>{x.data(), 8}};
    rt::Handle hs{*rt, rt::Variable<int64_t>{&s}};
    EXPECT_FALSE(rt::partitioned(h));
    {
        auto p = rt::partition(h, rt::blocks(2));
        EXPECT_TRUE(rt::partitioned(h));
        EXPECT_FALSE(rt::partitioned(p[0]));
        int64_t before = rt->pending_tasks();
        EXPECT_THROW(rt->submit(sum_vec, rt::read(h), rt::write(hs)), InvalidArgument);
        EXPECT_THROW(rt->submit(add_vec, rt::readwrite(h), rt::value(int64_t{1})), InvalidArgument);
        EXPECT_THROW(h.acquire<rt::Mode::R>(), InvalidArgument);
        EXPECT_THROW(rt::partition(h, rt::blocks(2)), InvalidArgument) << "already partitioned";
        EXPECT_EQ(rt->pending_tasks(), before) << "a rejected submission left a task behind";
        rt->submit(add_vec, rt::readwrite(p[0]), rt::value(int64_t{1}));
        rt->submit(add_vec, rt::readwrite(p[1]), rt::value(int64_t{2}));
    }
    EXPECT_FALSE(rt::partitioned(h));
    rt->submit(sum_vec, rt::read(h), rt::write(hs));
    EXPECT_EQ(*hs.acquire<rt::Mode::R>().view(), 4 * 1 + 4 * 2);
}

TESSERA_INSTANTIATE_SWEEP(Filters);

class FiltersConcurrency : public RuntimeSweep {};

TEST_P(FiltersConcurrency, PiecesRunConcurrently)
{
    auto rt = make_runtime();
    std::vector<int64_t> x(32, 0);
    rt::Handle h{*rt, rt::Vector<int64_t>{x.data(), 32}};
    Rendezvous r;
    {
        auto p = rt::partition(h, rt::blocks(16));
        for (int64_t b = 0; b < 16; ++b)
            rt->submit(rendezvous_vec, rt::readwrite(p[b]), rt::value(&r));
    }
    EXPECT_TRUE(r.met.load()) << "tasks on different pieces never ran at the same time";
    for (int64_t e : x) EXPECT_EQ(e, 1);
}

INSTANTIATE_TEST_SUITE_P(AtLeastTwoWorkers, FiltersConcurrency,
                         testing::ValuesIn(runtime_params({2, 4})), runtime_param_name_of);

// ---- sizes and bad arguments (no tasks: one runtime) -----------------------------------------

TEST(FilterShapes, BalancedPiecesForEverySplit)
{
    rt::Runtime rt{{.ncpus = 1}};
    for (int64_t n = 1; n <= 13; ++n) {
        std::vector<int64_t> x(static_cast<std::size_t>(n));
        rt::Handle h{rt, rt::Vector<int64_t>{x.data(), n}};
        for (int64_t k = 1; k <= n; ++k) {
            auto p = rt::partition(h, rt::blocks(k));
            ASSERT_EQ(p.size(), k);
            auto sz = balanced(n, k), off = offsets(sz);
            for (int64_t b = 0; b < k; ++b) {
                EXPECT_EQ(p[b].view().n, sz[std::size_t(b)])
                    << n << " into " << k << ", piece " << b;
                EXPECT_EQ(p[b].view().ptr, x.data() + off[std::size_t(b)])
                    << n << " into " << k << ", piece " << b;
            }
        }
    }
    std::vector<int64_t> a(11 * 9);
    rt::Handle h{rt, rt::Matrix<int64_t>{a.data(), 11, 9, 11}};
    for (int64_t mt = 1; mt <= 11; mt += 2)
        for (int64_t nt = 1; nt <= 9; nt += 2) {
            auto p = rt::partition(h, rt::tiles(mt, nt));
            auto rs = balanced(11, mt), cs = balanced(9, nt), ro = offsets(rs), co = offsets(cs);
            for (int64_t j = 0; j < nt; ++j)
                for (int64_t i = 0; i < mt; ++i) {
                    auto v = p(i, j).view();
                    EXPECT_EQ(v.m, rs[std::size_t(i)]);
                    EXPECT_EQ(v.n, cs[std::size_t(j)]);
                    EXPECT_EQ(v.ptr, a.data() + ro[std::size_t(i)] + 11 * co[std::size_t(j)]);
                }
        }
}

TEST(FilterShapes, BadFiltersThrow)
{
    rt::Runtime rt{{.ncpus = 1}};
    std::vector<int64_t> x(10), a(7 * 5);
    int64_t v = 0;
    rt::Handle hx{rt, rt::Vector<int64_t>{x.data(), 10}};
    rt::Handle ha{rt, rt::Matrix<int64_t>{a.data(), 7, 5, 7}};
    rt::Handle hv{rt, rt::Variable<int64_t>{&v}};
    EXPECT_THROW(rt::partition(hx, rt::blocks(11)), InvalidArgument) << "more pieces than elements";
    EXPECT_THROW(rt::partition(hx, rt::blocks(0)), InvalidArgument);
    EXPECT_THROW(rt::partition(hx, rt::blocks(-2)), InvalidArgument);
    EXPECT_THROW(rt::partition(ha, rt::row_blocks(8)), InvalidArgument);
    EXPECT_THROW(rt::partition(ha, rt::col_blocks(6)), InvalidArgument);
    EXPECT_THROW(rt::partition(ha, rt::tiles(8, 1)), InvalidArgument);
    EXPECT_THROW(rt::partition(ha, rt::tiles(1, 6)), InvalidArgument);
    EXPECT_THROW(rt::partition(ha, rt::tiles(0, 1)), InvalidArgument);
    EXPECT_THROW(rt::partition(hx, rt::row_blocks(2)), InvalidArgument)
        << "a matrix filter on a vector";
    EXPECT_THROW(rt::partition(ha, rt::blocks(2)), InvalidArgument)
        << "a vector filter on a matrix";
    EXPECT_THROW(rt::partition(hv, rt::blocks(1)), InvalidArgument) << "a variable cannot be split";
    rt::Handle<rt::Vector<int64_t>> empty;
    EXPECT_THROW(rt::partition(empty, rt::blocks(1)), InvalidArgument);
    // none of these left the handles partitioned
    EXPECT_NO_THROW(rt::partition(hx, rt::blocks(10)));
    EXPECT_NO_THROW(rt::partition(ha, rt::tiles(7, 5)));
    auto p = rt::partition(hx, rt::blocks(2));
    EXPECT_THROW(p[2], InvalidArgument);
    EXPECT_THROW(p[-1], InvalidArgument);
    EXPECT_THROW(p(0, 1), InvalidArgument);
}

}  // namespace
