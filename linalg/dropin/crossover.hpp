// Where the drop-in hands a call to Tessera: the crossover per routine and precision, below
// which the next BLAS/LAPACK in the link order runs it. Internal to libtessera_lapack.
#pragma once

namespace tessera::dropin {

/// The routines the drop-in accelerates, as the crossover table knows them.
enum class Routine : int {
    gemm,
    symm,
    syrk,
    trsm,
    trmm,
    potrf,
    potrs,
    posv,
    potri,
    getrf,
    getrs,
    gesv,
    getri,
    mixed_gesv,
    geqrf,
    unmqr,
    ungqr,
    gelqf,
    unmlq,
    unglq,
    gels,
    count
};

/// 0 to 3 for 's', 'd', 'c', 'z'.
constexpr int precision_index(char p) noexcept
{
    return p == 's' ? 0 : p == 'd' ? 1 : p == 'c' ? 2 : 3;
}

/// The crossovers in force, as volumes: the cube of the order of the square problem with as
/// many flops (m n k for gemm, n^3 for potrf ...), so that one crossover covers every shape
/// and a call needs no cube root. Constant-initialized to the measured orders
/// (crossover.cpp), so that a call made before the library's initializers ran sees them;
/// TESSERA_LAPACK_MIN_N is applied when the library is loaded ("0": every call;
/// "dpotrf=300,dgemm=0": per routine, the rest as measured).
struct CrossoverVolumes {
    double min_volume[int(Routine::count)][4];
};
extern CrossoverVolumes crossover_volumes __asm__("tessera_dropin_crossover_volumes");

/// The volume m n k of a call (0 when a dimension is negative: a bad argument goes where the
/// smallest call goes, and both Tessera and the next library report it as LAPACK does).
constexpr double volume_of(double m, double n, double k) noexcept
{
    return m < 0 || n < 0 || k < 0 ? 0 : m * n * k;
}

/// True when Tessera should run a call of `routine` in precision `p` (precision_index) whose
/// dimensions multiply to `volume` (0 when a dimension is negative): a load and a compare.
inline bool tessera_runs(Routine routine, int p, double volume) noexcept
{
    return volume >= crossover_volumes.min_volume[int(routine)][p];
}

}  // namespace tessera::dropin
