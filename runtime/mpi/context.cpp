// rt::mpi::Context: MPI's initialization at the thread level Tessera needs, the transfers of
// handles (a pack or unpack task in the task flow, the message through the progress engine),
// and waiting for them.
#include <tessera/rt/mpi.hpp>

#include "runtime/core/placement.hpp"
#include "runtime/core/runtime_impl.hpp"
#include "runtime/data/coherency.hpp"
#include "runtime/data/data_state.hpp"
#include "runtime/mpi/message.hpp"
#include "runtime/mpi/mpi_error.hpp"
#include "runtime/mpi/progress_engine.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <span>
#include <string>
#include <unordered_map>

#include <sys/mman.h>
#include <unistd.h>

namespace tessera::rt::mpi {

namespace {

void check(int rc, char const* call)
{
    if (rc != MPI_SUCCESS)
        throw Error(std::string("mpi::Context: ") + call +
                    " failed: " + detail::mpi_error_text(rc));
}

char const* level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE:
        return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
        return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
        return "MPI_THREAD_SERIALIZED";
    default:
        return "MPI_THREAD_MULTIPLE";
    }
}

/// Whether the data of layout l is one block of memory (no gaps between columns or planes).
bool contiguous(Layout const& l) noexcept
{
    return rt::detail::copies_as_one_block(l, l);
}

/// Runtime tags from 2^63 up are the Contexts' own (the receives' arrivals and unpack tasks).
constexpr TagId first_tag = TagId(1) << 63;

}  // namespace

/// A handle given to register_data: its owner, its tag, how its data travels, and the versions
/// that say which copies are current (every rank counts the same versions, as every rank
/// submits the same tasks).
struct Context::Entry {
    std::shared_ptr<rt::detail::DataState> state;  // kept: its address names it
    int owner = 0, tag = 0;
    TransferFn send = nullptr;     // send_state<I>
    TransferFn receive = nullptr;  // receive_state<I>
    ReleaseFn release = nullptr;   // release_pages_state<I>
    uint64_t version = 1;          // one more each time a task writes it
    uint64_t cached = 0;           // not the owner: the version this rank holds
    std::vector<uint64_t> sent;    // the owner: per rank, the version last sent there
};

/// The owner computes, as the runtime asks for it at each submission.
struct Context::Placement final : rt::detail::TaskPlacement {
    Context* context;
    explicit Placement(Context* c) : context(c) {}
    bool runs_here(std::span<rt::detail::BufferSlot const> buffers) override
    {
        return context->place(buffers);
    }
    void after_submission() override { context->after_submission(); }
    void task_failed(std::exception_ptr const& e) noexcept override;
    void release_copy(rt::detail::DataState* state, bool reclaim) override
    {
        context->release_state(state, reclaim, true);
    }
};

struct Context::State {
    Runtime& rt;
    bool initialized_mpi = false;  // this Context called MPI_Init_thread: it finalizes
    int rank = 0, size = 1, tag_ub = 32767;
    std::unique_ptr<detail::ProgressEngine> engine;  // its communicators are Tessera's own
    std::mutex m;  // messages, next_tag, the registry, the flow's digest
    std::deque<std::unique_ptr<detail::Message>> messages;  // until wait_all sees them done
    TagId next_tag = first_tag;
    TransferCounts counts;
    std::unordered_map<rt::detail::DataState const*, Entry> registry;
    std::unique_ptr<Placement> placement;
    // What every rank must submit alike since the last wait_all: the placed tasks and the
    // fetches and invalidations, counted and hashed (their handles' tags and access modes).
    uint64_t flow_count = 0, flow_digest = 0;
    int automatic_tags = 0;  // register_data's without a tag so far
    explicit State(Runtime& r) : rt(r) {}
    /// Mixes x into the digest (FNV-1a's step, on 64-bit words).
    void digest(uint64_t x) noexcept { flow_digest = (flow_digest ^ x) * 0x100000001b3ULL; }
};

void Context::Placement::task_failed(std::exception_ptr const& e) noexcept
{
    try {
        std::string what = "a task failed";
        try {
            std::rethrow_exception(e);
        } catch (std::exception const& x) {
            what = x.what();
        } catch (...) {}
        context->state_->engine->failed_here(what);
    } catch (...) {  // out of memory: the other ranks learn of the failure at wait_all
    }
}

Context::Context(Runtime& rt, MPI_Comm comm) : state_(std::make_unique<State>(rt))
{
    State& s = *state_;
    int initialized = 0;
    check(MPI_Initialized(&initialized), "MPI_Initialized");
    int level = MPI_THREAD_SINGLE;
    if (!initialized) {
        check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &level), "MPI_Init_thread");
        s.initialized_mpi = true;
    } else {
        check(MPI_Query_thread(&level), "MPI_Query_thread");
    }
    if (level < MPI_THREAD_SERIALIZED) {
        if (s.initialized_mpi) MPI_Finalize();
        throw InvalidArgument(std::string("mpi::Context: MPI runs at ") + level_name(level) +
                              "; Tessera's progress thread needs MPI_THREAD_SERIALIZED or more "
                              "(MPI_Init_thread)");
    }
    try {
        s.engine = std::make_unique<detail::ProgressEngine>(rt, comm);
    } catch (...) {
        if (s.initialized_mpi) MPI_Finalize();
        throw;
    }
    s.rank = s.engine->rank();
    s.size = s.engine->size();
    int* ub = nullptr;
    int found = 0;
    MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &found);
    if (found && ub) s.tag_ub = *ub;
    s.placement = std::make_unique<Placement>(this);
    rt::detail::Internals::impl(rt).set_placement(s.placement.get());
}

Context::~Context()
{
    State& s = *state_;
    try {
        wait_all();
    } catch (std::exception const& e) {
        std::fprintf(stderr, "tessera: mpi::Context: %s (at destruction)\n", e.what());
    }
    rt::detail::Internals::impl(s.rt).set_placement(nullptr);
    s.engine.reset();  // the progress thread stops and frees Tessera's communicators
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (s.initialized_mpi && !finalized) MPI_Finalize();
}

int Context::rank() const noexcept
{
    return state_->rank;
}
int Context::size() const noexcept
{
    return state_->size;
}
Runtime& Context::runtime() const noexcept
{
    return state_->rt;
}

namespace {

void require_peer(char const* call, char const* what, int peer, int size, int tag, int tag_ub,
                  bool registered)
{
    require(registered, std::string("mpi::Context::") + call + ": the handle is not registered");
    require(peer >= 0 && peer < size, std::string("mpi::Context::") + call + ": " + what + " " +
                                          std::to_string(peer) + " is not a rank of the " +
                                          std::to_string(size) + " of the communicator");
    require(tag >= 0 && tag <= tag_ub, std::string("mpi::Context::") + call + ": tag " +
                                           std::to_string(tag) + " is outside 0.." +
                                           std::to_string(tag_ub) + " (MPI_TAG_UB)");
}

}  // namespace

detail::Message* Context::start_send(rt::detail::DataState* state, int dest, int tag,
                                     std::function<void()> on_sent)
{
    State& s = *state_;
    require_peer("isend", "dest", dest, s.size, tag, s.tag_ub,
                 state && rt::detail::data_registered(*state));
    auto m = std::make_unique<detail::Message>();
    m->kind = detail::Message::Kind::send;
    m->peer = dest;
    m->tag = tag;
    m->on_sent = std::move(on_sent);
    m->engine = s.engine.get();
    // In place from registered host memory in one piece: the pack task's copy saved, at the
    // cost of an empty hold task (registered memory does not move while the handle lives).
    Layout const& l = rt::detail::data_layout(*state);
    m->in_place = state->home == host_node && contiguous(l);
    detail::Message* raw = m.get();
    {
        std::lock_guard lock(s.m);
        if (m->in_place) {
            m->sent = s.next_tag++;
            m->hold = s.next_tag++;
        }
        s.messages.push_back(std::move(m));
        ++s.counts.sends;
        s.counts.bytes_sent += l.bytes();
    }
    if (raw->in_place) s.rt.declare_tag_deps(raw->hold, {raw->sent});
    s.engine->enqueue_send(raw);  // its place in the order of its (dest, tag)
    return raw;
}

detail::Message* Context::start_receive(rt::detail::DataState* state, int source, int tag)
{
    State& s = *state_;
    require_peer("irecv", "source", source, s.size, tag, s.tag_ub,
                 state && rt::detail::data_registered(*state));
    const std::size_t bytes = rt::detail::data_layout(*state).bytes();
    require(bytes <= std::size_t(INT32_MAX),
            "mpi::Context::irecv: the handle has " + std::to_string(bytes) +
                " bytes, more than one MPI message of bytes carries");
    auto m = std::make_unique<detail::Message>();
    m->kind = detail::Message::Kind::receive;
    m->peer = source;
    m->tag = tag;
    m->expected_bytes = bytes;  // its buffer is allocated when its message arrives
    // In place into registered host memory in one piece, as a send leaves, when its claim task
    // has run before the message arrives (a flow's first receive of a handle claims it at
    // once): the staging buffer and the unpack task's copy saved, for an empty claim task.
    m->in_place = state->home == host_node && contiguous(rt::detail::data_layout(*state));
    detail::Message* raw = m.get();
    {
        std::lock_guard lock(s.m);
        m->arrived = s.next_tag++;
        m->unpack = s.next_tag++;
        s.messages.push_back(std::move(m));
        ++s.counts.receives;
        s.counts.bytes_received += bytes;
    }
    s.rt.declare_tag_deps(raw->unpack, {raw->arrived});
    return raw;
}

TagId Context::receive_task_tag(detail::Message* m) const noexcept
{
    return m->unpack;
}

TagId Context::hold_task_tag(detail::Message* m) const noexcept
{
    return m->hold;
}

bool Context::lands_in_place(detail::Message* m) const noexcept
{
    return m->in_place;
}

void Context::submit_or_cancel(detail::Message* m, std::function<void()> const& submit)
{
    State& s = *state_;
    try {
        const rt::detail::Unplaced own_task;  // a transfer runs where it is submitted
        submit();
    } catch (...) {
        if (m->kind == detail::Message::Kind::send) {
            s.engine->withdraw_send(m);
            if (m->in_place) {  // its hold task may be submitted: released, its tags kept
                s.rt.notify_tag(m->sent);
                throw;
            }
        } else {
            s.rt.remove_tag(m->unpack);
            // its claim task may be submitted: the message stays (never posted) to wait_all
            if (m->in_place) throw;
        }
        std::lock_guard lock(s.m);
        std::erase_if(s.messages, [&](auto const& x) { return x.get() == m; });
        throw;
    }
    if (m->kind == detail::Message::Kind::receive) s.engine->post_receive(m);
}

void Context::wait_all()
{
    State& s = *state_;
    std::exception_ptr error;
    // 1. Did every rank submit the same flow? Checked before waiting for the tasks: with
    // different flows, a rank may wait for a message that no rank sends.
    uint64_t count = 0, digest = 0;
    bool mismatch = false;
    {
        std::lock_guard lock(s.m);
        count = std::exchange(s.flow_count, 0);
        digest = std::exchange(s.flow_digest, 0);
    }
    try {
        const auto flow = s.engine->max_over_ranks({count, ~count, digest, ~digest});
        if (flow[0] != ~flow[1] || flow[2] != ~flow[3]) {
            const std::string why =
                "the ranks submitted different task flows since the last wait_all (" +
                std::to_string(count) + " tasks and transfers of registered handles on rank " +
                std::to_string(s.rank) + ", between " + std::to_string(~flow[1]) + " and " +
                std::to_string(flow[0]) +
                " on the ranks): every rank must submit the same tasks on them, in the same order";
            s.engine->abort(why);
            mismatch = true;
            error = std::make_exception_ptr(InvalidArgument("mpi::Context::wait_all: " + why));
        }
    } catch (...) {
        error = std::current_exception();
    }
    // 2. The tasks, the pack and unpack tasks among them: every receive has arrived or failed.
    try {
        s.rt.wait_all();
    } catch (...) {
        if (!error) error = std::current_exception();
    }
    // 3. Did a task fail on some rank? Then the epoch is aborted on every rank, which says by
    // which rank (the lowest that failed).
    const int size = s.size;
    const uint64_t mine = s.engine->epoch_failed_here() ? uint64_t(size - s.rank) : 0;
    uint64_t failed = 0;
    try {
        failed = s.engine->max_over_ranks({mine})[0];
    } catch (...) {
        if (!error) error = std::current_exception();
    }
    if (failed > 0) {
        const int first = size - int(failed);
        s.engine->abort("rank " + std::to_string(first) + " failed");
        if (!error)
            error = std::make_exception_ptr(Error("mpi::Context::wait_all: rank " +
                                                  std::to_string(first) +
                                                  " failed: " + s.engine->failure_of(first)));
    }
    // 4. The sends (abandoned in an aborted epoch), then the next epoch.
    s.engine->wait_for_sends();
    if (std::exception_ptr e = s.engine->take_error(); e && !error) error = e;
    {
        std::lock_guard lock(s.m);
        for (auto const& m : s.messages)
            if (m->kind == detail::Message::Kind::receive) {
                s.rt.remove_tag(m->unpack);
                s.rt.remove_tag(m->arrived);
            } else if (m->in_place) {
                s.rt.remove_tag(m->hold);
                s.rt.remove_tag(m->sent);
            }
        s.messages.clear();
    }
    try {
        // every rank knows of a failure or a mismatch from steps 1 and 3
        s.engine->end_epoch(failed > 0 || mismatch);
    } catch (...) {
        if (!error) error = std::current_exception();
    }
    if (error) std::rethrow_exception(error);
}

int64_t Context::agree_on_info(int64_t info)
{
    // the smallest positive info is the largest of max - info
    const uint64_t mine = info > 0 ? uint64_t(INT64_MAX - info) + 1 : 0;
    const uint64_t most = state_->engine->max_over_ranks({mine})[0];
    return most == 0 ? 0 : INT64_MAX - int64_t(most - 1);
}

TransferCounts Context::transfers() const
{
    std::lock_guard lock(state_->m);
    return state_->counts;
}

void Context::register_state(std::shared_ptr<rt::detail::DataState> const& state, int owner,
                             int tag, TransferFn send, TransferFn receive, ReleaseFn release)
{
    State& s = *state_;
    require_peer("register_data", "owner", owner, s.size, tag, s.tag_ub,
                 state && rt::detail::data_registered(*state));
    std::lock_guard lock(s.m);
    auto [it, added] = s.registry.try_emplace(state.get());
    require(added, "mpi::Context::register_data: the handle is registered already (owner " +
                       std::to_string(it->second.owner) + ", tag " +
                       std::to_string(it->second.tag) + ")");
    Entry& e = it->second;
    e.state = state;
    e.owner = owner;
    e.tag = tag;
    e.send = send;
    e.receive = receive;
    e.release = release;
    e.sent.assign(std::size_t(s.size), 0);
}

namespace {

/// The registry's entry of `state`, or InvalidArgument: "<call>: <which>: the handle ...".
template <class Registry>
auto& entry_of(Registry& registry, rt::detail::DataState const* state, std::string const& call,
               std::string const& which)
{
    auto it = registry.find(state);
    require(it != registry.end(), [&] {
        return "mpi::Context::" + call + ": " + which +
               ": the handle was not given to register_data, so no rank owns it";
    });
    return it->second;
}

std::string argument(std::size_t k)
{
    return "buffer argument " + std::to_string(k + 1);
}

}  // namespace

/// A send or receive that prepare() or fetch() decided on, made once the lock is released
/// (it submits a task, which takes the lock again).
struct Context::Transfer {
    TransferFn fn;
    rt::detail::DataState* state;
    int peer, tag;
};

void Context::transfers_for(Entry& e, rt::detail::DataState* state, int to,
                            std::vector<Transfer>& out)
{
    // the owner's count of what it sent and the receiver's of what it holds move together
    State& s = *state_;
    if (s.rank == e.owner && e.sent[std::size_t(to)] != e.version) {
        e.sent[std::size_t(to)] = e.version;
        out.push_back({e.send, state, to, e.tag});
    }
    if (s.rank == to && e.cached != e.version) {
        e.cached = e.version;
        out.push_back({e.receive, state, e.owner, e.tag});
    }
}

thread_local std::vector<Context::Transfer> Context::writes_back_;

void Context::back_to_owner(Entry& e, rt::detail::DataState* state, int writer,
                            std::vector<Transfer>& sends, std::vector<Transfer>& receives)
{
    State& s = *state_;
    if (s.rank == writer) {
        e.cached = e.version;
        sends.push_back({e.send, state, e.owner, e.tag});
    }
    if (s.rank == e.owner) {
        e.sent[std::size_t(writer)] = e.version;
        receives.push_back({e.receive, state, writer, e.tag});
    }
}

bool Context::place(std::span<rt::detail::BufferSlot const> buffers)
{
    State& s = *state_;
    std::vector<Transfer> transfers;
    writes_back_.clear();  // those of a task that was not submitted after all
    bool here = true;
    {
        std::lock_guard lock(s.m);
        // the runner: the owner of the first registered handle the task writes; -1: none
        // written, the task runs on every rank; a task with no registered handle runs here,
        // unplaced
        int runner = -1;
        bool registered = false;
        for (std::size_t k = 0; k < buffers.size(); ++k) {
            auto it = s.registry.find(buffers[k].state);
            if (it == s.registry.end()) continue;
            registered = true;
            const Mode mode = buffers[k].mode;
            require(mode != Mode::REDUX, [&] {
                return "mpi::Context: submit: " + argument(k) +
                       ": reductions of a handle across ranks are not supported";
            });
            if (writes(mode) && runner < 0) runner = it->second.owner;
        }
        if (!registered) return true;
        ++s.flow_count;
        for (rt::detail::BufferSlot const& b : buffers)
            if (auto it = s.registry.find(b.state); it != s.registry.end())
                s.digest(uint64_t(it->second.tag) << 8 | uint64_t(b.mode));
        s.digest(buffers.size());
        here = runner < 0 || runner == s.rank;
        for (rt::detail::BufferSlot const& b : buffers) {
            auto it = s.registry.find(b.state);
            if (it == s.registry.end() || !reads(b.mode)) continue;
            Entry& e = it->second;
            if (runner >= 0) {
                if (e.owner != runner) transfers_for(e, b.state, runner, transfers);
            } else {  // every rank runs it: every rank but the owner receives
                for (int r = 0; r < s.size; ++r)
                    if (r != e.owner) transfers_for(e, b.state, r, transfers);
            }
        }
        // the new versions: the copies cached elsewhere are stale (each handle once)
        for (std::size_t k = 0; k < buffers.size(); ++k) {
            if (!writes(buffers[k].mode)) continue;
            auto it = s.registry.find(buffers[k].state);
            const bool first =
                std::none_of(buffers.begin(), buffers.begin() + std::ptrdiff_t(k),
                             [&](auto const& b) { return b.state == buffers[k].state; });
            if (it == s.registry.end() || !first) continue;
            Entry& e = it->second;
            ++e.version;
            // another rank's handle (a panel over the tiles of a column): sent back after it
            if (e.owner != runner)
                back_to_owner(e, buffers[k].state, runner, writes_back_, transfers);
        }
    }
    for (Transfer const& t : transfers) t.fn(*this, t.state, t.peer, t.tag, {});
    if (!here) writes_back_.clear();
    return here;
}

void Context::after_submission()
{
    const std::vector<Transfer> back = std::exchange(writes_back_, {});
    for (Transfer const& t : back) t.fn(*this, t.state, t.peer, t.tag, {});
}

Context::Entry& Context::flow_entry(rt::detail::DataState const* state, char const* call, int rank)
{
    State& s = *state_;
    require(rank >= 0 && rank < s.size, [&] {
        return std::string("mpi::Context::") + call + ": rank " + std::to_string(rank) +
               " is not a rank of the " + std::to_string(s.size) + " of the communicator";
    });
    Entry& e = entry_of(s.registry, state, call, "h");
    ++s.flow_count;  // the call, its handle and its rank
    for (char const* c = call; *c; ++c) s.digest(uint64_t(*c));
    s.digest(uint64_t(e.tag) << 8 | uint64_t(rank));
    return e;
}

void Context::fetch(rt::detail::DataState* state, int to)
{
    State& s = *state_;
    std::vector<Transfer> transfers;
    {
        std::lock_guard lock(s.m);
        Entry& e = flow_entry(state, "get_data_on", to);
        if (e.owner != to) transfers_for(e, state, to, transfers);
    }
    for (Transfer const& t : transfers) t.fn(*this, t.state, t.peer, t.tag, {});
}

void Context::adopt(rt::detail::DataState* state, int root)
{
    State& s = *state_;
    std::vector<Transfer> transfers;
    {
        std::lock_guard lock(s.m);
        Entry& e = flow_entry(state, "set_data_from", root);
        ++e.version;  // as if a task on root wrote it
        if (e.owner != root) back_to_owner(e, state, root, transfers, transfers);
    }
    for (Transfer const& t : transfers) t.fn(*this, t.state, t.peer, t.tag, {});
}

int Context::next_automatic_tag()
{
    State& s = *state_;
    std::lock_guard lock(s.m);
    // half of the tag space for them, the lower half for explicit tags
    require(s.automatic_tags < s.tag_ub / 2, "mpi::Context::register_data: the " +
                                                 std::to_string(s.tag_ub / 2) +
                                                 " automatic tags are used up");
    return s.tag_ub - s.automatic_tags++;
}

Context::Local::Local(Context&) : unplaced_(std::make_unique<rt::detail::Unplaced>())
{}
Context::Local::~Local() = default;

Context::Entry& Context::forget_copies(rt::detail::DataState const* state, char const* call)
{
    Entry& e = flow_entry(state, call, 0);  // no rank of its own: 0 on every rank
    e.cached = 0;
    std::fill(e.sent.begin(), e.sent.end(), 0);
    return e;
}

void Context::invalidate_state(rt::detail::DataState* state)
{
    std::lock_guard lock(state_->m);
    forget_copies(state, "invalidate");
}

void Context::release_state(rt::detail::DataState* state, bool reclaim, bool registered_only)
{
    State& s = *state_;
    ReleaseFn give_back = nullptr;
    {
        std::lock_guard lock(s.m);
        if (registered_only && !s.registry.contains(state)) return;
        Entry& e = forget_copies(state, "release");
        if (reclaim && e.owner != s.rank) give_back = e.release;
    }
    if (give_back) give_back(*this, state);
}

void Context::barrier()
{
    state_->engine->barrier();
}

namespace detail {

void pack(Message* m, void const* data, Layout const& l)
{
    if (m->in_place && contiguous(l)) {
        m->data = data;
        m->bytes = l.bytes();
        m->engine->packed(m);
        return;
    }
    // column by column (and plane by plane): the layout's leading dimensions are left out
    m->buffer.resize(l.bytes());
    const std::size_t column = std::size_t(l.nx) * l.elem_size;
    auto const* from = static_cast<std::byte const*>(data);
    std::byte* to = m->buffer.data();
    for (int64_t k = 0; k < l.nz; ++k)
        for (int64_t j = 0; j < l.ny; ++j, to += column)
            std::memcpy(to, from + std::size_t(j * l.ld + k * l.ldz) * l.elem_size, column);
    m->engine->packed(m);
}

void release_pages(void* data, Layout const& l) noexcept
{
    if (!contiguous(l)) return;
    // the whole pages inside [data, data + bytes): a partial page may hold another handle
    static const auto page = std::uintptr_t(sysconf(_SC_PAGESIZE));
    const auto begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) / page * page;
    const auto end = (reinterpret_cast<std::uintptr_t>(data) + l.bytes()) / page * page;
    if (end > begin)  // best effort: locked (pinned) pages stay, as their data does
        madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

void unpack(Message* m, void* data, Layout const& l)
{
    if (!m->error.empty()) throw Error("mpi::Context: " + m->error);
    if (m->landed) return;  // MPI wrote it there
    const std::size_t column = std::size_t(l.nx) * l.elem_size;
    std::byte const* from = m->buffer.data();
    auto* to = static_cast<std::byte*>(data);
    for (int64_t k = 0; k < l.nz; ++k)
        for (int64_t j = 0; j < l.ny; ++j, from += column)
            std::memcpy(to + std::size_t(j * l.ld + k * l.ldz) * l.elem_size, from, column);
    m->buffer = {};
}

void claim(Message* m, void* data) noexcept
{
    m->landing = data;  // the progress thread receives its message there if it arrives now
}

}  // namespace detail

}  // namespace tessera::rt::mpi
