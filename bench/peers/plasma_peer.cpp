#include "bench/peers/plasma_peer.hpp"

#include <tessera/error.hpp>

#include <cblas.h>

#include <algorithm>
#include <set>
#include <string>

#ifndef TESSERA_HAVE_PLASMA
#define TESSERA_HAVE_PLASMA 0
#endif
#if TESSERA_HAVE_PLASMA
#include "bench/peers/plasma_calls.h"
#endif

namespace tessera::bench::peers {

bool plasma_available() noexcept
{
    return TESSERA_HAVE_PLASMA != 0;
}

bool plasma_runs(std::string const& routine) noexcept
{
    static const std::set<std::string> routines{"gemm", "potrf", "posv", "getrf", "gesv", "geqrf"};
    return routines.contains(routine);
}

#if TESSERA_HAVE_PLASMA

namespace {
int checked(int info, char const* what)
{
    require(info >= 0, std::string("PLASMA: ") + what + " failed with " + std::to_string(info));
    return info;
}
std::vector<int64_t> widened(std::vector<int> const& v)
{
    return {v.begin(), v.end()};
}
}  // namespace

Plasma::Plasma(int threads, int blas_threads) : blas_threads_(blas_threads)
{
    openblas_set_num_threads(1);  // PLASMA's tasks call BLAS on one core each
    checked(tessera_plasma_init(threads), "plasma_init");
}

Plasma::~Plasma()
{
    tessera_plasma_finalize();
    openblas_set_num_threads(blas_threads_);
}

void Plasma::set_tile_size(int nb)
{
    checked(tessera_plasma_set_tile_size(nb, std::max(1, nb / 4)), "plasma_set(PlasmaNb)");
}

int Plasma::gemm(int n, double const* a, double const* b, double* c)
{
    return checked(tessera_plasma_dgemm(n, a, b, c), "plasma_dgemm");
}
int Plasma::potrf(char uplo, int n, double* a)
{
    return checked(tessera_plasma_dpotrf(uplo, n, a), "plasma_dpotrf");
}
int Plasma::posv(char uplo, int n, int nrhs, double* a, double* b)
{
    return checked(tessera_plasma_dposv(uplo, n, nrhs, a, b), "plasma_dposv");
}
int Plasma::getrf(int m, int n, double* a, std::vector<int64_t>& ipiv)
{
    std::vector<int> p(static_cast<std::size_t>(std::min(m, n)));
    const int info = checked(tessera_plasma_dgetrf(m, n, a, p.data()), "plasma_dgetrf");
    ipiv = widened(p);
    return info;
}
int Plasma::gesv(int n, int nrhs, double* a, double* b, std::vector<int64_t>& ipiv)
{
    std::vector<int> p(static_cast<std::size_t>(n));
    const int info = checked(tessera_plasma_dgesv(n, nrhs, a, p.data(), b), "plasma_dgesv");
    ipiv = widened(p);
    return info;
}
int Plasma::geqrf(int m, int n, double* a)
{
    return checked(tessera_plasma_dgeqrf(m, n, a), "plasma_dgeqrf");
}

#else  // built without PLASMA: nothing to call

Plasma::Plasma(int, int) : blas_threads_(0)
{
    throw InvalidArgument("--peer plasma: tessera-bench was built without PLASMA "
                          "(scripts/peers.sh plasma SOURCE builds it and reconfigures)");
}
Plasma::~Plasma() = default;
void Plasma::set_tile_size(int)
{}
int Plasma::gemm(int, double const*, double const*, double*)
{
    return -1;
}
int Plasma::potrf(char, int, double*)
{
    return -1;
}
int Plasma::posv(char, int, int, double*, double*)
{
    return -1;
}
int Plasma::getrf(int, int, double*, std::vector<int64_t>&)
{
    return -1;
}
int Plasma::gesv(int, int, double*, double*, std::vector<int64_t>&)
{
    return -1;
}
int Plasma::geqrf(int, int, double*)
{
    return -1;
}

#endif

}  // namespace tessera::bench::peers
