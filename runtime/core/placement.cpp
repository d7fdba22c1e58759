// Where a task may run: the implementation each architecture runs it with (the first its
// can_execute allows, found once at submission), its binding (on_worker), its scheduling
// context, and the workers retired after a fault.
#include "runtime/core/runtime_impl.hpp"

#include <algorithm>

namespace tessera::rt::detail {

std::optional<unsigned> RuntimeImpl::find_first_runnable(Task const* t, Arch arch)
{
    unsigned n = t->ops->implementations(t->codelet, arch);
    KernelArgs args = kernel_args(t, t->buffers.data());
    for (unsigned i = 0; i < n; ++i)
        if (t->ops->can_execute(t->codelet, arch, i, args)) return i;
    return std::nullopt;
}

namespace {
/// The bytes of t's handles, a handle passed twice counted once (as TaskData binds it).
std::size_t distinct_data_bytes(Task const* t) noexcept
{
    std::size_t bytes = 0;
    for (auto b = t->buffers.begin(); b != t->buffers.end(); ++b)
        if (std::none_of(t->buffers.begin(), b,
                         [&](BufferSlot const& o) { return o.state == b->state; }))
            bytes += b->layout->bytes();
    return bytes;
}
}  // namespace

void RuntimeImpl::find_implementations(Task* t) const
{
    for (WorkerId w : machine_.arch_representatives()) {
        const Arch arch = machine_.worker(w).arch;
        std::optional<unsigned> i = find_first_runnable(t, arch);
        t->first_impl[std::size_t(arch)] = i ? int8_t(*i) : Task::impl_none;
    }
    // Its bytes matter only where some worker's memory is limited (a GPU, an emulated device
    // with a capacity). The plain sum bounds them, and settles most tasks without the
    // quadratic search for repeated handles.
    if (const std::size_t smallest = machine_.smallest_memory()) {
        std::size_t sum = 0;
        for (BufferSlot const& b : t->buffers) sum += b.layout->bytes();
        t->data_bytes = sum <= smallest ? sum : distinct_data_bytes(t);
    }
}

bool RuntimeImpl::no_other_can_run(Task const* t, WorkerId w) const
{
    for (WorkerId v = 0; v < worker_count(); ++v)
        if (v != w && !retired(v) && able(t, v)) return false;  // it goes to v
    return true;                                                // to w, which fails it
}

bool RuntimeImpl::runnable_somewhere(Task const* t) const
{
    if (t->bound_worker != no_worker) return can_run_on(t, t->bound_worker);
    if (t->context != 0) {
        for (WorkerId w = 0; w < worker_count(); ++w)
            if (can_run_on(t, w)) return true;
        return false;
    }
    for (WorkerId w : machine_.arch_representatives()) {
        if (!first_runnable_implementation(t, w)) continue;
        if (holds_data_of(t, w)) return true;
        for (WorkerId v = 0; v < worker_count();
             ++v)  // another unit of w's kind may have more memory
            if (machine_.worker(v).arch == machine_.worker(w).arch && holds_data_of(t, v))
                return true;
    }
    return false;
}

}  // namespace tessera::rt::detail
