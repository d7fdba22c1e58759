// rt::mpi::Context: MPI's initialization at the thread level Tessera needs, the transfers of
// handles (a pack or unpack task in the task flow, the message through the progress engine),
// and waiting for them.
#include <tessera/rt/mpi.hpp>

#include "runtime/core/placement.hpp"
#include "runtime/core/runtime_impl.hpp"
#include "runtime/mpi/message.hpp"
#include "runtime/mpi/mpi_error.hpp"
#include "runtime/mpi/progress_engine.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <span>
#include <string>
#include <unordered_map>

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
};

struct Context::State {
    Runtime& rt;
    bool initialized_mpi = false;  // this Context called MPI_Init_thread: it finalizes
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0, size = 1, tag_ub = 32767;
    std::unique_ptr<detail::ProgressEngine> engine;
    std::mutex m;  // messages and next_tag (isend and irecv from several threads)
    std::deque<std::unique_ptr<detail::Message>> messages;  // until wait_all sees them done
    TagId next_tag = first_tag;
    TransferCounts counts;
    std::unordered_map<rt::detail::DataState const*, Entry> registry;
    std::unique_ptr<Placement> placement;
    explicit State(Runtime& r) : rt(r) {}
};

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
    check(MPI_Comm_dup(comm, &s.comm), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(s.comm, MPI_ERRORS_RETURN);  // errors come back as codes
    MPI_Comm_rank(s.comm, &s.rank);
    MPI_Comm_size(s.comm, &s.size);
    int* ub = nullptr;
    int found = 0;
    MPI_Comm_get_attr(s.comm, MPI_TAG_UB, &ub, &found);
    if (found && ub) s.tag_ub = *ub;
    s.engine = std::make_unique<detail::ProgressEngine>(rt, s.comm);
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
    s.engine.reset();  // the progress thread stops: the calls below are this thread's alone
    MPI_Comm_free(&s.comm);
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
    detail::Message* raw = m.get();
    {
        std::lock_guard lock(s.m);
        s.messages.push_back(std::move(m));
        ++s.counts.sends;
        s.counts.bytes_sent += rt::detail::data_layout(*state).bytes();
    }
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
    m->expected_bytes = bytes;
    m->buffer.resize(bytes);
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

void Context::submit_or_cancel(detail::Message* m, std::function<void()> const& submit)
{
    State& s = *state_;
    try {
        const rt::detail::Unplaced own_task;  // a transfer runs where it is submitted
        submit();
    } catch (...) {
        if (m->kind == detail::Message::Kind::send) {
            s.engine->withdraw_send(m);
        } else {
            s.rt.remove_tag(m->unpack);
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
    try {
        s.rt.wait_all();  // the pack and unpack tasks among them: every receive has arrived
    } catch (...) {
        error = std::current_exception();
    }
    s.engine->wait_for_sends();
    if (std::exception_ptr e = s.engine->take_error(); e && !error) error = e;
    {
        std::lock_guard lock(s.m);
        for (auto const& m : s.messages)
            if (m->kind == detail::Message::Kind::receive) {
                s.rt.remove_tag(m->unpack);
                s.rt.remove_tag(m->arrived);
            }
        s.messages.clear();
    }
    if (error) std::rethrow_exception(error);
}

TransferCounts Context::transfers() const
{
    std::lock_guard lock(state_->m);
    return state_->counts;
}

void Context::register_state(std::shared_ptr<rt::detail::DataState> const& state, int owner,
                             int tag, TransferFn send, TransferFn receive)
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

bool Context::place(std::span<rt::detail::BufferSlot const> buffers)
{
    State& s = *state_;
    std::vector<Transfer> transfers;
    bool here = true;
    {
        std::lock_guard lock(s.m);
        // the rank that owns the registered handles the task writes; -1: none written, the
        // task runs on every rank; a task with no registered handle runs here, unplaced
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
            if (!writes(mode)) continue;
            require(runner < 0 || it->second.owner == runner, [&] {
                return "mpi::Context: submit: " + argument(k) + " is owned by rank " +
                       std::to_string(it->second.owner) +
                       ", another handle the task writes by rank " + std::to_string(runner) +
                       ": a task writes the handles of one rank";
            });
            runner = it->second.owner;
        }
        if (!registered) return true;
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
            if (it != s.registry.end() && first) ++it->second.version;
        }
    }
    for (Transfer const& t : transfers) t.fn(*this, t.state, t.peer, t.tag, {});
    return here;
}

void Context::fetch(rt::detail::DataState* state, int to)
{
    State& s = *state_;
    require(to >= 0 && to < s.size, "mpi::Context::get_data_on: rank " + std::to_string(to) +
                                        " is not a rank of the " + std::to_string(s.size) +
                                        " of the communicator");
    std::vector<Transfer> transfers;
    {
        std::lock_guard lock(s.m);
        Entry& e = entry_of(s.registry, state, "get_data_on", "h");
        if (e.owner != to) transfers_for(e, state, to, transfers);
    }
    for (Transfer const& t : transfers) t.fn(*this, t.state, t.peer, t.tag, {});
}

void Context::invalidate_state(rt::detail::DataState* state)
{
    State& s = *state_;
    std::lock_guard lock(s.m);
    Entry& e = entry_of(s.registry, state, "invalidate", "h");
    e.cached = 0;
    std::fill(e.sent.begin(), e.sent.end(), 0);
}

void Context::barrier()
{
    state_->engine->barrier();
}

namespace detail {

void pack(Message* m, void const* data, Layout const& l)
{
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

void unpack(Message* m, void* data, Layout const& l)
{
    if (!m->error.empty()) throw Error("mpi::Context: " + m->error);
    const std::size_t column = std::size_t(l.nx) * l.elem_size;
    std::byte const* from = m->buffer.data();
    auto* to = static_cast<std::byte*>(data);
    for (int64_t k = 0; k < l.nz; ++k)
        for (int64_t j = 0; j < l.ny; ++j, from += column)
            std::memcpy(to + std::size_t(j * l.ld + k * l.ldz) * l.elem_size, from, column);
    m->buffer = {};
}

}  // namespace detail

}  // namespace tessera::rt::mpi
