// Why workers were not running tasks: each worker's time split into what it ran and four
// causes for the rest, from the tasks' SUBMIT, READY and BEGIN times alone.
//
//   data        BEGIN..START of its tasks while none ran: it had taken a task and waited for
//               the task's data (on a GPU, also for the kernels queued before the task's)
//   dependencies  between its tasks, no task anywhere was ready and not yet begun, and the next
//               task to become ready had been submitted before this gap (it waited for its
//               predecessors), or no task became ready any more
//   submission  between its tasks, no task was ready, and the next task to become ready was
//               submitted after this gap began and was ready on submission (READY - SUBMIT
//               within `submission_slack`): the application had not submitted the work yet
//   scheduler   between its tasks, some task was ready and not yet begun (it went to another
//               worker, or waited in a queue)
//
// A gap is a maximal interval of [0, length) outside the worker's tasks' BEGIN..END, whether
// the worker slept ('idle' records) or not. Cancelled tasks never ran and count nowhere.
#pragma once

#include "trace/timeline.hpp"

#include <cstdint>
#include <vector>

namespace tessera::trace_tool {

/// One worker's time, in ns; the five add up to the trace's length.
struct WorkerTime {
    int64_t busy = 0;  ///< START..END of its tasks (their union: a GPU overlaps them)
    int64_t data = 0, dependencies = 0, submission = 0, scheduler = 0;
};

/// "Ready on submission": within this of SUBMIT. The runtime's own latency between the two is
/// some 50 ns for a task without predecessors, but a few µs for the first tasks of a run.
inline constexpr int64_t submission_slack_ns = 10'000;

/// Per worker, its time split as above.
std::vector<WorkerTime> idle_causes(trace::Trace const& t, Timeline const& tl,
                                    int64_t submission_slack = submission_slack_ns);

}  // namespace tessera::trace_tool
