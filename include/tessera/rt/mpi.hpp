/// @file mpi.hpp
/// Tessera's task flow across the ranks of an MPI communicator (thesis §5, StarPU-MPI): the
/// data of a registered handle sent and received at the right point of each rank's task flow.
///
///     rt::Runtime rt;
///     rt::mpi::Context mpi{rt};                    // MPI_Init_thread if nobody did it
///     rt::Handle h{rt, rt::Matrix<double>{a, n, n, n}};
///     if (mpi.rank() == 0) {
///         rt.submit(fill, write(h));
///         mpi.isend(h, 1, 7);                      // once `fill` is done; returns at once
///     } else {
///         mpi.irecv(h, 0, 7);                      // the tasks submitted after it read the data
///         rt.submit(use, read(h));
///     }
///     mpi.wait_all();                              // the tasks and the transfers
///
/// `isend` takes h for reading, in submission order: the tasks submitted before it that write
/// h run first, and those submitted after it that write h wait only until the data is copied
/// out (the message then leaves on its own). `irecv` takes h for writing: the tasks submitted
/// after it that access h wait for the message. Neither blocks a worker: the data is packed
/// and unpacked by short CPU tasks, and one progress thread makes every MPI call. Messages
/// from one rank with one tag arrive in the order of their isend calls, as MPI orders them.
///
/// MPI thread level: MPI_THREAD_SERIALIZED. Only the progress thread calls MPI while a
/// Context lives (its calls never overlap), from a thread that is not the main one, which
/// MPI_THREAD_FUNNELED would forbid; MPI_THREAD_MULTIPLE is not needed. Hence, while a Context
/// lives, the application makes its own MPI calls through it (barrier()) unless it initialized
/// MPI with MPI_THREAD_MULTIPLE itself.
#pragma once

#include <tessera/rt/runtime.hpp>
#include <tessera/rt/span.hpp>  // BufferSlot

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace tessera::rt::detail {
class Unplaced;  // runtime/core/placement.hpp
}

namespace tessera::rt::mpi {

namespace detail {
struct Message;  // one transfer: its staging buffer and completion (runtime/mpi/message.hpp)
/// Lets send m leave with `data` (laid out as `l`), the pack task's kernel: from `data` itself
/// if m leaves in place (see Context::start_send), else from a copy in m's buffer.
void pack(Message* m, void const* data, Layout const& l);
/// Copies m's buffer into `data` (the unpack task's kernel), unless m landed in place there;
/// throws the message's MPI error.
void unpack(Message* m, void* data, Layout const& l);
/// Gives receive m the handle's memory `data` to land in (the claim task's kernel): the tasks
/// before it are done with the handle, and the unpack task after it waits for the message.
void claim(Message* m, void* data) noexcept;

/// The transfers' tasks' priority: before any computation, as another rank may be waiting for
/// the message (a few µs of copying against its idle cores).
inline constexpr int transfer_priority = 1 << 30;

template <View V> void pack_kernel(const_view_t<V> v, Message* m)
{
    pack(m, v.ptr, layout_of(v));
}
template <View V> void unpack_kernel(mutable_view_t<V> v, Message* m)
{
    unpack(m, v.ptr, layout_of(v));
}
template <View V>
inline const Codelet<const_view_t<V>, Message*> pack_codelet{
    .name = "mpi_pack", .where = ArchMask::cpu, .cpu = &pack_kernel<V>};
template <View V>
inline const Codelet<mutable_view_t<V>, Message*> unpack_codelet{
    .name = "mpi_unpack", .where = ArchMask::cpu, .cpu = &unpack_kernel<V>};
template <View V> void claim_kernel(mutable_view_t<V> v, Message* m)
{
    claim(m, v.ptr);
}
template <View V>
inline const Codelet<mutable_view_t<V>, Message*> claim_codelet{
    .name = "mpi_claim", .where = ArchMask::cpu, .cpu = &claim_kernel<V>};
/// The hold task's kernel: nothing. The task reads the handle a send leaves from in place, and
/// waits for the send to complete: the handle's next writers wait for it.
template <View V> void hold_kernel(const_view_t<V>)
{}
template <View V>
inline const Codelet<const_view_t<V>> hold_codelet{
    .name = "mpi_hold", .where = ArchMask::cpu, .cpu = &hold_kernel<V>};
/// Gives the whole pages inside `data` (laid out as `l`, if it is one block) back to the
/// system: the release task's kernel (Context::release).
void release_pages(void* data, Layout const& l) noexcept;
template <View V> void release_kernel(mutable_view_t<V> v)
{
    release_pages(v.ptr, layout_of(v));
}
template <View V>
inline const Codelet<mutable_view_t<V>> release_codelet{
    .name = "mpi_release", .where = ArchMask::cpu, .cpu = &release_kernel<V>};
}  // namespace detail

/// Transfers counted since the Context started (Context::transfers).
struct TransferCounts {
    uint64_t sends = 0;           ///< messages sent (isend, and submit's transfers)
    uint64_t receives = 0;        ///< messages received
    uint64_t bytes_sent = 0;      ///< their bytes
    uint64_t bytes_received = 0;  ///< their bytes
};

/// One runtime's view of an MPI communicator: its rank, the transfers of handles between
/// ranks, the owner-computes placement of tasks, and the progress thread that makes the MPI
/// calls. One Context per runtime.
///
/// Owner computes (StarPU-MPI's data registration and task_insert): once handles are given
/// to register_data, every rank submits the whole task flow, in the same order, with
/// Runtime::submit (or the tile algorithms, unchanged). A task that writes registered handles
/// runs on the rank that owns them, after receiving the registered inputs it lacks: a received
/// copy stays valid (cached) until its owner writes the data again. A task that writes the
/// handles of several ranks (an LU panel over a tile column) runs on the owner of the first,
/// which receives the others and sends them back to their owners once it has written them. A
/// task that writes no registered handle runs on every rank, each receiving the registered
/// inputs it lacks. The other ranks drop the task at submission (submit returns an empty
/// TaskRef there), send the inputs they own, and count versions. A task that accesses no
/// registered handle runs where it is submitted, as without MPI (and so does every task
/// submitted in a Local scope). Refused at submission (InvalidArgument, naming the buffer
/// argument): a task that contributes to a reduction of a registered handle.
class Context {
public:
    /// Starts on a duplicate of `comm` (Tessera's messages never match the application's).
    /// Initializes MPI with MPI_THREAD_SERIALIZED if it is not initialized yet, and then
    /// finalizes it at destruction. Throws InvalidArgument if MPI was initialized below
    /// MPI_THREAD_SERIALIZED, Error if MPI fails.
    explicit Context(Runtime& rt, MPI_Comm comm = MPI_COMM_WORLD);
    /// Waits for the transfers still under way (wait_all, an error reported on stderr), stops
    /// the progress thread, frees the communicator and finalizes MPI if this Context
    /// initialized it.
    ~Context();
    Context(Context const&) = delete;
    Context& operator=(Context const&) = delete;

    int rank() const noexcept;          ///< this process's rank in the communicator
    int size() const noexcept;          ///< the number of ranks
    Runtime& runtime() const noexcept;  ///< the runtime whose task flow the transfers join

    // ---- point to point ----
    /// Sends h's data to rank `dest` with `tag` (0 to MPI_TAG_UB), at this point of the task
    /// flow; `on_sent`, if given, runs on the progress thread once MPI has the data. The tasks
    /// submitted after it that write h wait until MPI no longer needs h's data: a contiguous
    /// handle leaves from its own memory, another from a copy. Throws InvalidArgument on a
    /// rank or tag out of range or an unregistered handle.
    template <Interface I>
    void isend(Handle<I> const& h, int dest, int tag, std::function<void()> on_sent = {})
    {
        send_state<I>(*this, rt::detail::Internals::state(h), dest, tag, std::move(on_sent));
    }

    /// Receives h's data from rank `source` with `tag`; the tasks submitted after this call
    /// that access h see it. `on_received`, if given, runs once the data is in h. The message
    /// must have h's shape (its bytes are checked). Throws InvalidArgument as isend does.
    template <Interface I>
    void irecv(Handle<I>& h, int source, int tag, std::function<void()> on_received = {})
    {
        receive_state<I>(*this, rt::detail::Internals::state(h), source, tag,
                         std::move(on_received));
    }

    // ---- owner computes (StarPU-MPI's data registration and task_insert) ----
    /// Declares that rank `owner` holds h's data, which travels with MPI tag `tag`, and places
    /// the tasks that access h from now on (see Context). Every rank registers the handle, with
    /// the same owner and tag, each over its own memory (on the other ranks it caches the
    /// owner's data). Throws InvalidArgument on an owner or tag out of range, an unregistered
    /// handle, or a handle registered twice.
    template <Interface I> void register_data(Handle<I> const& h, int owner, int tag)
    {
        register_state(rt::detail::Internals::shared_state(h), owner, tag, &send_state<I>,
                       &receive_state<I>, &release_pages_state<I>);
    }

    /// The same with a tag the Context picks (counting down from MPI_TAG_UB, so that it stays
    /// clear of small explicit tags), returned. Every rank registers the same handles in the
    /// same order, so that each handle gets the same tag on every rank.
    template <Interface I> int register_data(Handle<I> const& h, int owner)
    {
        const int tag = next_automatic_tag();
        register_data(h, owner, tag);
        return tag;
    }

    /// Owner-computes submission, StarPU-MPI's task_insert: the same as runtime().submit,
    /// which places every task that accesses a handle given to register_data (see Context).
    template <class... Params, class... Args>
    TaskRef submit(Codelet<Params...> const& cl, Args&&... args)
    {
        return runtime().submit(cl, std::forward<Args>(args)...);
    }

    /// Brings h's latest data to rank `to` (StarPU-MPI's get_data_on_node), e.g. to gather a
    /// result: its owner sends it unless `to` holds it already. Every rank calls it.
    template <Interface I> void get_data_on(Handle<I> const& h, int to)
    {
        fetch(rt::detail::Internals::state(h), to);
    }

    /// Makes rank `root`'s copy of h its current data, as if a task on root had written it:
    /// h's owner receives it, and the copies cached elsewhere are stale. Every rank calls it;
    /// root writes its copy first in a Local scope (scatter from one rank, tessera::scatter).
    template <Interface I> void set_data_from(Handle<I> const& h, int root)
    {
        adopt(rt::detail::Internals::state(h), root);
    }

    /// While one lives on a thread, the tasks that thread submits run on this rank, outside
    /// owner computes (StarPU's starpu_task_submit beside starpu_mpi_task_insert): local work
    /// on this rank's copies, such as copying a gathered matrix out of its tiles.
    class Local {
    public:
        /// Opens the scope on this thread, for `context`'s runtime.
        explicit Local(Context& context);
        /// Closes it: the thread's tasks are placed again.
        ~Local();
        Local(Local const&) = delete;
        Local& operator=(Local const&) = delete;

    private:
        std::unique_ptr<rt::detail::Unplaced> unplaced_;
    };

    /// Forgets the cached copies of h (StarPU-MPI's cache flush): the next task that reads it
    /// on another rank than its owner receives it again. Every rank calls it.
    template <Interface I> void invalidate(Handle<I> const& h)
    {
        invalidate_state(rt::detail::Internals::state(h));
    }

    /// Forgets the cached copies of h as invalidate does, and on a rank other than its owner
    /// that passes `give_back`, gives the memory of its copy back to the system (madvise
    /// MADV_DONTNEED, the whole pages inside a contiguous handle) once the tasks submitted
    /// before are done with it: the copy then reads as zeros until it is received again. For
    /// memory the application does not read on that rank, such as the other ranks' tiles of a
    /// distributed matrix (TileMatrix::reserved_for_copies), whose copies the tile algorithms
    /// give back after each panel's last update. Every rank calls it (`give_back` may differ).
    template <Interface I> void release(Handle<I> const& h, bool give_back)
    {
        release_state(rt::detail::Internals::state(h), give_back, false);
    }

    // ---- waiting, failures and LAPACK's info ----
    /// Waits for every task of the runtime and every transfer; rethrows the first error of a
    /// task (Runtime::wait_all) or of MPI. A collective: every rank calls it, as many times
    /// (the destructor calls it once more). The task flow since the last call (an epoch)
    /// succeeds or fails as a whole:
    /// - Every rank must have submitted the same tasks on registered handles, with the same
    ///   get_data_on, set_data_from, invalidate and release calls, in the same order; wait_all
    ///   compares them (a count and a hash of their handles' tags and access modes) before
    ///   waiting for any task, and throws InvalidArgument on every rank when they differ,
    ///   instead of hanging on a message that no rank sends.
    /// - When a task fails on one rank, that rank tells the others at once: their receives of
    ///   the epoch fail (the tasks that wait for them are cancelled) rather than wait for data
    ///   that may never come, and every rank's wait_all throws Error, "rank r failed: ...",
    ///   with the failing task's message (a library call that waits on its own, such as
    ///   tessera::potrf, throws it already). The next epoch starts afresh, but what the
    ///   failed tasks wrote stays failed: a task that reads it fails the same way, on every
    ///   rank, until it is written again.
    void wait_all();

    /// LAPACK's info over the ranks: the smallest positive `info` any rank passes, or 0. A
    /// factorization's info is found by the rank that owns the failing tile; every rank
    /// calls this with its own to return the same one (a collective).
    int64_t agree_on_info(int64_t info);

    /// MPI_Barrier on the communicator, made by the progress thread; waits for no task.
    void barrier();

    /// The transfers this rank asked for since the Context started.
    TransferCounts transfers() const;

private:
    /// send_state<I> or receive_state<I>: a transfer of a handle of interface I.
    using TransferFn = void (*)(Context&, rt::detail::DataState*, int, int, std::function<void()>);
    /// release_pages_state<I>: gives back the memory of a handle of interface I.
    using ReleaseFn = void (*)(Context&, rt::detail::DataState*);
    struct State;
    struct Entry;      // a handle given to register_data
    struct Transfer;   // a send or receive decided on under the lock, made after it
    struct Placement;  // the owner computes, installed on the runtime
    template <Interface I>
    static void send_state(Context& c, rt::detail::DataState* s, int dest, int tag,
                           std::function<void()> on_sent)
    {
        detail::Message* m = c.start_send(s, dest, tag, std::move(on_sent));
        c.submit_or_cancel(m, [&] {
            if (TagId hold = c.hold_task_tag(m))  // first, and released if the pack fails
                c.runtime().submit(detail::hold_codelet<I>, Access<I, Mode::R>{s}, rt::tag(hold),
                                   priority(detail::transfer_priority));
            c.runtime().submit(detail::pack_codelet<I>, Access<I, Mode::R>{s}, value(m),
                               priority(detail::transfer_priority));
        });
    }
    template <Interface I>
    static void receive_state(Context& c, rt::detail::DataState* s, int source, int tag,
                              std::function<void()> on_received)
    {
        detail::Message* m = c.start_receive(s, source, tag);
        c.submit_or_cancel(m, [&] {
            if (c.lands_in_place(m))  // first: the unpack task follows it on the handle
                c.runtime().submit(detail::claim_codelet<I>, Access<I, Mode::W>{s}, value(m),
                                   priority(detail::transfer_priority));
            c.runtime().submit(detail::unpack_codelet<I>, Access<I, Mode::W>{s}, value(m),
                               rt::tag(c.receive_task_tag(m)), callback(std::move(on_received)),
                               priority(detail::transfer_priority));
        });
    }

    template <Interface I> static void release_pages_state(Context& c, rt::detail::DataState* s)
    {
        const Local here{c};  // runs on this rank, as the transfers do
        c.runtime().submit(detail::release_codelet<I>, Access<I, Mode::W>{s});
    }

    detail::Message* start_send(rt::detail::DataState* s, int dest, int tag,
                                std::function<void()> on_sent);
    detail::Message* start_receive(rt::detail::DataState* s, int source, int tag);
    TagId receive_task_tag(detail::Message* m) const noexcept;
    /// The tag of send m's hold task, 0 if m is copied (see Message).
    TagId hold_task_tag(detail::Message* m) const noexcept;
    /// Whether receive m may land in its handle's memory, after a claim task (see Message).
    bool lands_in_place(detail::Message* m) const noexcept;
    /// Runs `submit` (the pack or unpack task); if it throws, the message is withdrawn.
    void submit_or_cancel(detail::Message* m, std::function<void()> const& submit);
    void register_state(std::shared_ptr<rt::detail::DataState> const& s, int owner, int tag,
                        TransferFn send, TransferFn receive, ReleaseFn release);
    /// The owner computes of one task (Placement::runs_here): this rank's transfers, the
    /// versions the task writes; true if this rank runs it.
    bool place(std::span<rt::detail::BufferSlot const> buffers);
    /// After the task place() kept is submitted: the runner sends back what it wrote of other
    /// ranks' handles.
    void after_submission();
    /// The runner's transfers that follow the task place() kept on this thread.
    static thread_local std::vector<Transfer> writes_back_;
    void fetch(rt::detail::DataState* s, int to);
    void adopt(rt::detail::DataState* s, int root);
    /// Under the lock: the entry of the registered handle of `s` that a collective call makes
    /// on rank `rank` (checked), counted in the flow every rank must submit alike.
    Entry& flow_entry(rt::detail::DataState const* s, char const* call, int rank);
    int next_automatic_tag();
    void invalidate_state(rt::detail::DataState* s);
    /// Under the lock: the entry of `s`, counted in the flow as `call`, with no copy cached
    /// anywhere (invalidate and release).
    Entry& forget_copies(rt::detail::DataState const* s, char const* call);
    /// release(), and the tile algorithms' release_copy (`reclaim`: this rank's copy may be
    /// given back; `registered_only`: an unregistered handle is no error, but nothing).
    void release_state(rt::detail::DataState* s, bool reclaim, bool registered_only);
    /// Under the lock: what this rank sends or receives so that rank `to` holds the current
    /// version of the handle of entry `e`.
    void transfers_for(Entry& e, rt::detail::DataState* s, int to, std::vector<Transfer>& out);
    /// Under the lock: the new version of entry e's handle was written on rank `writer`, not
    /// its owner; the writer holds it and sends it to the owner (into `sends`), which receives
    /// it (into `receives`), in the flow's order.
    void back_to_owner(Entry& e, rt::detail::DataState* s, int writer, std::vector<Transfer>& sends,
                       std::vector<Transfer>& receives);

    std::unique_ptr<State> state_;
};

}  // namespace tessera::rt::mpi
