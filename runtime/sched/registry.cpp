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
    auto it = std::find_if(entries_.begin(), entries_.end(),
                           [&](Entry const& e) { return e.name == name; });
    if (it != entries_.end())
        *it = Entry{std::move(name), std::move(description), std::move(make)};
    else
        entries_.push_back(Entry{std::move(name), std::move(description), std::move(make)});
}

void PolicyRegistry::alias(std::string name, std::string target)
{
    std::lock_guard lock(m_);
    aliases_.emplace_back(std::move(name), std::move(target));
}

std::unique_ptr<Policy> PolicyRegistry::create(std::string_view name) const
{
    Factory make;
    {
        std::lock_guard lock(m_);
        std::string_view target = name;
        for (auto const& [a, t] : aliases_)
            if (a == name) target = t;
        for (Entry const& e : entries_)
            if (e.name == target) make = e.make;
    }
    if (!make) {
        std::string known;
        for (auto const& n : all_names()) known += (known.empty() ? "" : ", ") + n;
        throw InvalidArgument("scheduler: unknown policy '" + std::string(name) +
                              "' (known: " + known + ")");
    }
    return make();
}

bool PolicyRegistry::contains(std::string_view name) const
{
    auto all = all_names();
    return std::find(all.begin(), all.end(), name) != all.end();
}

std::vector<std::string> PolicyRegistry::all_names() const
{
    std::vector<std::string> out = names();
    std::lock_guard lock(m_);
    for (auto const& [a, t] : aliases_) out.push_back(a);
    return out;
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
        auto* r =
            new PolicyRegistry;  // never destroyed: runtimes may outlive static destruction order
        r->add("eager", "one shared FIFO queue; priority > 0 goes first (StarPU's eager / greedy)",
               detail::make_eager);
        r->add("prio", "one shared queue ordered by priority, FIFO among equals",
               detail::make_prio);
        r->add("random", "each task to a random worker, weighted by worker speed (w-rand)",
               detail::make_random);
        r->add("ws", "work stealing: per-worker deques, owner LIFO, thieves steal FIFO at random",
               detail::make_ws);
        r->add("lws",
               "locality work stealing: tasks stay on the worker that released them, "
               "priority-ordered; idle workers steal from the closest cores first",
               detail::make_lws);
        r->add("dws",
               "data-aware work stealing (seed 001): each ready task to the mailbox of the worker "
               "whose memory node holds most of its data; mailboxes first, then stealing",
               detail::make_dws);
        r->add("law",
               "locality-aware work stealing (seed 001): each ready task to the mailbox of a "
               "worker holding a valid copy of what it writes (owner computes), else local",
               detail::make_law);
        r->add("dm",
               "heft-tm: each task to the worker where it is expected to end first (perf models)",
               detail::make_dm);
        r->add("dmda",
               "heft-tmdp: dm plus the time to bring the task's data to the worker (bus model)",
               detail::make_dmda);
        r->add(
            "dmdas",
            "heft-tmdp-pr: dmda plus prefetch of the data at assignment, queues sorted by priority",
            detail::make_dmdas);
        r->add("dmdasd",
               "dmdas deciding by sorted queues: a task waits only for those of its priority or "
               "higher",
               detail::make_dmdasd);
        r->alias("heft-tm", "dm");
        r->alias("heft-tmdp", "dmda");
        r->alias("heft-tmdm", "dmda");
        r->alias("heft-tmdp-pr", "dmdas");
        r->alias("data-aware-ws", "dws");
        r->alias("locality-aware-ws", "law");
        return r;
    }();
    return *registry;
}

}  // namespace tessera::rt
