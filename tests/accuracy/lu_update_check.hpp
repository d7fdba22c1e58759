// The check of one step of the tile LU's trailing update (cl::update_columns: the panel's
// interchanges, trsm with its unit lower tile, gemm below), shared by the CPU test
// (test_lu_panel.cpp) and the GPU test (tests/cuda): step k = 1 of a 150 x 150 matrix in
// tiles of 32, on tile columns 2 to 4 (the last 22 wide) in one task, against LAPACK's laswp,
// trsm and gemm called directly on a copy.
#pragma once

#include "accuracy/accuracy.hpp"
#include "linalg/codelets/lu.hpp"

#include <limits>
#include <numeric>
#include <random>

namespace tessera::test {

/// ||update_columns(A) - oracle||_1 / (||A0||_1 n eps) for A as tiles of their own (in_place
/// false) or a LAPACK array tiled in place (true).
template <Scalar T> double lu_update_error(rt::Runtime& rt, bool in_place)
{
    constexpr int64_t m = 150, n = 150, nb = 32, k = 1, first_column = 2, offset = k * nb;
    Dense<T> A0 = random_dense<T>(m, n, 97);
    for (int64_t j = offset; j < offset + nb; ++j)  // a well-conditioned unit lower L(k, k)
        for (int64_t i = j + 1; i < offset + nb; ++i) A0(i, j) *= T(1.0 / nb);
    std::vector<int64_t> ipiv(std::size_t(std::min(m, n)));
    std::iota(ipiv.begin(), ipiv.end(), int64_t(1));
    std::mt19937_64 g(98);
    for (int64_t i = 0; i < nb; ++i)  // row offset + i swapped with one at or below it
        ipiv[std::size_t(offset + i)] = offset + i + 1 + int64_t(g() % uint64_t(m - offset - i));

    Dense<T> array = A0;  // the LAPACK array the in-place matrix wraps
    TileMatrix<T> A =
        in_place ? TileMatrix<T>::wrap(rt, array.data(), m, n, array.ld, nb) : tiles_of(rt, A0, nb);
    Pivots pivots = Pivots::copy_of(rt, ipiv.data(), int64_t(ipiv.size()), nb);
    std::vector<typename TileMatrix<T>::Tile*> panel, block;
    for (int64_t i = k; i < A.mt(); ++i) panel.push_back(&A(i, k));
    for (int64_t j = first_column; j < A.nt(); ++j)
        for (int64_t i = k; i < A.mt(); ++i) block.push_back(&A(i, j));
    {
        Sequence s{rt};
        s.submit(la::cl::update_columns<T>, rt::read_all(panel), rt::read(pivots.piece(k)),
                 rt::value(offset), rt::readwrite_all(block));
        if (s.wait() != 0) return std::numeric_limits<double>::infinity();
    }
    const Dense<T> got = to_dense(A);

    Dense<T> ref = A0;
    const int64_t c0 = first_column * nb, width = n - c0, below = m - offset - nb;
    std::vector<lapack_int> lapack_ipiv(ipiv.begin(), ipiv.end());
    blas::laswp<T>(width, &ref(0, c0), ref.ld, offset + 1, offset + nb, lapack_ipiv.data(), 1);
    blas::trsm<T>(Side::left, Uplo::lower, Op::notrans, Diag::unit, nb, width, T(1),
                  &ref(offset, offset), ref.ld, &ref(offset, c0), ref.ld);
    blas::gemm<T>(Op::notrans, Op::notrans, below, width, nb, T(-1), &ref(offset + nb, offset),
                  ref.ld, &ref(offset, c0), ref.ld, T(1), &ref(offset + nb, c0), ref.ld);
    return norm1_diff(got, ref) / (norm1(A0) * double(n) * eps<T>());
}

}  // namespace tessera::test
