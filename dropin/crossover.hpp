// Where the drop-in hands a call to Tessera: the crossover order per routine and precision,
// below which the next BLAS/LAPACK in the link order runs it. Internal to libtessera_lapack.
#pragma once

namespace tessera::dropin {

/// The routines the drop-in accelerates, as the crossover table knows them.
enum class Routine : int {
    gemm, symm, syrk, trsm, trmm,
    potrf, potrs, posv, potri,
    getrf, getrs, gesv, getri, mixed_gesv,
    geqrf, unmqr, ungqr, gelqf, unmlq, unglq, gels,
    count
};

/// The order of a call: the n of the square problem with as many flops, so that one
/// crossover per routine covers every shape (cbrt(m n k) for gemm, n for potrf ...); 0 when
/// a dimension is negative.
double order(double m, double n, double k) noexcept;

/// True when Tessera should run a call of `order` of `routine` in `precision` ('s', 'd', 'c',
/// 'z'): order >= the measured crossover (crossover.cpp), or >= TESSERA_LAPACK_MIN_N when
/// that is set ("0": every call; "dpotrf=300,dgemm=0": per routine, the rest as measured).
bool tessera_runs(Routine routine, char precision, double order) noexcept;

}  // namespace tessera::dropin
