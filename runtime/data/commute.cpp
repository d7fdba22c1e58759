#include "runtime/data/commute.hpp"

#include "runtime/data/data_state.hpp"

#include <algorithm>
#include <mutex>

namespace tessera::rt::detail {

bool take_commute_handles_slow(Task* t, std::span<BufferSlot const> buffers)
{
    std::vector<DataState*> mine;
    for (BufferSlot const& b : buffers)
        if (b.mode == Mode::COMMUTE) mine.push_back(b.state);
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    for (std::size_t i = 0; i < mine.size(); ++i) {
        std::lock_guard lock(mine[i]->cm);
        if (mine[i]->commute_holder == nullptr) {
            mine[i]->commute_holder = t;
            continue;
        }
        mine[i]->commute_waiters.push_back(t);
        for (std::size_t j = 0; j < i; ++j) {  // give back what we took: its waiters may go
            std::lock_guard l2(mine[j]->cm);
            mine[j]->commute_holder = nullptr;
        }
        return false;
    }
    return true;
}

void give_back_commute_handles_slow(Task* t, std::span<BufferSlot const> buffers,
                                    std::vector<Task*>& waiters)
{
    for (BufferSlot const& b : buffers) {
        if (b.mode != Mode::COMMUTE) continue;
        std::lock_guard lock(b.state->cm);
        if (b.state->commute_holder != t) continue;
        b.state->commute_holder = nullptr;
        waiters.insert(waiters.end(), b.state->commute_waiters.begin(),
                       b.state->commute_waiters.end());
        b.state->commute_waiters.clear();
    }
}

}  // namespace tessera::rt::detail
