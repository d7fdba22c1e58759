// tessera-calibrate: fills this machine's performance models, so that the HEFT schedulers
// predict well from the first task of the next program (StarPU's starpu_calibrate_bus, then a
// calibration run as STARPU_CALIBRATE=1 makes one).
//
//   1. The bus: the latency and bandwidth of every link between the host and a device node are
//      measured again (as tessera-bus --recalibrate does: a runtime started on a scratch
//      directory, which has no calibration to load), and the measured bus model replaces the
//      one of this configuration in the model directory.
//   2. The kernels: Cholesky (potrf), LU (getrf), QR (geqrf) and a product (gemm) in double
//      precision on matrices of 4 x 4 tiles, at each tile size nb, each run again until the
//      kernels inside it (potrf, trsm, syrk, gemm, the LU and QR panels and updates ...) are
//      calibrated at the sizes it gives them: rt::calibration_samples samples per size on the
//      architecture the schedulers chose, and calibrated as the runtime sees it on the others
//      (where a regression over 2 sizes may stand in for samples), 30 runs at most. The
//      regressions over the sizes then predict the other sizes.
//
// A progress bar on a terminal, one line per step otherwise. The models go where the runtime
// keeps them (TESSERA_PERFMODEL_DIR/<host>, by default ~/.cache/tessera/perfmodels/<host>) or
// to --dir DIR; `tessera-perfmodel list` shows them. The runtime's usual variables choose the
// workers (TESSERA_NCPU, TESSERA_NCUDA, TESSERA_NEMU ...): calibrate with the configuration the
// programs will use. On 2 cores it takes 17 s by default (45 s beside a build), --quick 1 s.
//
// Usage: tessera-calibrate [--quick] [--nb LIST] [--dir DIR] [--help]
#include "python-free-tools/common/model_dir.hpp"
#include "python-free-tools/common/runtime_report.hpp"
#include "runtime/perfmodel/history.hpp"

#include <tessera/tessera.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <vector>

namespace fs = std::filesystem;
namespace rt = tessera::rt;

namespace {

constexpr char const* usage_text =
    "usage: tessera-calibrate [--quick] [--nb LIST] [--dir DIR]\n"
    "Measures the bus, then runs potrf, getrf, geqrf and gemm on tile matrices at a few tile\n"
    "sizes, so that the performance models of their kernels are calibrated.\n"
    "  --quick     tile sizes 128,256 only (a few seconds)\n"
    "  --nb LIST   the tile sizes, comma-separated (default 192,320,512,768,1024)\n"
    "  --dir DIR   write the models to DIR (default: TESSERA_PERFMODEL_DIR/<host>, else\n"
    "              ~/.cache/tessera/perfmodels/<host>)\n";

int usage_error(std::string const& why)
{
    std::fprintf(stderr, "tessera-calibrate: %s\n%s", why.c_str(), usage_text);
    return 2;
}

/// "128,256": positive tile sizes; false on anything else (an empty item included).
bool parse_sizes(std::string_view text, std::vector<int64_t>& out)
{
    out.clear();
    for (std::size_t start = 0;;) {
        std::size_t const comma = text.find(',', start);
        std::string const item(text.substr(start, comma == text.npos ? text.npos : comma - start));
        char* end = nullptr;
        long long const v = item.empty() ? 0 : std::strtoll(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || v < 1 || v > 100000) return false;
        out.push_back(v);
        if (comma == text.npos) return true;
        start = comma + 1;
    }
}

// ---- the bus -------------------------------------------------------------------------------

/// Measures the bus model of the configuration the environment describes on a fresh scratch
/// directory (where there is none to load), prints it, and copies its file into `dir` over
/// the one measured before.
void calibrate_bus(fs::path const& dir)
{
    fs::path const scratch =
        fs::temp_directory_path() / ("tessera-calibrate-" + std::to_string(getpid()));
    fs::create_directories(scratch);
    struct Cleanup {
        fs::path p;
        ~Cleanup()
        {
            std::error_code ec;
            fs::remove_all(p, ec);
        }
    } cleanup{scratch};
    rt::RuntimeConfig config;
    config.perfmodel_dir = scratch.string();
    {
        rt::Runtime r{config};
        tessera::tools::print_workers(r);
        tessera::tools::print_memory_nodes(r);
        tessera::tools::print_bus_model(r);
    }
    fs::create_directories(dir);
    for (auto const& f : fs::directory_iterator(scratch))
        if (f.path().filename().string().rfind("bus-", 0) == 0)
            fs::copy_file(f.path(), dir / f.path().filename(),
                          fs::copy_options::overwrite_existing);
}

// ---- the kernels ---------------------------------------------------------------------------

/// Tile rows and columns of the matrices: a few of each kind of task per run (k potrf, getrf
/// and geqrf panels, k^3 gemm) without making a run of the largest tiles long.
constexpr int64_t tiles = 4;

/// A routine run at one tile size until its kernels are calibrated.
struct Step {
    char const* routine;
    int64_t nb;
    /// The kernels' models the step waits for (until calibrated() says so, or max_runs).
    /// These are the linear algebra's internal symbols: were one renamed, the step would
    /// still make its min_runs.
    std::vector<std::string> kernels;
    int min_runs, max_runs;
    double weight;  // the flops of min_runs: the progress bar moves with the time
};

std::vector<Step> plan(std::vector<int64_t> const& sizes)
{
    // potrf, geqrt, tpqrt run once per tile column: a few runs give calibration_samples. The LU
    // panels are all of different heights (a footprint each, once per run), and each may run
    // on one core or on a group (cpu_x2 ...): calibration_samples runs, or more.
    int const per_column = int((rt::calibration_samples + tiles - 1) / tiles);
    int const per_panel = int(rt::calibration_samples);
    int const max_runs = 3 * int(rt::calibration_samples);
    std::vector<Step> steps;
    for (int64_t nb : sizes) {
        double const n = double(nb * tiles), n3 = n * n * n;
        steps.push_back({"potrf",
                         nb,
                         {"tile_dpotrf", "tile_dtrsm", "tile_dsyrk", "tile_dgemm"},
                         per_column,
                         max_runs,
                         per_column * n3 / 3});
        steps.push_back({"getrf",
                         nb,
                         {"tile_dgetrf_panel", "tile_dlaswp"},
                         per_panel,
                         max_runs,
                         per_panel * 2 * n3 / 3});
        steps.push_back({"geqrf",
                         nb,
                         {"tile_dgeqrt", "tile_dormqr", "tile_dtpqrt", "tile_dtpmqrt"},
                         per_column,
                         max_runs,
                         per_column * 4 * n3 / 3});
        steps.push_back({"gemm", nb, {"tile_dgemm"}, 1, max_runs, 2 * n3});  // k^3 = 64 tasks a run
    }
    return steps;
}

/// Per (symbol, architecture, footprint) of the step's kernels: accepted samples, and whether
/// the runtime predicts it as calibrated. That is ModelStore::predict's rule: its own
/// calibration_samples, or else a regression, which takes 2 footprints of the architecture
/// measured min_window times (the schedulers stop measuring an architecture, say a slow group
/// of cores, once its regression predicts it).
struct Count {
    uint64_t samples = 0;
    bool calibrated = false;
};
using Counts = std::map<std::tuple<std::string, std::string, uint64_t>, Count>;
Counts counts(rt::Runtime& r, Step const& s)
{
    Counts c;
    for (auto const& symbol : s.kernels) {
        auto const entries = r.perfmodel_entries(symbol);
        std::map<std::string, int> fit_points;  // per architecture
        for (auto const& e : entries)
            if (e.count >= rt::detail::FootprintStats::min_window && e.size > 0 && e.mean > 0)
                ++fit_points[e.arch];
        for (auto const& e : entries)
            c[{symbol, e.arch, e.footprint}] = {e.count, e.count >= rt::calibration_samples ||
                                                             fit_points[e.arch] >= 2};
    }
    return c;
}

/// Whether what the step measured (since `before`) is calibrated: every (symbol, architecture,
/// footprint) as the runtime sees it, and each (symbol, footprint) from calibration_samples of
/// its own on one architecture at least (the one the schedulers chose), so that every size
/// has a history and not only an extrapolation. What earlier steps or other programs measured
/// is not this step's business.
bool calibrated(Counts const& before, Counts const& now)
{
    std::map<std::pair<std::string, uint64_t>, uint64_t> most;  // (symbol, footprint) -> samples
    for (auto const& [key, count] : now) {
        auto const it = before.find(key);
        if (it != before.end() && it->second.samples == count.samples) continue;
        if (!count.calibrated) return false;
        auto& m = most[{std::get<0>(key), std::get<2>(key)}];
        m = std::max(m, count.samples);
    }
    for (auto const& [key, samples] : most)
        if (samples < rt::calibration_samples) return false;
    return true;
}

/// One run of `routine` on a fresh n x n matrix of nb x nb tiles.
void run_once(rt::Runtime& r, char const* routine, int64_t nb, uint64_t seed)
{
    using tessera::Op;
    int64_t const n = nb * tiles;
    std::string_view const name = routine;
    tessera::TileMatrix<double> A{r, n, n, nb};
    if (name == "potrf") {
        tessera::generate_hpd(A, 1e3, seed);
        if (int64_t info = tessera::potrf(tessera::Uplo::lower, A); info != 0)
            throw tessera::Error("potrf: info " + std::to_string(info));
    } else if (name == "getrf") {
        tessera::generate_random(A, seed);
        tessera::Pivots ipiv{A};
        (void)tessera::getrf(A, ipiv);  // a singular random matrix still times its kernels
    } else if (name == "geqrf") {
        tessera::generate_random(A, seed);
        tessera::QrFactors<double> F{A};
        tessera::geqrf(A, F);
    } else {
        tessera::TileMatrix<double> B{r, n, n, nb}, C{r, n, n, nb};
        tessera::generate_random(A, seed);
        tessera::generate_random(B, seed + 1);
        tessera::generate_random(C, seed + 2);
        tessera::gemm(Op::notrans, Op::notrans, 1.0, A, B, 0.5, C);
    }
}

/// The progress line: redrawn in place on a terminal, one line per finished step otherwise.
class Progress {
public:
    explicit Progress(double total) : total_(total), tty_(isatty(STDOUT_FILENO) == 1) {}

    void show(double done, std::string const& what)
    {
        if (!tty_) return;
        int const percent = int(std::lround(100 * done / total_));
        constexpr int bar = 30;
        int const filled = std::clamp(int(bar * done / total_), 0, bar);
        std::string line = "[" + std::string(filled, '#') + std::string(bar - filled, ' ') + "] " +
                           std::to_string(percent) + "% " + what;
        // spaces over the end of a longer line before it
        std::size_t const drawn = line.size();
        if (line.size() < width_) line.append(width_ - line.size(), ' ');
        width_ = drawn;
        std::printf("\r%s", line.c_str());
        std::fflush(stdout);
    }
    void finished(double done, std::string const& what, int runs, double seconds, bool calibrated)
    {
        if (tty_) return show(done, what);
        std::printf("[%3d%%] %s: %d %s, %.2f s%s\n", int(std::lround(100 * done / total_)),
                    what.c_str(), runs, runs == 1 ? "run" : "runs", seconds,
                    calibrated ? "" : " (not calibrated)");
        std::fflush(stdout);
    }
    void end()
    {
        if (tty_) std::printf("\n");
    }

private:
    double total_;
    bool tty_;
    std::size_t width_ = 0;
};

void calibrate_kernels(fs::path const& dir, std::vector<int64_t> const& sizes)
{
    auto const steps = plan(sizes);
    double total = 0;
    for (auto const& s : steps) total += s.weight;
    rt::RuntimeConfig config;
    config.perfmodel_dir = dir.string();
    rt::Runtime r{config};
    Progress progress(total);
    double done = 0;
    uint64_t seed = 1;
    int uncalibrated = 0;
    auto const start = std::chrono::steady_clock::now();
    for (auto const& s : steps) {
        std::string const what = std::string(s.routine) + " nb=" + std::to_string(s.nb);
        auto const t0 = std::chrono::steady_clock::now();
        Counts const before = counts(r, s);
        int runs = 0;
        bool ok = false;
        while (runs < s.max_runs && !ok) {
            // the bar moves by the planned runs; the runs beyond them show as a count
            progress.show(done + s.weight * std::min(1.0, double(runs) / s.min_runs),
                          runs < s.min_runs ? what
                                            : what + " (run " + std::to_string(runs + 1) + ")");
            run_once(r, s.routine, s.nb, seed += 3);
            ok = ++runs >= s.min_runs && calibrated(before, counts(r, s));
        }
        uncalibrated += !ok;
        done += s.weight;
        double const seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        progress.finished(done, what, runs, seconds, ok);
    }
    progress.end();
    std::printf("kernels: %zu steps in %.1f s", steps.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (uncalibrated)
        std::printf(", %d of them not calibrated after %d runs", uncalibrated, steps[0].max_runs);
    std::printf("\n");
}  // the runtime saves the models as it stops

}  // namespace

int main(int argc, char** argv)
{
    std::vector<int64_t> sizes{192, 320, 512, 768, 1024};
    std::string dir_option;
    for (int i = 1; i < argc; ++i) {
        std::string_view const a = argv[i];
        if (a == "--help" || a == "-h") {
            std::fputs(usage_text, stdout);
            return 0;
        } else if (a == "--quick") {
            sizes = {128, 256};
        } else if (a == "--nb" || a == "--dir") {
            if (i + 1 == argc) return usage_error(std::string(a) + ": expected a value");
            std::string_view const v = argv[++i];
            if (a == "--dir") {
                if (v.empty()) return usage_error("--dir: expected a directory");
                dir_option = v;
            } else if (!parse_sizes(v, sizes)) {
                return usage_error("--nb: expected tile sizes from 1 to 100000, comma-separated, "
                                   "not '" +
                                   std::string(v) + "'");
            }
        } else {
            return usage_error("unknown argument " + std::string(a));
        }
    }
    std::string const dir =
        dir_option.empty() ? tessera::tools::default_model_directory() : dir_option;
    if (dir.empty() || dir == "none") {
        std::fprintf(stderr, "tessera-calibrate: no performance-model directory to fill (set "
                             "TESSERA_PERFMODEL_DIR or HOME, or pass --dir)\n");
        return 1;
    }
    try {
        std::printf("performance models: %s\n", dir.c_str());
        calibrate_bus(dir);
        calibrate_kernels(dir, sizes);
        std::printf("%zu models in %s ('tessera-perfmodel list' shows them)\n",
                    tessera::tools::model_symbols(dir).size(), dir.c_str());
    } catch (std::exception const& e) {
        std::fprintf(stderr, "tessera-calibrate: %s\n", e.what());
        return 1;
    }
    return 0;
}
