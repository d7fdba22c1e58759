// The CUDA worker's loop: tasks in flight on one stream (thesis §2.4, StarPU's pipelined CUDA
// driver). For each task: begin, make its data valid on the GPU (copies on the transfer
// channels' streams, one per direction, while the kernels queued earlier keep the GPU busy),
// record a start event, call the CUDA implementation, record an end event. A task completes once its end event has
// passed: completion functions, the kernel time between the events for the model, the data
// let go, end. A failure at any step (data, implementation, the device itself) fails the task
// alone; its successors are cancelled by the runtime and the wait that covers it rethrows.
// A fault that corrupts the GPU's context (a sticky error) fails the tasks in flight, and
// the worker then leaves service (retirement.cpp): the other workers take its tasks.
#include "runtime/drivers/cuda/cuda_device.hpp"
#include "runtime/drivers/cuda/gpu_clock.hpp"

#include "runtime/core/runtime_impl.hpp"
#include "runtime/drivers/cpu/cpu_driver.hpp"

#include <tessera/error.hpp>

#include <deque>
#include <string>
#include <thread>

namespace tessera::rt {

// ---- what an implementation may ask of its worker -------------------------------------------

void* CudaContext::workspace(std::size_t bytes) const
{
    return slot_->device->workspace(bytes);
}

void* CudaContext::host_scratch(std::size_t bytes) const
{
    require(bytes <= host_scratch_bytes, "CudaContext::host_scratch: " + std::to_string(bytes) +
                                             " bytes asked, at most " +
                                             std::to_string(host_scratch_bytes));
    return slot_->host_scratch;
}

void CudaContext::at_completion(std::function<void()> f) const
{
    slot_->completions.push_back(std::move(f));
}

cufftHandle CudaContext::fft_plan(int rank, int const* n, int batch, cufftType type) const
{
    return slot_->device->fft_plan(rank, n, batch, type);
}

}  // namespace tessera::rt

namespace tessera::rt::detail {

CudaTaskSlot*& cuda_task_slot(CudaContext& c) noexcept
{
    return c.slot_;
}

namespace {

class CudaWorker {
public:
    CudaWorker(RuntimeImpl& rt, WorkerId w, CudaDevice& device)
        : rt_(rt), w_(w), device_(device), node_(NodeId(rt.worker(w).memory_node)),
          capacity_(rt.machine().node(node_).info().capacity)
    {
        for (CudaTaskSlot& s : device.slots()) free_.push_back(&s);
        // a task's workspace or cuFFT plan that finds no room: the tasks in flight before it
        // pin their data, and only this thread completes them (it is the one asking)
        device.complete_tasks_in_flight = [this] {
            if (launching_) launching_->timing_disturbed = true;
            drain();
        };
    }
    ~CudaWorker() { device_.complete_tasks_in_flight = nullptr; }
    CudaWorker(CudaWorker const&) = delete;
    CudaWorker& operator=(CudaWorker const&) = delete;

    bool idle() const noexcept { return in_flight_.empty(); }
    bool full() const noexcept { return free_.empty(); }
    /// The GPU faulted: the worker has left service.
    bool retired() const noexcept { return retired_; }

    /// Starts t: its data on the GPU, its implementation queued on the stream.
    void launch(Task* t)
    {
        // The tasks in flight pin their data on the GPU, and only this thread lets it go: if
        // this task's data could not fit beside theirs, waiting for room would wait forever.
        const std::size_t bytes = t->data_bytes;  // found at submission, as the node has a capacity
        if (capacity_ && bytes <= capacity_ && in_flight_bytes_ + bytes > capacity_) {
            drain();
            if (retired_) {  // the GPU faulted under the tasks in flight: t goes elsewhere
                rt_.hand_back(t, w_, true);
                return;
            }
        }
        if (!rt_.begin(t, w_)) return;  // waits for a COMMUTE handle
        if (t->cancelled) {
            rt_.end(t, w_, -1, nullptr);
            return;
        }
        // would wait forever for room it holds itself: a task bound here (the policies place
        // no other such task here, RuntimeImpl::holds_data_of)
        if (capacity_ && bytes > capacity_) {
            rt_.end(t, w_, -1,
                    std::make_exception_ptr(
                        Error("task '" + std::string(t->ops->name(t->codelet)) + "' needs " +
                              std::to_string(bytes) + " bytes on CUDA device " +
                              std::to_string(device_.ordinal()) + ", which may hold " +
                              std::to_string(capacity_) + " (TESSERA_CUDA_MEM)")));
            return;
        }
        CudaTaskSlot& s = *free_.back();
        free_.pop_back();
        s.task = t;
        s.bytes = bytes;
        in_flight_bytes_ += bytes;
        s.error = nullptr;
        s.timing_disturbed = false;
        s.completions.clear();
        cudaStream_t stream = device_.stream();
        try {
            // the handles are bound to this GPU: an implementation that made another current
            // must not move the next task
            cuda_check(cudaSetDevice(device_.ordinal()), "cudaSetDevice");
            launching_ = &s;
            bind_data(s, t);
            if (t->trace.submit >= 0) {  // its data is in place; the GPU's times replace these
                clock_.refresh(in_flight_.empty());
                t->trace.start = rt_.tracer().now();
            }
            cuda_check(cudaEventRecord(s.start, stream), "cudaEventRecord (task start)");
            KernelArgs args = kernel_args(t, s.data->slots(), &s.context);
            (void)cudaGetLastError();  // a not-ready query of this thread's is not the task's
            t->ops->run(t->codelet, Arch::cuda,
                        rt_.first_runnable_implementation(t, w_).value_or(0), args);
            // a kernel of the implementation's own that failed to launch (bad configuration,
            // no image for this GPU) says so only here
            cuda_check(cudaGetLastError(),
                       "kernel launch in task '" + std::string(t->ops->name(t->codelet)) + "'");
            cuda_check(cudaEventRecord(s.end, stream), "cudaEventRecord (task end)");
        } catch (...) {
            s.error = std::current_exception();
            // what the implementation queued before failing may still use the data: the data
            // is let go once the stream has passed this point
            (void)cudaEventRecord(s.end, stream);
            (void)cudaGetLastError();
            retire_if_faulted();
        }
        launching_ = nullptr;
        in_flight_.push_back(&s);
    }

    /// Completes every task in flight.
    void drain()
    {
        while (!in_flight_.empty()) finish(true);
    }

    /// Completes the tasks at the front whose end event has passed; with `wait`, waits for
    /// the oldest one first. True if any completed.
    bool finish(bool wait)
    {
        bool any = false;
        while (!in_flight_.empty()) {
            CudaTaskSlot& s = *in_flight_.front();
            if (!wait || any) {
                cudaError_t q = cudaEventQuery(s.end);
                (void)cudaGetLastError();  // not ready is no error of the next task's
                if (q == cudaErrorNotReady) break;
            }
            in_flight_.pop_front();
            complete(s);
            any = true;
        }
        return any;
    }

private:
    /// Makes t's data valid on the GPU for slot s. The tasks in flight pin their data there,
    /// and only this thread completes them: where the GPU has no room now (the device refusing
    /// memory the node's accounting allows: other processes, libraries' workspaces), waiting
    /// for room would wait for this thread. So it completes them first, then waits if need be.
    void bind_data(CudaTaskSlot& s, Task* t)
    {
        if (!in_flight_.empty()) {
            try {
                s.data.emplace(rt_, t, w_, node_, &s.context, MemoryNode::Wait::no, &s.completions);
                return;
            } catch (NoRoomNow const&) {
                drain();
            }
        }
        s.data.emplace(rt_, t, w_, node_, &s.context, MemoryNode::Wait::yes, &s.completions);
    }

    /// After a failure: if the GPU's context is corrupted, every later call on it fails, so the
    /// worker leaves service rather than fail each task the policy would still give it.
    void retire_if_faulted()
    {
        if (retired_) return;
        cudaError_t e = device_.sticky_error();
        if (e == cudaSuccess) return;
        retired_ = true;
        rt_.retire_worker(w_, "CUDA device " + std::to_string(device_.ordinal()) + " faulted: " +
                                  cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
    }

    void complete(CudaTaskSlot& s)
    {
        Task* t = s.task;
        double seconds = -1;
        if (cudaError_t e = cudaEventSynchronize(s.end); e != cudaSuccess && !s.error) {
            try {
                cuda_check(e, "task '" + std::string(t->ops->name(t->codelet)) +
                                  "' on CUDA device " + std::to_string(device_.ordinal()));
            } catch (...) {
                s.error = std::current_exception();
            }
        }
        if (!s.error) {
            float ms = 0;
            if (!s.timing_disturbed && cudaEventElapsedTime(&ms, s.start, s.end) == cudaSuccess)
                seconds = double(ms) * 1e-3;
            (void)cudaGetLastError();
            if (t->trace.submit >= 0 && !s.timing_disturbed) {  // when its kernels really ran
                const int64_t start = clock_.host_ns(s.start), end = clock_.host_ns(s.end);
                if (start >= 0 && end >= start) {
                    t->trace.start = start;
                    t->trace.end = end;
                }
            }
            for (auto& f : s.completions) {
                try {
                    f();
                } catch (...) {
                    if (!s.error) s.error = std::current_exception();
                }
            }
        }
        s.completions.clear();
        s.data.reset();  // the GPU is done with the data: let it go (and its successors read it)
        std::exception_ptr error = std::exchange(s.error, nullptr);
        if (error) retire_if_faulted();  // before t's successors are placed
        s.task = nullptr;
        in_flight_bytes_ -= s.bytes;
        free_.push_back(&s);
        rt_.end(t, w_, seconds, error);
    }

    RuntimeImpl& rt_;
    WorkerId w_;
    CudaDevice& device_;
    GpuClock clock_{rt_.tracer()};
    NodeId node_;
    std::size_t capacity_;             // of the GPU's memory node (0: no limit)
    std::size_t in_flight_bytes_ = 0;  // the data of the tasks in flight
    bool retired_ = false;
    std::vector<CudaTaskSlot*> free_;
    std::deque<CudaTaskSlot*> in_flight_;
    CudaTaskSlot* launching_ =
        nullptr;  // the slot launch() is queuing (make_room may drain meanwhile)
};

}  // namespace

void cuda_worker_loop(RuntimeImpl& rt, WorkerId w, DeviceBackend& backend)
{
    auto& device = static_cast<CudaDevice&>(backend);
    if (cudaSetDevice(device.ordinal()) != cudaSuccess)
        (void)cudaGetLastError();  // launch reports it
    CudaWorker worker(rt, w, device);
    for (;;) {
        worker.finish(false);
        if (worker.retired()) {  // the GPU faulted: what it had in flight fails, it runs no more
            worker.drain();
            retired_worker_loop(rt, w);
            return;
        }
        if (!worker.full()) {
            if (ReadyTask t = rt.pop(w)) {
                worker.launch(Internals::task(t));
                continue;
            }
        }
        if (!worker.idle()) {
            // full: wait for the oldest; else poll, so that a task made ready meanwhile by
            // another worker is queued behind the running ones (this thread has its own core)
            if (worker.full())
                worker.finish(true);
            else
                std::this_thread::yield();
            continue;
        }
        // nothing in flight and nothing to do: sleep as a CPU worker does
        bool stop = false;
        if (ReadyTask t = sleep_until_work(rt, w, stop))
            worker.launch(Internals::task(t));
        else if (stop)
            return;
    }
}

}  // namespace tessera::rt::detail
