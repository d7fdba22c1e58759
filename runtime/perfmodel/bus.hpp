// BusModel: latency and bandwidth of each link between memory nodes, measured once per
// machine and configuration (a calibration of a few hundred milliseconds at most, saved with
// the performance models), and the predicted time of a transfer (thesis §3.6.1):
//
//   T(j -> i, bytes) = latency(j -> i) + bytes / bandwidth(j -> i)
//
// A copy between two devices goes through the host: T(j -> host) + T(host -> i). (The thesis
// divides the bandwidth by the number of accelerators to model a shared PCIe bus. Here the
// factor is 1: each emulated device has a link of its own, and each GPU's link is measured
// as it is, one PCIe or NVLink link per GPU on current machines. Copies that share a link at
// run time are not modelled.)
// File format, `bus-<hash of the signature>.model` in the model directory, one file per
// configuration (so that runtimes of different configurations, as the test sweeps start side
// by side, do not overwrite each other's calibration):
//
//     tessera-bus 1
//     signature <what the links depend on: node kinds and emulated link settings>
//     link <src> <dst> <latency s> <bandwidth bytes/s>
#pragma once

#include <tessera/rt/memory.hpp>

#include <string>
#include <vector>

namespace tessera::rt::detail {

struct LinkCost {
    double latency = 0;    // seconds
    double bandwidth = 0;  // bytes per second (0: unknown, costs nothing)
};

/// The name of the bus model file of a configuration: "bus-" and 16 hex digits of the FNV-1a
/// hash of its signature, ".model".
std::string bus_model_file(std::string const& signature);

class BusModel {
public:
    void resize(unsigned nodes)
    {
        links_.assign(std::size_t(nodes) * nodes, LinkCost{}), nodes_ = nodes;
    }
    unsigned nodes() const noexcept { return nodes_; }
    void set(NodeId src, NodeId dst, LinkCost c) { links_[src * nodes_ + dst] = c; }
    LinkCost get(NodeId src, NodeId dst) const { return links_[src * nodes_ + dst]; }
    /// Predicted seconds to move `bytes` from src to dst (through the host between devices).
    double time(NodeId src, NodeId dst, double bytes) const noexcept;

    /// Reads `path`; false if it is missing, corrupt, for another signature, or lacks a link
    /// between the host and a device (the bus is then measured again).
    bool load(std::string const& path, std::string const& signature);
    void save(std::string const& path, std::string const& signature) const;

private:
    unsigned nodes_ = 0;
    std::vector<LinkCost> links_;
};

}  // namespace tessera::rt::detail
