#include "trace/perfetto.hpp"

#include "trace/format.hpp"

#include <ostream>
#include <unordered_map>

namespace tessera::trace_tool {

namespace {

constexpr int workers_pid = 1, links_pid = 2;

/// One event per line, comma-separated: the file stays readable and diffable.
class Events {
public:
    explicit Events(std::ostream& out) : out_(out) {}
    std::ostream& next()
    {
        out_ << (first_ ? "\n" : ",\n");
        first_ = false;
        return out_;
    }

private:
    std::ostream& out_;
    bool first_ = true;
};

std::string us(int64_t ns)
{
    return decimal(ns, 3);
}

void metadata(Events& ev, int pid, int tid, char const* what, std::string const& name)
{
    ev.next() << "{\"ph\":\"M\",\"pid\":" << pid << ",\"tid\":" << tid << ",\"name\":\"" << what
              << "\",\"args\":{\"name\":" << json_string(name) << "}}";
}

void sort_index(Events& ev, int pid, int tid, char const* what, std::size_t index)
{
    ev.next() << "{\"ph\":\"M\",\"pid\":" << pid << ",\"tid\":" << tid << ",\"name\":\"" << what
              << "\",\"args\":{\"sort_index\":" << index << "}}";
}

/// A complete event ("X"); `args` is a JSON object's members, or "".
void slice(Events& ev, int pid, std::size_t tid, std::string const& name, char const* cat,
           int64_t begin, int64_t end, std::string const& args)
{
    ev.next() << "{\"ph\":\"X\",\"pid\":" << pid << ",\"tid\":" << tid
              << ",\"name\":" << json_string(name) << ",\"cat\":\"" << cat
              << "\",\"ts\":" << us(begin) << ",\"dur\":" << us(end - begin) << ",\"args\":{"
              << args << "}}";
}

char const* status_name(trace::TaskStatus s)
{
    switch (s) {
    case trace::TaskStatus::ok:
        return "ok";
    case trace::TaskStatus::failed:
        return "failed";
    case trace::TaskStatus::cancelled:
        return "cancelled";
    }
    return "?";
}

void workers(Events& ev, trace::Trace const& t)
{
    metadata(ev, workers_pid, 0, "process_name", "workers");
    sort_index(ev, workers_pid, 0, "process_sort_index", 0);
    for (trace::WorkerRecord const& w : t.workers) {
        metadata(ev, workers_pid, int(w.id), "thread_name", w.name);
        sort_index(ev, workers_pid, int(w.id), "thread_sort_index", w.id);
    }
    for (trace::TaskRecord const& r : t.tasks) {
        if (r.start > r.begin)
            slice(ev, workers_pid, r.worker, "fetch", "fetch", r.begin, r.start,
                  "\"seq\":" + std::to_string(r.seq));
        const std::string args =
            "\"seq\":" + std::to_string(r.seq) + ",\"tile\":" + json_string(r.tile) +
            ",\"call\":" + json_string(t.calls[r.call]) + ",\"bytes\":" + std::to_string(r.bytes) +
            ",\"status\":\"" + status_name(r.status) +
            "\",\"wait_for_data_us\":" + us(r.start - r.begin);
        slice(ev, workers_pid, r.worker, t.codelets[r.codelet], "task", r.start, r.end, args);
    }
    for (trace::IdleRecord const& i : t.idles)
        slice(ev, workers_pid, i.worker, "idle", "idle", i.start, i.end, "");
}

void links(Events& ev, trace::Trace const& t, Timeline const& tl)
{
    if (tl.links.empty()) return;
    metadata(ev, links_pid, 0, "process_name", "links");
    sort_index(ev, links_pid, 0, "process_sort_index", 1);
    for (std::size_t l = 0; l < tl.links.size(); ++l) {
        Link const& link = tl.links[l];
        metadata(ev, links_pid, int(l), "thread_name",
                 t.nodes[link.src].name + " -> " + t.nodes[link.dst].name);
        for (std::size_t i : link.transfers) {
            trace::TransferRecord const& x = t.transfers[i];
            slice(ev, links_pid, l, std::to_string(x.bytes) + " B", "transfer", x.start, x.end,
                  "\"bytes\":" + std::to_string(x.bytes));
        }
    }
}

/// A flow arrow per edge between two tasks of the trace, from the predecessor's slice to the
/// successor's ("s" binds to the slice enclosing its time, "f" with "bp":"e" too).
void flows(Events& ev, trace::Trace const& t)
{
    std::unordered_map<uint64_t, trace::TaskRecord const*> by_seq;
    for (trace::TaskRecord const& r : t.tasks) by_seq.emplace(r.seq, &r);
    for (std::size_t e = 0; e < t.edges.size(); ++e) {
        auto from = by_seq.find(t.edges[e].from), to = by_seq.find(t.edges[e].to);
        if (from == by_seq.end() || to == by_seq.end()) continue;
        const std::string common = std::string(",\"name\":\"") + trace::kind_name(t.edges[e].kind) +
                                   "\",\"cat\":\"dependency\",\"id\":" + std::to_string(e);
        ev.next() << "{\"ph\":\"s\",\"pid\":" << workers_pid << ",\"tid\":" << from->second->worker
                  << ",\"ts\":" << us(from->second->start) << common << "}";
        ev.next() << "{\"ph\":\"f\",\"bp\":\"e\",\"pid\":" << workers_pid
                  << ",\"tid\":" << to->second->worker << ",\"ts\":" << us(to->second->start)
                  << common << "}";
    }
}

}  // namespace

void write_perfetto(std::ostream& out, trace::Trace const& t, Timeline const& tl)
{
    out << "{\"displayTimeUnit\":\"ms\",\n\"otherData\":{";
    for (std::size_t i = 0; i < t.meta.size(); ++i)
        out << (i ? "," : "") << json_string(t.meta[i].first) << ':'
            << json_string(t.meta[i].second);
    out << "},\n\"traceEvents\":[";
    Events ev(out);
    workers(ev, t);
    links(ev, t, tl);
    flows(ev, t);
    out << "\n]}\n";
}

}  // namespace tessera::trace_tool
