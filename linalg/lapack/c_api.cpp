// The C API (include/tessera/tessera.h): each function converts its option letters, calls the
// LAPACK-style C++ form, and turns exceptions into LAPACK's info: InvalidLapackArgument into
// -position, anything else into TESSERA_ERROR with its message kept for tessera_last_error().
// Exceptions never cross into C.
#include <tessera/tessera.h>

#include <tessera/la/blas.hpp>
#include <tessera/la/cholesky.hpp>
#include <tessera/la/context.hpp>
#include <tessera/la/lu.hpp>
#include <tessera/la/qr.hpp>

#include "linalg/lapack/c_errors.hpp"

#include <exception>
#include <string>
#include <vector>

using namespace tessera;

namespace {

using capi::guarded;

/// An option letter parsed by `parse`, or InvalidLapackArgument at `position`, worded as the
/// C++ forms word theirs: "<routine>: argument <position> (<name>): '<c>' is not one of ...".
template <class E>
E option(char const* routine, char c, int position, E (*parse)(char, char const*), char const* name)
{
    try {
        return parse(c, "");
    } catch (InvalidArgument const& e) {
        std::string why = e.what();  // ": 'c' is not one of ...", after the empty name
        if (why.rfind(": ", 0) == 0) why.erase(0, 2);
        throw InvalidLapackArgument(std::string(routine) + ": argument " +
                                        std::to_string(position) + " (" + name + "): " + why,
                                    position);
    }
}
Op op(char const* routine, char c, int position, char const* name)
{
    return option(routine, c, position, &op_from_char, name);
}
Uplo uplo(char const* routine, char c, int position)
{
    return option(routine, c, position, &uplo_from_char, "uplo");
}
Side side(char const* routine, char c, int position)
{
    return option(routine, c, position, &side_from_char, "side");
}
Diag diag(char const* routine, char c, int position)
{
    return option(routine, c, position, &diag_from_char, "diag");
}

template <class T>
int gemm_c(char ta, char tb, int m, int n, int k, T alpha, T const* A, int lda, T const* B, int ldb,
           T beta, T* C, int ldc)
{
    return guarded([&] {
        const Op a =
            op("gemm", ta, 1, "transa");  // parsed in order: the first bad argument is reported
        const Op b = op("gemm", tb, 2, "transb");
        la::gemm<T>(a, b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    });
}
template <class T>
int symm_c(bool hermitian, char sd, char ul, int m, int n, T alpha, T const* A, int lda, T const* B,
           int ldb, T beta, T* C, int ldc)
{
    return guarded([&] {
        char const* routine = hermitian ? "hemm" : "symm";
        const Side s = side(routine, sd, 1);
        const Uplo u = uplo(routine, ul, 2);
        if (hermitian)
            la::hemm<T>(s, u, m, n, alpha, A, lda, B, ldb, beta, C, ldc);
        else
            la::symm<T>(s, u, m, n, alpha, A, lda, B, ldb, beta, C, ldc);
    });
}
template <class T>
int syrk_c(char ul, char tr, int n, int k, T alpha, T const* A, int lda, T beta, T* C, int ldc)
{
    return guarded([&] {
        const Uplo u = uplo("syrk", ul, 1);
        la::syrk<T>(u, op("syrk", tr, 2, "trans"), n, k, alpha, A, lda, beta, C, ldc);
    });
}
template <class T>
int herk_c(char ul, char tr, int n, int k, real_t<T> alpha, T const* A, int lda, real_t<T> beta,
           T* C, int ldc)
{
    return guarded([&] {
        const Uplo u = uplo("herk", ul, 1);
        la::herk<T>(u, op("herk", tr, 2, "trans"), n, k, alpha, A, lda, beta, C, ldc);
    });
}
template <class T>
int trsm_c(bool solve, char sd, char ul, char ta, char dg, int m, int n, T alpha, T const* A,
           int lda, T* B, int ldb)
{
    return guarded([&] {
        char const* routine = solve ? "trsm" : "trmm";
        const Side s = side(routine, sd, 1);
        const Uplo u = uplo(routine, ul, 2);
        const Op o = op(routine, ta, 3, "transa");
        const Diag d = diag(routine, dg, 4);
        if (solve)
            la::trsm<T>(s, u, o, d, m, n, alpha, A, lda, B, ldb);
        else
            la::trmm<T>(s, u, o, d, m, n, alpha, A, lda, B, ldb);
    });
}
template <class T> int potrf_c(char ul, int n, T* A, int lda)
{
    return guarded([&] { return la::potrf<T>(uplo("potrf", ul, 1), n, A, lda); });
}
template <class T> int potrs_c(char ul, int n, int nrhs, T const* A, int lda, T* B, int ldb)
{
    return guarded([&] { return la::potrs<T>(uplo("potrs", ul, 1), n, nrhs, A, lda, B, ldb); });
}
template <class T> int posv_c(char ul, int n, int nrhs, T* A, int lda, T* B, int ldb)
{
    return guarded([&] { return la::posv<T>(uplo("posv", ul, 1), n, nrhs, A, lda, B, ldb); });
}
template <class T> int potri_c(char ul, int n, T* A, int lda)
{
    return guarded([&] { return la::potri<T>(uplo("potri", ul, 1), n, A, lda); });
}

// The LU family: LAPACK's C interfaces take int pivots; the C++ forms take int64_t. A null
// ipiv goes through as null, so that the C++ checks name it.
template <class T> int getrf_c(int m, int n, T* A, int lda, int* ipiv)
{
    return guarded([&] {
        std::vector<int64_t> p(ipiv ? std::size_t(std::max(0, std::min(m, n))) : 0);
        const int64_t info = la::getrf<T>(m, n, A, lda, ipiv ? p.data() : nullptr);
        std::copy(p.begin(), p.end(), ipiv);
        return info;
    });
}
template <class T> int getrf_nopiv_c(int m, int n, T* A, int lda)
{
    return guarded([&] { return la::getrf_nopiv<T>(m, n, A, lda); });
}
template <class T>
int getrs_c(char tr, int n, int nrhs, T const* A, int lda, int const* ipiv, T* B, int ldb)
{
    return guarded([&] {
        const Op trans = op("getrs", tr, 1, "trans");
        std::vector<int64_t> p(ipiv ? std::size_t(std::max(0, n)) : 0);
        std::copy(ipiv, ipiv + p.size(), p.begin());
        return la::getrs<T>(trans, n, nrhs, A, lda, ipiv ? p.data() : nullptr, B, ldb);
    });
}
template <class T> int gesv_c(int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb)
{
    return guarded([&] {
        std::vector<int64_t> p(ipiv ? std::size_t(std::max(0, n)) : 0);
        const int64_t info = la::gesv<T>(n, nrhs, A, lda, ipiv ? p.data() : nullptr, B, ldb);
        std::copy(p.begin(), p.end(), ipiv);
        return info;
    });
}

template <class T> int getri_c(int n, T* A, int lda, int const* ipiv)
{
    return guarded([&] {
        std::vector<int64_t> p(ipiv ? std::size_t(std::max(0, n)) : 0);
        std::copy(ipiv, ipiv + p.size(), p.begin());
        return la::getri<T>(n, A, lda, ipiv ? p.data() : nullptr);
    });
}

// The QR family.
template <class T> int geqrf_c(bool lq, int m, int n, T* A, int lda, T* tau)
{
    return guarded(
        [&] { return lq ? la::gelqf<T>(m, n, A, lda, tau) : la::geqrf<T>(m, n, A, lda, tau); });
}
template <class T>
int unmqr_c(bool lq, char sd, char tr, int m, int n, int k, T const* A, int lda, T const* tau, T* C,
            int ldc)
{
    return guarded([&] {
        char const* routine = lq ? (la::is_complex_v<T> ? "unmlq" : "ormlq")
                                 : (la::is_complex_v<T> ? "unmqr" : "ormqr");
        const Side s = side(routine, sd, 1);
        const Op o = op(routine, tr, 2, "trans");
        return lq ? la::unmlq<T>(s, o, m, n, k, A, lda, tau, C, ldc)
                  : la::unmqr<T>(s, o, m, n, k, A, lda, tau, C, ldc);
    });
}
template <class T> int ungqr_c(bool lq, int m, int n, int k, T* A, int lda, T const* tau)
{
    return guarded([&] {
        return lq ? la::unglq<T>(m, n, k, A, lda, tau) : la::ungqr<T>(m, n, k, A, lda, tau);
    });
}
template <class T> int gels_c(char tr, int m, int n, int nrhs, T* A, int lda, T* B, int ldb)
{
    return guarded(
        [&] { return la::gels<T>(op("gels", tr, 1, "trans"), m, n, nrhs, A, lda, B, ldb); });
}

template <class T>
int mixed_gesv_c(int n, int nrhs, T* A, int lda, int* ipiv, T const* B, int ldb, T* X, int ldx,
                 int* iter)
{
    return guarded([&] {
        std::vector<int64_t> p(ipiv ? std::size_t(std::max(0, n)) : 0);
        int64_t it = 0;
        int64_t info = 0;
        if constexpr (std::is_same_v<T, double>)
            info = la::dsgesv(n, nrhs, A, lda, ipiv ? p.data() : nullptr, B, ldb, X, ldx,
                              iter ? &it : nullptr);
        else
            info = la::zcgesv(n, nrhs, A, lda, ipiv ? p.data() : nullptr, B, ldb, X, ldx,
                              iter ? &it : nullptr);
        std::copy(p.begin(), p.end(), ipiv);
        *iter = int(it);
        return info;
    });
}

using cf = tessera_complex_float;
using cz = tessera_complex_double;

}  // namespace

extern "C" {

int tessera_init(void)
{
    return guarded([] { la::init(); });
}
void tessera_finalize(void)
{
    la::finalize();
}
int tessera_set_tile_size(int nb)
{
    return guarded([&] {
        if (nb < 0)
            throw InvalidLapackArgument(
                "tessera_set_tile_size: nb = " + std::to_string(nb) + " must be >= 0", 1);
        la::set_tile_size(nb);
    });
}
const char* tessera_last_error(void)
{
    return capi::last_error().c_str();
}

// clang-format off
int tessera_sgemm(char ta, char tb, int m, int n, int k, float alpha, const float* A, int lda, const float* B, int ldb, float beta, float* C, int ldc) { return gemm_c(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc); }
int tessera_dgemm(char ta, char tb, int m, int n, int k, double alpha, const double* A, int lda, const double* B, int ldb, double beta, double* C, int ldc) { return gemm_c(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc); }
int tessera_cgemm(char ta, char tb, int m, int n, int k, cf alpha, const cf* A, int lda, const cf* B, int ldb, cf beta, cf* C, int ldc) { return gemm_c(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc); }
int tessera_zgemm(char ta, char tb, int m, int n, int k, cz alpha, const cz* A, int lda, const cz* B, int ldb, cz beta, cz* C, int ldc) { return gemm_c(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc); }

int tessera_ssymm(char s, char u, int m, int n, float alpha, const float* A, int lda, const float* B, int ldb, float beta, float* C, int ldc) { return symm_c(false, s, u, m, n, alpha, A, lda, B, ldb, beta, C, ldc); }
int tessera_dsymm(char s, char u, int m, int n, double alpha, const double* A, int lda, const double* B, int ldb, double beta, double* C, int ldc) { return symm_c(false, s, u, m, n, alpha, A, lda, B, ldb, beta, C, ldc); }
int tessera_csymm(char s, char u, int m, int n, cf alpha, const cf* A, int lda, const cf* B, int ldb, cf beta, cf* C, int ldc) { return symm_c(false, s, u, m, n, alpha, A, lda, B, ldb, beta, C, ldc); }
int tessera_zsymm(char s, char u, int m, int n, cz alpha, const cz* A, int lda, const cz* B, int ldb, cz beta, cz* C, int ldc) { return symm_c(false, s, u, m, n, alpha, A, lda, B, ldb, beta, C, ldc); }
int tessera_chemm(char s, char u, int m, int n, cf alpha, const cf* A, int lda, const cf* B, int ldb, cf beta, cf* C, int ldc) { return symm_c(true, s, u, m, n, alpha, A, lda, B, ldb, beta, C, ldc); }
int tessera_zhemm(char s, char u, int m, int n, cz alpha, const cz* A, int lda, const cz* B, int ldb, cz beta, cz* C, int ldc) { return symm_c(true, s, u, m, n, alpha, A, lda, B, ldb, beta, C, ldc); }

int tessera_ssyrk(char u, char t, int n, int k, float alpha, const float* A, int lda, float beta, float* C, int ldc) { return syrk_c(u, t, n, k, alpha, A, lda, beta, C, ldc); }
int tessera_dsyrk(char u, char t, int n, int k, double alpha, const double* A, int lda, double beta, double* C, int ldc) { return syrk_c(u, t, n, k, alpha, A, lda, beta, C, ldc); }
int tessera_csyrk(char u, char t, int n, int k, cf alpha, const cf* A, int lda, cf beta, cf* C, int ldc) { return syrk_c(u, t, n, k, alpha, A, lda, beta, C, ldc); }
int tessera_zsyrk(char u, char t, int n, int k, cz alpha, const cz* A, int lda, cz beta, cz* C, int ldc) { return syrk_c(u, t, n, k, alpha, A, lda, beta, C, ldc); }
int tessera_cherk(char u, char t, int n, int k, float alpha, const cf* A, int lda, float beta, cf* C, int ldc) { return herk_c(u, t, n, k, alpha, A, lda, beta, C, ldc); }
int tessera_zherk(char u, char t, int n, int k, double alpha, const cz* A, int lda, double beta, cz* C, int ldc) { return herk_c(u, t, n, k, alpha, A, lda, beta, C, ldc); }

int tessera_strsm(char s, char u, char t, char d, int m, int n, float alpha, const float* A, int lda, float* B, int ldb) { return trsm_c(true, s, u, t, d, m, n, alpha, A, lda, B, ldb); }
int tessera_dtrsm(char s, char u, char t, char d, int m, int n, double alpha, const double* A, int lda, double* B, int ldb) { return trsm_c(true, s, u, t, d, m, n, alpha, A, lda, B, ldb); }
int tessera_ctrsm(char s, char u, char t, char d, int m, int n, cf alpha, const cf* A, int lda, cf* B, int ldb) { return trsm_c(true, s, u, t, d, m, n, alpha, A, lda, B, ldb); }
int tessera_ztrsm(char s, char u, char t, char d, int m, int n, cz alpha, const cz* A, int lda, cz* B, int ldb) { return trsm_c(true, s, u, t, d, m, n, alpha, A, lda, B, ldb); }
int tessera_strmm(char s, char u, char t, char d, int m, int n, float alpha, const float* A, int lda, float* B, int ldb) { return trsm_c(false, s, u, t, d, m, n, alpha, A, lda, B, ldb); }
int tessera_dtrmm(char s, char u, char t, char d, int m, int n, double alpha, const double* A, int lda, double* B, int ldb) { return trsm_c(false, s, u, t, d, m, n, alpha, A, lda, B, ldb); }
int tessera_ctrmm(char s, char u, char t, char d, int m, int n, cf alpha, const cf* A, int lda, cf* B, int ldb) { return trsm_c(false, s, u, t, d, m, n, alpha, A, lda, B, ldb); }
int tessera_ztrmm(char s, char u, char t, char d, int m, int n, cz alpha, const cz* A, int lda, cz* B, int ldb) { return trsm_c(false, s, u, t, d, m, n, alpha, A, lda, B, ldb); }

int tessera_spotrf(char u, int n, float* A, int lda) { return potrf_c(u, n, A, lda); }
int tessera_dpotrf(char u, int n, double* A, int lda) { return potrf_c(u, n, A, lda); }
int tessera_cpotrf(char u, int n, cf* A, int lda) { return potrf_c(u, n, A, lda); }
int tessera_zpotrf(char u, int n, cz* A, int lda) { return potrf_c(u, n, A, lda); }
int tessera_spotrs(char u, int n, int nrhs, const float* A, int lda, float* B, int ldb) { return potrs_c(u, n, nrhs, A, lda, B, ldb); }
int tessera_dpotrs(char u, int n, int nrhs, const double* A, int lda, double* B, int ldb) { return potrs_c(u, n, nrhs, A, lda, B, ldb); }
int tessera_cpotrs(char u, int n, int nrhs, const cf* A, int lda, cf* B, int ldb) { return potrs_c(u, n, nrhs, A, lda, B, ldb); }
int tessera_zpotrs(char u, int n, int nrhs, const cz* A, int lda, cz* B, int ldb) { return potrs_c(u, n, nrhs, A, lda, B, ldb); }
int tessera_sposv(char u, int n, int nrhs, float* A, int lda, float* B, int ldb) { return posv_c(u, n, nrhs, A, lda, B, ldb); }
int tessera_dposv(char u, int n, int nrhs, double* A, int lda, double* B, int ldb) { return posv_c(u, n, nrhs, A, lda, B, ldb); }
int tessera_cposv(char u, int n, int nrhs, cf* A, int lda, cf* B, int ldb) { return posv_c(u, n, nrhs, A, lda, B, ldb); }
int tessera_zposv(char u, int n, int nrhs, cz* A, int lda, cz* B, int ldb) { return posv_c(u, n, nrhs, A, lda, B, ldb); }
int tessera_spotri(char u, int n, float* A, int lda) { return potri_c(u, n, A, lda); }
int tessera_dpotri(char u, int n, double* A, int lda) { return potri_c(u, n, A, lda); }
int tessera_cpotri(char u, int n, cf* A, int lda) { return potri_c(u, n, A, lda); }
int tessera_zpotri(char u, int n, cz* A, int lda) { return potri_c(u, n, A, lda); }

int tessera_sgetrf(int m, int n, float* A, int lda, int* ipiv) { return getrf_c(m, n, A, lda, ipiv); }
int tessera_dgetrf(int m, int n, double* A, int lda, int* ipiv) { return getrf_c(m, n, A, lda, ipiv); }
int tessera_cgetrf(int m, int n, cf* A, int lda, int* ipiv) { return getrf_c(m, n, A, lda, ipiv); }
int tessera_zgetrf(int m, int n, cz* A, int lda, int* ipiv) { return getrf_c(m, n, A, lda, ipiv); }
int tessera_sgetrf_nopiv(int m, int n, float* A, int lda) { return getrf_nopiv_c(m, n, A, lda); }
int tessera_dgetrf_nopiv(int m, int n, double* A, int lda) { return getrf_nopiv_c(m, n, A, lda); }
int tessera_cgetrf_nopiv(int m, int n, cf* A, int lda) { return getrf_nopiv_c(m, n, A, lda); }
int tessera_zgetrf_nopiv(int m, int n, cz* A, int lda) { return getrf_nopiv_c(m, n, A, lda); }

int tessera_sgetrs(char t, int n, int nrhs, const float* A, int lda, const int* ipiv, float* B, int ldb) { return getrs_c(t, n, nrhs, A, lda, ipiv, B, ldb); }
int tessera_dgetrs(char t, int n, int nrhs, const double* A, int lda, const int* ipiv, double* B, int ldb) { return getrs_c(t, n, nrhs, A, lda, ipiv, B, ldb); }
int tessera_cgetrs(char t, int n, int nrhs, const cf* A, int lda, const int* ipiv, cf* B, int ldb) { return getrs_c(t, n, nrhs, A, lda, ipiv, B, ldb); }
int tessera_zgetrs(char t, int n, int nrhs, const cz* A, int lda, const int* ipiv, cz* B, int ldb) { return getrs_c(t, n, nrhs, A, lda, ipiv, B, ldb); }

int tessera_sgesv(int n, int nrhs, float* A, int lda, int* ipiv, float* B, int ldb) { return gesv_c(n, nrhs, A, lda, ipiv, B, ldb); }
int tessera_dgesv(int n, int nrhs, double* A, int lda, int* ipiv, double* B, int ldb) { return gesv_c(n, nrhs, A, lda, ipiv, B, ldb); }
int tessera_cgesv(int n, int nrhs, cf* A, int lda, int* ipiv, cf* B, int ldb) { return gesv_c(n, nrhs, A, lda, ipiv, B, ldb); }
int tessera_zgesv(int n, int nrhs, cz* A, int lda, int* ipiv, cz* B, int ldb) { return gesv_c(n, nrhs, A, lda, ipiv, B, ldb); }

int tessera_dsgesv(int n, int nrhs, double* A, int lda, int* ipiv, const double* B, int ldb, double* X, int ldx, int* iter) { return mixed_gesv_c(n, nrhs, A, lda, ipiv, B, ldb, X, ldx, iter); }
int tessera_zcgesv(int n, int nrhs, cz* A, int lda, int* ipiv, const cz* B, int ldb, cz* X, int ldx, int* iter) { return mixed_gesv_c(n, nrhs, A, lda, ipiv, B, ldb, X, ldx, iter); }

int tessera_sgetri(int n, float* A, int lda, const int* ipiv) { return getri_c(n, A, lda, ipiv); }
int tessera_dgetri(int n, double* A, int lda, const int* ipiv) { return getri_c(n, A, lda, ipiv); }
int tessera_cgetri(int n, cf* A, int lda, const int* ipiv) { return getri_c(n, A, lda, ipiv); }
int tessera_zgetri(int n, cz* A, int lda, const int* ipiv) { return getri_c(n, A, lda, ipiv); }

int tessera_sgeqrf(int m, int n, float* A, int lda, float* tau) { return geqrf_c(false, m, n, A, lda, tau); }
int tessera_dgeqrf(int m, int n, double* A, int lda, double* tau) { return geqrf_c(false, m, n, A, lda, tau); }
int tessera_cgeqrf(int m, int n, cf* A, int lda, cf* tau) { return geqrf_c(false, m, n, A, lda, tau); }
int tessera_zgeqrf(int m, int n, cz* A, int lda, cz* tau) { return geqrf_c(false, m, n, A, lda, tau); }
int tessera_sormqr(char s, char t, int m, int n, int k, const float* A, int lda, const float* tau, float* C, int ldc) { return unmqr_c(false, s, t, m, n, k, A, lda, tau, C, ldc); }
int tessera_dormqr(char s, char t, int m, int n, int k, const double* A, int lda, const double* tau, double* C, int ldc) { return unmqr_c(false, s, t, m, n, k, A, lda, tau, C, ldc); }
int tessera_cunmqr(char s, char t, int m, int n, int k, const cf* A, int lda, const cf* tau, cf* C, int ldc) { return unmqr_c(false, s, t, m, n, k, A, lda, tau, C, ldc); }
int tessera_zunmqr(char s, char t, int m, int n, int k, const cz* A, int lda, const cz* tau, cz* C, int ldc) { return unmqr_c(false, s, t, m, n, k, A, lda, tau, C, ldc); }
int tessera_sorgqr(int m, int n, int k, float* A, int lda, const float* tau) { return ungqr_c(false, m, n, k, A, lda, tau); }
int tessera_dorgqr(int m, int n, int k, double* A, int lda, const double* tau) { return ungqr_c(false, m, n, k, A, lda, tau); }
int tessera_cungqr(int m, int n, int k, cf* A, int lda, const cf* tau) { return ungqr_c(false, m, n, k, A, lda, tau); }
int tessera_zungqr(int m, int n, int k, cz* A, int lda, const cz* tau) { return ungqr_c(false, m, n, k, A, lda, tau); }

int tessera_sgelqf(int m, int n, float* A, int lda, float* tau) { return geqrf_c(true, m, n, A, lda, tau); }
int tessera_dgelqf(int m, int n, double* A, int lda, double* tau) { return geqrf_c(true, m, n, A, lda, tau); }
int tessera_cgelqf(int m, int n, cf* A, int lda, cf* tau) { return geqrf_c(true, m, n, A, lda, tau); }
int tessera_zgelqf(int m, int n, cz* A, int lda, cz* tau) { return geqrf_c(true, m, n, A, lda, tau); }
int tessera_sormlq(char s, char t, int m, int n, int k, const float* A, int lda, const float* tau, float* C, int ldc) { return unmqr_c(true, s, t, m, n, k, A, lda, tau, C, ldc); }
int tessera_dormlq(char s, char t, int m, int n, int k, const double* A, int lda, const double* tau, double* C, int ldc) { return unmqr_c(true, s, t, m, n, k, A, lda, tau, C, ldc); }
int tessera_cunmlq(char s, char t, int m, int n, int k, const cf* A, int lda, const cf* tau, cf* C, int ldc) { return unmqr_c(true, s, t, m, n, k, A, lda, tau, C, ldc); }
int tessera_zunmlq(char s, char t, int m, int n, int k, const cz* A, int lda, const cz* tau, cz* C, int ldc) { return unmqr_c(true, s, t, m, n, k, A, lda, tau, C, ldc); }
int tessera_sorglq(int m, int n, int k, float* A, int lda, const float* tau) { return ungqr_c(true, m, n, k, A, lda, tau); }
int tessera_dorglq(int m, int n, int k, double* A, int lda, const double* tau) { return ungqr_c(true, m, n, k, A, lda, tau); }
int tessera_cunglq(int m, int n, int k, cf* A, int lda, const cf* tau) { return ungqr_c(true, m, n, k, A, lda, tau); }
int tessera_zunglq(int m, int n, int k, cz* A, int lda, const cz* tau) { return ungqr_c(true, m, n, k, A, lda, tau); }

int tessera_sgels(char t, int m, int n, int nrhs, float* A, int lda, float* B, int ldb) { return gels_c(t, m, n, nrhs, A, lda, B, ldb); }
int tessera_dgels(char t, int m, int n, int nrhs, double* A, int lda, double* B, int ldb) { return gels_c(t, m, n, nrhs, A, lda, B, ldb); }
int tessera_cgels(char t, int m, int n, int nrhs, cf* A, int lda, cf* B, int ldb) { return gels_c(t, m, n, nrhs, A, lda, B, ldb); }
int tessera_zgels(char t, int m, int n, int nrhs, cz* A, int lda, cz* B, int ldb) { return gels_c(t, m, n, nrhs, A, lda, B, ldb); }
// clang-format on

}  // extern "C"
