#include "runtime/drivers/cpu/cpu_driver.hpp"

#include "runtime/core/runtime_impl.hpp"

namespace tessera::rt::detail {

void worker_loop(RuntimeImpl& rt, WorkerId w)
{
    Parking& parking = rt.parking();
    for (;;) {
        if (ReadyTask t = rt.pop(w)) {
            rt.execute(t.get(), w);
            continue;
        }
        // nothing to do: register as idle, look once more, then sleep (see Parking)
        uint32_t ticket = parking.prepare_wait(w);
        if (ReadyTask t = rt.pop(w)) {
            parking.cancel_wait(w);
            rt.execute(t.get(), w);
            continue;
        }
        if (rt.stopping()) {
            parking.cancel_wait(w);
            return;
        }
        parking.commit_wait(w, ticket);
    }
}

}  // namespace tessera::rt::detail
