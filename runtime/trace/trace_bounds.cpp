#include "runtime/trace/trace_bounds.hpp"

#include <tessera/rt/runtime.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace tessera::rt::trace {

namespace {

std::string size_text(uint64_t bytes)
{
    if (bytes >= (uint64_t(1) << 20) && bytes % 1024 == 0)
        return std::to_string(bytes >> 10 >> 10) + "MiB" +
               (bytes % (uint64_t(1) << 20) ? "+" + std::to_string((bytes >> 10) % 1024) + "KiB"
                                            : "");
    if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + "KiB";
    return std::to_string(bytes) + "B";
}

constexpr double seconds_per_ns = 1e-9;

}  // namespace

TraceBounds bounds_of(Trace const& t)
{
    TraceBounds b;
    // classes: the architectures, in the order of their first worker
    std::vector<std::size_t> class_of_worker(t.workers.size());
    for (WorkerRecord const& w : t.workers) {
        auto it = std::find_if(b.classes.begin(), b.classes.end(),
                               [&](WorkerClass const& c) { return c.name == w.arch; });
        if (it == b.classes.end()) {
            b.classes.push_back({w.arch, 0});
            it = b.classes.end() - 1;
        }
        ++it->workers;
        class_of_worker[w.id] = std::size_t(it - b.classes.begin());
    }

    // types: (codelet, footprint), with per-class sums of lengths
    struct Sums {
        std::vector<double> seconds;
        std::vector<uint64_t> runs;
    };
    std::map<std::pair<uint32_t, uint64_t>, std::size_t> type_of;
    std::vector<Sums> sums;
    std::vector<std::size_t> task_type(t.tasks.size(), SIZE_MAX);
    int64_t first = std::numeric_limits<int64_t>::max(), last = 0;
    for (std::size_t i = 0; i < t.tasks.size(); ++i) {
        TaskRecord const& r = t.tasks[i];
        if (r.status != TaskStatus::ok) continue;
        auto [it, added] = type_of.try_emplace({r.codelet, r.footprint}, b.types.size());
        if (added) {
            b.types.push_back({t.codelets[r.codelet] + " " + size_text(r.bytes), 0, {}});
            sums.push_back(
                {std::vector<double>(b.classes.size()), std::vector<uint64_t>(b.classes.size())});
        }
        const std::size_t k = it->second, c = class_of_worker[r.worker];
        ++b.types[k].count;
        sums[k].seconds[c] += double(r.end - r.start) * seconds_per_ns;
        ++sums[k].runs[c];
        task_type[i] = k;
        first = std::min(first, r.submit);
        last = std::max(last, r.end);
    }
    // two footprints of one codelet may have the same size: their names must differ
    std::map<std::string, int> seen;
    for (TaskType& type : b.types)
        if (int n = seen[type.name]++; n > 0) type.name += "#" + std::to_string(n + 1);
    std::vector<double> fastest(b.types.size(), std::numeric_limits<double>::infinity());
    for (std::size_t k = 0; k < b.types.size(); ++k)
        for (std::size_t c = 0; c < b.classes.size(); ++c)
            if (sums[k].runs[c] > 0) {
                const double mean = sums[k].seconds[c] / double(sums[k].runs[c]);
                b.types[k].seconds[b.classes[c].name] = mean;
                fastest[k] = std::min(fastest[k], mean);
            }
    b.makespan = last > first ? double(last - first) * seconds_per_ns : 0;
    b.area = area_bound(b.classes, b.types);

    std::vector<PathTask> tasks;
    std::unordered_set<uint64_t> ids;
    for (std::size_t i = 0; i < t.tasks.size(); ++i)
        if (task_type[i] != SIZE_MAX) {
            tasks.push_back({t.tasks[i].seq, fastest[task_type[i]]});
            ids.insert(t.tasks[i].seq);
        }
    std::vector<DependencyEdge> edges;
    for (DependencyEdge const& e : t.edges)
        if (ids.contains(e.from) && ids.contains(e.to)) edges.push_back(e);
    b.critical_path = critical_path(tasks, edges);
    return b;
}

}  // namespace tessera::rt::trace
