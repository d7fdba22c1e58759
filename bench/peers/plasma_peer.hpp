// PLASMA (ICL's tile linear algebra on OpenMP tasks) as a peer of the LAPACK-style benchmarks,
// when tessera-bench was built with it (scripts/peers.sh plasma SOURCE). Double precision: the
// figures users quote are dpotrf, dgetrf, dgeqrf and dgemm. PLASMA gets what its authors
// recommend: OpenMP threads = cores, OpenBLAS on one thread, and the best tile size of a few.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::bench::peers {

/// True when tessera-bench was built with PLASMA.
bool plasma_available() noexcept;
/// The routines the PLASMA peer runs: gemm, potrf, posv, getrf, gesv, geqrf.
bool plasma_runs(std::string const& routine) noexcept;

/// One PLASMA session (plasma_init .. plasma_finalize) on `threads` OpenMP threads, with
/// OpenBLAS on one thread meanwhile (restored to `blas_threads` after).
class Plasma {
public:
    Plasma(int threads, int blas_threads);
    ~Plasma();
    Plasma(Plasma const&) = delete;
    Plasma& operator=(Plasma const&) = delete;

    /// PLASMA's tile size (PlasmaNb) and inner block (PlasmaIb: nb / 4, its QR's default ratio).
    void set_tile_size(int nb);

    // Column-major double-precision calls, as LAPACK's; each returns PLASMA's info (0: done).
    int gemm(int n, double const* a, double const* b, double* c);  ///< C += A B, n x n
    int potrf(char uplo, int n, double* a);
    int posv(char uplo, int n, int nrhs, double* a, double* b);
    int getrf(int m, int n, double* a, std::vector<int64_t>& ipiv);  ///< 1-based pivots
    int gesv(int n, int nrhs, double* a, double* b, std::vector<int64_t>& ipiv);
    /// QR of the m x n A: R in its upper triangle (PLASMA keeps its Householder vectors in its
    /// own tile form with T factors, which are freed: the residual checks R alone).
    int geqrf(int m, int n, double* a);

private:
    int blas_threads_;
};

}  // namespace tessera::bench::peers
