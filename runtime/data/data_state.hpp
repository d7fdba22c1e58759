// DataState: the runtime's record of a registered handle. Internal.
//
// Implicit dependencies (sequential consistency, thesis §2.2.5) live here, under the handle's
// own small lock so that submissions on different handles never contend:
//   a reader depends on the last writer and joins the current readers;
//   a writer depends on the current readers if there are any (then clears them), otherwise
//   on the last writer; it becomes the last writer.
// A reading access also keeps an edge to the last writer, so that the writer's failure
// reaches it even when readers stand in between.
// COMMUTE accesses wait for what a writer would wait for, but not for each other; REDUX
// contributions wait for the last writer only. The first access of another kind closes such a
// group with a control task that waits for all of it and becomes the last writer: a join for a
// COMMUTE group, the reduction itself for REDUX contributions.
#pragma once

#include "runtime/data/coherency.hpp"

#include <tessera/rt/access.hpp>
#include <tessera/rt/codelet.hpp>
#include <tessera/rt/interfaces.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tessera::rt::detail {

class RuntimeImpl;
class Task;

/// The codelets of a handle's reduction (StarPU's starpu_data_set_reduction_methods):
/// init(x) sets x to the neutral element, redux(a, b) computes a = a (+) b.
struct ReductionMethods {
    void const* init = nullptr;
    CodeletOps const* init_ops = nullptr;
    void const* redux = nullptr;
    CodeletOps const* redux_ops = nullptr;
};

/// A worker's private copy of a handle under reduction.
struct PrivateCopy {
    void* ptr = nullptr;  // on the worker's memory node
    NodeId node = host_node;
};

class DataState {
public:
    /// A handle whose valid data sits at `home_ptr` on memory node `home`, laid out as `layout`.
    DataState(RuntimeImpl* rt, void* home_ptr, Layout const& layout, DataState* parent,
              NodeId home = host_node);
    ~DataState();

    /// Records task t's access with mode m and adds the implicit dependencies it implies
    /// (counted in t->pending).
    /// Control tasks it creates (joins, reductions) are appended to `control`: the caller
    /// drops their submission guard (release_control_tasks) once it holds no handle's lock.
    void add_access(Task* t, Mode m, std::vector<Task*>& control);
    /// A task that accessed the handle completed.
    void access_done() noexcept;
    /// Blocks until no submitted task uses the handle.
    void wait_idle() noexcept;

    RuntimeImpl* const rt;
    void* const host_ptr;         // the registered memory (at home)
    Layout const layout;          // its layout
    Layout const scratch_layout;  // a contiguous copy's layout (scratch, private copies)
    DataState* const parent;      // nullptr for a registered root
    NodeId const home;            // where the registered memory is (the host, but for temporaries)
    bool owns_home = false;       // the runtime allocated the home buffer (Handle::temporary)
    std::string label;            // Handle::set_label: names it in traces ("(i,j)" for a tile)

    // ---- dependencies (under m) ----
    std::mutex m;
    Task* last_writer = nullptr;       // retained
    std::vector<Task*> readers;        // retained; the readers since last_writer
    std::vector<Task*> commute_group;  // retained; COMMUTE accesses since the last other one
    std::vector<Task*> commute_base;   // retained; what each task of the group waits for
    std::vector<Task*> redux_group;    // retained; REDUX accesses since the last other one
    bool partitioned = false;
    std::vector<std::shared_ptr<DataState>> children;  // while partitioned
    std::atomic<bool> registered{true};
    std::atomic<int32_t> users{0};  // submitted, not completed tasks accessing it

    // ---- coherency (under cm) ----
    std::mutex cm;
    std::condition_variable cv;          // a replica became valid, free or unpinned
    std::vector<Replica> replicas;       // one per memory node
    uint64_t version = 0;                // bumped at every write
    Task* commute_holder = nullptr;      // the COMMUTE task running on it now
    std::vector<Task*> commute_waiters;  // COMMUTE tasks that found it held, to push again

    // ---- reductions ----
    ReductionMethods reduction;               // set once, before the first REDUX access
    std::vector<PrivateCopy> private_copies;  // per worker, under cm
};
/// Drops the submission guard of control tasks made by add_access.
void release_control_tasks(std::vector<Task*> const& control);

}  // namespace tessera::rt::detail
