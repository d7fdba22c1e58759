// tessera-bench overhead: what the runtime costs per task, measured on empty tasks.
//
// Shapes: "independent" (no data), "chain" (each task RW on one variable: a sequence of
// read-after-write dependencies), "grid" (side x side tasks, task (i, j) RW on row i and
// column j, so it follows (i, j-1) and (i-1, j): a 2D wavefront).
// Figures, per task, medians over --reps runs:
//   per_task_us  end to end: submission overlapped with execution, until wait_all returns;
//   submit_us    submission alone: the tasks are held behind a gate until all are submitted;
//   exec_us      execution alone: from opening the gate until the last task completed.
// The peer is StarPU 1.3 running the same shapes with the same policy, when built with it.
#include "bench/bench.hpp"
#include "bench/peers/starpu_peer.hpp"

#include <tessera/tessera.hpp>

#include <cmath>
#include <deque>
#include <vector>

namespace tessera::bench {
namespace {

using namespace tessera::rt;

const Codelet<> empty{.name = "empty", .cpu = +[] {}};
const Codelet<Variable<int64_t>> empty_rw{.name = "empty_rw", .cpu = +[](Variable<int64_t>) {}};
const Codelet<Variable<int64_t>, Variable<int64_t>> empty_rw2{
    .name = "empty_rw2", .cpu = +[](Variable<int64_t>, Variable<int64_t>) {}};

int64_t grid_side(int64_t n)
{
    return std::max<int64_t>(1, int64_t(std::lround(std::sqrt(double(n)))));
}

/// Submits the shape's tasks; each first-level task waits for `gate` when it is non-empty.
class Shape {
public:
    Shape(Runtime& rt, std::string const& name, int64_t n) : rt_(rt), name_(name), n_(n)
    {
        if (name_ == "chain") {
            handles_.emplace_back(rt_, Variable<int64_t>{&cells_.emplace_back()});
        } else if (name_ == "grid") {
            side_ = grid_side(n);
            cells_.resize(std::size_t(2 * side_));
            for (auto& c : cells_) handles_.emplace_back(rt_, Variable<int64_t>{&c});
        }
    }
    int64_t tasks() const { return name_ == "grid" ? side_ * side_ : n_; }

    void submit(TaskRef const& gate)
    {
        bool gated = static_cast<bool>(gate);
        if (name_ == "independent") {
            if (gated)
                for (int64_t i = 0; i < n_; ++i) rt_.submit(empty, after(gate));
            else
                for (int64_t i = 0; i < n_; ++i) rt_.submit(empty);
        } else if (name_ == "chain") {
            auto& h = handles_[0];
            if (gated) rt_.submit(empty_rw, readwrite(h), after(gate));
            for (int64_t i = gated ? 1 : 0; i < n_; ++i) rt_.submit(empty_rw, readwrite(h));
        } else {
            for (int64_t i = 0; i < side_; ++i) {
                for (int64_t j = 0; j < side_; ++j) {
                    auto& row = handles_[std::size_t(i)];
                    auto& col = handles_[std::size_t(side_ + j)];
                    if (gated && i == 0 && j == 0)
                        rt_.submit(empty_rw2, readwrite(row), readwrite(col), after(gate));
                    else
                        rt_.submit(empty_rw2, readwrite(row), readwrite(col));
                }
            }
        }
    }

private:
    Runtime& rt_;
    std::string name_;
    int64_t n_, side_ = 0;
    std::deque<int64_t> cells_;  // stable addresses
    std::vector<Handle<Variable<int64_t>>> handles_;
};

const Codelet<> gate_task{.name = "gate", .cpu = +[] {}};

struct Timings {
    double total, submit, exec;
};

/// One repetition: an ungated run (end to end), then a gated one (submission, execution).
Timings measure(Runtime& rt, std::string const& shape, int64_t n, int64_t& tasks)
{
    Timings t{};
    {
        Shape s(rt, shape, n);
        tasks = s.tasks();
        t.total = seconds_of([&] {
            s.submit(TaskRef{});
            rt.wait_all();
        });
    }
    {
        Shape s(rt, shape, n);
        constexpr TagId gate_tag = ~TagId(0) - 1, open_tag = ~TagId(0) - 2;
        rt.declare_tag_deps(gate_tag, {open_tag});
        TaskRef gate = rt.submit(gate_task, tag(gate_tag));  // held until open_tag is notified
        t.submit = seconds_of([&] { s.submit(gate); });
        t.exec = seconds_of([&] {
            rt.notify_tag(open_tag);
            rt.wait_all();
        });
        rt.remove_tag(gate_tag);
        rt.remove_tag(open_tag);
    }
    return t;
}

int run(Options const& o, Report& report)
{
    auto ns = o.integers("n", {100000});
    int64_t reps = o.integer("reps", 5);
    const std::optional<int> ncpus = o.given_integer("ncpus");
    auto shapes = o.list("variant", {"independent", "chain", "grid"});
    auto scheds = o.policies({""});
    bool with_peer = !o.has("no-peer") && peers::starpu_available();
    require(reps >= 1, "--reps must be at least 1");
    for (int64_t n : ns) require(n >= 1, "--n must be at least 1");
    for (auto const& s : shapes)
        require(s == "independent" || s == "chain" || s == "grid",
                "--variant: unknown shape '" + s + "'");

    for (std::string const& sched : scheds) {
        std::vector<std::vector<std::vector<double>>> peer_seconds(
            ns.size(), std::vector<std::vector<double>>(shapes.size()));
        if (with_peer) {  // StarPU first, in its own session, with the same workers and policy
            Runtime probe{{.ncpus = ncpus, .scheduler = scheduler_of(sched), .ncuda = 0}};
            peers::StarPU starpu(int(probe.worker_count()), std::string(probe.scheduler()));
            for (std::size_t a = 0; a < ns.size(); ++a)
                for (std::size_t b = 0; b < shapes.size(); ++b)
                    for (int64_t r = 0; r < reps; ++r)
                        peer_seconds[a][b].push_back(starpu.empty_tasks_seconds(shapes[b], ns[a]));
        }
        // the gated runs hold every task at once: no submission window
        Runtime rt{
            {.ncpus = ncpus, .scheduler = scheduler_of(sched), .max_pending_tasks = 0, .ncuda = 0}};
        for (std::size_t a = 0; a < ns.size(); ++a) {
            for (std::size_t b = 0; b < shapes.size(); ++b) {
                std::vector<double> total, submit, exec;
                int64_t tasks = 0;
                for (int64_t r = 0; r < reps; ++r) {
                    Timings t = measure(rt, shapes[b], ns[a], tasks);
                    total.push_back(t.total);
                    submit.push_back(t.submit);
                    exec.push_back(t.exec);
                }
                Result res;
                res.bench = "overhead";
                res.variant = shapes[b];
                res.labels = {{"sched", std::string(rt.scheduler())},
                              {"workers", std::to_string(rt.worker_count())}};
                res.sizes = {{"n", double(tasks)}};
                res.seconds = median(total);
                double us = 1e6 / double(tasks);
                res.extra = {{"per_task_us", res.seconds * us},
                             {"submit_us", median(submit) * us},
                             {"exec_us", median(exec) * us}};
                if (with_peer) {
                    res.peer = "starpu-1.3";
                    res.peer_seconds = median(peer_seconds[a][b]);
                    res.extra.push_back({"peer_per_task_us", res.peer_seconds * us});
                    res.ratio = res.peer_seconds / res.seconds;
                }
                report.add(res);
            }
        }
    }
    return 0;
}

Register reg{
    {"overhead",
     "runtime cost per empty task: independent, chain, 2D grid (vs StarPU if built with it)",
     "tessera-bench overhead [--n 100000] [--variant independent,chain,grid] [--sched "
     "eager,ws,...] "
     "[--ncpus k] [--reps 5] [--no-peer] [--json]",
     {"n", "variant", "sched", "ncpus", "reps", "no-peer"},
     run}};

}  // namespace
}  // namespace tessera::bench
