#include "trace/task_graph_dot.hpp"

#include "trace/format.hpp"
#include "trace/palette.hpp"

#include <ostream>
#include <set>
#include <tuple>
#include <unordered_set>

namespace tessera::trace_tool {

namespace {

char const* edge_style(rt::DependencyKind k)
{
    switch (k) {
    case rt::DependencyKind::read_after_write:
        return "solid";
    case rt::DependencyKind::write_after_read:
    case rt::DependencyKind::write_after_write:
        return "dashed";
    case rt::DependencyKind::explicit_task:
        return "bold";
    }
    return "solid";
}

}  // namespace

void write_task_graph_dot(std::ostream& out, trace::Trace const& t)
{
    out << "digraph tasks {\n"
        << "  // worker colours:";
    for (trace::WorkerRecord const& w : t.workers)
        out << (w.id ? ", " : " ") << w.name << " = " << worker_colour(w.id);
    out << "\n  // edges: raw solid, war dashed, waw dashed grey, explicit bold\n"
        << "  node [shape=box, style=filled, fontname=\"Helvetica\"];\n"
        << "  subgraph cluster_workers {\n    label=\"workers\";\n";
    for (trace::WorkerRecord const& w : t.workers)
        out << "    worker_" << w.id << " [label=" << dot_string(w.name) << ", fillcolor=\""
            << worker_colour(w.id) << "\"];\n";
    out << "  }\n";

    std::unordered_set<uint64_t> tasks;
    for (trace::TaskRecord const& r : t.tasks) {
        if (!tasks.insert(r.seq).second) continue;  // one node per task
        std::string label = t.codelets[r.codelet];
        if (r.tile != "-") label += " " + r.tile;
        label += "\n#" + std::to_string(r.seq);
        out << "  t" << r.seq << " [label=" << dot_string(label) << ", fillcolor=\""
            << worker_colour(r.worker) << "\"";
        if (r.status != trace::TaskStatus::ok) out << ", color=red, penwidth=2";
        out << "];\n";
    }
    std::set<std::tuple<uint64_t, uint64_t, int>> written;
    for (rt::DependencyEdge const& e : t.edges) {
        if (!tasks.count(e.from) || !tasks.count(e.to)) continue;
        if (!written.emplace(e.from, e.to, int(e.kind)).second) continue;
        out << "  t" << e.from << " -> t" << e.to << " [style=" << edge_style(e.kind);
        if (e.kind == rt::DependencyKind::write_after_write) out << ", color=grey40";
        out << "];\n";
    }
    out << "}\n";
}

}  // namespace tessera::trace_tool
