// tessera-trace --gantt: an SVG Gantt chart of the trace, for a browser. A row per worker
// (<g class="worker-row" data-worker="N">) and per link that carried transfers
// (<g class="link-row">); a rectangle per task in its codelet's colour, its data wait hatched
// before it, sleeps in light grey; a time axis in ms, a legend of the codelets (count, mean
// time) and a title with the trace's meta. Every rectangle has a <title> tooltip.
#pragma once

#include "trace/timeline.hpp"

#include <iosfwd>

namespace tessera::trace_tool {

void write_gantt_svg(std::ostream& out, trace::Trace const& t, Timeline const& tl);

}  // namespace tessera::trace_tool
