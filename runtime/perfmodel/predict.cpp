// What the runtime predicts for its schedulers: task lengths (performance models, with the
// flop-based default), transfer times (bus model, calibrated once per machine), and the
// measurements that feed them.
#include "runtime/core/runtime_impl.hpp"
#include "runtime/data/coherency.hpp"
#include "runtime/data/data_state.hpp"
#include "runtime/data/device_backend.hpp"

#include <cmath>
#include <iostream>
#include <sstream>

namespace tessera::rt::detail {

namespace {
/// FNV-1a over the shapes of the buffers: kind, extents, element size (not the leading
/// dimensions: a tile copied contiguously runs as fast).
void compute_footprint(Task* t)
{
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](uint64_t v) {
        for (int i = 0; i < 8; ++i) {
            h ^= (v >> (8 * i)) & 0xff;
            h *= 1099511628211ull;
        }
    };
    double bytes = 0;
    for (BufferSlot const& b : t->buffers) {
        Layout const& l = b.state->layout;
        mix(uint64_t(l.kind));
        mix(uint64_t(l.nx));
        mix(uint64_t(l.ny));
        mix(uint64_t(l.nz));
        mix(l.elem_size);
        bytes += double(l.bytes());
    }
    t->footprint = h | 1;  // never 0: 0 means "not computed"
    t->data_bytes = bytes;
}

/// The flop rate assumed for an architecture before any task measured it.
constexpr double default_flops_per_second = 1e9;
}  // namespace

double RuntimeImpl::now() const noexcept
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

Prediction RuntimeImpl::expected_length(Task* t, WorkerId w) { return predict(t, perf_arch_[w], workers_[w].speed); }

Prediction RuntimeImpl::expected_length_on_cores(Task* t, unsigned size)
{
    return size <= 1 ? predict(t, "cpu", 1.0) : predict(t, "cpu_x" + std::to_string(size), double(size));
}

unsigned RuntimeImpl::max_parallelism(Task const* t) const noexcept
{
    if (!t->ops || t->bound_worker != no_worker) return 1;
    for (BufferSlot const& b : t->buffers)
        if (b.mode == Mode::COMMUTE) return 1;
    unsigned max = 1;
    ParallelKind kind = t->ops->parallel(t->codelet, &max);
    return kind == ParallelKind::sequential ? 1 : std::max(1u, max);
}

Prediction RuntimeImpl::predict(Task* t, std::string const& arch, double unit_speed)
{
    if (!t->ops) return {};
    if (t->footprint == 0) compute_footprint(t);
    Prediction p;
    PerfModel const* model = t->ops->model(t->codelet);
    if (model) {
        p = models_.predict(*model, arch, t->footprint, t->data_bytes);
        if (p.known()) return p;
    }
    KernelArgs args = kernel_args(t, t->buffers.data());
    double flops = t->ops->flops(t->codelet, args);
    if (flops < 0) return p;  // nothing better: uncalibrated, or calibrating with a few samples
    double speed = models_.speed(arch);
    if (speed <= 0) speed = default_flops_per_second * unit_speed;
    // with a model still calibrating, the estimate orders nothing: the model must be measured
    return {flops / speed, model ? p.state : Calibration::calibrated};
}

double RuntimeImpl::expected_transfer(Task* t, WorkerId w)
{
    if (node_count() == 1) return 0;  // one memory node: nothing ever moves
    NodeId node = NodeId(workers_[w].memory_node);
    double total = 0;
    for (std::size_t i = 0; i < t->buffers.size(); ++i) {
        BufferSlot const& b = t->buffers[i];
        if (!reads(b.mode)) continue;
        bool first = true;
        for (std::size_t j = 0; j < i; ++j) first = first && t->buffers[j].state != b.state;
        if (!first) continue;
        DataState* d = b.state;
        std::lock_guard lock(d->cm);
        Replica const& r = d->replicas[node];
        if (r.state != Msi::invalid || r.busy) continue;  // there, or on its way: costs nothing more
        double best = std::numeric_limits<double>::infinity();
        for (NodeId k = 0; k < d->replicas.size(); ++k)
            if (d->replicas[k].state != Msi::invalid && !node_retired(k))  // never a faulted GPU's
                best = std::min(best, bus_.time(k, node, double(d->layout.bytes())));
        if (std::isfinite(best)) total += best;
    }
    return total;
}

void RuntimeImpl::record_sample(Task* t, WorkerId w, double seconds)
{
    std::string arch = t->group_size > 1 ? "cpu_x" + std::to_string(t->group_size) : perf_arch_[w];
    PerfModel const* model = t->ops->model(t->codelet);
    KernelArgs args = kernel_args(t, t->buffers.data());
    double flops = t->ops->flops(t->codelet, args);
    if (!model && flops < 0) return;
    if (t->footprint == 0) compute_footprint(t);
    if (model) models_.record(*model, arch, t->footprint, t->data_bytes, seconds);
    if (flops >= 0) models_.record_speed(arch, flops, seconds);
}

bool RuntimeImpl::runnable_somewhere(Task const* t) const
{
    if (t->bound_worker != no_worker) return can_run_on(t, t->bound_worker);
    if (t->context != 0) {
        for (WorkerId w = 0; w < workers_.size(); ++w)
            if (can_run_on(t, w)) return true;
        return false;
    }
    for (WorkerId w : arch_representatives_)
        if (first_runnable_implementation(t, w)) return true;
    return false;
}

// ---- the bus model: measured once per machine and configuration -----------------------------------

void RuntimeImpl::calibrate_bus()
{
    bus_.resize(node_count());
    if (node_count() < 2) return;
    std::ostringstream sig;  // what the links depend on: the nodes, the emulated link, the GPUs
    sig << "nodes " << node_count();
    for (NodeId n = 1; n < node_count(); ++n) sig << (node(n).kind() == NodeKind::cuda ? " cuda" : " emu");
    sig << " emu_bandwidth '" << config_.emu_bandwidth.value_or("") << "' emu_latency_us " << *config_.emu_latency_us;
    for (CudaDeviceInfo const& g : cuda_devices_) sig << " gpu" << g.ordinal << " '" << g.name << "'";
    std::string path = models_.directory().empty() ? "" : models_.directory() + "/" + bus_model_file(sig.str());
    if (!path.empty() && bus_.load(path, sig.str())) return;

    // latency: the median of small copies; bandwidth: large copies net of the latency, between
    // page-locked host memory and the node's own memory (a GPU's copies are much faster: a
    // larger block keeps the latency's share small)
    constexpr std::size_t small = 8;
    auto layout_of_bytes = [](std::size_t n) {
        Layout l;
        l.kind = InterfaceKind::vector;
        l.elem_size = 1;
        l.nx = l.ld = int64_t(n);
        return l;
    };
    for (NodeId d = 1; d < node_count(); ++d) {
        std::size_t large = node(d).kind() == NodeKind::cuda ? std::size_t(64) << 20 : std::size_t(4) << 20;
        // the device end: GPU memory outside the node's accounting, or an emulated node's host
        // memory (and then no page-locking: no CUDA context for a runtime without GPUs)
        DeviceBackend* gpu = devices_[d].get();
        std::unique_ptr<void, void (*)(void*)> host(allocate_host(large, gpu != nullptr), &free_pinned);
        std::vector<std::byte> emulated(gpu ? 0 : large);
        void* device = gpu ? gpu->allocate(large) : emulated.data();
        if (!device) throw DeviceError("bus calibration: no room for " + std::to_string(large) + " bytes on node " + std::to_string(d));
        auto timed = [&](NodeId src, NodeId dst, std::size_t bytes, int reps) {
            std::vector<double> t;
            Layout l = layout_of_bytes(bytes);
            void const* from = src == host_node ? host.get() : device;
            void* to = dst == host_node ? host.get() : device;
            for (int i = 0; i < reps; ++i) {
                auto t0 = std::chrono::steady_clock::now();
                transfers_.copy_now({src, dst, from, l, to, l, {}});
                t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            }
            std::sort(t.begin(), t.end());
            return t[t.size() / 2];
        };
        try {
            for (auto [src, dst] : {std::pair{host_node, d}, std::pair{d, host_node}}) {
                double lat = timed(src, dst, small, 9);
                double big = timed(src, dst, large, 3);
                bus_.set(src, dst, {lat, double(large) / std::max(big - lat, 1e-9)});
            }
        } catch (...) {
            if (gpu) gpu->free(device);
            throw;
        }
        if (gpu) gpu->free(device);
    }
    links_.reset();  // calibration traffic is not the application's
    if (!path.empty()) bus_.save(path, sig.str());
}

void RuntimeImpl::open_decision_log()
{
    if (!config_.sched_log) return;
    if (*config_.sched_log == "stderr") {
        sched_log_ = &std::cerr;
        return;
    }
    sched_log_file_ = std::make_unique<std::ofstream>(*config_.sched_log, std::ios::app);
    require(static_cast<bool>(*sched_log_file_),
            "RuntimeConfig::sched_log / TESSERA_SCHED_LOG: cannot open '" + *config_.sched_log + "'");
    sched_log_ = sched_log_file_.get();
}

void RuntimeImpl::log_decision(std::string_view line)
{
    if (!sched_log_) return;
    std::lock_guard lock(sched_log_m_);
    *sched_log_ << line;
    if (line.empty() || line.back() != '\n') *sched_log_ << '\n';
}

}  // namespace tessera::rt::detail
