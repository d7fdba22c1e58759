#include "trace/summary.hpp"

#include "trace/format.hpp"
#include "trace/idle_causes.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <ostream>

namespace tessera::trace_tool {

namespace {

/// printf into the stream: the tables are easier to read as format strings.
void print(std::ostream& out, char const* format, ...)
{
    va_list args, again;
    va_start(args, format);
    va_copy(again, args);
    std::string line(std::size_t(std::vsnprintf(nullptr, 0, format, args)), '\0');
    std::vsnprintf(line.data(), line.size() + 1, format, again);
    va_end(again);
    va_end(args);
    out << line;
}

double percent(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * double(part) / double(whole) : 0.0;
}

void header(std::ostream& out, trace::Trace const& t, Timeline const& tl, std::string const& path)
{
    out << "trace: " << path << '\n';
    if (!t.meta.empty()) {
        out << "meta:";
        for (auto const& [k, v] : t.meta) out << ' ' << k << '=' << v;
        out << '\n';
    }
    print(out,
          "total time: %s ms; %zu workers, %zu memory nodes, %zu tasks, %zu edges, %zu transfers\n",
          ms(tl.length).c_str(), t.workers.size(), t.nodes.size(), t.tasks.size(), t.edges.size(),
          t.transfers.size());
}

/// The width of the name columns: the longest worker name.
int name_width(trace::Trace const& t)
{
    std::size_t width = 12;
    for (trace::WorkerRecord const& w : t.workers) width = std::max(width, w.name.size());
    return int(width);
}

void workers(std::ostream& out, trace::Trace const& t, Timeline const& tl)
{
    const int name = name_width(t);
    out << "\nworkers (percent of the total time)\n";
    print(out, "  %-6s %-*s %6s %8s %8s %8s %10s\n", "worker", name, "name", "tasks", "busy%",
          "data%", "idle%", "overhead%");
    std::vector<int64_t> asleep(t.workers.size(), 0);
    for (trace::IdleRecord const& i : t.idles) asleep[i.worker] += i.end - i.start;
    for (std::size_t w = 0; w < t.workers.size(); ++w) {
        const auto [busy, data] = task_time(t, tl.tasks[w]);
        const int64_t overhead = tl.length - busy - data - asleep[w];
        print(out, "  %-6zu %-*s %6zu %8.2f %8.2f %8.2f %10.2f\n", w, name,
              t.workers[w].name.c_str(), tl.tasks[w].size(), percent(busy, tl.length),
              percent(data, tl.length), percent(asleep[w], tl.length),
              percent(overhead, tl.length));
    }
    out << "  busy: running tasks (START..END)\n"
           "  data: taken tasks waiting for their data, none running (BEGIN..START; on a GPU,\n"
           "        also for the kernels queued before theirs)\n"
           "  idle: asleep with nothing to run (the 'idle' records)\n"
           "  overhead: the rest: scheduling and runtime work between tasks while awake\n";
}

struct Times {
    std::size_t n = 0;
    int64_t sum = 0, min = INT64_MAX, max = INT64_MIN;
    void add(int64_t d)
    {
        ++n;
        sum += d;
        min = std::min(min, d);
        max = std::max(max, d);
    }
};

void codelets(std::ostream& out, trace::Trace const& t)
{
    out << "\ncodelets (execution time END-START in ms; 'all': every architecture)\n";
    print(out, "  %-20s %-6s %6s %12s %12s %12s\n", "codelet", "arch", "runs", "mean", "min",
          "max");
    std::vector<std::size_t> count(t.codelets.size(), 0);
    std::vector<std::map<std::string, Times>> times(t.codelets.size());
    std::vector<Times> all(t.codelets.size());
    for (trace::TaskRecord const& r : t.tasks) {
        ++count[r.codelet];
        if (r.status == trace::TaskStatus::cancelled) continue;  // never ran
        times[r.codelet][t.workers[r.worker].arch].add(r.end - r.start);
        all[r.codelet].add(r.end - r.start);
    }
    auto row = [&](std::string const& codelet, std::string const& arch, Times const& s) {
        print(out, "  %-20s %-6s %6zu %12s %12s %12s\n", codelet.c_str(), arch.c_str(), s.n,
              ms(s.sum / int64_t(s.n)).c_str(), ms(s.min).c_str(), ms(s.max).c_str());
    };
    for (std::size_t c = 0; c < t.codelets.size(); ++c) {
        if (count[c] == 0) continue;
        if (all[c].n == 0) {
            print(out, "  %-20s %-6s %6zu (none ran)\n", t.codelets[c].c_str(), "all", count[c]);
            continue;
        }
        row(t.codelets[c], "all", all[c]);
        for (auto const& [arch, s] : times[c]) row(t.codelets[c], arch, s);
        if (count[c] != all[c].n)
            print(out, "  %-20s %zu cancelled\n", t.codelets[c].c_str(), count[c] - all[c].n);
    }
}

void links(std::ostream& out, trace::Trace const& t, Timeline const& tl)
{
    out << "\nlinks\n";
    print(out, "  %-24s %9s %14s %12s %12s\n", "link", "transfers", "bytes", "active ms", "MB/s");
    for (Link const& l : tl.links) {
        const std::string name = t.nodes[l.src].name + " -> " + t.nodes[l.dst].name;
        const double mbps = l.active > 0 ? double(l.bytes) * 1e3 / double(l.active) : 0.0;
        print(out, "  %-24s %9zu %14llu %12s %12.2f\n", name.c_str(), l.transfers.size(),
              static_cast<unsigned long long>(l.bytes), ms(l.active).c_str(), mbps);
    }
    if (tl.links.empty()) out << "  (no transfers)\n";
    out << "  active: time with at least one transfer in flight on the link\n"
           "  MB/s: the link's bytes over its active time (1 MB = 10^6 bytes)\n";
}

void causes(std::ostream& out, trace::Trace const& t, Timeline const& tl)
{
    const std::vector<WorkerTime> time = idle_causes(t, tl);
    const int64_t whole = tl.length * int64_t(t.workers.size());
    const int name = name_width(t);
    print(out,
          "\nwhy workers were not running tasks (percent of the total worker-time, %zu workers x "
          "%s ms: the workers' rows add up to 'all')\n",
          t.workers.size(), ms(tl.length).c_str());
    print(out, "  %-6s %-*s %8s %8s %8s %8s %8s\n", "worker", name, "name", "busy%", "data%",
          "deps%", "submit%", "sched%");
    WorkerTime sum;
    for (std::size_t w = 0; w < t.workers.size(); ++w) {
        WorkerTime const& x = time[w];
        print(out, "  %-6zu %-*s %8.2f %8.2f %8.2f %8.2f %8.2f\n", w, name,
              t.workers[w].name.c_str(), percent(x.busy, whole), percent(x.data, whole),
              percent(x.dependencies, whole), percent(x.submission, whole),
              percent(x.scheduler, whole));
        sum.busy += x.busy;
        sum.data += x.data;
        sum.dependencies += x.dependencies;
        sum.submission += x.submission;
        sum.scheduler += x.scheduler;
    }
    print(out, "  %-6s %-*s %8.2f %8.2f %8.2f %8.2f %8.2f\n", "all", name, "",
          percent(sum.busy, whole), percent(sum.data, whole), percent(sum.dependencies, whole),
          percent(sum.submission, whole), percent(sum.scheduler, whole));
    print(out,
          "  busy: running tasks (START..END)\n"
          "  data (a): waiting for data, no task running: BEGIN..START of the worker's tasks (on "
          "a GPU, also for the kernels queued before)\n"
          "  deps (b): between its tasks, no task was ready and not yet begun anywhere, and the "
          "next task to become ready was held by its dependencies (or none came)\n"
          "  submit (c): between its tasks, no task was ready, and the next task to become ready "
          "was submitted after this gap began and was ready on submission (READY - SUBMIT <= "
          "%s us): the application had not submitted the work yet\n"
          "  sched (d): between its tasks, some task was ready and not yet begun: it went to "
          "another worker or waited in a queue (the scheduler)\n",
          decimal(submission_slack_ns, 3).c_str());
}

}  // namespace

void write_summary(std::ostream& out, trace::Trace const& t, Timeline const& tl,
                   std::string const& path)
{
    header(out, t, tl, path);
    workers(out, t, tl);
    codelets(out, t);
    links(out, t, tl);
    causes(out, t, tl);
}

}  // namespace tessera::trace_tool
