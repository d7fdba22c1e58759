/// @file bound.hpp
/// Theoretical bounds of a task graph (thesis §6): how fast it could possibly run, to judge a
/// schedule against. No schedule can beat either bound.
///
/// The area bound forgets dependencies and splits the work between the kinds of workers as
/// well as a linear program can: with m_c identical workers in class c, n_t tasks of type t and
/// d_{t,c} the mean length of one on class c, it is the smallest T such that
///
///     Σ_t n_{t,c} d_{t,c} <= m_c T   for every class c     (no class works longer than T)
///     Σ_c n_{t,c} = n_t              for every type t      (every task runs somewhere)
///     n_{t,c} >= 0                                         (fractions of tasks allowed)
///
/// It is solved with GLPK's simplex (libglpk-dev): without it area_bound throws.
///
///     std::vector<rt::WorkerClass> classes{{"cpu", 15}, {"cuda", 1}};
///     std::vector<rt::TaskType> types{{.name = "dgemm", .count = 1000,
///                                      .seconds = {{"cpu", 0.1}, {"cuda", 0.004}}}};
///     rt::AreaBound b = rt::area_bound(classes, types);  // b.seconds, b.tasks[0][1]
///
/// The critical-path bound forgets the number of workers: the longest path through the
/// graph, each task counted at its fastest length, e.g. of Runtime::recorded_dependencies().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace tessera::rt {

struct DependencyEdge;  // runtime.hpp

/// A class of identical workers: the ones of one architecture.
struct WorkerClass {
    std::string name;  ///< the architecture, e.g. "cpu" or "cuda"; the key of TaskType::seconds
    int workers = 1;   ///< m_c, how many workers the class has (at least 1)
};

/// A type of tasks: how many there are and how long one lasts on each class of workers.
struct TaskType {
    std::string name;    ///< e.g. the codelet's name: error messages show it
    uint64_t count = 0;  ///< n_t, how many tasks of this type the graph has
    /// d_{t,c}: the mean length of one task in seconds, by WorkerClass::name. A class that is
    /// absent, or whose length is infinite or negative, cannot run this type.
    std::map<std::string, double, std::less<>> seconds;
};

/// The area bound and the split of the work that reaches it.
struct AreaBound {
    double seconds = 0;  ///< T, the shortest time the workers can share the work in
    /// n_{t,c}: tasks[t][c] is how many tasks of types[t] classes[c] runs (a fraction: the
    /// program is relaxed), indexed like area_bound's arguments.
    std::vector<std::vector<double>> tasks;
};

/// The area bound of `types` on `classes`: the optimum of the linear program above. Zero tasks
/// give 0 s. Throws InvalidArgument on a class without workers, two classes with one name, a
/// length keyed by no class or not a number, and a type with tasks that no class can run; Error
/// when Tessera was built without GLPK or the solver fails.
AreaBound area_bound(std::span<WorkerClass const> classes, std::span<TaskType const> types);

/// True when Tessera was built with GLPK, so that area_bound can solve its program.
bool area_bound_available() noexcept;

/// A task of the graph, for critical_path.
struct PathTask {
    uint64_t id = 0;     ///< as DependencyEdge numbers it (TaskRef::id())
    double seconds = 0;  ///< its length: the fastest over the architectures that can run it
};

/// The critical path: the longest chain of dependent tasks.
struct CriticalPath {
    double seconds = 0;           ///< the sum of the lengths of its tasks
    std::vector<uint64_t> tasks;  ///< its tasks' ids, first to last; empty for an empty graph
};

/// The critical path of the graph of `tasks` and `edges`, in linear time (a topological order,
/// Kahn's algorithm). Throws InvalidArgument on two tasks with one id, a length negative or not
/// finite, an edge naming a task not in `tasks`, and a cycle. DependencyEdge is defined in
/// runtime.hpp: include it to build `edges`.
CriticalPath critical_path(std::span<PathTask const> tasks, std::span<DependencyEdge const> edges);

/// The bounds of a traced run (Runtime::trace_bounds, tessera-bound): its task types are its
/// codelets at each size (footprint), timed as they ran in the trace (mean length per
/// architecture; a type never run on an architecture counts as unable to run there).
struct TraceBounds {
    double makespan = 0;               ///< the run: first task submitted to last task ended
    std::vector<WorkerClass> classes;  ///< the area bound's classes: one per architecture
    std::vector<TaskType> types;       ///< its types: "codelet" or "codelet#k" per footprint
    AreaBound area;                    ///< over `classes` and `types`
    CriticalPath critical_path;        ///< each task at its type's fastest mean length
    /// The larger bound: no schedule of these tasks can run faster.
    double seconds() const noexcept
    {
        return area.seconds > critical_path.seconds ? area.seconds : critical_path.seconds;
    }
};

}  // namespace tessera::rt
