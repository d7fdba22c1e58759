// REDUX: reductions into a handle (thesis §2.5.2). Each worker accumulates its contributions
// into a private copy, set to the neutral element by the handle's init codelet on first use
// (lifecycle.cpp). The first other access after the contributions closes the phase with a
// reduction task R (data_state.cpp), which waits for every contribution, then:
//
//   private copies p0 p1 p2 p3           registered as temporary handles on their nodes
//        p0 ⊕= p1    p2 ⊕= p3            a tree of ordinary tasks of the redux codelet,
//              p0 ⊕= p2                  scheduled like any task (where the codelet may run)
//          handle ⊕= p0                  the handle's own value is folded in last
//   R completes: the accesses after it see the reduced value
#include "runtime/core/runtime_impl.hpp"
#include "runtime/data/coherency.hpp"
#include "runtime/data/data_state.hpp"

#include <tessera/error.hpp>

#include <memory>

namespace tessera::rt::detail {

void set_reduction(DataState* s, void const* init, CodeletOps const* init_ops, void const* redux,
                   CodeletOps const* redux_ops)
{
    std::lock_guard lock(s->m);
    require(s->redux_group.empty(),
            "set_reduction: contributions to the previous reduction are pending");
    s->reduction = ReductionMethods{init, init_ops, redux, redux_ops};
}

namespace {

/// What a reduction task keeps between its two phases.
struct ReductionWork {
    std::vector<std::shared_ptr<DataState>> temporaries;
    std::vector<PrivateCopy> copies;
};

/// An internal task of the redux codelet: a (+)= b.
Task* redux_task(DataState& d, DataState* a, DataState* b)
{
    RuntimeImpl* rt = d.rt;
    Task* t = allocate_task();
    t->rt = rt;
    t->kind = Task::Kind::codelet;
    t->codelet = d.reduction.redux;
    t->ops = d.reduction.redux_ops;
    t->sequence = rt->next_sequence();
    t->internal = true;
    t->buffers.push_back(BufferSlot{a, a->host_ptr, &a->layout, Mode::RW});
    t->buffers.push_back(BufferSlot{b, b->host_ptr, &b->layout, Mode::R});
    return t;
}

void free_private_copies(RuntimeImpl& rt, DataState& d, std::vector<PrivateCopy> const& copies)
{
    for (PrivateCopy const& c : copies) rt.machine().node(c.node).release(c.ptr, d.layout.bytes());
}

}  // namespace

void advance_reduction(Task* r, std::vector<Task*>& completed_now)
{
    DataState& d = *r->buffers[0].state;
    RuntimeImpl& rt = *d.rt;
    if (r->reduction_phase == 1) {  // the tree is done: free the temporaries and the copies
        auto* work = static_cast<ReductionWork*>(r->values);
        for (auto& tmp : work->temporaries) {
            tmp->registered.store(false);
            gather_home(tmp.get());
        }
        free_private_copies(rt, d, work->copies);
        delete work;
        r->values = nullptr;
        completed_now.push_back(r);
        return;
    }
    std::vector<PrivateCopy> copies;
    {
        std::lock_guard lock(d.cm);
        for (PrivateCopy& c : d.private_copies)
            if (c.ptr) copies.push_back(std::exchange(c, PrivateCopy{}));
    }
    if (r->cancelled || copies.empty()) {  // a contribution failed, or none ran
        free_private_copies(rt, d, copies);
        completed_now.push_back(r);
        return;
    }
    auto* work = new ReductionWork{{}, copies};
    for (PrivateCopy const& c : copies)
        work->temporaries.push_back(
            std::make_shared<DataState>(&rt, c.ptr, d.scratch_layout, nullptr, c.node));
    r->values = work;
    r->reduction_phase = 1;

    // the tree: level by level, a[i] (+)= a[i + stride]
    std::vector<DataState*> level;
    for (auto& tmp : work->temporaries) level.push_back(tmp.get());
    std::vector<Task*> tasks;
    while (level.size() > 1) {
        std::vector<DataState*> next;
        for (std::size_t i = 0; i + 1 < level.size(); i += 2) {
            tasks.push_back(redux_task(d, level[i], level[i + 1]));
            next.push_back(level[i]);
        }
        if (level.size() % 2) next.push_back(level.back());
        level.swap(next);
    }
    // the handle's value: ordered by R itself, not by its implicit dependencies
    Task* fold = redux_task(d, &d, level[0]);
    fold->skip_deps = 1u;
    tasks.push_back(fold);
    r->pending.store(1, std::memory_order_relaxed);       // our guard, dropped below
    add_edge(fold, r, DependencyKind::read_after_write);  // R is ready again once the fold is done
    for (Task* t : tasks) (void)task_submit(t);           // detached
    rt.release_dependency(r, no_worker);
}

}  // namespace tessera::rt::detail
