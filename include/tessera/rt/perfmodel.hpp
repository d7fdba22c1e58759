/// @file perfmodel.hpp
/// Performance models: how long a codelet's task takes on each kind of processing unit,
/// learned from its own executions (thesis §3.5). The HEFT schedulers (dm, dmda, dmdas,
/// dmdasd) place each task where it is expected to finish first, from these predictions.
///
///     inline constexpr rt::PerfModel gemm_model{"tile_dgemm"};
///     const rt::Codelet<...> gemm{.name = "tile_dgemm", .cpu = &f, .model = &gemm_model,
///                                 .flops = [](auto const& a, ...) { return 2.0 * ...; }};
///
/// Every execution is timed and recorded per (model, architecture, data footprint). The
/// footprint hashes the buffers' shapes (not their leading dimensions), so a 512 x 512 tile and
/// a 256 x 1024 one are told apart. Per footprint the runtime keeps mean, standard deviation and
/// count; a measurement further than 5 MADs from the median of the recent ones is rejected as an
/// outlier (one 100 ms hiccup must not send every GEMM to one GPU). Sizes never measured are
/// predicted by a regression over the measured ones, t = a s^b (+ c), s the data size in bytes.
/// A codelet without a calibrated model but with a flop count is predicted as flops divided by
/// the unit's measured speed, so no codelet is left without a prediction.
///
/// Models are kept per machine in TESSERA_PERFMODEL_DIR (default
/// $XDG_CACHE_HOME/tessera/perfmodels, else ~/.cache/tessera/perfmodels), one text file per
/// symbol under a folder named after the host: loaded when first needed, saved when the
/// runtime stops (written to a temporary file, then renamed). The format:
///
///     tessera-perfmodel 1
///     symbol <symbol>
///     entry <arch> <footprint, hex> <size in bytes> <count> <mean s> <M2 s^2> <rejected>
///
/// with one `entry` line per (architecture, footprint). A file that does not parse is ignored
/// with a warning on stderr.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::rt {

/// Which predictor a model trusts first.
enum class PerfModelKind : uint8_t {
    history,               ///< the mean of past runs of the same footprint; regression otherwise
    regression,            ///< t = a s^b, least squares on (log s, log t), updated online
    nonlinear_regression,  ///< t = a s^b + c (thesis Algorithm 4)
};

/// A performance model, named by its symbol (the name of its file). Declare it once, as a
/// constant, and point codelets at it.
class PerfModel {
public:
    /// A model named `symbol`, which must outlive it (a string literal); `kind` picks the
    /// predictor. Two models with one symbol share their measurements and their file.
    constexpr explicit PerfModel(std::string_view symbol,
                                 PerfModelKind kind = PerfModelKind::history) noexcept
        : symbol_(symbol), kind_(kind)
    {}
    /// The symbol: the name of the model's file and its key in Runtime::perfmodel_entries.
    constexpr std::string_view symbol() const noexcept { return symbol_; }
    /// Which predictor the model trusts first.
    constexpr PerfModelKind kind() const noexcept { return kind_; }

private:
    std::string_view symbol_;
    PerfModelKind kind_;
};

/// How far a model's learning has got for one (architecture, footprint).
enum class Calibration : uint8_t {
    uncalibrated,  ///< never measured
    calibrating,   ///< fewer than calibration_samples measurements: schedulers keep measuring
    calibrated,    ///< predictions are used
};
/// Accepted measurements of one (architecture, footprint) from which a history model
/// predicts with their mean (Calibration::calibrated).
inline constexpr uint64_t calibration_samples = 10;

/// A prediction of a task's length on some architecture.
struct Prediction {
    double seconds = 0;  ///< the expected length (0 when nothing at all is known)
    Calibration state = Calibration::uncalibrated;  ///< how much `seconds` can be trusted
    /// True when state is calibrated: `seconds` is a calibrated model's mean or regression,
    /// or the flop-count estimate of a codelet without a model.
    bool known() const noexcept { return state == Calibration::calibrated; }
};

/// One (architecture, footprint) of a model, as recorded.
struct PerfModelEntry {
    std::string arch;        ///< "cpu", "emu0", "cuda0", "cpu_x2" (a combined worker of 2 cores)
    uint64_t footprint = 0;  ///< hash of the buffers' shapes
    double size = 0;         ///< bytes of the buffers
    uint64_t count = 0;      ///< accepted measurements
    /// @name Statistics
    //@{
    /// Mean and sample standard deviation of the accepted measurements, in seconds (Welford's
    /// update): mean = Σ t_i / n, stddev = sqrt(Σ (t_i - mean)² / (n - 1)), 0 for n < 2.
    double mean = 0, stddev = 0;
    //@}
    uint64_t rejected = 0;  ///< outliers left out
};

}  // namespace tessera::rt
