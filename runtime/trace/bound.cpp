// The theoretical bounds of a task graph (include/tessera/rt/bound.hpp): the area bound, a
// linear program solved with GLPK when Tessera has it, and the critical path, a longest path
// in topological order.
#include <tessera/rt/bound.hpp>

#include <tessera/error.hpp>
#include <tessera/rt/runtime.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#ifndef TESSERA_HAVE_GLPK
#define TESSERA_HAVE_GLPK 0
#endif
#if TESSERA_HAVE_GLPK
#include <glpk.h>
#endif

namespace tessera::rt {

namespace {

// A class that is absent, or whose length is infinite or negative, cannot run the type.
bool can_run(double seconds) noexcept
{
    return std::isfinite(seconds) && seconds >= 0;
}

std::string quoted(std::string const& s)
{
    return '"' + s + '"';
}

void check_area_arguments(std::span<WorkerClass const> classes, std::span<TaskType const> types)
{
    for (std::size_t c = 0; c < classes.size(); ++c) {
        std::string const where =
            "area_bound: classes[" + std::to_string(c) + "] (" + quoted(classes[c].name) + ")";
        require(classes[c].workers >= 1, [&] {
            return where + ": workers must be at least 1, got " +
                   std::to_string(classes[c].workers);
        });
        for (std::size_t o = 0; o < c; ++o)
            require(classes[o].name != classes[c].name, [&] {
                return where + ": classes[" + std::to_string(o) + "] has the same name";
            });
    }
    for (std::size_t t = 0; t < types.size(); ++t) {
        TaskType const& type = types[t];
        std::string const where =
            "area_bound: types[" + std::to_string(t) + "] (" + quoted(type.name) + ")";
        bool runnable = false;
        for (auto const& [arch, seconds] : type.seconds) {
            bool const known = std::ranges::any_of(
                classes, [&](WorkerClass const& wc) { return wc.name == arch; });
            require(known, [&] {
                return where + ": a length for " + quoted(arch) + ", which no class has";
            });
            require(!std::isnan(seconds),
                    [&] { return where + ": the length on " + quoted(arch) + " is not a number"; });
            runnable = runnable || can_run(seconds);
        }
        require(type.count == 0 || runnable, [&] {
            return where + ": no class can run this type (no finite, non-negative length)";
        });
    }
}

#if TESSERA_HAVE_GLPK
// d_{t,c}, or a negative number when class c cannot run type t.
double length(TaskType const& type, WorkerClass const& wc)
{
    auto it = type.seconds.find(wc.name);
    return it != type.seconds.end() && can_run(it->second) ? it->second : -1;
}

struct ProbDeleter {
    void operator()(glp_prob* p) const noexcept { glp_delete_prob(p); }
};

// GLPK prints to the terminal unless told not to; the setting is per thread, put back after.
class QuietGlpk {
public:
    QuietGlpk() : was_(glp_term_out(GLP_OFF)) {}
    ~QuietGlpk() { glp_term_out(was_); }
    QuietGlpk(QuietGlpk const&) = delete;
    QuietGlpk& operator=(QuietGlpk const&) = delete;

private:
    int was_;
};

// Columns: 1 is T, then one n_{t,c} per type with tasks and class that can run it.
// Rows: one per class, Σ_t d_{t,c} n_{t,c} - m_c T <= 0; then one per type with tasks,
// Σ_c n_{t,c} = n_t. Objective: minimise T.
AreaBound solve(std::span<WorkerClass const> classes, std::span<TaskType const> types)
{
    QuietGlpk quiet;
    std::unique_ptr<glp_prob, ProbDeleter> lp(glp_create_prob());
    glp_prob* p = lp.get();
    glp_set_obj_dir(p, GLP_MIN);

    int const nclasses = static_cast<int>(classes.size());
    glp_add_rows(p, nclasses);
    for (int c = 1; c <= nclasses; ++c) glp_set_row_bnds(p, c, GLP_UP, 0, 0);
    glp_add_cols(p, 1);
    glp_set_col_bnds(p, 1, GLP_LO, 0, 0);
    glp_set_obj_coef(p, 1, 1);

    // Triplets of the constraint matrix, 1-based as glp_load_matrix wants them (index 0 unused).
    std::vector<int> ia{0}, ja{0};
    std::vector<double> ar{0};
    auto entry = [&](int row, int col, double value) {
        ia.push_back(row);
        ja.push_back(col);
        ar.push_back(value);
    };
    for (int c = 1; c <= nclasses; ++c) entry(c, 1, -double(classes[c - 1].workers));

    // column[t][c]: the column of n_{t,c}, 0 when it is fixed to 0.
    std::vector<std::vector<int>> column(types.size(), std::vector<int>(classes.size(), 0));
    for (std::size_t t = 0; t < types.size(); ++t) {
        if (types[t].count == 0) continue;
        int const row = glp_add_rows(p, 1);
        glp_set_row_bnds(p, row, GLP_FX, double(types[t].count), double(types[t].count));
        for (std::size_t c = 0; c < classes.size(); ++c) {
            double const d = length(types[t], classes[c]);
            if (d < 0) continue;
            int const col = glp_add_cols(p, 1);
            glp_set_col_bnds(p, col, GLP_LO, 0, 0);
            column[t][c] = col;
            entry(row, col, 1);
            if (d > 0) entry(int(c) + 1, col, d);  // a zero length takes no time: no entry
        }
    }
    glp_load_matrix(p, int(ia.size()) - 1, ia.data(), ja.data(), ar.data());

    // Lengths in microseconds and counts in thousands sit in one matrix: scale it.
    glp_scale_prob(p, GLP_SF_AUTO);
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.msg_lev = GLP_MSG_OFF;
    parm.presolve = GLP_ON;
    int const rc = glp_simplex(p, &parm);
    if (rc != 0)
        throw Error("area bound: GLPK's simplex failed (glp_simplex returned " +
                    std::to_string(rc) + ")");
    // Every type with tasks has a class that runs it: the program is feasible, and T >= 0
    // bounds it, so anything but an optimum is the solver's failure.
    if (int const status = glp_get_status(p); status != GLP_OPT)
        throw Error("area bound: GLPK found no optimum (status " + std::to_string(status) + ")");

    AreaBound b;
    b.seconds = std::max(0.0, glp_get_obj_val(p));
    b.tasks.assign(types.size(), std::vector<double>(classes.size(), 0.0));
    for (std::size_t t = 0; t < types.size(); ++t)
        for (std::size_t c = 0; c < classes.size(); ++c)
            if (column[t][c] != 0) b.tasks[t][c] = std::max(0.0, glp_get_col_prim(p, column[t][c]));
    return b;
}
#endif

}  // namespace

bool area_bound_available() noexcept
{
    return TESSERA_HAVE_GLPK != 0;
}

AreaBound area_bound(std::span<WorkerClass const> classes, std::span<TaskType const> types)
{
    check_area_arguments(classes, types);
    if (std::ranges::all_of(types, [](TaskType const& t) { return t.count == 0; }))
        return {0.0, std::vector<std::vector<double>>(types.size(),
                                                      std::vector<double>(classes.size(), 0.0))};
#if TESSERA_HAVE_GLPK
    return solve(classes, types);
#else
    throw Error("area bound: Tessera was built without GLPK (install libglpk-dev)");
#endif
}

CriticalPath critical_path(std::span<PathTask const> tasks, std::span<DependencyEdge const> edges)
{
    std::size_t const n = tasks.size();
    std::unordered_map<uint64_t, std::size_t> index;
    index.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        require(index.emplace(tasks[i].id, i).second, [&] {
            return "critical_path: tasks[" + std::to_string(i) + "]: task " +
                   std::to_string(tasks[i].id) + " is listed twice";
        });
        require(std::isfinite(tasks[i].seconds) && tasks[i].seconds >= 0, [&] {
            return "critical_path: tasks[" + std::to_string(i) +
                   "]: the length must be finite and non-negative";
        });
    }

    // Successors in compressed rows: first[i] .. first[i + 1] in succ.
    std::vector<std::size_t> first(n + 1, 0), indegree(n, 0), from(edges.size()), to(edges.size());
    for (std::size_t e = 0; e < edges.size(); ++e) {
        auto find = [&](uint64_t id) {
            auto it = index.find(id);
            require(it != index.end(), [&] {
                return "critical_path: edges[" + std::to_string(e) + "] names task " +
                       std::to_string(id) + ", which is not in tasks";
            });
            return it->second;
        };
        from[e] = find(edges[e].from);
        to[e] = find(edges[e].to);
        ++first[from[e] + 1];
        ++indegree[to[e]];
    }
    for (std::size_t i = 0; i < n; ++i) first[i + 1] += first[i];
    std::vector<std::size_t> succ(edges.size()), fill(first.begin(), first.end() - 1);
    for (std::size_t e = 0; e < edges.size(); ++e) succ[fill[from[e]]++] = to[e];

    // Kahn: a task leaves the queue once all its predecessors have, so that its end, the
    // longest path ending with it, end[i] = seconds[i] + max over predecessors p of end[p],
    // is final. A cycle keeps its tasks' indegrees above 0: they never leave.
    std::vector<double> end(n, 0.0);
    std::vector<std::size_t> before(n, n);  // the predecessor on that path; n: none
    std::vector<std::size_t> queue;
    queue.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
        if (indegree[i] == 0) queue.push_back(i);
    for (std::size_t head = 0; head < queue.size(); ++head) {
        std::size_t const i = queue[head];
        end[i] += tasks[i].seconds;
        for (std::size_t k = first[i]; k < first[i + 1]; ++k) {
            std::size_t const j = succ[k];
            if (before[j] == n || end[i] > end[j]) {
                end[j] = end[i];
                before[j] = i;
            }
            if (--indegree[j] == 0) queue.push_back(j);
        }
    }
    require(queue.size() == n, "critical_path: edges: the graph has a cycle");

    CriticalPath path;
    if (n == 0) return path;
    std::size_t last = std::size_t(std::ranges::max_element(end) - end.begin());
    path.seconds = end[last];
    for (std::size_t i = last; i != n; i = before[i]) path.tasks.push_back(tasks[i].id);
    std::ranges::reverse(path.tasks);
    return path;
}

}  // namespace tessera::rt
