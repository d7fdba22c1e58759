#include "trace/timeline.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace tessera::trace_tool {

int64_t union_length(std::vector<Span> spans)
{
    std::sort(spans.begin(), spans.end(),
              [](Span const& a, Span const& b) { return a.begin < b.begin; });
    int64_t total = 0, covered_to = INT64_MIN;
    for (Span const& s : spans) {
        const int64_t from = std::max(s.begin, covered_to);
        if (s.end > from) total += s.end - from;
        covered_to = std::max(covered_to, s.end);
    }
    return total;
}

TaskTime task_time(trace::Trace const& t, std::vector<std::size_t> const& tasks)
{
    std::vector<Span> running, taken;
    for (std::size_t i : tasks) {
        running.push_back({t.tasks[i].start, t.tasks[i].end});
        taken.push_back({t.tasks[i].begin, t.tasks[i].end});
    }
    const int64_t busy = union_length(std::move(running));
    return {busy, union_length(std::move(taken)) - busy};
}

Timeline make_timeline(trace::Trace const& t)
{
    Timeline tl;
    // The reader does not check that 'end' comes after every time: a late record stretches
    // the trace rather than falling off the pictures.
    tl.length = std::max<int64_t>(t.end, 0);
    for (trace::TaskRecord const& r : t.tasks) tl.length = std::max(tl.length, r.end);
    for (trace::TransferRecord const& x : t.transfers) tl.length = std::max(tl.length, x.end);
    for (trace::IdleRecord const& i : t.idles) tl.length = std::max(tl.length, i.end);

    tl.tasks.resize(t.workers.size());
    for (std::size_t i = 0; i < t.tasks.size(); ++i) tl.tasks[t.tasks[i].worker].push_back(i);
    tl.gaps.resize(t.workers.size());
    for (std::size_t w = 0; w < t.workers.size(); ++w) {
        auto& mine = tl.tasks[w];
        std::stable_sort(mine.begin(), mine.end(), [&](std::size_t a, std::size_t b) {
            return t.tasks[a].begin < t.tasks[b].begin;
        });
        // A worker runs one task at a time, but overlapping records (a recorder's clock
        // skew) must not make a gap negative: the gaps are the complement of the union.
        int64_t free_from = 0;
        for (std::size_t i : mine) {
            trace::TaskRecord const& r = t.tasks[i];
            if (r.begin > free_from) tl.gaps[w].push_back({free_from, r.begin});
            free_from = std::max(free_from, r.end);
        }
        if (tl.length > free_from) tl.gaps[w].push_back({free_from, tl.length});
    }

    std::map<std::pair<uint32_t, uint32_t>, Link> links;
    for (std::size_t i = 0; i < t.transfers.size(); ++i) {
        trace::TransferRecord const& x = t.transfers[i];
        Link& l = links[{x.src, x.dst}];
        l.src = x.src;
        l.dst = x.dst;
        l.transfers.push_back(i);
        l.bytes += x.bytes;
    }
    for (auto& [key, l] : links) {
        std::vector<Span> spans;
        for (std::size_t i : l.transfers)
            spans.push_back({t.transfers[i].start, t.transfers[i].end});
        l.active = union_length(std::move(spans));
        tl.links.push_back(std::move(l));
    }
    return tl;
}

}  // namespace tessera::trace_tool
