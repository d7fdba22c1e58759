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

#include <mpi.h>

#include <functional>
#include <memory>

namespace tessera::rt::mpi {

namespace detail {
struct Message;  // one transfer: its staging buffer and completion (runtime/mpi/message.hpp)
/// Copies `data` (laid out as `l`) into m's buffer and lets it leave (the pack task's kernel).
void pack(Message* m, void const* data, Layout const& l);
/// Copies m's buffer into `data` (the unpack task's kernel); throws the message's MPI error.
void unpack(Message* m, void* data, Layout const& l);

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
}  // namespace detail

/// One runtime's view of an MPI communicator: its rank, the transfers of handles between
/// ranks, and the progress thread that makes the MPI calls. One Context per runtime.
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

    /// Sends h's data to rank `dest` with `tag` (0 to MPI_TAG_UB), at this point of the task
    /// flow; `on_sent`, if given, runs on the progress thread once MPI has the data. Throws
    /// InvalidArgument on a rank or tag out of range or an unregistered handle.
    template <Interface I>
    void isend(Handle<I> const& h, int dest, int tag, std::function<void()> on_sent = {})
    {
        detail::Message* m = start_send(dest, tag, std::move(on_sent), h.registered());
        submit_or_cancel(m, [&] { runtime().submit(detail::pack_codelet<I>, read(h), value(m)); });
    }

    /// Receives h's data from rank `source` with `tag`; the tasks submitted after this call
    /// that access h see it. `on_received`, if given, runs once the data is in h. The message
    /// must have h's shape (its bytes are checked). Throws InvalidArgument as isend does.
    template <Interface I>
    void irecv(Handle<I>& h, int source, int tag, std::function<void()> on_received = {})
    {
        const bool registered = h.registered();
        detail::Message* m =
            start_receive(source, tag, registered, registered ? layout_of(h.view()) : Layout{});
        submit_or_cancel(m, [&] {
            runtime().submit(detail::unpack_codelet<I>, write(h), value(m),
                             rt::tag(receive_task_tag(m)), callback(std::move(on_received)));
        });
    }

    /// Waits for every task of the runtime and every transfer; rethrows the first error of a
    /// task (Runtime::wait_all) or of MPI.
    void wait_all();

    /// MPI_Barrier on the communicator, made by the progress thread; waits for no task.
    void barrier();

private:
    detail::Message* start_send(int dest, int tag, std::function<void()> on_sent, bool registered);
    detail::Message* start_receive(int source, int tag, bool registered, Layout const& layout);
    TagId receive_task_tag(detail::Message* m) const noexcept;
    /// Runs `submit` (the pack or unpack task); if it throws, the message is withdrawn.
    void submit_or_cancel(detail::Message* m, std::function<void()> const& submit);

    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace tessera::rt::mpi
