#include "runtime/core/tags.hpp"

#include "runtime/core/task.hpp"

#include <tessera/error.hpp>

#include <string>

namespace tessera::rt::detail {

namespace {
std::string tag_name(TagId id)
{
    return "tag " + std::to_string(id);
}
}  // namespace

void TagTable::declare_deps(TagId id, std::span<TagId const> deps)
{
    std::lock_guard lock(m_);
    State& s = tags_[id];
    require(!s.has_task && !s.done,
            "declare_tag_deps: " + tag_name(id) +
                " already has a task; declare its dependencies before submitting it");
    for (TagId d : deps) {
        require(d != id, "declare_tag_deps: " + tag_name(id) + " cannot depend on itself");
        State& ds = tags_[d];
        if (ds.done) {
            if (ds.error && !s.error) s.error = ds.error;
            continue;
        }
        ds.dependents.push_back(id);
        ++s.undone_deps;
    }
}

void TagTable::associate(TagId id, Task* t)
{
    std::lock_guard lock(m_);
    State& s = tags_[id];
    require(!s.has_task && !s.done,
            "submit: " + tag_name(id) + " is already used by another task; remove_tag it first");
    s.has_task = true;
    s.task = t;
    if (s.error) t->poison(s.error);
    if (s.undone_deps > 0) t->pending.fetch_add(1, std::memory_order_relaxed);
}

void TagTable::mark_done_locked(TagId id, State& s, std::exception_ptr error,
                                std::vector<Task*>& released)
{
    s.done = true;
    s.task = nullptr;
    if (error) s.error = error;
    for (TagId d : s.dependents) {
        auto it = tags_.find(d);
        if (it == tags_.end()) continue;  // removed meanwhile
        State& ds = it->second;
        if (s.error && !ds.error) {
            ds.error = s.error;
            if (ds.task) ds.task->poison(s.error);
        }
        if (--ds.undone_deps == 0 && ds.task) released.push_back(ds.task);
    }
    s.dependents.clear();
    (void)id;
    done_cv_.notify_all();
}

void TagTable::notify(TagId id, std::vector<Task*>& released)
{
    std::lock_guard lock(m_);
    State& s = tags_[id];
    require(!s.has_task, "notify_tag: " + tag_name(id) + " belongs to a task, which marks it done");
    if (!s.done) mark_done_locked(id, s, nullptr, released);
}

void TagTable::wait(TagId id)
{
    std::unique_lock lock(m_);
    require(tags_.contains(id),
            "wait_tag: " + tag_name(id) + " was never declared, used or notified");
    done_cv_.wait(lock, [&] {
        auto it = tags_.find(id);
        return it == tags_.end() || it->second.done;
    });
    auto it = tags_.find(id);
    if (it != tags_.end() && it->second.error) std::rethrow_exception(it->second.error);
}

void TagTable::remove(TagId id)
{
    std::lock_guard lock(m_);
    auto it = tags_.find(id);
    if (it == tags_.end()) return;
    require(!it->second.task, "remove_tag: " + tag_name(id) + "'s task has not completed yet");
    tags_.erase(it);
    done_cv_.notify_all();
}

}  // namespace tessera::rt::detail
