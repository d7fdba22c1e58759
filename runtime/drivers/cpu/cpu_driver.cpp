#include "runtime/drivers/cpu/cpu_driver.hpp"

#include "runtime/core/runtime_impl.hpp"

namespace tessera::rt::detail {

void worker_loop(RuntimeImpl& rt, WorkerId w)
{
    for (bool stop = false; !stop;) {
        ReadyTask t = rt.pop(w);
        if (!t) t = sleep_until_work(rt, w, stop);
        if (t) rt.execute(Internals::task(t), w);
    }
}

ReadyTask sleep_until_work(RuntimeImpl& rt, WorkerId w, bool& stop)
{
    Parking& parking = rt.parking();
    uint32_t ticket = parking.prepare_wait(w);
    if (ReadyTask t = rt.pop(w)) {  // pushed between our last look and the registration
        parking.cancel_wait(w);
        return t;
    }
    if (rt.stopping()) {
        parking.cancel_wait(w);
        stop = true;
        return {};
    }
    parking.commit_wait(w, ticket);
    return {};
}

}  // namespace tessera::rt::detail
