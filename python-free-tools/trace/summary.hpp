// tessera-trace --summary: the run in numbers, as plain text: where each worker's time went,
// each codelet's execution times per architecture, each link's traffic, and why workers were
// not running tasks (idle_causes.hpp). Each table is followed by its definitions.
#pragma once

#include "trace/timeline.hpp"

#include <iosfwd>
#include <string>

namespace tessera::trace_tool {

/// Writes the summary of `t` (read from `path`, which the header names).
void write_summary(std::ostream& out, trace::Trace const& t, Timeline const& tl,
                   std::string const& path);

}  // namespace tessera::trace_tool
