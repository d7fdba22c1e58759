// The progress thread of an rt::mpi::Context: the one thread that calls MPI while the Context
// lives (MPI_THREAD_SERIALIZED). It posts receives as they are asked for, posts the sends of
// each (destination, tag) in the order of their isend calls as soon as the first is packed
// (MPI keeps that order on the wire), tests the requests in flight, and completes them:
// a receive notifies its runtime tag, which releases its unpack task; a send runs its
// callback. It sleeps while nothing is in flight, and while something is, it tests it after
// pauses of 10 µs doubling up to 200 µs, so that it never holds a core a worker needs; new
// work wakes it at once. Internal to libtessera_mpi.
#pragma once

#include "runtime/mpi/message.hpp"

#include <tessera/rt/runtime.hpp>

#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace tessera::rt::mpi::detail {

class ProgressEngine {
public:
    ProgressEngine(Runtime& rt, MPI_Comm comm);
    /// Stops the thread once nothing is in flight.
    ~ProgressEngine();
    ProgressEngine(ProgressEngine const&) = delete;
    ProgressEngine& operator=(ProgressEngine const&) = delete;

    /// Places send m last in its (destination, tag) queue: it leaves after those before it.
    void enqueue_send(Message* m);
    /// Takes back send m, not yet packed (its pack task could not be submitted).
    void withdraw_send(Message* m);
    /// m's buffer holds the data: it may leave once those before it in its queue have.
    void packed(Message* m);
    /// Posts receive m.
    void post_receive(Message* m);
    /// MPI_Ibarrier through the thread, and waits for it.
    void barrier();
    /// Waits until every send asked for has left (MPI completed it).
    void wait_for_sends();
    /// The first MPI error of a send or a collective since the last call (null: none).
    std::exception_ptr take_error();

private:
    void run();
    /// Under the lock: the sends at the heads of their queues that are packed, and the
    /// receives and collectives asked for; emptied from the queues.
    std::vector<Message*> take_posts_locked();
    bool has_posts_locked() const;
    void post(Message* m);
    void complete(Message* m, int mpi_status, MPI_Status const& status);
    void fail(Message* m, std::string why);

    Runtime& rt_;
    MPI_Comm comm_;
    std::mutex m_;
    std::condition_variable work_cv_;  // the thread: something to post, or stop
    std::condition_variable done_cv_;  // wait_for_sends, barrier
    std::map<std::pair<int, int>, std::deque<Message*>> sends_;  // by (destination, tag)
    std::vector<Message*> receives_, collectives_;               // to post
    std::vector<Message*> in_flight_;                            // the thread's own
    int sends_pending_ = 0;                                      // asked for and not yet completed
    std::exception_ptr error_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace tessera::rt::mpi::detail
