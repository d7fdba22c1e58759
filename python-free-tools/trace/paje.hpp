// tessera-trace --paje: the trace in the Paje format, for ViTE (and PajeNG's pj_dump). A
// container "program" holds one container per worker and one per memory node. A worker's state
// is the codelet it runs, "Fetching" (BEGIN..START), "Idle" (asleep) or "Overhead" (the rest);
// each transfer is a link from its source node to its destination node, carrying its size.
// Times are in seconds.
#pragma once

#include "trace/timeline.hpp"

#include <iosfwd>

namespace tessera::trace_tool {

void write_paje(std::ostream& out, trace::Trace const& t, Timeline const& tl);

}  // namespace tessera::trace_tool
