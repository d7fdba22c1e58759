// The bounds of a traced run (Runtime::trace_bounds, tessera-bound, tessera-bench --bound):
// the trace's tasks grouped into types, timed as they ran, given to area_bound and
// critical_path. Internal.
#pragma once

#include "runtime/trace/trace_file.hpp"

#include <tessera/rt/bound.hpp>

namespace tessera::rt::trace {

/// The tasks that ran (status ok) as types: a codelet at one size (footprint), named
/// "codelet SIZE" ("dgemm 768KiB"); each type's mean length per architecture; the classes are
/// the trace's architectures with their worker counts. Then both bounds. Edges to tasks not in
/// the trace (control tasks, tasks before it started) are left out.
TraceBounds bounds_of(Trace const& t);

}  // namespace tessera::rt::trace
