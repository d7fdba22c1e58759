// LAPACKE's own routines as the oracle of the accuracy tests (tests/accuracy): the info a
// matrix that is not positive definite (or a singular factor) must give, in the four
// precisions.
//
//     const int64_t expected = lapacke_potrf(uplo, n, ref.data(), ref.ld);
#pragma once

#include "accuracy/accuracy.hpp"

#include <lapacke.h>

#include <type_traits>

namespace tessera::test {

/// The one of the four LAPACKE functions s, d, c, z for precision T.
template <Scalar T, class S, class D, class C, class Z>
auto lapacke_for(S s, D d, C c, Z z)
{
    if constexpr (std::is_same_v<T, float>) return s;
    else if constexpr (std::is_same_v<T, double>) return d;
    else if constexpr (std::is_same_v<T, std::complex<float>>) return c;
    else return z;
}
/// An array of T as LAPACKE takes it.
template <Scalar T>
auto lapacke_array(T* p)
{
    if constexpr (std::is_same_v<T, std::complex<float>>) return reinterpret_cast<lapack_complex_float*>(p);
    else if constexpr (std::is_same_v<T, std::complex<double>>) return reinterpret_cast<lapack_complex_double*>(p);
    else return p;
}

/// LAPACKE's potrf: LAPACK's info.
template <Scalar T>
int64_t lapacke_potrf(Uplo uplo, int64_t n, T* a, int64_t lda)
{
    return lapacke_for<T>(LAPACKE_spotrf, LAPACKE_dpotrf, LAPACKE_cpotrf, LAPACKE_zpotrf)(
        LAPACK_COL_MAJOR, char(uplo), int(n), lapacke_array(a), int(lda));
}
/// LAPACKE's posv: LAPACK's info.
template <Scalar T>
int64_t lapacke_posv(Uplo uplo, int64_t n, int64_t nrhs, T* a, int64_t lda, T* b, int64_t ldb)
{
    return lapacke_for<T>(LAPACKE_sposv, LAPACKE_dposv, LAPACKE_cposv, LAPACKE_zposv)(
        LAPACK_COL_MAJOR, char(uplo), int(n), int(nrhs), lapacke_array(a), int(lda), lapacke_array(b), int(ldb));
}
/// LAPACKE's potri: LAPACK's info.
template <Scalar T>
int64_t lapacke_potri(Uplo uplo, int64_t n, T* a, int64_t lda)
{
    return lapacke_for<T>(LAPACKE_spotri, LAPACKE_dpotri, LAPACKE_cpotri, LAPACKE_zpotri)(
        LAPACK_COL_MAJOR, char(uplo), int(n), lapacke_array(a), int(lda));
}

}  // namespace tessera::test
