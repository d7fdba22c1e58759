// The drivers this build has, in the order their workers are numbered: the CPU workers
// first (ids 0 .. ncpus-1, the combined workers' members), then the emulated devices, then the
// GPUs. A new driver (start from template/) is one line here.
#include "runtime/drivers/cpu/cpu_driver.hpp"
#include "runtime/drivers/emu/emu_driver.hpp"
#if TESSERA_HAVE_CUDA
#include "runtime/drivers/cuda/cuda_driver.hpp"
#endif

namespace tessera::rt::detail {

std::vector<std::unique_ptr<Driver>> make_drivers()
{
    std::vector<std::unique_ptr<Driver>> drivers;
    drivers.push_back(make_cpu_driver());
    drivers.push_back(make_emu_driver());
#if TESSERA_HAVE_CUDA
    drivers.push_back(make_cuda_driver());
#endif
    return drivers;
}

}  // namespace tessera::rt::detail
