// A trace of one run (TESSERA_TRACE, Runtime::start_trace): what the recorder keeps and what
// the tools read (tessera-trace, tessera-bound). Internal: the file format is documented in
// docs/guide/tracing.md and versioned by its first line.
//
// The file is text, one record per line, fields separated by one tab; times are integer
// nanoseconds since the runtime started (steady clock). Definitions come before their use:
//
//   #tessera-trace 1
//   meta      KEY VALUE                     scheduler, host, date, workers, start_ns...
//   node      ID KIND NAME                  memory nodes (KIND: host, emu, cuda)
//   worker    ID ARCH NODE NAME             processing units (ARCH: cpu, emu, cuda)
//   codelet   ID NAME                       task kinds
//   call      ID NAME                       the API calls tasks belong to (0: none)
//   task      SEQ CODELET WORKER CALL SUBMIT READY BEGIN START END BYTES FOOTPRINT STATUS TILE
//   edge      FROM TO KIND                  KIND: raw, war, waw, explicit
//   transfer  SRC DST BYTES START END
//   idle      WORKER START END              a worker asleep, with nothing to run
//   end       NS                            the last line: a trace without it was cut short
//
// A task becomes ready at READY, a worker takes it at BEGIN, has its data at START (BEGIN to
// START: waiting for data) and finishes at END. STATUS: ok, failed, cancelled (a cancelled
// task's BEGIN..END is empty). TILE: the label of the first handle it writes ("(i,j)" for a
// TileMatrix tile), "-" when none.
#pragma once

#include <tessera/error.hpp>
#include <tessera/rt/runtime.hpp>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace tessera::rt::trace {

inline constexpr int format_version = 1;

struct NodeRecord {
    uint32_t id = 0;
    std::string kind, name;
};

struct WorkerRecord {
    uint32_t id = 0;
    std::string arch;
    uint32_t node = 0;
    std::string name;
};

enum class TaskStatus : uint8_t { ok, failed, cancelled };

struct TaskRecord {
    uint64_t seq = 0;
    uint32_t codelet = 0, worker = 0, call = 0;
    int64_t submit = 0, ready = 0, begin = 0, start = 0, end = 0;
    uint64_t bytes = 0;      // its buffers' bytes
    uint64_t footprint = 0;  // the performance model's key for its shape
    TaskStatus status = TaskStatus::ok;
    std::string tile;  // "-" when none
};

struct TransferRecord {
    uint32_t src = 0, dst = 0;
    uint64_t bytes = 0;
    int64_t start = 0, end = 0;
};

struct IdleRecord {
    uint32_t worker = 0;
    int64_t start = 0, end = 0;
};

/// A whole trace, as read from a file or assembled by the recorder.
struct Trace {
    std::vector<std::pair<std::string, std::string>> meta;
    std::vector<NodeRecord> nodes;
    std::vector<WorkerRecord> workers;
    std::vector<std::string> codelets;  // by id
    std::vector<std::string> calls;     // by id; calls[0] is "-" (no call)
    std::vector<TaskRecord> tasks;
    std::vector<DependencyEdge> edges;
    std::vector<TransferRecord> transfers;
    std::vector<IdleRecord> idles;
    int64_t end = 0;  // the trace's length in ns

    /// The value of meta `key`, or "" when absent.
    std::string meta_value(std::string const& key) const;
};

/// A trace file that does not follow the format: the message names the byte offset of the
/// first bad line and what is wrong with it.
class TraceFormatError : public Error {
public:
    TraceFormatError(uint64_t offset, std::string const& what);
    uint64_t offset() const noexcept { return offset_; }

private:
    uint64_t offset_;
};

/// Parses a trace; throws TraceFormatError on anything malformed or truncated.
Trace read(std::istream& in);
/// read() on the file at `path`; throws InvalidArgument when it cannot be opened.
Trace read_file(std::string const& path);
/// Writes `t` in the format above.
void write(std::ostream& out, Trace const& t);

/// Makes t's times count from the trace's start (its meta start_ns, when start_trace was
/// called) instead of the runtime's: what the pictures and percentages are taken over. Times
/// before it (a sleep begun earlier) become 0; start_ns becomes 0.
void rebase(Trace& t);

/// "raw", "war", "waw", "explicit".
char const* kind_name(DependencyKind k) noexcept;

}  // namespace tessera::rt::trace
