// QueueMutex: the lock of a scheduling queue. Internal.
//
// A queue is held for tens of nanoseconds (queue or take one task), by a pusher on one thread
// and the worker popping on another. std::mutex sleeps in the kernel as soon as it finds the
// lock taken, and waking the holder's successor costs a futex call on each side: with 100000
// empty tasks in flight on 2 cores, one per task (tessera-bench overhead). This mutex first
// spins a short while (glibc's adaptive mutex: about 100 pauses, far less than a time
// slice), so that a holder running on the other core releases it before anyone sleeps; a
// holder that was preempted still lets the waiter sleep. Elsewhere than glibc it is a
// std::mutex.
#pragma once

#include <mutex>

#if defined(__GLIBC__)
#include <pthread.h>
#endif

namespace tessera::rt::detail {

#if defined(__GLIBC__) && defined(PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP)
class QueueMutex {
public:
    QueueMutex() noexcept = default;
    QueueMutex(QueueMutex const&) = delete;
    QueueMutex& operator=(QueueMutex const&) = delete;
    ~QueueMutex() { pthread_mutex_destroy(&m_); }

    void lock() noexcept { pthread_mutex_lock(&m_); }
    bool try_lock() noexcept { return pthread_mutex_trylock(&m_) == 0; }
    void unlock() noexcept { pthread_mutex_unlock(&m_); }

private:
    pthread_mutex_t m_ = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
};
#else
using QueueMutex = std::mutex;
#endif

}  // namespace tessera::rt::detail
