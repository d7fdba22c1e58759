// Where a task may run: the implementation each architecture runs it with (the first its
// can_execute allows, found once at submission), its binding (on_worker), its scheduling
// context, and the workers retired after a fault.
#include "runtime/core/runtime_impl.hpp"

namespace tessera::rt::detail {

namespace {
int8_t find_first_runnable(Task const* t, Arch arch)
{
    unsigned n = t->ops->implementations(t->codelet, arch);
    KernelArgs args = kernel_args(t, t->buffers.data());
    for (unsigned i = 0; i < n; ++i)
        if (t->ops->can_execute(t->codelet, arch, i, args)) return int8_t(i);
    return Task::impl_none;
}
}  // namespace

void RuntimeImpl::find_implementations(Task* t) const
{
    for (WorkerId w : machine_.arch_representatives()) {
        const Arch arch = machine_.worker(w).arch;
        t->first_impl[std::size_t(arch)] = find_first_runnable(t, arch);
    }
}

std::optional<unsigned> RuntimeImpl::first_runnable_implementation(Task const* t, WorkerId w) const
{
    const Arch arch = machine_.worker(w).arch;
    int8_t i = t->first_impl[std::size_t(arch)];
    if (i == Task::impl_unknown) i = find_first_runnable(t, arch);  // not submitted yet
    if (i == Task::impl_none) return std::nullopt;
    return unsigned(i);
}

bool RuntimeImpl::able(Task const* t, WorkerId w) const
{
    if (t->bound_worker != no_worker && t->bound_worker != w) return false;
    if (!contexts_.contains(t->context, w)) return false;
    return first_runnable_implementation(t, w).has_value();
}

bool RuntimeImpl::can_run_on(Task const* t, WorkerId w) const
{
    if (!able(t, w)) return false;
    if (!retired(w)) return true;
    for (WorkerId v = 0; v < worker_count(); ++v)
        if (v != w && !retired(v) && able(t, v)) return false;  // it goes to v
    return true;  // to w, which fails it
}

bool RuntimeImpl::runnable_somewhere(Task const* t) const
{
    if (t->bound_worker != no_worker) return can_run_on(t, t->bound_worker);
    if (t->context != 0) {
        for (WorkerId w = 0; w < worker_count(); ++w)
            if (can_run_on(t, w)) return true;
        return false;
    }
    for (WorkerId w : machine_.arch_representatives())
        if (first_runnable_implementation(t, w)) return true;
    return false;
}

}  // namespace tessera::rt::detail
