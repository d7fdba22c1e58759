// Registration, implicit dependencies and application access (acquire/release) of handles.
#include "runtime/data/data_state.hpp"

#include "runtime/core/runtime_impl.hpp"
#include "runtime/core/task.hpp"

#include <tessera/error.hpp>
#include <tessera/rt/handle.hpp>

#include <algorithm>
#include <string>

namespace tessera::rt::detail {

namespace {
/// Readers that completed no longer order anything: drop them once the list grows, so that a
/// handle read by millions of tasks keeps a short list.
void prune_done_readers(std::vector<Task*>& readers)
{
    constexpr std::size_t prune_above = 64;
    if (readers.size() < prune_above) return;
    auto done = [](Task* r) {
        if (r->done.load(std::memory_order_acquire) == 0) return false;
        task_release(r);
        return true;
    };
    readers.erase(std::remove_if(readers.begin(), readers.end(), done), readers.end());
}
}  // namespace

DataState::~DataState()
{
    if (last_writer) task_release(last_writer);
    for (Task* r : readers) task_release(r);
}

void DataState::add_access(Task* t, Mode mode, std::size_t)
{
    std::lock_guard lock(m);
    // read after write: whatever reads depends on the last writer, and inherits its failure
    if (reads(mode) && last_writer) add_edge(last_writer, t, DependencyKind::read_after_write);
    if (writes(mode)) {
        if (!readers.empty()) {  // write after read
            for (Task* r : readers) {
                add_edge(r, t, DependencyKind::write_after_read);
                task_release(r);
            }
            readers.clear();
        } else if (last_writer && !reads(mode)) {  // write after write
            add_edge(last_writer, t, DependencyKind::write_after_write);
        }
        task_retain(t);
        if (last_writer) task_release(last_writer);
        last_writer = t;
    } else {
        prune_done_readers(readers);
        task_retain(t);
        readers.push_back(t);
    }
    users.fetch_add(1, std::memory_order_relaxed);
}

void DataState::access_done() noexcept
{
    if (users.fetch_sub(1, std::memory_order_acq_rel) == 1) users.notify_all();
}

void DataState::wait_idle() noexcept
{
    for (int32_t n; (n = users.load(std::memory_order_acquire)) != 0;) users.wait(n, std::memory_order_acquire);
}

// ---- the functions behind Handle ---------------------------------------------------------------------

std::shared_ptr<DataState> register_data(Runtime& rt, void* ptr, Layout const& l)
{
    require(ptr != nullptr, "register: null data pointer");
    require(l.nx >= 0 && l.ny >= 0 && l.nz >= 0, "register: negative size");
    if (l.kind == InterfaceKind::matrix)
        require(l.ld >= std::max<int64_t>(1, l.nx), "register: matrix ld must be >= max(1, m)");
    if (l.kind == InterfaceKind::block)
        require(l.ld >= std::max<int64_t>(1, l.nx) && l.ldz >= std::max<int64_t>(1, l.ld * l.ny),
                "register: block ldy must be >= max(1, nx) and ldz >= ldy * ny");
    return std::make_shared<DataState>(&rt.impl(), ptr, l, nullptr);
}

void unregister_data(DataState& s) noexcept
{
    if (!s.registered.exchange(false, std::memory_order_acq_rel)) return;
    std::vector<std::shared_ptr<DataState>> children;
    {
        std::lock_guard lock(s.m);
        children.swap(s.children);
        s.partitioned = false;
    }
    for (auto& c : children) unregister_data(*c);  // gives the pieces back first
    s.wait_idle();
}

bool data_registered(DataState const& s) noexcept { return s.registered.load(std::memory_order_acquire); }
void* data_host_ptr(DataState const& s) noexcept { return s.host_ptr; }
Layout const& data_layout(DataState const& s) noexcept { return s.layout; }

Task* acquire_data(DataState* s, Mode m)
{
    require(current_worker_id() == no_worker,
            "acquire: cannot acquire a handle from inside a task (it could deadlock)");
    require(s->registered.load(std::memory_order_acquire), "acquire: handle is not registered");
    {
        std::lock_guard lock(s->m);
        require(!s->partitioned, "acquire: handle is partitioned; unpartition it first");
    }
    // The acquire is a control task in the handle's dependency chain: it becomes ready when the
    // conflicting earlier tasks are done, and completes (releasing later tasks) at release().
    Task* t = allocate_task();
    t->rt = s->rt;
    t->kind = Task::Kind::acquire;
    t->sequence = s->rt->next_sequence();
    t->buffers.push_back(BufferSlot{s, s->host_ptr, &s->layout, m});
    t->refs.store(2, std::memory_order_relaxed);  // the runtime's and the guard's
    s->add_access(t, m, 0);
    s->rt->release_dependency(t, no_worker);
    t->ready.wait(0, std::memory_order_acquire);
    if (t->failed) {  // a task that wrote the data failed: give the handle back and report it
        std::exception_ptr e = t->error;
        release_data(t);
        std::rethrow_exception(e);
    }
    return t;
}

void release_data(Task* t) noexcept
{
    t->rt->complete(t, no_worker);  // drops the runtime's reference
    task_release(t);                // the guard's
}

}  // namespace tessera::rt::detail
