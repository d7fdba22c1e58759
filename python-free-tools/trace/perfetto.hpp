// tessera-trace --perfetto: the trace as Chrome trace-event JSON, which ui.perfetto.dev and
// chrome://tracing open. Process "workers" has a thread per worker with a slice per task
// (its codelet's name; START..END), "fetch" slices for the data waits (BEGIN..START) and
// "idle" slices; process "links" has a thread per link with a slice per transfer. Flow arrows
// join the tasks of each dependency edge. Times are in µs.
#pragma once

#include "trace/timeline.hpp"

#include <iosfwd>

namespace tessera::trace_tool {

void write_perfetto(std::ostream& out, trace::Trace const& t, Timeline const& tl);

}  // namespace tessera::trace_tool
