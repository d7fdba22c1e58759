// TagTable: StarPU's tags. A tag is an application-chosen id; tag T may depend on other tags
// (declared before or after those tags' tasks exist, even after they are done) and a task
// carrying tag T does not start until all of T's dependencies are done. Internal.
//
// States (thesis §2.2.4): a tag is unknown (invalid) until declared, used or notified;
// associated once its task is submitted; blocked while it has undone dependencies; done once
// its task completed or the application notified it. remove() forgets it.
#pragma once

#include <tessera/rt/access.hpp>

#include <condition_variable>
#include <exception>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

namespace tessera::rt::detail {

class Task;

class TagTable {
public:
    void declare_deps(TagId id, std::span<TagId const> deps);
    /// Associates task t with tag id at submission. If the tag has undone dependencies, adds
    /// one to t->pending (released by a later task_done / notify). Throws InvalidArgument if
    /// the tag already has a task.
    void associate(TagId id, Task* t);
    /// The tag's task completed (with `error` if it failed or was cancelled): `retire` (which
    /// marks the task done and no longer pending) runs and the tag becomes done, both under the
    /// table's lock, so that whoever sees one sees the other (wait_tag then done() and
    /// pending_tasks(); TaskRef::wait or wait_all then remove_tag). Appends to `released` the
    /// tasks whose tags thereby became ready.
    template <class Retire>
    void task_done(TagId id, std::exception_ptr error, Retire&& retire,
                   std::vector<Task*>& released)
    {
        std::lock_guard lock(m_);
        retire();
        auto it = tags_.find(id);
        if (it != tags_.end()) mark_done_locked(id, it->second, error, released);
    }
    /// Marks a tag with no task done from the application.
    void notify(TagId id, std::vector<Task*>& released);
    void wait(TagId id);
    void remove(TagId id);

private:
    struct State {
        int undone_deps = 0;
        std::vector<TagId> dependents;
        Task* task = nullptr;  // associated and not yet done
        bool has_task = false;
        bool done = false;
        std::exception_ptr error;  // of its task, or inherited from a failed dependency
    };
    void mark_done_locked(TagId id, State& s, std::exception_ptr error,
                          std::vector<Task*>& released);

    std::mutex m_;
    std::condition_variable done_cv_;
    std::unordered_map<TagId, State> tags_;
};

}  // namespace tessera::rt::detail
