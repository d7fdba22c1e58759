// The progress thread of an rt::mpi::Context: the one thread that calls MPI while the Context
// lives (MPI_THREAD_SERIALIZED). It posts the sends of each (destination, tag) in the order
// of their isend calls as soon as the first is packed (MPI keeps that order on the wire);
// it receives a message once MPI_Improbe finds it arrived, for the first receive asked for of
// its (source, tag), into a buffer allocated then (a flow submitted at once asks for all its
// receives at the start: buffers allocated then would hold every message of the flow), or
// into its handle's own memory if the receive's claim task has run by then (in place); it
// tests the requests in flight, and completes them: a receive notifies its runtime tag, which
// releases its unpack task; a send runs its callback. It sleeps while nothing is in flight, and while something is, it tests it after
// pauses: 1 ms while every worker computes (it would take a core from one), or until a worker
// falls asleep; 10 µs doubling up to 200 µs while a worker is idle. New work wakes it at once.
//
// Failures. The task flow between two Context::wait_all calls (an epoch) fails as a whole: a
// rank whose task fails sends a notice to every other rank on a control communicator, and
// each rank that learns of a failure aborts the epoch: its receives fail (their unpack tasks
// throw, which cancels what waits for them) instead of waiting for data that may never be
// sent, its sends not yet matched are abandoned, and its later transfers of the epoch are not
// made. After an aborted epoch the data communicator is renewed (a collective), so that no
// message of it can match a receive of the next. Internal to libtessera_mpi.
#pragma once

#include "runtime/core/parking.hpp"
#include "runtime/mpi/message.hpp"

#include <tessera/rt/runtime.hpp>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace tessera::rt::mpi::detail {

class ProgressEngine {
public:
    /// Works on two duplicates of `comm` (data and control), freed at destruction.
    ProgressEngine(Runtime& rt, MPI_Comm comm);
    /// Stops the thread once nothing is in flight, and frees the communicators.
    ~ProgressEngine();
    ProgressEngine(ProgressEngine const&) = delete;
    ProgressEngine& operator=(ProgressEngine const&) = delete;

    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }

    /// Places send m last in its (destination, tag) queue: it leaves after those before it.
    /// In an aborted epoch it is not made (done at once).
    void enqueue_send(Message* m);
    /// Takes back send m, not yet packed (its pack task could not be submitted).
    void withdraw_send(Message* m);
    /// m's buffer holds the data: it may leave once those before it in its queue have.
    void packed(Message* m);
    /// Posts receive m.
    void post_receive(Message* m);
    /// MPI_Ibarrier through the thread, and waits for it.
    void barrier();
    /// The element-wise maximum of `values` over the ranks (every rank calls it, with as many).
    std::vector<uint64_t> max_over_ranks(std::vector<uint64_t> values);
    /// Waits until every send asked for has left (MPI completed it), or was abandoned.
    void wait_for_sends();
    /// The first MPI error of a send or a collective since the last call (null: none).
    std::exception_ptr take_error();

    // ---- failures (see the file's comment) ----
    /// A task of this rank failed with `what`: unless the epoch is aborted already, tells every
    /// other rank and aborts it.
    void failed_here(std::string const& what);
    /// Aborts the epoch for `why` (the first reason is kept): see the file's comment.
    void abort(std::string const& why);
    /// Whether this rank's own failure aborted the epoch (failed_here).
    bool epoch_failed_here() const;
    /// Waits for the notice of rank r's failure in this epoch, and returns its text.
    std::string failure_of(int r);
    /// Ends the epoch: renews the data communicator if `aborted` (every rank calls it, with
    /// the same value), and starts the next, aborted at once if a rank failed in it already.
    void end_epoch(bool aborted);

private:
    /// Has the thread make collective m, and waits for it; throws its error, for `call`.
    void run_collective(Message& m, char const* call);
    void run();
    /// Under the lock: the sends at the heads of their queues that are packed, and the
    /// receives and collectives asked for; emptied from the queues.
    std::vector<Message*> take_posts_locked();
    bool has_posts_locked() const;
    /// Under the lock: the epoch is aborted; the queued sends are dropped, and returned.
    std::vector<Message*> drop_queued_sends_locked();
    /// Without the lock: these sends are over; those in place give their handles back (their
    /// hold tasks run).
    void release_data(std::span<Message* const> sends);
    /// Posts m to MPI; in an aborted epoch (`aborted`: its reason, else empty) a send is
    /// dropped and a receive failed instead.
    void post(Message* m, std::string const& aborted);
    void complete(Message* m, int mpi_status, MPI_Status const& status);
    void fail(Message* m, std::string why);
    /// The thread: fails the receives whose messages have not arrived, cancels those in flight
    /// and abandons the sends (once per epoch), for `why`.
    void abort_in_flight(std::string const& why);
    /// The thread: probes the data communicator for the messages that arrived, and receives
    /// each, into a buffer of its size, for the first receive asked for of its (source, tag); in
    /// an aborted epoch (`aborted`), receives them to drop them.
    void match_arrivals(bool aborted);
    struct Arrival;
    /// The thread: receives the message of arrival a for m, into the handle's memory if m is in
    /// place and claimed, else into m's buffer.
    void receive(Message* m, Arrival const& a);
    /// The thread: receives the message of arrival a to drop it (an aborted epoch's).
    void drop(Arrival const& a);
    /// The thread: a failure notice of `bytes` arrived; the receive is posted again.
    void notice_arrived(int source, int tag, std::size_t bytes);
    void post_notice_receive();
    /// The control tag of epoch e.
    int notice_tag(uint64_t e) const noexcept { return int(e % (uint64_t(tag_ub_) + 1)); }

    Runtime& rt_;
    rt::detail::Parking& parking_;      // the runtime's idle workers
    bool worker_fell_asleep_ = false;   // under m_: since the thread began its pause
    MPI_Comm comm_ = MPI_COMM_NULL;     // the data: transfers and collectives
    MPI_Comm control_ = MPI_COMM_NULL;  // the failure notices
    int rank_ = 0, size_ = 1, tag_ub_ = 32767;
    mutable std::mutex m_;
    std::condition_variable work_cv_;  // the thread: something to post, or stop
    std::condition_variable done_cv_;  // wait_for_sends, collectives, failure_of
    std::map<std::pair<int, int>, std::deque<Message*>> sends_;  // by (destination, tag)
    std::vector<Message*> receives_, collectives_;               // to post
    std::vector<Message*> in_flight_;                            // the thread's own
    // The thread's own: the receives asked for whose messages have not arrived, and the
    // messages that arrived (matched by MPI_Improbe) before their receive was asked for, by
    // (source, tag); the messages of an aborted epoch, received to be dropped.
    struct Arrival {
        MPI_Message message;
        int bytes;
    };
    std::map<std::pair<int, int>, std::deque<Message*>> expected_;
    std::size_t expected_count_ = 0;
    std::map<std::pair<int, int>, std::deque<Arrival>> early_;
    std::deque<std::unique_ptr<Message>> orphans_;
    // The thread's: comm_ carries an aborted epoch's messages, dropped as they arrive. Set when
    // the thread aborts the epoch, cleared when it renews comm_: a message that arrives on the
    // renewed communicator is the next epoch's, even before the epoch's state is reset.
    bool comm_aborted_ = false;
    int sends_pending_ = 0;  // asked for and not yet completed (nor abandoned)
    std::exception_ptr error_;
    bool stop_ = false;

    // failures, under m_
    uint64_t epoch_ = 0;
    bool aborted_ = false;        // this epoch is aborted
    bool abort_handled_ = false;  // the thread has cancelled what was in flight
    bool failed_here_ = false;    // by a task of this rank
    std::string abort_reason_;    // what the failed receives say
    std::map<uint64_t, std::map<int, std::string>> notices_;  // epoch -> rank -> its failure
    std::deque<std::unique_ptr<Message>> notices_out_;        // the notices this rank sent
    std::unique_ptr<Message> notice_in_;                      // the posted notice receive
    std::vector<Bytes> abandoned_;  // buffers of abandoned sends: MPI may read
                                    // them until the communicator is freed
    std::thread thread_;
};

}  // namespace tessera::rt::mpi::detail
