// DataState: the runtime's record of a registered handle. Internal.
//
// Implicit dependencies (sequential consistency, thesis §2.2.5) live here, under the handle's
// own small lock so that submissions on different handles never contend:
//   a reader depends on the last writer and joins the current readers;
//   a writer depends on the current readers if there are any (then clears them), otherwise
//   on the last writer; it becomes the last writer.
// A reading access also keeps an edge to the last writer, so that the writer's failure
// reaches it even when readers stand in between.
#pragma once

#include <tessera/rt/access.hpp>
#include <tessera/rt/interfaces.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace tessera::rt::detail {

class RuntimeImpl;
class Task;

class DataState {
public:
    DataState(RuntimeImpl* rt, void* host_ptr, Layout const& layout, DataState* parent)
        : rt(rt), host_ptr(host_ptr), layout(layout), parent(parent)
    {
    }
    ~DataState();

    /// Records task t's access with mode m and adds the implicit dependencies it implies
    /// (counted in t->pending). Throws InvalidArgument if the handle is not usable.
    void add_access(Task* t, Mode m, std::size_t arg_index);
    /// A task that accessed the handle completed.
    void access_done() noexcept;
    /// Blocks until no submitted task uses the handle.
    void wait_idle() noexcept;

    RuntimeImpl* const rt;
    void* const host_ptr;
    Layout const layout;
    DataState* const parent;  // nullptr for a registered root

    std::mutex m;
    Task* last_writer = nullptr;  // retained
    std::vector<Task*> readers;   // retained; the readers since last_writer
    bool partitioned = false;
    std::vector<std::shared_ptr<DataState>> children;  // while partitioned
    std::atomic<bool> registered{true};
    std::atomic<int32_t> users{0};  // submitted, not completed tasks accessing it
};

}  // namespace tessera::rt::detail
