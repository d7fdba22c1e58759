// Argument checks of the LAPACK-style forms, with LAPACK's numbering: a failed check throws
// InvalidLapackArgument naming the routine, the argument and its value, and carrying its
// position (the C API returns -position). Internal.
#pragma once

#include <tessera/error.hpp>
#include <tessera/la/enums.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

namespace tessera::la::detail {

/// Throws InvalidLapackArgument "<routine>: argument <position> (<name> = <value>) <rule>".
inline void check_argument(bool ok, char const* routine, int position, char const* name,
                           int64_t value, char const* rule)
{
    if (!ok) [[unlikely]]
        throw InvalidLapackArgument(std::string(routine) + ": argument " +
                                        std::to_string(position) + " (" + name + " = " +
                                        std::to_string(value) + ") " + rule,
                                    position);
}
/// The largest size the BLAS/LAPACK kernels take (LP64: int).
inline constexpr int64_t max_size = std::numeric_limits<int>::max();
/// A dimension: 0 <= value <= max_size.
inline void check_dimension(char const* routine, int position, char const* name, int64_t value)
{
    check_argument(value >= 0, routine, position, name, value, "must be >= 0");
    check_argument(value <= max_size, routine, position, name, value,
                   "exceeds the LP64 BLAS limit 2^31 - 1");
}
/// A leading dimension: >= max(1, rows).
inline void check_leading(char const* routine, int position, char const* name, int64_t ld,
                          int64_t rows)
{
    check_argument(ld >= std::max<int64_t>(1, rows), routine, position, name, ld,
                   ("must be >= max(1, " + std::to_string(rows) + ")").c_str());
    check_argument(ld <= max_size, routine, position, name, ld,
                   "exceeds the LP64 BLAS limit 2^31 - 1");
}
/// An array: not null unless it holds no element.
inline void check_array(char const* routine, int position, char const* name, void const* p,
                        bool empty)
{
    if (!(p != nullptr || empty)) [[unlikely]]
        throw InvalidLapackArgument(std::string(routine) + ": argument " +
                                        std::to_string(position) + " (" + name +
                                        ") is a null pointer",
                                    position);
}
/// An option given as an enum (only a cast can make it bad).
template <class E>
void check_option(bool ok, char const* routine, int position, char const* name, E value)
{
    if (!ok) [[unlikely]]
        throw InvalidLapackArgument(std::string(routine) + ": argument " +
                                        std::to_string(position) + " (" + name + " = '" +
                                        std::string(1, char(value)) + "') is not valid here",
                                    position);
}

/// The first seven arguments of the LU solvers gesv, dsgesv and zcgesv, which share them:
/// n (1), nrhs (2), A (3), lda (4), ipiv (5), B (6), ldb (7).
inline void check_lu_solver_arguments(char const* fn, int64_t n, int64_t nrhs, void const* a,
                                      int64_t lda, void const* ipiv, void const* b, int64_t ldb)
{
    check_dimension(fn, 1, "n", n);
    check_dimension(fn, 2, "nrhs", nrhs);
    check_array(fn, 3, "A", a, n == 0);
    check_leading(fn, 4, "lda", lda, n);
    check_array(fn, 5, "ipiv", ipiv, n == 0);
    check_array(fn, 6, "B", b, n == 0 || nrhs == 0);
    check_leading(fn, 7, "ldb", ldb, n);
}

/// The arguments of geqrf and gelqf, which share them: m (1), n (2), A (3), lda (4), tau (5).
inline void check_factorization_arguments(char const* fn, int64_t m, int64_t n, void const* a,
                                          int64_t lda, void const* tau)
{
    check_dimension(fn, 1, "m", m);
    check_dimension(fn, 2, "n", n);
    check_array(fn, 3, "A", a, m == 0 || n == 0);
    check_leading(fn, 4, "lda", lda, m);
    check_array(fn, 5, "tau", tau, m == 0 || n == 0);
}

/// The arguments of ormqr/unmqr and ormlq/unmlq, which share them: side (1), trans (2; Q^H
/// is Op::trans or Op::conjtrans for the real types, Op::conjtrans for the complex ones), m
/// (3), n (4), k (5, at most the order nq of Q: m from the left, n from the right), A (6), lda
/// (7, at least `a_rows`: nq for the QR's columns of reflectors, k for the LQ's rows), tau
/// (8), C (9), ldc (10). Returns nq.
template <bool complex>
int64_t check_reflector_application(char const* fn, Side side, Op op, int64_t m, int64_t n,
                                    int64_t k, void const* a, int64_t lda, bool rows_of_reflectors,
                                    void const* tau, void const* c, int64_t ldc)
{
    check_option(side == Side::left || side == Side::right, fn, 1, "side", side);
    check_option(op == Op::notrans || op == Op::conjtrans || (op == Op::trans && !complex), fn, 2,
                 "trans", op);
    check_dimension(fn, 3, "m", m);
    check_dimension(fn, 4, "n", n);
    const int64_t nq = side == Side::left ? m : n;
    check_dimension(fn, 5, "k", k);
    check_argument(
        k <= nq, fn, 5, "k", k,
        ("must be <= " + std::string(side == Side::left ? "m = " : "n = ") + std::to_string(nq))
            .c_str());
    check_array(fn, 6, "A", a, nq == 0 || k == 0);
    check_leading(fn, 7, "lda", lda, rows_of_reflectors ? k : nq);
    check_array(fn, 8, "tau", tau, k == 0);
    check_array(fn, 9, "C", c, m == 0 || n == 0);
    check_leading(fn, 10, "ldc", ldc, m);
    return nq;
}

/// The arguments of orgqr/ungqr (the first n columns of Q: k <= n <= m) and orglq/unglq (the
/// first m rows: k <= m <= n): m (1), n (2), k (3), A (4), lda (5), tau (6).
inline void check_reflector_forming(char const* fn, int64_t m, int64_t n, int64_t k, void const* a,
                                    int64_t lda, bool rows_of_q, void const* tau)
{
    check_dimension(fn, 1, "m", m);
    check_dimension(fn, 2, "n", n);
    if (rows_of_q)
        check_argument(m <= n, fn, 2, "n", n, ("must be >= m = " + std::to_string(m)).c_str());
    else
        check_argument(n <= m, fn, 2, "n", n, ("must be <= m = " + std::to_string(m)).c_str());
    check_dimension(fn, 3, "k", k);
    const int64_t most = rows_of_q ? m : n;
    check_argument(
        k <= most, fn, 3, "k", k,
        ((rows_of_q ? "must be <= m = " : "must be <= n = ") + std::to_string(most)).c_str());
    check_array(fn, 4, "A", a, m == 0 || n == 0);
    check_leading(fn, 5, "lda", lda, m);
    check_array(fn, 6, "tau", tau, k == 0);
}

}  // namespace tessera::la::detail
