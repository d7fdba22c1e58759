#include "runtime/mpi/progress_engine.hpp"

#include "runtime/core/runtime_impl.hpp"
#include "runtime/mpi/mpi_error.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

namespace tessera::rt::mpi::detail {

namespace {

void check(int rc, char const* call)
{
    if (rc != MPI_SUCCESS)
        throw Error(std::string("mpi::Context: ") + call + " failed: " + mpi_error_text(rc));
}

/// The longest failure text a notice carries.
constexpr std::size_t notice_bytes = 1024;

}  // namespace

ProgressEngine::ProgressEngine(Runtime& rt, MPI_Comm comm)
    : rt_(rt), parking_(rt::detail::Internals::impl(rt).parking())
{
    check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
    if (int rc = MPI_Comm_dup(comm, &control_); rc != MPI_SUCCESS) {
        MPI_Comm_free(&comm_);
        check(rc, "MPI_Comm_dup");
    }
    for (MPI_Comm c : {comm_, control_}) MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    int* ub = nullptr;
    int found = 0;
    MPI_Comm_get_attr(comm_, MPI_TAG_UB, &ub, &found);
    if (found && ub) tag_ub_ = *ub;
    post_notice_receive();  // before the thread starts: this thread's last MPI call for now
    thread_ = std::thread([this] { run(); });
    parking_.set_sleep_listener([this] {
        {
            std::lock_guard lock(m_);
            worker_fell_asleep_ = true;
        }
        work_cv_.notify_one();
    });
}

ProgressEngine::~ProgressEngine()
{
    parking_.set_sleep_listener(nullptr);
    {
        std::lock_guard lock(m_);
        stop_ = true;
    }
    work_cv_.notify_one();
    thread_.join();
    // the thread is gone: these calls are this thread's alone
    MPI_Cancel(&notice_in_->request);
    MPI_Wait(&notice_in_->request, MPI_STATUS_IGNORE);
    MPI_Comm_free(&control_);
    MPI_Comm_free(&comm_);
}

void ProgressEngine::enqueue_send(Message* m)
{
    {
        std::lock_guard lock(m_);
        if (!aborted_) {
            sends_[{m->peer, m->tag}].push_back(m);
            ++sends_pending_;
            return;
        }
        // Not made: its receiver does not wait for it any more, and its pack task may never
        // run (cancelled, its data failed), so that its hold task would wait for ever.
        m->done = true;
    }
    release_data({&m, 1});
}

void ProgressEngine::withdraw_send(Message* m)
{
    std::lock_guard lock(m_);
    auto& queue = sends_[{m->peer, m->tag}];
    if (auto it = std::find(queue.begin(), queue.end(), m); it != queue.end()) {
        queue.erase(it);  // else an abort dropped it already
        --sends_pending_;
    }
    done_cv_.notify_all();
}

void ProgressEngine::packed(Message* m)
{
    {
        std::lock_guard lock(m_);
        m->packed = true;
    }
    work_cv_.notify_one();
}

void ProgressEngine::post_receive(Message* m)
{
    {
        std::lock_guard lock(m_);
        receives_.push_back(m);
    }
    work_cv_.notify_one();
}

void ProgressEngine::run_collective(Message& m, char const* call)
{
    {
        std::lock_guard lock(m_);
        collectives_.push_back(&m);
    }
    work_cv_.notify_one();
    {
        std::unique_lock lock(m_);
        done_cv_.wait(lock, [&] { return m.done.load(); });
    }
    if (!m.error.empty()) throw Error(std::string("mpi::Context::") + call + ": " + m.error);
}

void ProgressEngine::barrier()
{
    Message m;
    m.kind = Message::Kind::barrier;
    run_collective(m, "barrier");
}

std::vector<uint64_t> ProgressEngine::max_over_ranks(std::vector<uint64_t> values)
{
    Message m;
    m.kind = Message::Kind::reduce_max;
    m.buffer.resize(values.size() * sizeof(uint64_t));
    std::memcpy(m.buffer.data(), values.data(), m.buffer.size());
    run_collective(m, "wait_all");
    std::memcpy(values.data(), m.buffer.data(), m.buffer.size());
    return values;
}

void ProgressEngine::wait_for_sends()
{
    std::unique_lock lock(m_);
    if (aborted_) {  // their pack tasks are done or cancelled
        std::vector<Message*> dropped = drop_queued_sends_locked();
        lock.unlock();
        release_data(dropped);
        lock.lock();
    }
    done_cv_.wait(lock, [&] { return sends_pending_ == 0; });
}

std::exception_ptr ProgressEngine::take_error()
{
    std::lock_guard lock(m_);
    return std::exchange(error_, nullptr);
}

// ---- failures ----------------------------------------------------------------------------------

void ProgressEngine::failed_here(std::string const& what)
{
    {
        std::lock_guard lock(m_);
        if (aborted_) return;  // a consequence of the abort, or told already
        aborted_ = true;
        failed_here_ = true;
        abort_reason_ = "rank " + std::to_string(rank_) + " failed: " + what;
        notices_[epoch_][rank_] = what;
        for (int r = 0; r < size_; ++r) {
            if (r == rank_) continue;
            auto notice = std::make_unique<Message>();
            notice->kind = Message::Kind::notice_send;
            notice->peer = r;
            notice->tag = notice_tag(epoch_);
            const std::size_t bytes = std::min(what.size(), notice_bytes);
            notice->buffer.resize(bytes);
            std::memcpy(notice->buffer.data(), what.data(), bytes);
            collectives_.push_back(notice.get());
            notices_out_.push_back(std::move(notice));
        }
    }
    work_cv_.notify_one();
}

void ProgressEngine::abort(std::string const& why)
{
    {
        std::lock_guard lock(m_);
        if (aborted_) return;
        aborted_ = true;
        abort_reason_ = why;
    }
    work_cv_.notify_one();
}

bool ProgressEngine::epoch_failed_here() const
{
    std::lock_guard lock(m_);
    return failed_here_;
}

std::string ProgressEngine::failure_of(int r)
{
    std::unique_lock lock(m_);
    done_cv_.wait(lock, [&] { return notices_[epoch_].contains(r); });
    return notices_[epoch_][r];
}

void ProgressEngine::end_epoch(bool aborted)
{
    if (aborted) {  // a new data communicator: no message of this epoch can match the next's
        Message m;
        m.kind = Message::Kind::renew;
        run_collective(m, "wait_all");
    }
    std::lock_guard lock(m_);
    notices_.erase(epoch_);
    ++epoch_;
    aborted_ = abort_handled_ = failed_here_ = false;
    abort_reason_.clear();
    std::erase_if(notices_out_, [](auto const& n) { return n->done.load(); });
    if (auto it = notices_.find(epoch_); it != notices_.end() && !it->second.empty()) {
        auto const& [r, what] = *it->second.begin();  // a rank failed in it already
        aborted_ = true;
        abort_reason_ = "rank " + std::to_string(r) + " failed: " + what;
    }
}

std::vector<Message*> ProgressEngine::drop_queued_sends_locked()
{
    std::vector<Message*> dropped;
    for (auto& [key, queue] : sends_) {
        for (Message* m : queue) {
            m->done = true;
            --sends_pending_;
            dropped.push_back(m);
        }
        queue.clear();
    }
    done_cv_.notify_all();
    return dropped;
}

void ProgressEngine::release_data(std::span<Message* const> sends)
{
    for (Message* m : sends)
        if (m->in_place) rt_.notify_tag(m->sent);
}

void ProgressEngine::match_arrivals(bool aborted)
{
    for (;;) {  // for each (source, tag), in the order MPI keeps
        int arrived = 0;
        MPI_Message message = MPI_MESSAGE_NULL;
        MPI_Status status;
        if (MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &arrived, &message, &status) !=
                MPI_SUCCESS ||
            !arrived)
            break;
        int bytes = 0;
        MPI_Get_count(&status, MPI_BYTE, &bytes);
        early_[{status.MPI_SOURCE, status.MPI_TAG}].push_back({message, std::max(0, bytes)});
    }
    for (auto it = early_.begin(); it != early_.end();) {
        auto& arrivals = it->second;
        auto waiting = expected_.find(it->first);
        while (!arrivals.empty()) {
            if (aborted) {  // a message of the aborted epoch: received, and dropped
                drop(arrivals.front());
            } else if (waiting != expected_.end() && !waiting->second.empty()) {
                receive(waiting->second.front(), arrivals.front());
                waiting->second.pop_front();
                --expected_count_;
            } else {
                break;  // its receive is not asked for yet
            }
            arrivals.pop_front();
        }
        it = arrivals.empty() ? early_.erase(it) : std::next(it);
    }
    std::erase_if(orphans_, [](auto const& o) { return o->done.load(); });
}

void ProgressEngine::receive(Message* m, Arrival const& a)
{
    // In place once claimed. Not before: its sender's handle stays held until it is received,
    // and an aborted epoch could leave it held (or given back, and written, while MPI reads
    // it). A message of another size than the handle's goes to the buffer, for complete().
    void* to = nullptr;
    if (m->in_place && std::size_t(a.bytes) == m->expected_bytes) to = m->landing.load();
    m->landed = to != nullptr;
    if (!to) {
        m->buffer.resize(std::size_t(a.bytes));  // allocated now, not when it was asked for
        to = m->buffer.data();
    }
    MPI_Message message = a.message;
    if (int rc = MPI_Imrecv(to, a.bytes, MPI_BYTE, &message, &m->request); rc != MPI_SUCCESS)
        fail(m, mpi_error_text(rc));
    else
        in_flight_.push_back(m);
}

void ProgressEngine::drop(Arrival const& a)
{
    orphans_.push_back(std::make_unique<Message>());
    Message* m = orphans_.back().get();
    m->kind = Message::Kind::receive;
    m->orphan = true;
    receive(m, a);
}

void ProgressEngine::abort_in_flight(std::string const& why)
{
    for (auto& [key, waiting] : expected_)  // their messages may never be sent
        for (Message* m : waiting) fail(m, why);
    expected_.clear();
    expected_count_ = 0;
    std::vector<Message*> abandoned;
    for (Message* m : in_flight_) {
        if (m->kind == Message::Kind::receive) {
            MPI_Cancel(&m->request);  // completes, cancelled or not; complete() fails it
        } else if (m->kind == Message::Kind::send) {
            MPI_Request_free(&m->request);  // its receiver may have cancelled its receive
            abandoned.push_back(m);
        }
    }
    std::erase_if(in_flight_, [&](Message* m) {
        return std::find(abandoned.begin(), abandoned.end(), m) != abandoned.end();
    });
    {
        std::lock_guard lock(m_);
        for (Message* m : abandoned) {
            abandoned_.push_back(std::move(m->buffer));  // the same memory, which MPI may read
            m->done = true;
            --sends_pending_;
        }
    }
    // An abandoned send in place gives its handle back to the task flow: MPI reads it only if
    // the receiver matched the send before cancelling, and then finishes at once.
    release_data(abandoned);
    done_cv_.notify_all();
}

void ProgressEngine::post_notice_receive()
{
    notice_in_ = std::make_unique<Message>();
    notice_in_->kind = Message::Kind::notice_receive;
    notice_in_->buffer.resize(notice_bytes);
    MPI_Irecv(notice_in_->buffer.data(), int(notice_bytes), MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
              control_, &notice_in_->request);
}

void ProgressEngine::notice_arrived(int source, int tag, std::size_t bytes)
{
    const std::string what(reinterpret_cast<char const*>(notice_in_->buffer.data()), bytes);
    {
        std::lock_guard lock(m_);
        if (tag == notice_tag(epoch_)) {
            notices_[epoch_][source] = what;
            if (!aborted_) {
                aborted_ = true;
                abort_reason_ = "rank " + std::to_string(source) + " failed: " + what;
            }
        } else if (tag == notice_tag(epoch_ + 1)) {  // it finished this epoch and failed after
            notices_[epoch_ + 1][source] = what;
        }  // else a notice of an epoch that is over
    }
    done_cv_.notify_all();
    post_notice_receive();
}

// ---- the thread --------------------------------------------------------------------------------

bool ProgressEngine::has_posts_locked() const
{
    if (!receives_.empty() || !collectives_.empty() || (aborted_ && !abort_handled_)) return true;
    for (auto const& [key, queue] : sends_)
        if (!queue.empty() && queue.front()->packed) return true;
    return false;
}

std::vector<Message*> ProgressEngine::take_posts_locked()
{
    std::vector<Message*> posts = std::move(receives_);
    receives_.clear();
    posts.insert(posts.end(), collectives_.begin(), collectives_.end());
    collectives_.clear();
    for (auto& [key, queue] : sends_)
        while (!queue.empty() && queue.front()->packed) {  // in order: MPI keeps it
            posts.push_back(queue.front());
            queue.pop_front();
        }
    return posts;
}

void ProgressEngine::post(Message* m, std::string const& aborted)
{
    int rc = MPI_SUCCESS;
    switch (m->kind) {
    case Message::Kind::send:
        if (!aborted.empty()) {  // not made: its receiver does not wait for it any more
            release_data({&m, 1});
            {
                std::lock_guard lock(m_);
                m->done = true;
                --sends_pending_;
            }
            done_cv_.notify_all();
            return;
        }
        if (m->data)
            rc = MPI_Isend(m->data, int(m->bytes), MPI_BYTE, m->peer, m->tag, comm_, &m->request);
        else
            rc = MPI_Isend(m->buffer.data(), int(m->buffer.size()), MPI_BYTE, m->peer, m->tag,
                           comm_, &m->request);
        break;
    case Message::Kind::receive:
        if (!aborted.empty()) return fail(m, aborted);
        expected_[{m->peer, m->tag}].push_back(m);  // received once its message arrives
        ++expected_count_;
        return;
    case Message::Kind::barrier:
        rc = MPI_Ibarrier(comm_, &m->request);
        break;
    case Message::Kind::reduce_max:
        rc = MPI_Iallreduce(MPI_IN_PLACE, m->buffer.data(), int(m->buffer.size() / 8), MPI_UINT64_T,
                            MPI_MAX, comm_, &m->request);
        break;
    case Message::Kind::renew: {
        MPI_Comm fresh = MPI_COMM_NULL;
        rc = MPI_Comm_dup(comm_, &fresh);
        if (rc == MPI_SUCCESS) {
            MPI_Comm_free(&comm_);  // what was abandoned on it may go on: its buffers stay
            comm_ = fresh;
            comm_aborted_ = false;  // its messages are the next epoch's
            MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
            {
                std::lock_guard lock(m_);
                m->done = true;
            }
            done_cv_.notify_all();
            return;
        }
        break;
    }
    case Message::Kind::notice_send:
        rc = MPI_Isend(m->buffer.data(), int(m->buffer.size()), MPI_BYTE, m->peer, m->tag, control_,
                       &m->request);
        break;
    case Message::Kind::notice_receive:
        break;  // posted by post_notice_receive
    }
    if (rc != MPI_SUCCESS)
        fail(m, mpi_error_text(rc));
    else
        in_flight_.push_back(m);
}

void ProgressEngine::run()
{
    using namespace std::chrono_literals;
    std::vector<MPI_Request> requests;
    std::vector<int> indices;
    std::vector<MPI_Status> statuses;
    // Between tests of requests that have not completed, a pause. While every worker computes,
    // this thread takes a core from one of them each time it wakes (a rank often has one core
    // per worker), so it waits `busy` then, or until a worker falls asleep: then a core is
    // free and what the worker lacks may be a message. While a worker is idle, the pause
    // doubles from 10 µs up to 200 µs: a short one keeps latency low right after activity.
    // New work ends any pause at once. With nothing in flight, the thread looks for a failure
    // notice every 2 ms.
    constexpr auto shortest = 10us, longest = 200us, busy = 1000us, idle = 2000us;
    auto pause = shortest;
    for (;;) {
        std::vector<Message*> posts, dropped;
        bool abort_now = false;
        std::string aborted;  // the epoch's abort reason, if it is aborted
        {
            std::unique_lock lock(m_);
            if (in_flight_.empty() && expected_count_ == 0)
                work_cv_.wait_for(lock, idle, [&] { return stop_ || has_posts_locked(); });
            if (stop_ && in_flight_.empty() && !has_posts_locked()) return;
            if (aborted_ && !abort_handled_) {
                abort_handled_ = abort_now = true;
                dropped = drop_queued_sends_locked();
            }
            posts = take_posts_locked();
            if (aborted_) aborted = abort_reason_;
        }
        release_data(dropped);
        if (abort_now) {
            comm_aborted_ = true;
            abort_in_flight(aborted);
        }
        for (Message* m : posts) post(m, aborted);
        int arrived = 0;
        MPI_Status notice_status;
        if (MPI_Test(&notice_in_->request, &arrived, &notice_status) == MPI_SUCCESS && arrived) {
            int bytes = 0;
            MPI_Get_count(&notice_status, MPI_BYTE, &bytes);
            notice_arrived(notice_status.MPI_SOURCE, notice_status.MPI_TAG,
                           std::size_t(std::max(0, bytes)));
            continue;
        }
        match_arrivals(comm_aborted_);
        if (in_flight_.empty() && expected_count_ == 0) continue;
        requests.resize(in_flight_.size());
        for (std::size_t i = 0; i < in_flight_.size(); ++i) requests[i] = in_flight_[i]->request;
        indices.resize(requests.size());
        statuses.resize(requests.size());
        int count = 0;
        const int rc = requests.empty() ? MPI_SUCCESS
                                        : MPI_Testsome(int(requests.size()), requests.data(),
                                                       &count, indices.data(), statuses.data());
        if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {  // nothing can be trusted: fail all
            for (Message* m : in_flight_) fail(m, mpi_error_text(rc));
            in_flight_.clear();
            continue;
        }
        if (count == 0 || count == MPI_UNDEFINED) {
            std::unique_lock lock(m_);
            if (parking_.any_idle()) {
                work_cv_.wait_for(lock, pause, [&] { return stop_ || has_posts_locked(); });
                pause = std::min(2 * pause, std::chrono::duration_cast<decltype(pause)>(longest));
            } else {
                worker_fell_asleep_ = false;
                work_cv_.wait_for(
                    lock, busy, [&] { return stop_ || has_posts_locked() || worker_fell_asleep_; });
                pause = shortest;
            }
            continue;
        }
        pause = shortest;
        std::vector<Message*> completed;
        for (int i = 0; i < count; ++i) {
            Message* m = in_flight_[std::size_t(indices[std::size_t(i)])];
            m->request = requests[std::size_t(indices[std::size_t(i)])];
            completed.push_back(m);
            complete(m, rc == MPI_ERR_IN_STATUS ? statuses[std::size_t(i)].MPI_ERROR : MPI_SUCCESS,
                     statuses[std::size_t(i)]);
        }
        std::erase_if(in_flight_, [&](Message* m) {
            return std::find(completed.begin(), completed.end(), m) != completed.end();
        });
    }
}

void ProgressEngine::complete(Message* m, int mpi_status, MPI_Status const& status)
{
    if (m->orphan) {
        m->buffer = {};
        m->done = true;
        return;
    }
    if (m->kind == Message::Kind::receive) {
        {
            std::unique_lock lock(m_);
            if (aborted_) {  // cancelled, or arrived in an epoch that failed as a whole
                std::string why = abort_reason_;
                lock.unlock();
                return fail(m, why);
            }
        }
        if (mpi_status != MPI_SUCCESS) return fail(m, mpi_error_text(mpi_status));
        int bytes = 0;
        MPI_Get_count(&status, MPI_BYTE, &bytes);
        if (std::size_t(bytes) != m->expected_bytes)
            return fail(m, "the message from rank " + std::to_string(m->peer) + " with tag " +
                               std::to_string(m->tag) + " has " + std::to_string(bytes) +
                               " bytes, the receiving handle " + std::to_string(m->expected_bytes));
        m->done = true;
        rt_.notify_tag(m->arrived);
        return;
    }
    if (mpi_status != MPI_SUCCESS) return fail(m, mpi_error_text(mpi_status));
    if (m->kind == Message::Kind::send) {
        m->buffer = {};  // MPI has the data: the memory goes back now
        release_data({&m, 1});
        if (m->on_sent) {
            try {
                m->on_sent();
            } catch (...) {
                std::lock_guard lock(m_);
                if (!error_) error_ = std::current_exception();
            }
        }
    }
    {
        std::lock_guard lock(m_);
        m->done = true;
        if (m->kind == Message::Kind::send) --sends_pending_;
    }
    done_cv_.notify_all();
}

void ProgressEngine::fail(Message* m, std::string why)
{
    if (m->orphan) {
        m->done = true;
        return;
    }
    switch (m->kind) {
    case Message::Kind::send:
        m->error =
            "send to rank " + std::to_string(m->peer) + " with tag " + std::to_string(m->tag);
        break;
    case Message::Kind::receive:
        m->error =
            "receive from rank " + std::to_string(m->peer) + " with tag " + std::to_string(m->tag);
        break;
    case Message::Kind::notice_send:
        m->error = "failure notice to rank " + std::to_string(m->peer);
        break;
    default:
        m->error = "collective";
        break;
    }
    m->error += ": " + why;
    if (m->kind == Message::Kind::receive) {  // its unpack task rethrows it
        m->done = true;
        rt_.notify_tag(m->arrived);
        return;
    }
    if (m->kind == Message::Kind::send) release_data({&m, 1});
    {
        std::lock_guard lock(m_);
        if (m->kind == Message::Kind::send) {
            --sends_pending_;
            if (!error_) error_ = std::make_exception_ptr(Error("mpi::Context: " + m->error));
        }
        m->done = true;
    }
    done_cv_.notify_all();
}

}  // namespace tessera::rt::mpi::detail
