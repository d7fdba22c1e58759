// tessera-trace --dot: the trace's task graph for Graphviz. A node per task ("t<seq>",
// labelled with its codelet and tile, filled with its worker's colour; a legend cluster names
// the colours), an edge per recorded edge between two tasks of the trace, in the trace's
// order and each once: raw solid, war and waw dashed, explicit bold. Edges to or from tasks
// the trace does not hold (the runtime's control tasks) are left out.
#pragma once

#include "trace/timeline.hpp"

#include <iosfwd>

namespace tessera::trace_tool {

void write_task_graph_dot(std::ostream& out, trace::Trace const& t);

}  // namespace tessera::trace_tool
