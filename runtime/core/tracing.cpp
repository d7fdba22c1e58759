// Traces: starting and stopping the recorder, a task's record when it ends, and the trace's
// description of the machine (meta, nodes, workers), as docs/guide/tracing.md describes them.
#include "runtime/core/runtime_impl.hpp"

#include "runtime/data/data_state.hpp"
#include "runtime/data/memory_node.hpp"
#include "runtime/trace/trace_bounds.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <atomic>
#include <ctime>
#include <fstream>
#include <unistd.h>

namespace tessera::rt::detail {

namespace {

char const* node_kind_name(NodeKind k)
{
    switch (k) {
    case NodeKind::host:
        return "host";
    case NodeKind::emu:
        return "emu";
    case NodeKind::cuda:
        return "cuda";
    }
    return "?";
}

std::string utc_now()
{
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

std::string host_name()
{
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "?";
    return name;
}

/// The label of the first handle t writes, else of its first handle; "-" when none.
std::string tile_of(Task const* t)
{
    BufferSlot const* first = nullptr;
    for (BufferSlot const& b : t->buffers) {
        if (!first) first = &b;
        if (writes(b.mode)) {
            first = &b;
            break;
        }
    }
    if (!first || !first->state || first->state->label.empty()) return "-";
    return first->state->label;
}

thread_local char const* tls_call = nullptr;

}  // namespace

void RuntimeImpl::start_trace(std::string path)
{
    std::lock_guard lock(trace_m_);
    require(!tracer_.on(), "start_trace: a trace is already being recorded (stop_trace first)");
    if (!path.empty()) {  // say it now, not when the run is over
        std::ofstream probe(path, std::ios::binary | std::ios::trunc);
        require(bool(probe),
                [&] { return "start_trace: cannot write the trace to '" + path + "'"; });
    }
    trace_path_ = std::move(path);
    tracer_.start(worker_count());
    machine_.transfers().set_tracer(&tracer_);
}

void RuntimeImpl::stop_trace()
{
    std::lock_guard lock(trace_m_);
    require(tracer_.on(), "stop_trace: no trace is being recorded (start_trace first)");
    machine_.transfers().set_tracer(nullptr);
    trace::Trace t = tracer_.stop();
    t.meta = {{"tessera-trace-clock", "ns since the runtime started"},
              {"date", utc_now()},
              {"host", host_name()},
              {"scheduler", *config_.scheduler},
              {"start_ns", std::to_string(tracer_.started())},
              {"workers", std::to_string(worker_count())}};
    for (NodeId n = 0; n < machine_.node_count(); ++n) {
        const NodeKind kind = machine_.node(n).info().kind;
        t.nodes.push_back(
            {n, node_kind_name(kind),
             n == 0 ? std::string("host") : node_kind_name(kind) + std::to_string(n)});
    }
    unsigned per_arch[arch_count] = {};
    for (WorkerId w = 0; w < worker_count(); ++w) {
        WorkerInfo const& info = machine_.worker(w);
        const std::string arch(to_string(info.arch));
        std::string name = arch + " " + std::to_string(per_arch[std::size_t(info.arch)]++);
        if (info.core >= 0) name += " (core " + std::to_string(info.core) + ")";
        t.workers.push_back({w, arch, uint32_t(info.memory_node), std::move(name)});
    }
    last_trace_ = std::move(t);
    if (trace_path_.empty()) return;
    std::ofstream out(trace_path_, std::ios::binary | std::ios::trunc);
    if (out) trace::write(out, last_trace_);
    out.close();
    require(bool(out),
            [&] { return "stop_trace: cannot write the trace to '" + trace_path_ + "'"; });
}

TraceBounds RuntimeImpl::trace_bounds()
{
    std::lock_guard lock(trace_m_);
    require(!last_trace_.workers.empty(), "trace_bounds: no trace has ended (stop_trace first)");
    return trace::bounds_of(last_trace_);
}

void RuntimeImpl::trace_task(Task* t, WorkerId w) noexcept
{
    // A task submitted before the trace started is left out; the times of one taken or given
    // its data before (a COMMUTE task pushed again) are kept in order.
    trace::TaskRecord r;
    r.seq = t->sequence;
    r.call = t->trace.call;
    r.submit = t->trace.submit;
    r.ready = std::max(t->trace.ready, r.submit);
    r.begin = std::max(t->trace.begin, r.ready);
    r.end = std::max(t->trace.end >= 0 ? t->trace.end : tracer_.now(), r.begin);
    r.start = t->cancelled ? r.end : std::clamp(t->trace.start, r.begin, r.end);
    if (t->cancelled) r.begin = r.end;
    for (BufferSlot const& b : t->buffers) r.bytes += b.layout->bytes();
    r.footprint = t->footprint.hash;
    r.status = t->cancelled ? trace::TaskStatus::cancelled
               : t->failed  ? trace::TaskStatus::failed
                            : trace::TaskStatus::ok;
    try {
        r.tile = tile_of(t);
    } catch (...) {  // out of memory: a record without its tile
    }
    tracer_.task(w, t->ops->name(t->codelet), std::move(r));
}

}  // namespace tessera::rt::detail

namespace tessera::rt {

TracedCall::TracedCall(char const* name) noexcept : outermost_(detail::tls_call == nullptr)
{
    if (outermost_) detail::tls_call = name;
}
TracedCall::~TracedCall()
{
    if (outermost_) detail::tls_call = nullptr;
}
char const* TracedCall::current() noexcept
{
    return detail::tls_call;
}

void Runtime::start_trace(std::string path)
{
    impl_->start_trace(std::move(path));
}
void Runtime::stop_trace()
{
    impl_->stop_trace();
}
bool Runtime::tracing() const noexcept
{
    return impl_->tracer().on();
}
TraceBounds Runtime::trace_bounds() const
{
    return impl_->trace_bounds();
}

}  // namespace tessera::rt
