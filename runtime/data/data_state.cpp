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

DataState::DataState(RuntimeImpl* rt, void* home_ptr, Layout const& layout, DataState* parent,
                     NodeId home)
    : rt(rt), host_ptr(home_ptr), layout(layout), scratch_layout(packed(layout)), parent(parent),
      home(home)
{
    replicas.resize(rt->machine().node_count());
    Replica& h = replicas[home];
    h.ptr = home_ptr;
    h.layout = layout;
    h.state = Msi::modified;
}

DataState::~DataState()
{
    for (std::vector<Task*>* group : {&readers, &commute_group, &commute_base, &redux_group})
        for (Task* t : *group) task_release(t);
    if (last_writer) task_release(last_writer);
}

namespace {
/// Ends a COMMUTE group before another kind of access: a join task J that waits for every
/// task of the group becomes the last writer.
void close_commute_group(DataState& d, std::vector<Task*>& control)
{
    if (d.commute_group.empty()) return;
    Task* join = make_control_task(d.rt, Task::Kind::join);
    for (Task* c : d.commute_group) {
        add_edge(c, join, DependencyKind::read_after_write);
        task_release(c);
    }
    d.commute_group.clear();
    for (Task* b : d.commute_base) task_release(b);
    d.commute_base.clear();
    if (d.last_writer) task_release(d.last_writer);
    d.last_writer = join;  // keeps the reference make_control_task gave
    task_retain(join);     // released once its guard is dropped by the caller
    control.push_back(join);
}

/// Ends a reduction phase before another kind of access: a reduction task R, which waits for
/// every contribution (and for the readers of the value it will overwrite), combines the
/// private copies into the handle and becomes the last writer.
void close_redux_group(DataState& d, std::vector<Task*>& control)
{
    if (d.redux_group.empty()) return;
    Task* r = make_control_task(d.rt, Task::Kind::reduction);
    r->buffers.push_back(BufferSlot{&d, nullptr, nullptr, Mode::RW});
    d.users.fetch_add(1, std::memory_order_relaxed);  // unregister waits for the reduction
    for (Task* c : d.redux_group) {
        add_edge(c, r, DependencyKind::read_after_write);
        task_release(c);
    }
    d.redux_group.clear();
    for (Task* rd : d.readers) {
        add_edge(rd, r, DependencyKind::write_after_read);
        task_release(rd);
    }
    d.readers.clear();
    if (d.last_writer) task_release(d.last_writer);
    d.last_writer = r;
    task_retain(r);
    control.push_back(r);
}
}  // namespace

void DataState::add_access(Task* t, Mode mode, std::vector<Task*>& control)
{
    std::lock_guard lock(m);
    users.fetch_add(1, std::memory_order_relaxed);
    if (mode == Mode::SCRATCH) return;  // a private temporary: orders nothing
    if (mode == Mode::REDUX) {
        // contributions commute with each other; they follow the last write
        close_commute_group(*this, control);
        if (last_writer) add_edge(last_writer, t, DependencyKind::write_after_write);
        task_retain(t);
        redux_group.push_back(t);
        return;
    }
    close_redux_group(*this, control);
    if (mode == Mode::COMMUTE) {
        // every task of the group waits for what a writer would wait for, not for each other
        if (commute_group.empty()) {
            commute_base.swap(readers);
            if (last_writer) {
                task_retain(last_writer);
                commute_base.push_back(last_writer);
            }
        }
        for (Task* b : commute_base)
            add_edge(b, t,
                     b == last_writer ? DependencyKind::read_after_write
                                      : DependencyKind::write_after_read);
        task_retain(t);
        commute_group.push_back(t);
        return;
    }
    close_commute_group(*this, control);
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
}

void DataState::access_done() noexcept
{
    if (users.fetch_sub(1, std::memory_order_acq_rel) == 1) users.notify_all();
}

void DataState::wait_idle() noexcept
{
    for (int32_t n; (n = users.load(std::memory_order_acquire)) != 0;)
        users.wait(n, std::memory_order_acquire);
}

// ---- the functions behind Handle ---------------------------------------------------------------------

std::shared_ptr<DataState> register_data(Runtime& rt, void* ptr, Layout const& l)
{
    require(l.nx >= 0 && l.ny >= 0 && l.nz >= 0, "register: negative size");
    if (l.kind == InterfaceKind::matrix)
        require(l.ld >= std::max<int64_t>(1, l.nx), "register: matrix ld must be >= max(1, m)");
    if (l.kind == InterfaceKind::block)
        require(l.ld >= std::max<int64_t>(1, l.nx) && l.ldz >= std::max<int64_t>(1, l.ld * l.ny),
                "register: block ldy must be >= max(1, nx) and ldz >= ldy * ny");
    RuntimeImpl& impl = Internals::impl(rt);
    std::shared_ptr<DataState> d;
    if (ptr) {
        d = std::make_shared<DataState>(&impl, ptr, l, nullptr);
    } else {  // a temporary: the runtime owns its home buffer, whose content starts undefined
        Layout p = packed(l);
        d = std::make_shared<DataState>(
            &impl, impl.machine().node(host_node).allocate(p.bytes(), MemoryNode::Wait::yes), p,
            nullptr);
        d->owns_home = true;
    }
    impl.track(d.get());
    return d;
}

void release_control_tasks(std::vector<Task*> const& control)
{
    for (Task* c : control) c->rt->release_dependency(c, no_worker);
}

void unregister_data(DataState& s) noexcept
{
    if (!s.registered.exchange(false, std::memory_order_acq_rel)) return;
    std::vector<std::shared_ptr<DataState>> children;
    std::vector<Task*> control;
    {
        std::lock_guard lock(s.m);
        children.swap(s.children);
        s.partitioned = false;
        close_redux_group(s, control);  // a pending reduction completes first
    }
    release_control_tasks(control);
    for (auto& c : children) unregister_data(*c);  // the pieces go home first: into our memory
    s.wait_idle();
    gather_home(&s);  // the user's buffer holds the valid data
    if (s.owns_home) s.rt->machine().node(s.home).release(s.host_ptr, s.layout.bytes());
    if (!s.parent) s.rt->untrack(&s);
}

bool data_registered(DataState const& s) noexcept
{
    return s.registered.load(std::memory_order_acquire);
}
void set_data_label(DataState& s, std::string label)
{
    s.label = std::move(label);
}

void* data_host_ptr(DataState const& s) noexcept
{
    return s.host_ptr;
}
Layout const& data_layout(DataState const& s) noexcept
{
    return s.layout;
}

Task* acquire_data(DataState* s, Mode m)
{
    require(current_worker_id() == no_worker,
            "acquire: cannot acquire a handle from inside a task (it could deadlock)");
    require(s->registered.load(std::memory_order_acquire), "acquire: handle is not registered");
    require(coherent(m), "acquire: the mode must be R, W or RW");
    {
        std::lock_guard lock(s->m);
        require(!s->partitioned, "acquire: handle is partitioned; unpartition it first");
    }
    // The acquire is a control task in the handle's dependency chain: it becomes ready when the
    // conflicting earlier tasks are done, and completes (releasing later tasks) at release().
    Task* t = make_control_task(s->rt, Task::Kind::acquire);
    t->buffers.push_back(BufferSlot{s, s->host_ptr, &s->layout, m});
    task_retain(t);  // the guard's reference
    std::vector<Task*> control;
    s->add_access(t, m, control);
    release_control_tasks(control);
    s->rt->release_dependency(t, no_worker);
    t->ready.wait(0, std::memory_order_acquire);
    try {
        if (t->failed) std::rethrow_exception(t->error);  // a task that wrote the data failed
        acquire_replica(s, host_node, m);                 // valid in the user's buffer while held
    } catch (...) {  // that, or the copy failed, or the only valid copy was lost with its GPU:
        t->rt->complete(t, no_worker);  // the handle goes back to the tasks after the acquire
        task_release(t);
        throw;
    }
    return t;
}

void release_data(Task* t) noexcept
{
    BufferSlot const& b = t->buffers[0];
    release_replica(b.state, host_node, b.mode);
    t->rt->complete(t, no_worker);  // drops the runtime's reference
    task_release(t);                // the guard's
}

}  // namespace tessera::rt::detail
