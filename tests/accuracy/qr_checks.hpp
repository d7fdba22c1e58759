// Checks the QR and LQ tests share: orthogonality of Q, the error of a product with a
// unitary matrix, and the operations that mean Q^H.
#pragma once

#include "accuracy/accuracy.hpp"

#include <vector>

namespace tessera::test {

/// ||I - Q^H Q||_1 / (m eps) for the m x q Q.
template <Scalar T> double orthogonality(Dense<T> const& Q)
{
    const int64_t m = Q.m, q = Q.n;
    if (q == 0) return 0;
    Dense<T> E(q, q);
    for (int64_t i = 0; i < q; ++i) E(i, i) = T(1);
    blas::gemm<T>(Op::conjtrans, Op::notrans, q, q, m, T(-1), Q.data(), Q.ld, Q.data(), Q.ld, T(1),
                  E.data(), E.ld);
    return norm1(E) / (double(m) * eps<T>());
}

/// The operations that mean Q^H for T: Op::conjtrans, and Op::trans for the real types.
template <Scalar T> std::vector<Op> reflector_ops()
{
    if constexpr (is_complex_v<T>)
        return {Op::notrans, Op::conjtrans};
    else
        return {Op::notrans, Op::trans, Op::conjtrans};
}

/// ||X - Y||_1 / (||C||_1 m eps): two products of an m x m unitary matrix with C.
template <Scalar T>
double product_error(Dense<T> const& X, Dense<T> const& Y, Dense<T> const& C, int64_t m)
{
    const double c = norm1(C);
    return norm1_diff(X, Y) / ((c > 0 ? c : 1) * double(std::max<int64_t>(m, 1)) * eps<T>());
}

}  // namespace tessera::test
