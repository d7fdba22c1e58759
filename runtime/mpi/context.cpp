// rt::mpi::Context: MPI's initialization at the thread level Tessera needs, the transfers of
// handles (a pack or unpack task in the task flow, the message through the progress engine),
// and waiting for them.
#include <tessera/rt/mpi.hpp>

#include "runtime/mpi/message.hpp"
#include "runtime/mpi/progress_engine.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <string>

namespace tessera::rt::mpi {

namespace {

void check(int rc, char const* call)
{
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    throw Error(std::string("mpi::Context: ") + call +
                " failed: " + std::string(text, std::size_t(length)));
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

struct Context::State {
    Runtime& rt;
    bool initialized_mpi = false;  // this Context called MPI_Init_thread: it finalizes
    MPI_Comm comm = MPI_COMM_NULL;
    int rank = 0, size = 1, tag_ub = 32767;
    std::unique_ptr<detail::ProgressEngine> engine;
    std::mutex m;  // messages and next_tag (isend and irecv from several threads)
    std::deque<std::unique_ptr<detail::Message>> messages;  // until wait_all sees them done
    TagId next_tag = first_tag;
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
}

Context::~Context()
{
    State& s = *state_;
    try {
        wait_all();
    } catch (std::exception const& e) {
        std::fprintf(stderr, "tessera: mpi::Context: %s (at destruction)\n", e.what());
    }
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

detail::Message* Context::start_send(int dest, int tag, std::function<void()> on_sent,
                                     bool registered)
{
    State& s = *state_;
    require_peer("isend", "dest", dest, s.size, tag, s.tag_ub, registered);
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
    }
    s.engine->enqueue_send(raw);  // its place in the order of its (dest, tag)
    return raw;
}

detail::Message* Context::start_receive(int source, int tag, bool registered, Layout const& layout)
{
    State& s = *state_;
    require_peer("irecv", "source", source, s.size, tag, s.tag_ub, registered);
    require(layout.bytes() <= std::size_t(INT32_MAX),
            "mpi::Context::irecv: the handle has " + std::to_string(layout.bytes()) +
                " bytes, more than one MPI message of bytes carries");
    auto m = std::make_unique<detail::Message>();
    m->kind = detail::Message::Kind::receive;
    m->peer = source;
    m->tag = tag;
    m->expected_bytes = layout.bytes();
    m->buffer.resize(layout.bytes());
    detail::Message* raw = m.get();
    {
        std::lock_guard lock(s.m);
        m->arrived = s.next_tag++;
        m->unpack = s.next_tag++;
        s.messages.push_back(std::move(m));
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
