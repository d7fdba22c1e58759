// The emulated-accelerator driver (RuntimeConfig::nemu): devices without hardware, to test
// and study heterogeneous scheduling on any machine. Each has a memory node of its own in
// host memory (with the capacity emu_memory, so that eviction happens), transfer channels
// slowed to an emulated link (emu_bandwidth, emu_latency_us), and a worker that runs the
// codelets' CPU implementations (on no core of its own), emu_speed times as fast as a core:
// a slower one has its kernels padded. Internal.
#pragma once

#include "runtime/drivers/driver.hpp"

#include <memory>

namespace tessera::rt::detail {

std::unique_ptr<Driver> make_emu_driver();

}  // namespace tessera::rt::detail
