#include "runtime/perfmodel/predictor.hpp"

namespace tessera::rt::detail {

namespace {
void compute_footprint(KernelShape const& k)
{
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](uint64_t v) {
        for (int i = 0; i < 8; ++i) {
            h ^= (v >> (8 * i)) & 0xff;
            h *= 1099511628211ull;
        }
    };
    double bytes = 0;
    for (BufferSlot const& b : k.buffers) {
        Layout const& l = *b.layout;
        mix(uint64_t(l.kind));
        mix(uint64_t(l.nx));
        mix(uint64_t(l.ny));
        mix(uint64_t(l.nz));
        mix(l.elem_size);
        bytes += double(l.bytes());
    }
    k.footprint = {h | 1, bytes};  // never 0: 0 means "not computed"
}

/// The flop rate assumed for an architecture before any task measured it.
constexpr double default_flops_per_second = 1e9;
}  // namespace

Prediction Predictor::length(KernelShape const& k, std::string const& arch, double unit_speed)
{
    if (!k.ops) return {};
    if (k.footprint.hash == 0) compute_footprint(k);
    Prediction p;
    PerfModel const* model = k.ops->model(k.codelet);
    if (model) {
        p = models_.predict(*model, arch, k.footprint.hash, k.footprint.bytes);
        if (p.known()) return p;
    }
    double flops = k.ops->flops(k.codelet, k.args);
    if (flops < 0) return p;  // nothing better: uncalibrated, or calibrating with a few samples
    double speed = models_.speed(arch);
    if (speed <= 0) speed = default_flops_per_second * unit_speed;
    // with a model still calibrating, the estimate orders nothing: the model must be measured
    return {flops / speed, model ? p.state : Calibration::calibrated};
}

void Predictor::record(KernelShape const& k, std::string const& arch, double seconds)
{
    PerfModel const* model = k.ops->model(k.codelet);
    double flops = k.ops->flops(k.codelet, k.args);
    if (!model && flops < 0) return;
    if (k.footprint.hash == 0) compute_footprint(k);
    if (model) models_.record(*model, arch, k.footprint.hash, k.footprint.bytes, seconds);
    if (flops >= 0) models_.record_speed(arch, flops, seconds);
}

}  // namespace tessera::rt::detail
