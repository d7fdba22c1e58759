#include "runtime/trace/trace_recorder.hpp"

#include <algorithm>
#include <tuple>

namespace tessera::rt::detail {

void TraceRecorder::prepare(unsigned workers)
{
    if (!workers_) {
        workers_ = std::make_unique<WorkerBuffer[]>(workers);
        nworkers_ = workers;
    }
}

void TraceRecorder::start(unsigned workers)
{
    prepare(workers);
    for (unsigned w = 0; w < nworkers_; ++w) {
        std::lock_guard lock(workers_[w].m);
        workers_[w].tasks.clear();
        workers_[w].idles.clear();
    }
    {
        std::lock_guard lock(m_);
        calls_.assign(1, "-");
        edges_.clear();
        transfers_.clear();
    }
    started_.store(now(), std::memory_order_relaxed);
    on_.store(true, std::memory_order_release);
}

trace::Trace TraceRecorder::stop()
{
    on_.store(false, std::memory_order_release);
    const int64_t stopped = now();
    trace::Trace t;
    for (unsigned w = 0; w < nworkers_; ++w)  // asleep now: the sleep so far
        if (const int64_t since = workers_[w].asleep_since.load(std::memory_order_acquire);
            since >= 0)
            idle(w, std::max(since, started()), stopped);
    {
        std::lock_guard lock(m_);
        t.calls = calls_;
        t.edges = std::move(edges_);
        t.transfers = std::move(transfers_);
        edges_.clear();
        transfers_.clear();
    }
    // codelet names: per worker, then one numbering for the trace, in order of first sight
    std::unordered_map<std::string, uint32_t> codelet_ids;
    for (unsigned w = 0; w < nworkers_; ++w) {
        WorkerBuffer& b = workers_[w];
        std::lock_guard lock(b.m);
        std::vector<uint32_t> global(b.codelets.size());
        for (std::size_t i = 0; i < b.codelets.size(); ++i) {
            auto [it, added] = codelet_ids.try_emplace(b.codelets[i], uint32_t(t.codelets.size()));
            if (added) t.codelets.push_back(b.codelets[i]);
            global[i] = it->second;
        }
        for (trace::TaskRecord& r : b.tasks) {
            r.codelet = global[r.codelet];
            t.tasks.push_back(std::move(r));
        }
        t.idles.insert(t.idles.end(), b.idles.begin(), b.idles.end());
        b.tasks.clear();
        b.idles.clear();
    }
    // in the order things happened: what a reader of the file expects
    std::sort(t.tasks.begin(), t.tasks.end(), [](auto const& a, auto const& b) {
        return std::tie(a.begin, a.seq) < std::tie(b.begin, b.seq);
    });
    std::sort(t.idles.begin(), t.idles.end(), [](auto const& a, auto const& b) {
        return std::tie(a.start, a.worker) < std::tie(b.start, b.worker);
    });
    std::sort(t.transfers.begin(), t.transfers.end(),
              [](auto const& a, auto const& b) { return a.start < b.start; });
    t.end = now();
    return t;
}

uint32_t TraceRecorder::call_id(std::string_view name) noexcept
{
    std::lock_guard lock(m_);
    auto it = std::find(calls_.begin(), calls_.end(), name);
    if (it != calls_.end()) return uint32_t(it - calls_.begin());
    try {
        calls_.emplace_back(name);
    } catch (...) {
        return 0;
    }
    return uint32_t(calls_.size() - 1);
}

void TraceRecorder::task(WorkerId w, std::string_view codelet, trace::TaskRecord r) noexcept
{
    if (w >= nworkers_) return;
    WorkerBuffer& b = workers_[w];
    std::lock_guard lock(b.m);
    try {
        auto it = b.codelet_ids.find(codelet);
        if (it == b.codelet_ids.end()) {
            b.codelets.emplace_back(codelet);
            it = b.codelet_ids.emplace(b.codelets.back(), uint32_t(b.codelets.size() - 1)).first;
        }
        r.codelet = it->second;
        r.worker = w;
        b.tasks.push_back(std::move(r));
    } catch (...) {}
}

void TraceRecorder::idle(WorkerId w, int64_t start, int64_t end) noexcept
{
    if (w >= nworkers_) return;
    WorkerBuffer& b = workers_[w];
    std::lock_guard lock(b.m);
    try {
        b.idles.push_back({w, start, end});
    } catch (...) {}
}

void TraceRecorder::falls_asleep(WorkerId w) noexcept
{
    if (w < nworkers_) workers_[w].asleep_since.store(now(), std::memory_order_release);
}

void TraceRecorder::wakes(WorkerId w) noexcept
{
    if (w >= nworkers_) return;
    const int64_t since = workers_[w].asleep_since.exchange(-1, std::memory_order_acq_rel);
    if (since >= 0 && on()) idle(w, std::max(since, started()), now());
}

void TraceRecorder::edge(uint64_t from, uint64_t to, DependencyKind kind) noexcept
{
    std::lock_guard lock(m_);
    try {
        edges_.push_back({from, to, kind});
    } catch (...) {}
}

void TraceRecorder::transfer(NodeId src, NodeId dst, uint64_t bytes, int64_t start,
                             int64_t end) noexcept
{
    std::lock_guard lock(m_);
    try {
        transfers_.push_back({src, dst, bytes, start, end});
    } catch (...) {}
}

}  // namespace tessera::rt::detail
