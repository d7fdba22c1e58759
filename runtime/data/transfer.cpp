#include "runtime/data/transfer.hpp"

#include "runtime/data/coherency.hpp"
#include "runtime/data/device_backend.hpp"
#include "runtime/trace/trace_recorder.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <chrono>
#include <string>

namespace tessera::rt::detail {

LinkCounters::LinkCounters(unsigned nodes)
    : nodes_(nodes), transfers_(new std::atomic<uint64_t>[nodes * nodes]()),
      bytes_(new std::atomic<uint64_t>[nodes * nodes]())
{}

void LinkCounters::count(NodeId src, NodeId dst, std::size_t bytes) noexcept
{
    transfers_[src * nodes_ + dst].fetch_add(1, std::memory_order_relaxed);
    bytes_[src * nodes_ + dst].fetch_add(bytes, std::memory_order_relaxed);
}

std::vector<LinkStats> LinkCounters::snapshot() const
{
    std::vector<LinkStats> out;
    for (NodeId s = 0; s < nodes_; ++s)
        for (NodeId d = 0; d < nodes_; ++d)
            if (uint64_t n = transfers_[s * nodes_ + d].load(std::memory_order_relaxed))
                out.push_back({s, d, n, bytes_[s * nodes_ + d].load(std::memory_order_relaxed)});
    return out;
}

void LinkCounters::reset() noexcept
{
    for (unsigned i = 0; i < nodes_ * nodes_; ++i) {
        transfers_[i].store(0, std::memory_order_relaxed);
        bytes_[i].store(0, std::memory_order_relaxed);
    }
}

TransferEngine::~TransferEngine()
{
    stop();
}

void TransferEngine::add_channels(NodeId node, LinkModel model, DeviceBackend* device)
{
    for (CopyPath path : {CopyPath::to_device, CopyPath::from_device}) {
        auto c = std::make_unique<Channel>();
        c->node = node;
        c->path = path;
        c->model = model;
        c->device = device;
        c->ended.assign(window(*c), 0);
        Channel* raw = c.get();
        channels_.push_back(std::move(c));
        raw->thread = std::thread([this, raw] { serve(*raw); });
    }
}

TransferEngine::Channel& TransferEngine::channel_of(TransferRequest const& r)
{
    // to a device (from the host or a peer): the destination's; to the host: the source's
    const bool to_device = r.dst != host_node;
    const NodeId device = to_device ? r.dst : r.src;
    const CopyPath path = to_device ? CopyPath::to_device : CopyPath::from_device;
    for (auto& c : channels_)
        if (c->node == device && c->path == path) return *c;
    throw Error("transfer: no channel serves memory node " + std::to_string(device));
}

void TransferEngine::submit(TransferRequest r)
{
    Channel& c = channel_of(r);
    {
        std::lock_guard lock(c.m);
        c.queue.push_back(std::move(r));
    }
    c.cv.notify_one();
}

unsigned TransferEngine::window(Channel const& c) noexcept
{
    return c.device ? DeviceBackend::copies_in_flight : 1;
}

void TransferEngine::emulate(LinkModel const& model, TransferRequest const& r)
{
    auto start = std::chrono::steady_clock::now();
    copy_elements(r.src_ptr, r.src_layout, r.dst_ptr, r.dst_layout);
    double cost = model.latency +
                  (model.bandwidth > 0 ? double(r.src_layout.bytes()) / model.bandwidth : 0.0);
    if (cost > 0) std::this_thread::sleep_until(start + std::chrono::duration<double>(cost));
}

void TransferEngine::start(Channel& c, CopyInFlight const& f)
{
    if (c.device) {
        auto ended = [&c, slot = f.slot, number = f.number] { copy_ended(c, slot, number); };
        c.device->start_copy(f.request, c.path, f.slot, ended);
    } else {
        emulate(c.model, f.request);
        copy_ended(c, f.slot, f.number);
    }
}

// Notifies under the lock: once the channel has seen the last of its copies end, it may
// return and be destroyed, which it cannot do before this call lets the lock go.
void TransferEngine::copy_ended(Channel& c, unsigned slot, uint64_t number) noexcept
{
    std::lock_guard lock(c.m);
    c.ended[slot] = std::max(c.ended[slot], number);
    c.cv.notify_one();
}

void TransferEngine::finish(Channel const& c, CopyInFlight const& f)
{
    if (c.device) c.device->finish_copy(c.path, f.slot);
    account(f.request, f.started);
}

void TransferEngine::account(TransferRequest const& r,
                             std::chrono::steady_clock::time_point started) noexcept
{
    const std::size_t bytes = r.src_layout.bytes();
    counters_.count(r.src, r.dst, bytes);
    if (TraceRecorder* t = tracer_.load(std::memory_order_acquire); t && t->on())
        t->transfer(r.src, r.dst, bytes, t->since_origin(started), t->now());
}

void TransferEngine::copy_now(TransferRequest const& r)
{
    Channel const& c = channel_of(r);
    const auto started = std::chrono::steady_clock::now();
    if (c.device)
        c.device->copy_now(r);
    else
        emulate(c.model, r);
    account(r, started);
}

// Starts what the queue holds while the window has room, and finishes the oldest copy in
// flight once it has ended (its stream runs them in order), waking its requester; in between,
// sleeps until a request comes or a copy's end is announced. A copy that fails to start or to
// finish hands its error to its requester alone. Returns once stopping with nothing queued or
// in flight.
void TransferEngine::serve(Channel& c)
{
    std::deque<CopyInFlight> in_flight;
    unsigned next_slot = 0;  // slots are used in turn: the oldest in flight ends first
    uint64_t started = 0;    // copies started so far
    std::unique_lock lock(c.m);
    for (;;) {
        auto can_start = [&] { return !c.queue.empty() && in_flight.size() < window(c); };
        auto oldest_ended = [&] {
            return !in_flight.empty() &&
                   c.ended[in_flight.front().slot] >= in_flight.front().number;
        };
        auto done = [&] { return c.stopping && c.queue.empty() && in_flight.empty(); };
        auto ready = [&] { return can_start() || oldest_ended() || done(); };
        if (in_flight.empty() || !c.device) {
            c.cv.wait(lock, ready);
        } else if (!c.cv.wait_for(lock, announcement_overdue, ready)) {
            // no end announced for a while: ask the device, should the announcement be lost
            // (a device that fails to call back must not leave the channel, and stop(), waiting)
            const unsigned slot = in_flight.front().slot;
            const uint64_t number = in_flight.front().number;
            lock.unlock();
            if (c.device->copy_has_ended(c.path, slot)) copy_ended(c, slot, number);
            lock.lock();
            continue;
        }
        if (can_start()) {
            in_flight.push_back({std::move(c.queue.front()), next_slot, ++started,
                                 std::chrono::steady_clock::now()});
            c.queue.pop_front();
            lock.unlock();
            try {
                start(c, in_flight.back());
                next_slot = (next_slot + 1) % window(c);
            } catch (...) {  // the requester learns of it and fails its task
                TransferRequest refused = std::move(in_flight.back().request);
                in_flight.pop_back();
                refused.done(std::current_exception());
            }
        } else if (oldest_ended()) {
            CopyInFlight f = std::move(in_flight.front());
            in_flight.pop_front();
            lock.unlock();
            std::exception_ptr error;
            try {
                finish(c, f);
            } catch (...) {
                error = std::current_exception();
            }
            f.request.done(error);
        } else {
            return;  // stopping, and every request has its answer
        }
        lock.lock();
    }
}

void TransferEngine::stop() noexcept
{
    for (auto& c : channels_) {
        {
            std::lock_guard lock(c->m);
            c->stopping = true;
        }
        c->cv.notify_all();
    }
    for (auto& c : channels_)
        if (c->thread.joinable()) c->thread.join();
    for (auto& c : channels_)
        if (c->device) c->device->await_announcements();
    channels_.clear();
}

}  // namespace tessera::rt::detail
