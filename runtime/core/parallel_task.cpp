// Parallel tasks on a combined worker (thesis Fig. 4.4): every member of the group takes a
// rank; rank 0 makes the data valid; all meet; the kernel runs (on every rank for SPMD, on
// rank 0 for fork-join); all meet again; rank 0 releases the data and completes the task.
#include "runtime/core/runtime_impl.hpp"

#include "runtime/core/task_data.hpp"

#include <chrono>
#include <optional>

namespace tessera::rt::detail {

namespace {
thread_local unsigned tls_rank = 0, tls_size = 1;
thread_local Task* tls_task = nullptr;   // the parallel task this thread runs a rank of
thread_local unsigned tls_barriers = 0;  // parallel_barrier() calls it made in that task

/// Each member of a parallel task's group arrives; returns once all have (phase 1: its data is
/// ready; phase 2: its kernel is done everywhere).
void arrive(Task* t, unsigned phase)
{
    unsigned target = phase * t->group_size;
    unsigned now = t->arrived.fetch_add(1, std::memory_order_acq_rel) + 1;
    if (now >= target) {
        t->arrived.notify_all();
        return;
    }
    while (now < target) {
        t->arrived.wait(now, std::memory_order_acquire);
        now = t->arrived.load(std::memory_order_acquire);
    }
}

/// A rank's kernel threw: it will not meet the others at their barriers, which from now on
/// let everyone through at once (the count jumps past any barrier a kernel can reach) and
/// say the group is broken.
void break_barriers(Task* t) noexcept
{
    t->group_broken.store(true, std::memory_order_release);
    t->kernel_arrivals.fetch_add(1u << 30, std::memory_order_acq_rel);
    t->kernel_arrivals.notify_all();
}

}  // namespace

void RuntimeImpl::execute_parallel(Task* t, WorkerId w)
{
    unsigned rank = t->next_rank.fetch_add(1, std::memory_order_acq_rel), size = t->group_size;
    std::optional<TaskData> data;
    if (rank == 0) {
        policy_->on_start(Internals::adopt_task<ReadyTask>(t), w);
        if (!t->skips()) {
            try {
                data.emplace(*this, t, w, NodeId(machine_.worker(w).memory_node));
                t->running_slots = data->slots();  // what every rank's kernel reads
            } catch (...) {
                fail(t, std::current_exception());
            }
        }
        // Decided once, before any rank runs: a rank whose kernel throws fails the task while
        // the others may still be deciding, and they must all run or all skip.
        t->group_runs = !t->failed && !t->cancelled;
    }
    arrive(t, 1);
    auto start = std::chrono::steady_clock::now();
    unsigned max = 1;
    const bool spmd = t->ops->parallel(t->codelet, &max) == ParallelKind::spmd;
    bool runs = t->group_runs && (rank == 0 || spmd);
    if (runs) {
        tls_rank = rank;
        tls_size = size;
        tls_task = spmd ? t : nullptr;  // a fork-join kernel runs alone: no barrier to meet
        tls_barriers = 0;
        try {
            KernelArgs args = kernel_args(t, t->running_slots);
            t->ops->run(t->codelet, Arch::cpu, first_runnable_implementation(t, w).value_or(0),
                        args);
        } catch (...) {
            fail(t, std::current_exception());
            if (spmd) break_barriers(t);
        }
        tls_rank = 0;
        tls_size = 1;
        tls_task = nullptr;
    }
    arrive(t, 2);
    if (rank == 0) {
        if (!t->failed && !t->cancelled) {
            record_sample(
                t, w,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            if (t->callback) {
                try {
                    t->callback();
                } catch (...) {
                    fail(t, std::current_exception());
                }
            }
        }
        data.reset();
        if (!t->cancelled) executed_[w].executed.fetch_add(1, std::memory_order_relaxed);
        policy_->on_complete(Internals::adopt_task<ReadyTask>(t), w);
        complete(t, w);
    }
    task_release(t);  // this member's alias
}

}  // namespace tessera::rt::detail

namespace tessera::rt {
unsigned parallel_rank() noexcept
{
    return detail::tls_rank;
}
unsigned parallel_size() noexcept
{
    return detail::tls_size;
}

bool parallel_barrier() noexcept
{
    detail::Task* t = detail::tls_task;
    if (!t || detail::tls_size <= 1) return true;
    // The count only grows: the b-th barrier is passed once it reaches b * size, whatever the
    // members already arrived at the next one.
    const unsigned target = ++detail::tls_barriers * detail::tls_size;
    unsigned now = t->kernel_arrivals.fetch_add(1, std::memory_order_acq_rel) + 1;
    if (now >= target) {
        t->kernel_arrivals.notify_all();
        return !t->group_broken.load(std::memory_order_acquire);
    }
    for (int spin = 0; spin < 4000 && now < target; ++spin) {  // a few microseconds
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        now = t->kernel_arrivals.load(std::memory_order_acquire);
    }
    while (now < target) {
        t->kernel_arrivals.wait(now, std::memory_order_acquire);
        now = t->kernel_arrivals.load(std::memory_order_acquire);
    }
    return !t->group_broken.load(std::memory_order_acquire);
}
}  // namespace tessera::rt
