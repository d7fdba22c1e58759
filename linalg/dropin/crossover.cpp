// The crossover table: from which order Tessera's tile algorithm beats the single call of the
// next library (OpenBLAS here), measured per routine and precision (docs/benchmarks.md,
// "the drop-in's crossovers", scripts/dropin-crossover.sh). Below it a call costs the drop-in
// a load, a compare and an indirect call, so the drop-in is never slower than what it replaces.
#include "linalg/dropin/crossover.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace tessera::dropin {

namespace {
constexpr double never = std::numeric_limits<double>::infinity();
constexpr int routines = int(Routine::count);

char const* const routine_names[routines] = {
    "gemm", "symm",  "syrk",  "trsm",  "trmm", "potrf", "potrs", "posv", "potri", "getrf", "getrs",
    "gesv", "getri", "sgesv", "geqrf", "mqr",  "gqr",   "gelqf", "mlq",  "glq",   "gels",
};

/// The crossover orders, [routine][s d c z]. `never`: Tessera was not at OpenBLAS's speed up to
/// order 2048 on the 2-core reference machine (such calls always go to the next library).
struct Table {
    double min_order[routines][4];
};

// Measured on the 2-core reference machine (docs/benchmarks.md, "the drop-in's crossovers",
// scripts/dropin-crossover.sh at orders 16 to 2048): the smallest order from which Tessera
// was at least 0.95x OpenBLAS at every order measured, and at least 1x there. (OpenBLAS
// 0.3.21's multithreaded cunglq and zunglq crash from n = 1024 and 512: those two rows were
// measured up to 512 and 256. The gels row was raised from 128 after a finer sweep, orders
// 128 to 224 with --min-n table: sgels 0.72 to 0.78x at 128 and 0.96x at 200, dgels and cgels
// 0.84 to 1.04x at 128.)
constexpr Table measured = {{
    //            s      d      c      z
    /* gemm  */ {never, never, never, never},
    /* symm  */ {never, never, never, never},
    /* syrk  */ {never, never, never, 1024},
    /* trsm  */ {never, never, never, never},
    /* trmm  */ {never, never, never, never},
    /* potrf */ {1024, 1024, 1024, 1024},
    /* potrs */ {never, never, never, never},
    /* posv  */ {1024, 512, 1024, 1024},
    /* potri */ {never, never, never, never},
    /* getrf */ {never, never, never, never},
    /* getrs */ {never, never, never, never},
    /* gesv  */ {never, 1024, never, 1024},
    /* getri */ {never, never, never, never},
    /* sgesv */ {never, never, never, never},
    /* geqrf */ {128, 512, 512, 128},
    /* mqr   */ {58, never, never, never},
    /* gqr   */ {256, 256, 128, 128},
    /* gelqf */ {128, 128, 128, 128},
    /* mlq   */ {never, never, 118, never},
    /* glq   */ {128, 128, 128, 128},
    /* gels  */ {224, 200, 200, 128},
}};

/// The routine of a name as users write it: "dpotrf", "DGEMM", "zunmqr", "dormqr", "dsgesv".
bool parse_routine(std::string name, Routine& routine, int& precision);

/// The crossover orders: the measured ones, with TESSERA_LAPACK_MIN_N applied.
Table orders() noexcept
{
    Table t = measured;
    char const* env = std::getenv("TESSERA_LAPACK_MIN_N");
    if (!env || !*env) return t;
    std::string spec = env;
    char* end = nullptr;
    const double all = std::strtod(spec.c_str(), &end);
    if (end && *end == '\0' && all >= 0) {  // one order for every routine
        for (auto& row : t.min_order)
            for (double& x : row) x = all;
        return t;
    }
    // "dpotrf=300,dgemm=0": per routine and precision
    std::size_t at = 0;
    while (at <= spec.size()) {
        const std::size_t comma = std::min(spec.find(',', at), spec.size());
        const std::string item = spec.substr(at, comma - at);
        const std::size_t eq = item.find('=');
        Routine r{};
        int p = 0;
        double value = -1;
        if (eq != std::string::npos) value = std::strtod(item.c_str() + eq + 1, &end);
        if (eq == std::string::npos || !parse_routine(item.substr(0, eq), r, p) || !end ||
            *end != '\0' || value < 0)
            std::fprintf(
                stderr,
                "tessera_lapack: TESSERA_LAPACK_MIN_N: '%s' is not <order> or <routine>=<order> "
                "(e.g. 0, or dpotrf=300,dgemm=0); ignored\n",
                item.c_str());
        else
            t.min_order[int(r)][p] = value;
        at = comma + 1;
    }
    return t;
}

bool parse_routine(std::string name, Routine& routine, int& precision)
{
    for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (name.size() < 3 || !std::strchr("sdcz", name[0])) return false;
    precision = precision_index(name[0]);
    std::string rest = name.substr(1);
    if (rest == "hemm") rest = "symm";
    if (rest == "herk") rest = "syrk";
    if (name == "dsgesv" || name == "zcgesv") rest = "sgesv";
    for (std::string const prefix : {"or", "un"})
        if (rest.rfind(prefix, 0) == 0) rest = rest.substr(2);  // ormqr, unmqr -> mqr
    for (int r = 0; r < routines; ++r)
        if (rest == routine_names[r]) {
            routine = Routine(r);
            return true;
        }
    return false;
}

constexpr CrossoverVolumes cubes(Table const& t)
{
    CrossoverVolumes v{};
    for (int r = 0; r < routines; ++r)
        for (int p = 0; p < 4; ++p)
            v.min_volume[r][p] = t.min_order[r][p] * t.min_order[r][p] * t.min_order[r][p];
    return v;
}

/// Applies TESSERA_LAPACK_MIN_N when the library is loaded.
[[maybe_unused]] const bool environment_applied = [] {
    crossover_volumes = cubes(orders());
    return true;
}();
}  // namespace

constinit CrossoverVolumes crossover_volumes = cubes(measured);

}  // namespace tessera::dropin
