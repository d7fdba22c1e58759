#include "runtime/mpi/progress_engine.hpp"

#include "runtime/mpi/mpi_error.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <chrono>
#include <string>

namespace tessera::rt::mpi::detail {

ProgressEngine::ProgressEngine(Runtime& rt, MPI_Comm comm)
    : rt_(rt), comm_(comm), thread_([this] { run(); })
{}

ProgressEngine::~ProgressEngine()
{
    {
        std::lock_guard lock(m_);
        stop_ = true;
    }
    work_cv_.notify_one();
    thread_.join();
}

void ProgressEngine::enqueue_send(Message* m)
{
    std::lock_guard lock(m_);
    sends_[{m->peer, m->tag}].push_back(m);
    ++sends_pending_;
}

void ProgressEngine::withdraw_send(Message* m)
{
    std::lock_guard lock(m_);
    auto& queue = sends_[{m->peer, m->tag}];
    queue.erase(std::find(queue.begin(), queue.end(), m));
    --sends_pending_;
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

void ProgressEngine::barrier()
{
    Message m;
    m.kind = Message::Kind::barrier;
    {
        std::lock_guard lock(m_);
        collectives_.push_back(&m);
    }
    work_cv_.notify_one();
    std::unique_lock lock(m_);
    done_cv_.wait(lock, [&] { return m.done.load(); });
    if (!m.error.empty()) throw Error("mpi::Context::barrier: " + m.error);
}

void ProgressEngine::wait_for_sends()
{
    std::unique_lock lock(m_);
    done_cv_.wait(lock, [&] { return sends_pending_ == 0; });
}

std::exception_ptr ProgressEngine::take_error()
{
    std::lock_guard lock(m_);
    return std::exchange(error_, nullptr);
}

bool ProgressEngine::has_posts_locked() const
{
    if (!receives_.empty() || !collectives_.empty()) return true;
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

void ProgressEngine::post(Message* m)
{
    int rc = MPI_SUCCESS;
    switch (m->kind) {
    case Message::Kind::send:
        rc = MPI_Isend(m->buffer.data(), int(m->buffer.size()), MPI_BYTE, m->peer, m->tag, comm_,
                       &m->request);
        break;
    case Message::Kind::receive:
        rc = MPI_Irecv(m->buffer.data(), int(m->buffer.size()), MPI_BYTE, m->peer, m->tag, comm_,
                       &m->request);
        break;
    case Message::Kind::barrier:
        rc = MPI_Ibarrier(comm_, &m->request);
        break;
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
    // Between tests of requests that have not completed, a pause that doubles up to 200 µs:
    // a short one keeps latency low right after activity, a long one keeps the thread off the
    // core a worker computes on while a long message travels. New work ends it at once.
    constexpr auto shortest = 10us, longest = 200us;
    auto pause = shortest;
    for (;;) {
        std::vector<Message*> posts;
        {
            std::unique_lock lock(m_);
            if (in_flight_.empty())
                work_cv_.wait(lock, [&] { return stop_ || has_posts_locked(); });
            if (stop_ && in_flight_.empty() && !has_posts_locked()) return;
            posts = take_posts_locked();
        }
        for (Message* m : posts) post(m);
        if (in_flight_.empty()) continue;
        requests.resize(in_flight_.size());
        for (std::size_t i = 0; i < in_flight_.size(); ++i) requests[i] = in_flight_[i]->request;
        indices.resize(requests.size());
        statuses.resize(requests.size());
        int count = 0;
        const int rc = MPI_Testsome(int(requests.size()), requests.data(), &count, indices.data(),
                                    statuses.data());
        if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {  // nothing can be trusted: fail all
            for (Message* m : in_flight_) fail(m, mpi_error_text(rc));
            in_flight_.clear();
            continue;
        }
        if (count == 0 || count == MPI_UNDEFINED) {
            std::unique_lock lock(m_);
            work_cv_.wait_for(lock, pause, [&] { return stop_ || has_posts_locked(); });
            pause = std::min(2 * pause, std::chrono::duration_cast<decltype(pause)>(longest));
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
    if (mpi_status != MPI_SUCCESS) return fail(m, mpi_error_text(mpi_status));
    if (m->kind == Message::Kind::receive) {
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
    if (m->kind == Message::Kind::send) {
        m->buffer = {};  // MPI has the data: the memory goes back now
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
    const std::string what =
        m->kind == Message::Kind::send ? "send to rank " : "receive from rank ";
    m->error = (m->kind == Message::Kind::barrier
                    ? std::string("barrier")
                    : what + std::to_string(m->peer) + " with tag " + std::to_string(m->tag)) +
               ": " + why;
    if (m->kind == Message::Kind::receive) {  // its unpack task rethrows it
        m->done = true;
        rt_.notify_tag(m->arrived);
        return;
    }
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
