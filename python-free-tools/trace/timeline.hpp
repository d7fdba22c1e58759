// What every output of tessera-trace derives from a trace first: its length, each worker's
// tasks in time order and the gaps between them, and the transfers grouped by link.
#pragma once

#include "runtime/trace/trace_file.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera::trace_tool {

namespace trace = tessera::rt::trace;

/// A time interval [begin, end) in ns.
struct Span {
    int64_t begin = 0, end = 0;
    int64_t length() const { return end - begin; }
};

/// The transfers from memory node `src` to `dst`.
struct Link {
    uint32_t src = 0, dst = 0;
    std::vector<std::size_t> transfers;  ///< indices in Trace::transfers, in the trace's order
    uint64_t bytes = 0;                  ///< their bytes
    int64_t active = 0;                  ///< ns with at least one of them in flight
};

struct Timeline {
    /// The trace covers [0, length): its 'end' record, or its last time if one is later.
    int64_t length = 0;
    /// Per worker: its tasks (indices in Trace::tasks) by BEGIN.
    std::vector<std::vector<std::size_t>> tasks;
    /// Per worker: [0, length) less its tasks' BEGIN..END, in time order.
    std::vector<std::vector<Span>> gaps;
    /// The links that carried transfers, by (src, dst).
    std::vector<Link> links;
};

Timeline make_timeline(trace::Trace const& t);

/// The length of the union of `spans` (overlaps count once).
int64_t union_length(std::vector<Span> spans);

/// A worker's time with tasks: `busy` while some task of it runs (the union of START..END),
/// `data` while some is taken and waiting but none runs (the union of BEGIN..END less busy).
/// On a CPU worker these are the sums over its tasks; a GPU worker queues several tasks on its
/// stream, each waiting for its data and for the kernels queued before it.
struct TaskTime {
    int64_t busy = 0, data = 0;
};
TaskTime task_time(trace::Trace const& t, std::vector<std::size_t> const& tasks);

}  // namespace tessera::trace_tool
