// ModelStore: a runtime's performance models, by symbol, then architecture, then footprint,
// loaded from the machine's model directory when first needed and saved when the runtime
// stops. Also the measured speed of each architecture in flop/s, for the flop-based default.
// Internal; the file format is documented in include/tessera/rt/perfmodel.hpp.
#pragma once

#include "runtime/perfmodel/history.hpp"

#include <tessera/rt/perfmodel.hpp>

#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tessera::rt::detail {

class ModelStore {
public:
    /// `directory`: where the machine's models live (created on save); empty: not persisted.
    explicit ModelStore(std::string directory) : dir_(std::move(directory)) {}

    void record(PerfModel const& m, std::string const& arch, uint64_t footprint, double size,
                double seconds);
    Prediction predict(PerfModel const& m, std::string const& arch, uint64_t footprint,
                       double size);
    std::vector<PerfModelEntry> entries(std::string_view symbol);

    /// Flop/s measured on `arch` (tasks with a flop count), 0 before any.
    double speed(std::string const& arch);
    void record_speed(std::string const& arch, double flops, double seconds);

    /// Writes every model changed since it was loaded (temporary file, then rename).
    void save();
    std::string const& directory() const noexcept { return dir_; }
    void set_directory(std::string dir) { dir_ = std::move(dir); }

    /// The default directory: TESSERA_PERFMODEL_DIR, else $XDG_CACHE_HOME/tessera/perfmodels,
    /// else ~/.cache/tessera/perfmodels; then a folder named after the host.
    static std::string default_directory();

private:
    struct Model {
        bool dirty = false;
        std::map<std::string, std::unordered_map<uint64_t, FootprintStats>> archs;
    };
    Model& model_locked(std::string_view symbol);  // loads it on first use
    void load_locked(std::string const& symbol, Model& m);
    std::string path_of(std::string const& symbol) const;

    std::string dir_;
    std::mutex m_;
    std::unordered_map<std::string, Model> models_;
    std::unordered_map<std::string, std::pair<double, double>> speed_;  // arch -> (flops, seconds)
};

/// The shape a performance model indexes a kernel by: an FNV-1a hash of its buffers' kinds,
/// extents and element sizes (not their leading dimensions: a tile copied contiguously runs
/// as fast), and their total size in bytes. Computed once per task (hash 0: not yet).
struct Footprint {
    uint64_t hash = 0;
    double bytes = 0;
};

}  // namespace tessera::rt::detail
