// Shared helpers of the runtime unit tests: the sweep over {1, 2, 4} workers x every registered
// scheduling policy (StarPU's "every test runs on every scheduler", Taskflow's worker sweeps),
// readable parameter names (eager_2w), bounded waiting (a broken runtime makes a test fail, not
// hang), a gate that holds a worker until the test opens it, and a few small codelets.
//
//     class MySuite : public tessera::test::RuntimeSweep {};
//     TEST_P(MySuite, Something) { auto rt = make_runtime(); ... }
//     TESSERA_INSTANTIATE_SWEEP(MySuite);
#pragma once

#include "common/exhaustive.hpp"

#include <tessera/tessera.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace tessera::test {

namespace rt = tessera::rt;
using namespace std::chrono_literals;

/// One point of the sweep: a worker count and a registered policy name.
struct RuntimeParam {
    int ncpus;
    std::string scheduler;
};

inline std::ostream& operator<<(std::ostream& os, RuntimeParam const& p)
{
    return os << p.scheduler << " with " << p.ncpus << " worker(s)";
}

/// The configuration of one sweep point.
/// TESSERA_TEST_NEMU=k (ctest's "emu" runs) adds k emulated accelerators to every sweep
/// point, so that the whole suite also runs with data moving between memory nodes.
inline int sweep_emulated_devices()
{
    char const* v = std::getenv("TESSERA_TEST_NEMU");
    return v && *v ? std::atoi(v) : 0;
}
inline rt::RuntimeConfig config_of(RuntimeParam const& p)
{
    return rt::RuntimeConfig{
        .ncpus = p.ncpus, .scheduler = p.scheduler, .nemu = sweep_emulated_devices()};
}

/// Every registered policy (read from the registry, never a fixed list) x each worker count;
/// the exhaustive sweep adds 3 and 8 workers (more workers than cores) to the default counts.
inline std::vector<RuntimeParam> runtime_params(std::vector<int> ncpus = {1, 2, 4})
{
    if (exhaustive_sweep() && ncpus == std::vector<int>{1, 2, 4}) ncpus = {1, 2, 3, 4, 8};
    std::vector<RuntimeParam> out;
    for (std::string const& s : rt::policies().names())
        for (int n : ncpus) out.push_back({n, s});
    return out;
}

/// Seeds 1..n of a randomized test, four times as many in the exhaustive sweep.
inline int sweep_seeds(int n)
{
    return exhaustive_sweep() ? 4 * n : n;
}

/// "eager_2w": a GoogleTest-safe name (anything but [A-Za-z0-9] becomes '_').
inline std::string sanitize(std::string s)
{
    for (char& c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) c = '_';
    return s;
}
inline std::string runtime_param_name(RuntimeParam const& p)
{
    return sanitize(p.scheduler) + "_" + std::to_string(p.ncpus) + "w";
}
inline std::string runtime_param_name_of(testing::TestParamInfo<RuntimeParam> const& info)
{
    return runtime_param_name(info.param);
}

/// Base fixture of the sweeps.
class RuntimeSweep : public testing::TestWithParam<RuntimeParam> {
protected:
    int ncpus() const { return GetParam().ncpus; }
    std::string const& scheduler() const { return GetParam().scheduler; }
    std::unique_ptr<rt::Runtime>
    make_runtime(std::optional<int64_t> max_pending = std::nullopt) const
    {
        rt::RuntimeConfig c = config_of(GetParam());
        c.max_pending_tasks = max_pending;
        return std::make_unique<rt::Runtime>(c);
    }
};

#define TESSERA_INSTANTIATE_SWEEP(Suite)                                                           \
    INSTANTIATE_TEST_SUITE_P(AllPolicies, Suite,                                                   \
                             testing::ValuesIn(::tessera::test::runtime_params()),                 \
                             ::tessera::test::runtime_param_name_of)

// ---- bounded waiting ------------------------------------------------------------------------

/// How long a test waits for something that should happen at once before declaring failure.
inline constexpr auto patience = 10s;

/// Polls `pred` until it holds or `timeout` passes; returns its last value.
template <class Pred> bool eventually(Pred&& pred, std::chrono::milliseconds timeout = patience)
{
    auto end = std::chrono::steady_clock::now() + timeout;
    while (!pred()) {
        if (std::chrono::steady_clock::now() > end) return pred();
        std::this_thread::sleep_for(200us);
    }
    return true;
}

/// Waits for `t` with a deadline: true if it completed in time (never blocks forever, so a
/// lost task fails the test instead of hanging it).
inline bool completes(rt::TaskRef const& t, std::chrono::milliseconds timeout = patience)
{
    return eventually([&] { return t.done(); }, timeout);
}

/// Runs `fn` on its own thread; true if it returned within `timeout` (its exception, if any,
/// is rethrown). On timeout the thread is detached and false returned, so that a deadlock in
/// the runtime fails the test instead of hanging it: `fn` must then only use state it co-owns
/// (capture shared_ptrs by value, never references to the test's locals).
template <class F> bool finishes_within(std::chrono::milliseconds timeout, F fn)
{
    auto done = std::make_shared<std::promise<void>>();
    auto result = done->get_future();
    std::thread th([fn = std::move(fn), done]() mutable {
        try {
            fn();
            done->set_value();
        } catch (...) {
            done->set_exception(std::current_exception());
        }
    });
    if (result.wait_for(timeout) == std::future_status::timeout) {
        th.detach();
        return false;
    }
    th.join();
    result.get();
    return true;
}

// ---- a gate: holds the worker that runs gate_cl until the test opens it ------------------------

/// Test-side state of a gate task. The kernel signals `entered`, then blocks until `open()`
/// (or until `patience` passes, so that a broken test cannot hang: `timed_out` tells).
struct Gate {
    std::atomic<bool> entered{false};
    std::atomic<bool> opened{false};
    std::atomic<bool> timed_out{false};

    void open()
    {
        opened.store(true);
        opened.notify_all();
    }
    /// Waits until the gate task runs; false if it did not start in time.
    bool wait_entered() const
    {
        return eventually([&] { return entered.load(); });
    }

    /// Opens the gate when it goes out of scope: declare it after the runtime, so that a
    /// failed assertion does not leave the runtime's destructor waiting for the gate task.
    struct Opener {
        Gate& g;
        ~Opener() { g.open(); }
    };
    [[nodiscard]] Opener opener() { return Opener{*this}; }
};

inline void gate_cpu(Gate* g)
{
    g->entered.store(true);
    auto end = std::chrono::steady_clock::now() + patience;
    while (!g->opened.load()) {
        if (std::chrono::steady_clock::now() > end) {
            g->timed_out.store(true);
            return;
        }
        std::this_thread::sleep_for(100us);
    }
}
/// A task that blocks its worker until the gate opens: rt.submit(gate_cl, rt::value(&g)).
inline const rt::Codelet<Gate*> gate_cl{.name = "gate", .cpu = &gate_cpu};

// ---- a rendezvous: proves that tasks run at the same time ---------------------------------------

/// Tasks of rendezvous_cl wait (up to 5 s) until at least two of them are inside their kernels
/// at the same time; `met` tells whether that happened. With tasks spread over several workers
/// this proves concurrency; a runtime that serializes them makes `met` false (after a single
/// timeout: later tasks do not wait again).
struct Rendezvous {
    std::atomic<int> inside{0};
    std::atomic<bool> met{false};
    std::atomic<bool> gave_up{false};
};

inline void rendezvous_cpu(Rendezvous* r)
{
    if (r->inside.fetch_add(1) + 1 >= 2) r->met.store(true);
    auto end = std::chrono::steady_clock::now() + 5s;
    while (!r->met.load() && !r->gave_up.load()) {
        if (std::chrono::steady_clock::now() > end) r->gave_up.store(true);
        std::this_thread::sleep_for(50us);
    }
    r->inside.fetch_sub(1);
}
inline const rt::Codelet<Rendezvous*> rendezvous_cl{.name = "rendezvous", .cpu = &rendezvous_cpu};

// ---- small codelets -------------------------------------------------------------------------

inline void add_var_cpu(rt::Variable<int64_t> x, int64_t a)
{
    *x += a;
}
/// x += a on a Variable<int64_t>.
inline const rt::Codelet<rt::Variable<int64_t>, int64_t> add_var{.name = "add_var",
                                                                 .cpu = &add_var_cpu};

/// The order in which tasks ran: log_cl appends its value k.
struct OrderLog {
    std::mutex m;
    std::vector<int> order;
};
inline void log_cpu(OrderLog* log, int k)
{
    std::lock_guard lock(log->m);
    log->order.push_back(k);
}
inline const rt::Codelet<OrderLog*, int> log_cl{.name = "log", .cpu = &log_cpu};

/// 3x + a, wrapping around modulo 2^64 (unsigned arithmetic: long chains must not overflow).
constexpr int64_t affine(int64_t x, int64_t a)
{
    return int64_t(uint64_t(x) * 3u + uint64_t(a));
}

inline void affine_var_cpu(rt::Variable<int64_t> x, int64_t a)
{
    *x = affine(*x, a);
}
/// x = 3x + a: not commutative, so a different order of two updates gives a different result.
inline const rt::Codelet<rt::Variable<int64_t>, int64_t> affine_var{.name = "affine_var",
                                                                    .cpu = &affine_var_cpu};

inline void set_var_cpu(rt::Variable<int64_t> x, int64_t a)
{
    *x = a;
}
/// x = a (write only).
inline const rt::Codelet<rt::Variable<int64_t>, int64_t> set_var{.name = "set_var",
                                                                 .cpu = &set_var_cpu};

inline void copy_var_cpu(rt::Variable<int64_t const> x, rt::Variable<int64_t> y)
{
    *y = *x;
}
/// y = x.
inline const rt::Codelet<rt::Variable<int64_t const>, rt::Variable<int64_t>> copy_var{
    .name = "copy_var", .cpu = &copy_var_cpu};

inline void count_cpu(std::atomic<int64_t>* c)
{
    c->fetch_add(1);
}
/// Increments a counter that lives outside the runtime (no data dependencies).
inline const rt::Codelet<std::atomic<int64_t>*> count_cl{.name = "count", .cpu = &count_cpu};

inline void throw_cpu(int64_t code)
{
    throw std::runtime_error("task failed on purpose: " + std::to_string(code));
}
/// A kernel that always throws std::runtime_error.
inline const rt::Codelet<int64_t> throw_cl{.name = "throw", .cpu = &throw_cpu};

inline void sleep_cpu(int64_t us)
{
    std::this_thread::sleep_for(std::chrono::microseconds(us));
}
/// Sleeps `us` microseconds.
inline const rt::Codelet<int64_t> sleep_cl{.name = "sleep", .cpu = &sleep_cpu};

// ---- the recorded task graph ------------------------------------------------------------------

/// An edge of the recorded graph as a comparable tuple: (from, to, kind).
using Edge = std::tuple<uint64_t, uint64_t, rt::DependencyKind>;
/// The edges recorded (Runtime::recorded_dependencies), as a set: the order they were added
/// in is the runtime's business.
inline std::set<Edge> edge_set(std::vector<rt::DependencyEdge> const& edges)
{
    std::set<Edge> s;
    for (auto const& e : edges) s.emplace(e.from, e.to, e.kind);
    return s;
}

// ---- environment variables ------------------------------------------------------------------

/// Sets (or, with nullopt, unsets) an environment variable for the guard's lifetime.
class ScopedEnv {
public:
    ScopedEnv(char const* name, std::optional<std::string> value) : name_(name)
    {
        if (char const* old = std::getenv(name)) old_ = old;
        if (value)
            ::setenv(name, value->c_str(), 1);
        else
            ::unsetenv(name);
    }
    ~ScopedEnv()
    {
        if (old_)
            ::setenv(name_.c_str(), old_->c_str(), 1);
        else
            ::unsetenv(name_.c_str());
    }
    ScopedEnv(ScopedEnv const&) = delete;
    ScopedEnv& operator=(ScopedEnv const&) = delete;

private:
    std::string name_;
    std::optional<std::string> old_;
};

}  // namespace tessera::test
