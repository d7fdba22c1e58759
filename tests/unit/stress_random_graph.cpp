// Randomized stress test of the whole runtime: for seeds 1..8 x every registered scheduler x
// {1, 2, 4} workers, a random task graph over 16 handles (8 Variable<int64_t>, 8
// Vector<int64_t>, some vectors partitioned into blocks, sometimes recursively, for part of the
// run) is submitted: 3000 tasks, each accessing 1-3 distinct handles
// with random modes (R, W, RW), a random priority, a random value argument, and now and then
// an explicit after() dependency. Each kernel applies a deterministic, non-commutative update
// (mod the Mersenne prime 2^61 - 1): writes depend on the values read and RW updates on the
// old value, so any violation of read-after-write, write-after-read or write-after-write order
// changes the result. A sequential oracle applies the same tasks in submission order; the
// application also acquires random handles during the run (R: compare with the oracle; RW:
// modify). Odd seeds run with a small submission window (max_pending_tasks = 32). A run that
// does not finish within its deadline fails instead of hanging. A second instantiation runs
// 20 seeds x every scheduler with 2 CPU workers and 2 emulated devices of 512 bytes each, so
// that data moves, is evicted and written back between three memory nodes all the time.
#include "common/runtime_sweep.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace rt = tessera::rt;
using namespace tessera::test;

// ---- arithmetic mod p = 2^61 - 1 -----------------------------------------------------------------

constexpr uint64_t prime = (uint64_t{1} << 61) - 1;
uint64_t add_mod(uint64_t a, uint64_t b)
{
    uint64_t s = a + b;  // a, b < 2^61: no overflow
    return s >= prime ? s - prime : s;
}
uint64_t mul_mod(uint64_t a, uint64_t b)
{
    __uint128_t p = static_cast<__uint128_t>(a) * b;
    return add_mod(uint64_t(p & prime), uint64_t(p >> 61));
}

// ---- the update, shared by the kernels and the oracle ------------------------------------------

/// One buffer of a task: its elements and how the task accesses them.
struct Slot {
    int64_t* p;
    int64_t n;
    rt::Mode mode;
};

/// s = fold of every element read (R slots, in order, seeded with a); then each W slot gets
/// x[i] = s + a + i and each RW slot x[i] = 3 x[i] + s + i, all mod p.
void apply_update(int64_t a, std::span<Slot const> slots)
{
    uint64_t s = uint64_t(a);
    for (Slot const& sl : slots)
        if (sl.mode == rt::Mode::R)
            for (int64_t i = 0; i < sl.n; ++i) s = add_mod(mul_mod(s, 7), uint64_t(sl.p[i]));
    for (Slot const& sl : slots) {
        if (sl.mode == rt::Mode::W)
            for (int64_t i = 0; i < sl.n; ++i)
                sl.p[i] = int64_t(add_mod(add_mod(s, uint64_t(a)), uint64_t(i)));
        else if (sl.mode == rt::Mode::RW)
            for (int64_t i = 0; i < sl.n; ++i)
                sl.p[i] = int64_t(add_mod(add_mod(mul_mod(uint64_t(sl.p[i]), 3), s), uint64_t(i)));
    }
}

template <class T> Slot slot_of(rt::Variable<T> v, bool write_only)
{
    return {const_cast<int64_t*>(v.ptr), 1,
            std::is_const_v<T> ? rt::Mode::R : (write_only ? rt::Mode::W : rt::Mode::RW)};
}
template <class T> Slot slot_of(rt::Vector<T> v, bool write_only)
{
    return {const_cast<int64_t*>(v.ptr), v.n,
            std::is_const_v<T> ? rt::Mode::R : (write_only ? rt::Mode::W : rt::Mode::RW)};
}

/// The kernel for buffers Vs...: bit k of w_only says that buffer k is accessed with W (not RW).
template <class... Vs> void update_cpu(int64_t a, unsigned w_only, Vs... vs)
{
    if (a % 8 == 0) {  // one task in 8 takes a few microseconds: more overlap between tasks
        uint64_t spin = uint64_t(a);
        for (int i = 0; i < 3000; ++i) spin = spin * 31 + uint64_t(i);
        asm volatile("" : : "r"(spin));  // keeps the loop
    }
    unsigned k = 0;
    std::array<Slot, sizeof...(Vs)> slots{slot_of(vs, ((w_only >> k++) & 1u) != 0)...};
    apply_update(a, slots);
}
template <class... Vs>
inline const rt::Codelet<int64_t, unsigned, Vs...> update_cl{.name = "update",
                                                             .cpu = &update_cpu<Vs...>};

// ---- the state of one run -------------------------------------------------------------------------

constexpr int n_vars = 8, n_vecs = 8;
constexpr int64_t vec_len = 12;

/// Something a task can access: a whole variable, a whole vector, or a piece of a vector.
struct Unit {
    rt::Handle<rt::Variable<int64_t>>* var = nullptr;
    rt::Handle<rt::Vector<int64_t>>* vec = nullptr;
    int root;        // index of the variable or vector
    int64_t offset;  // of the piece in its vector
    int64_t len;
};

struct Pick {
    Unit const* unit;
    rt::Mode mode;
};

/// Submits update_cl<...> with the buffers in `rest`, building the codelet type one buffer at
/// a time (at most 3).
template <class... Vs> struct Submitter {
    template <class... Accs>
    static rt::TaskRef go(rt::Runtime& r, std::span<Pick const> rest, int64_t a, unsigned w_only,
                          int prio, rt::TaskRef const* dep, Accs... accs)
    {
        if (rest.empty()) {
            // one submit with or without a dependency (an empty span adds none): each
            // combination of buffers instantiates it, and a second one cost a quarter of this
            // file's compile time
            std::span<rt::TaskRef const> deps(dep, dep ? 1 : 0);
            return r.submit(update_cl<Vs...>, rt::value(a), rt::value(w_only), accs...,
                            rt::priority(prio), rt::after(deps));
        }
        if constexpr (sizeof...(Vs) < 3) {
            Pick const& p = rest.front();
            auto next = rest.subspan(1);
            if (p.unit->var) {
                auto& h = *p.unit->var;
                switch (p.mode) {
                case rt::Mode::R:
                    return Submitter<Vs..., rt::Variable<int64_t const>>::go(
                        r, next, a, w_only, prio, dep, accs..., rt::read(h));
                case rt::Mode::W:
                    return Submitter<Vs..., rt::Variable<int64_t>>::go(r, next, a, w_only, prio,
                                                                       dep, accs..., rt::write(h));
                case rt::Mode::RW:
                    return Submitter<Vs..., rt::Variable<int64_t>>::go(
                        r, next, a, w_only, prio, dep, accs..., rt::readwrite(h));
                default:
                    break;  // the generator draws R, W and RW only
                }
            } else {
                auto& h = *p.unit->vec;
                switch (p.mode) {
                case rt::Mode::R:
                    return Submitter<Vs..., rt::Vector<int64_t const>>::go(
                        r, next, a, w_only, prio, dep, accs..., rt::read(h));
                case rt::Mode::W:
                    return Submitter<Vs..., rt::Vector<int64_t>>::go(r, next, a, w_only, prio, dep,
                                                                     accs..., rt::write(h));
                case rt::Mode::RW:
                    return Submitter<Vs..., rt::Vector<int64_t>>::go(r, next, a, w_only, prio, dep,
                                                                     accs..., rt::readwrite(h));
                default:
                    break;
                }
            }
        }
        ADD_FAILURE() << "more than 3 buffers, or a mode other than R, W, RW";
        return {};
    }
};

struct StressParam {
    RuntimeParam runtime;
    int seed;
    int nemu = 0;  // emulated devices, each able to hold only a few of the handles at once
};
std::ostream& operator<<(std::ostream& os, StressParam const& p)
{
    return os << p.runtime << ", seed " << p.seed;
}

/// What a run reports back (shared with its thread, which may outlive the test on a deadlock).
struct Outcome {
    std::string mismatch;  // empty: the run matched the oracle (read once the run has returned)
    std::atomic<int64_t> tasks{0}, acquires{0}, partitions{0};  // read even while it runs
};

void run_graph(StressParam const& param, Outcome& out)
{
    std::mt19937_64 rng(uint64_t(param.seed) * 7919 + 17);
    auto uniform = [&](int64_t lo, int64_t hi) {
        return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };

    rt::RuntimeConfig config = config_of(param.runtime);
    config.max_pending_tasks = param.seed % 2 ? std::optional<int64_t>(32) : std::nullopt;
    if (param.nemu > 0) {
        config.nemu = param.nemu;
        config.emu_memory = "512B";  // five 96-byte vectors: every task fits, little else does
        config.perfmodel_dir = "none";
    }
    rt::Runtime r{config};

    // real data and the oracle's copy, with the same initial values
    std::vector<int64_t> vars(n_vars), oracle_vars(n_vars);
    std::vector<std::vector<int64_t>> vecs(n_vecs, std::vector<int64_t>(vec_len)),
        oracle_vecs = vecs;
    for (int v = 0; v < n_vars; ++v)
        vars[std::size_t(v)] = oracle_vars[std::size_t(v)] = uniform(0, int64_t(prime) - 1);
    for (int v = 0; v < n_vecs; ++v)
        for (int64_t i = 0; i < vec_len; ++i)
            vecs[std::size_t(v)][std::size_t(i)] = oracle_vecs[std::size_t(v)][std::size_t(i)] =
                uniform(0, int64_t(prime) - 1);
    auto oracle_ptr = [&](Unit const& u) {
        return u.var ? &oracle_vars[std::size_t(u.root)]
                     : oracle_vecs[std::size_t(u.root)].data() + u.offset;
    };
    {
        std::vector<rt::Handle<rt::Variable<int64_t>>> hvar;
        std::vector<rt::Handle<rt::Vector<int64_t>>> hvec;
        for (auto& x : vars) hvar.emplace_back(r, rt::Variable<int64_t>{&x});
        for (auto& v : vecs) hvec.emplace_back(r, rt::Vector<int64_t>{v.data(), vec_len});

        int const total = 3000;
        int const phases = 8;
        std::deque<rt::TaskRef> recent;
        for (int phase = 0; phase < phases; ++phase) {
            // partition some vectors for this phase, one of them sometimes twice as deep
            std::vector<std::optional<rt::Partition<rt::Vector<int64_t>>>> parts(n_vecs);
            std::vector<std::optional<rt::Partition<rt::Vector<int64_t>>>> subparts(n_vecs);
            std::vector<Unit> units;
            for (int v = 0; v < n_vars; ++v)
                units.push_back({&hvar[std::size_t(v)], nullptr, v, 0, 1});
            for (int v = 0; v < n_vecs; ++v) {
                auto& h = hvec[std::size_t(v)];
                if (phase == phases - 1 || uniform(0, 2) != 0) {
                    units.push_back({nullptr, &h, v, 0, vec_len});
                    continue;
                }
                parts[std::size_t(v)].emplace(rt::partition(h, rt::blocks(uniform(2, 4))));
                ++out.partitions;
                auto& p = *parts[std::size_t(v)];
                int64_t first = 0;
                if (uniform(0, 3) == 0 && p[0].view().n >= 2) {
                    subparts[std::size_t(v)].emplace(rt::partition(p[0], rt::blocks(2)));
                    ++out.partitions;
                    first = 1;
                    for (int64_t c = 0; c < 2; ++c) {
                        auto& ch = (*subparts[std::size_t(v)])[c];
                        units.push_back({nullptr, &ch, v,
                                         ch.view().ptr - vecs[std::size_t(v)].data(), ch.view().n});
                    }
                }
                for (int64_t c = first; c < p.size(); ++c)
                    units.push_back({nullptr, &p[c], v,
                                     p[c].view().ptr - vecs[std::size_t(v)].data(), p[c].view().n});
            }

            for (int k = 0; k < total / phases; ++k) {
                // now and then, the application looks at (or changes) a unit in the middle of the run
                if (uniform(0, 199) == 0) {
                    Unit const& u = units[std::size_t(uniform(0, int64_t(units.size()) - 1))];
                    int64_t* o = oracle_ptr(u);
                    ++out.acquires;
                    if (uniform(0, 1)) {
                        std::vector<int64_t> seen;
                        if (u.var) {
                            seen.push_back(*u.var->acquire<rt::Mode::R>().view());
                        } else {
                            auto g = u.vec->acquire<rt::Mode::R>();
                            seen.assign(g.view().begin(), g.view().end());
                        }
                        if (seen != std::vector<int64_t>(o, o + u.len) && out.mismatch.empty())
                            out.mismatch = "acquire<R> of root " + std::to_string(u.root) +
                                           " (offset " + std::to_string(u.offset) + ") after " +
                                           std::to_string(out.tasks.load()) +
                                           " tasks saw other values than the oracle";
                    } else {
                        int64_t* p = nullptr;
                        std::optional<rt::AcquireGuard<rt::Variable<int64_t>>> gv;
                        std::optional<rt::AcquireGuard<rt::Vector<int64_t>>> gw;
                        if (u.var) {
                            gv.emplace(u.var->acquire<rt::Mode::RW>());
                            p = gv->view().ptr;
                        } else {
                            gw.emplace(u.vec->acquire<rt::Mode::RW>());
                            p = gw->view().ptr;
                        }
                        for (int64_t i = 0; i < u.len; ++i) {
                            p[i] = int64_t(add_mod(mul_mod(uint64_t(p[i]), 5), 1));
                            o[i] = int64_t(add_mod(mul_mod(uint64_t(o[i]), 5), 1));
                        }
                    }
                }
                // a task over 1-3 distinct units
                int nbuf = int(uniform(1, 3));
                std::vector<std::size_t> idx(units.size());
                std::iota(idx.begin(), idx.end(), 0);
                std::shuffle(idx.begin(), idx.end(), rng);
                std::vector<Pick> picks;
                std::vector<Slot> oracle_slots;
                unsigned w_only = 0;
                for (int b = 0; b < nbuf; ++b) {
                    Unit const& u = units[idx[std::size_t(b)]];
                    int64_t m = uniform(0, 5);  // reads are the most common access
                    rt::Mode mode = m < 3 ? rt::Mode::R : (m == 3 ? rt::Mode::W : rt::Mode::RW);
                    if (mode == rt::Mode::W) w_only |= 1u << b;
                    picks.push_back({&u, mode});
                    oracle_slots.push_back({oracle_ptr(u), u.len, mode});
                }
                int64_t a = uniform(0, int64_t(prime) - 1);
                int prio = int(uniform(-3, 3));
                rt::TaskRef const* dep = nullptr;
                if (!recent.empty() && uniform(0, 19) == 0)
                    dep = &recent[std::size_t(uniform(0, int64_t(recent.size()) - 1))];
                rt::TaskRef t = Submitter<>::go(r, picks, a, w_only, prio, dep);
                apply_update(a, oracle_slots);
                ++out.tasks;
                recent.push_back(std::move(t));
                if (recent.size() > 16) recent.pop_front();
            }
            // give the pieces back: explicitly or through the destructors, inner first
            if (phase % 2) {
                for (auto& sp : subparts)
                    if (sp) sp->unpartition();
                for (auto& p : parts)
                    if (p) p->unpartition();
            } else {
                for (auto& sp : subparts) sp.reset();
            }
        }
        r.wait_all();
    }  // unregisters: the user's buffers hold the results
    for (int v = 0; v < n_vars && out.mismatch.empty(); ++v)
        if (vars[std::size_t(v)] != oracle_vars[std::size_t(v)])
            out.mismatch = "variable " + std::to_string(v) + " differs";
    for (int v = 0; v < n_vecs && out.mismatch.empty(); ++v)
        if (vecs[std::size_t(v)] != oracle_vecs[std::size_t(v)])
            out.mismatch = "vector " + std::to_string(v) + " differs";
}

class StressRandomGraph : public testing::TestWithParam<StressParam> {};

TEST_P(StressRandomGraph, MatchesTheSequentialOracle)
{
    StressParam param = GetParam();
    auto out = std::make_shared<Outcome>();
    bool finished = finishes_within(60s, [param, out] { run_graph(param, *out); });
    ASSERT_TRUE(finished) << "the run did not finish in time (deadlock?) after "
                          << out->tasks.load() << " tasks";
    EXPECT_EQ(out->mismatch, "") << out->tasks.load() << " tasks, " << out->acquires.load()
                                 << " acquires, " << out->partitions.load() << " partitions";
    EXPECT_GT(out->tasks.load(), 1000);
    EXPECT_GT(out->partitions.load(), 0);
}

std::vector<StressParam> stress_params()
{
    std::vector<StressParam> out;
    for (auto const& rp : runtime_params({1, 2, 4}))
        for (int seed = 1; seed <= sweep_seeds(8); ++seed) out.push_back({rp, seed});
    return out;
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, StressRandomGraph, testing::ValuesIn(stress_params()),
                         [](testing::TestParamInfo<StressParam> const& info) {
                             return runtime_param_name(info.param.runtime) + "_seed" +
                                    std::to_string(info.param.seed);
                         });

// The same graphs with 2 emulated devices of small capacity next to 2 cores: data moves between
// three memory nodes, is evicted and written back all the time, and must still end up equal.
std::vector<StressParam> device_params()
{
    std::vector<StressParam> out;
    for (auto const& rp : runtime_params({2}))
        for (int seed = 1; seed <= sweep_seeds(20); ++seed) out.push_back({rp, seed, 2});
    return out;
}

INSTANTIATE_TEST_SUITE_P(OnTwoSmallDevices, StressRandomGraph, testing::ValuesIn(device_params()),
                         [](testing::TestParamInfo<StressParam> const& info) {
                             return runtime_param_name(info.param.runtime) + "_seed" +
                                    std::to_string(info.param.seed) + "_2emu";
                         });

}  // namespace
