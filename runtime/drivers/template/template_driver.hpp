// A driver to start a new one from (copy this folder, rename, list it in drivers.cpp). It
// compiles with the library, so that it keeps up with the interface, but no build lists it.
//
// What it shows: a device with a memory node of its own and one worker per device. Its worker
// here runs the codelets' CPU implementations (Arch::emu, as an emulated device does) on data
// the transfer channels copied into host memory; a real device would:
//   - give add_node a DeviceBackend that allocates its memory and copies to and from it;
//   - give its workers an Arch of their own, with a slot in Codelet for its implementations;
//   - launch kernels asynchronously in run_worker, calling RuntimeImpl::begin before and
//     RuntimeImpl::end after each (see drivers/cuda/cuda_worker.cpp), so that the next task's
//     data arrives while the current one runs.
// Internal.
#pragma once

#include "runtime/drivers/driver.hpp"

#include <memory>

namespace tessera::rt::detail {

std::unique_ptr<Driver> make_template_driver(unsigned devices);

}  // namespace tessera::rt::detail
