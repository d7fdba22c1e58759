// The named registry of scheduling policies.
#include "runtime/sched/builtin.hpp"

#include <tessera/error.hpp>

#include <algorithm>

namespace tessera::rt {

void PolicyRegistry::add(std::string name, std::string description, Factory make)
{
    require(!name.empty(), "PolicyRegistry::add: empty name");
    require(static_cast<bool>(make), "PolicyRegistry::add: no factory for '" + name + "'");
    std::lock_guard lock(m_);
    auto it = std::find_if(entries_.begin(), entries_.end(), [&](Entry const& e) { return e.name == name; });
    if (it != entries_.end())
        *it = Entry{std::move(name), std::move(description), std::move(make)};
    else
        entries_.push_back(Entry{std::move(name), std::move(description), std::move(make)});
}

std::unique_ptr<Policy> PolicyRegistry::create(std::string_view name) const
{
    Factory make;
    {
        std::lock_guard lock(m_);
        for (Entry const& e : entries_)
            if (e.name == name) make = e.make;
    }
    if (!make) {
        std::string known;
        for (auto const& n : names()) known += (known.empty() ? "" : ", ") + n;
        throw InvalidArgument("scheduler: unknown policy '" + std::string(name) + "' (known: " + known + ")");
    }
    return make();
}

bool PolicyRegistry::contains(std::string_view name) const
{
    std::lock_guard lock(m_);
    return std::any_of(entries_.begin(), entries_.end(), [&](Entry const& e) { return e.name == name; });
}

std::vector<std::string> PolicyRegistry::names() const
{
    std::lock_guard lock(m_);
    std::vector<std::string> out;
    for (Entry const& e : entries_) out.push_back(e.name);
    return out;
}

std::string PolicyRegistry::description(std::string_view name) const
{
    std::lock_guard lock(m_);
    for (Entry const& e : entries_)
        if (e.name == name) return e.description;
    return {};
}

PolicyRegistry& policies()
{
    static PolicyRegistry* registry = [] {
        auto* r = new PolicyRegistry;  // never destroyed: runtimes may outlive static destruction order
        r->add("eager", "one shared FIFO queue; priority > 0 goes first (StarPU's eager / greedy)",
               detail::make_eager);
        r->add("prio", "one shared queue ordered by priority, FIFO among equals", detail::make_prio);
        r->add("random", "each task to a random worker, weighted by worker speed (w-rand)",
               detail::make_random);
        r->add("ws", "work stealing: per-worker deques, owner LIFO, thieves steal FIFO at random",
               detail::make_ws);
        r->add("lws", "locality work stealing: tasks stay on the worker that released them, "
                      "priority-ordered; idle workers steal from the closest cores first",
               detail::make_lws);
        return r;
    }();
    return *registry;
}

}  // namespace tessera::rt
