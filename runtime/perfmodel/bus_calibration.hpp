// Bus calibration: measures the latency and bandwidth of the link between the host and each
// device node once per machine and configuration, or loads them from the model directory
// where an earlier run saved them (the file is named after `signature`, what the links
// depend on). Internal.
#pragma once

#include "runtime/data/device_backend.hpp"
#include "runtime/data/transfer.hpp"
#include "runtime/perfmodel/bus.hpp"

#include <string>
#include <vector>

namespace tessera::rt::detail {

struct BusCalibrationInput {
    /// Per memory node (0: the host): its GPU, or nullptr (the host, an emulated device).
    std::vector<DeviceBackend*> devices;
    TransferEngine* transfers = nullptr;  // copies with the links' own channels and costs
    std::string signature;
    std::string directory;  // where the models live; empty: measured, not saved
};

/// Sizes `bus` for the nodes and fills it: loaded, or measured (latency: the median of small
/// copies; bandwidth: large copies net of the latency) and saved. Throws DeviceError when a
/// GPU has no room for the copies.
void calibrate_bus_model(BusModel& bus, BusCalibrationInput const& in);

}  // namespace tessera::rt::detail
