// LAPACK-style gemm on the library's runtime, in place. C is cut into tiles, and each task
// computes one tile with whole panels of the other operands,
//     C(i,j) = alpha op(A)(i,:) op(B)(:,j) + beta C(i,j),
// rather than the k-loop of tile products of the tile algorithm (algorithms/gemm.cpp): C is
// read and written once, and OpenBLAS gets the whole k to block as it likes, which is worth
// 5-10% on one core. The panels are registered in place (rows of A and columns of B, or
// their transposes); they are only read. Where a device's memory is bounded, k is cut into
// chunks so that a task's panels take at most an eighth of it.
#include <tessera/la/blas.hpp>
#include <tessera/la/context.hpp>

#include "linalg/codelets/blas3.hpp"
#include "linalg/instantiate.hpp"
#include "linalg/lapack/arguments.hpp"

#include <vector>

namespace tessera::inline la {

template <Scalar T>
void gemm(Op transa, Op transb, int64_t m, int64_t n, int64_t k, scalar_arg<T> alpha, T const* a, int64_t lda,
          T const* b, int64_t ldb, scalar_arg<T> beta, T* c, int64_t ldc)
{
    constexpr char const* fn = "gemm";
    auto valid = [](Op o) { return o == Op::notrans || o == Op::trans || o == Op::conjtrans; };
    detail::check_option(valid(transa), fn, 1, "transa", transa);
    detail::check_option(valid(transb), fn, 2, "transb", transb);
    detail::check_dimension(fn, 3, "m", m);
    detail::check_dimension(fn, 4, "n", n);
    detail::check_dimension(fn, 5, "k", k);
    const bool ta = transa != Op::notrans, tb = transb != Op::notrans;
    const int64_t arows = ta ? k : m, brows = tb ? n : k;  // the rows of A and B as stored
    const bool uses_ab = k > 0 && alpha != T(0) && m > 0 && n > 0;
    detail::check_array(fn, 7, "A", a, !uses_ab);
    detail::check_leading(fn, 8, "lda", lda, arows);
    detail::check_array(fn, 9, "B", b, !uses_ab);
    detail::check_leading(fn, 10, "ldb", ldb, brows);
    detail::check_array(fn, 12, "C", c, m == 0 || n == 0);
    detail::check_leading(fn, 13, "ldc", ldc, m);
    if (m == 0 || n == 0) return;
    rt::Runtime& rt = runtime();
    const int64_t nb = tile_size(Routine::gemm, precision_letter<T>(), std::max(m, n));
    auto C = TileMatrix<T>::wrap(rt, c, m, n, ldc, nb);
    if (!uses_ab) {  // C = beta C: A and B are not referenced
        if (beta != T(1)) scale(beta, C);
        return;
    }
    // The k chunk: all of k, unless a bounded device could not hold a task's panels.
    int64_t kb = k;
    for (rt::MemoryNodeInfo const& node : rt.memory_nodes())
        if (node.capacity > 0)
            kb = std::min<int64_t>(kb, std::max<int64_t>(1, int64_t(node.capacity / 8 / (2 * std::size_t(nb) * sizeof(T)))));
    const int64_t kt = (k + kb - 1) / kb;
    // Panel (i, q) of op(A): rows [i nb, i nb + mb) of op(A), columns [q kb, q kb + kq); panel
    // (q, j) of op(B) likewise. Only read: casting const away for the registration is safe.
    auto* pa = const_cast<T*>(a);
    auto* pb = const_cast<T*>(b);
    std::vector<rt::Handle<rt::Matrix<T>>> apanels, bpanels;
    apanels.reserve(std::size_t(C.mt() * kt));
    bpanels.reserve(std::size_t(C.nt() * kt));
    for (int64_t q = 0; q < kt; ++q) {
        const int64_t k0 = q * kb, kq = std::min(kb, k - k0);
        for (int64_t i = 0; i < C.mt(); ++i) {
            const int64_t r0 = i * nb, mb = C.tile_m(i);
            apanels.emplace_back(rt, ta ? rt::Matrix<T>{pa + k0 + r0 * lda, kq, mb, lda}
                                        : rt::Matrix<T>{pa + r0 + k0 * lda, mb, kq, lda});
        }
        for (int64_t j = 0; j < C.nt(); ++j) {
            const int64_t c0 = j * nb, nbj = C.tile_n(j);
            bpanels.emplace_back(rt, tb ? rt::Matrix<T>{pb + c0 + k0 * ldb, nbj, kq, ldb}
                                        : rt::Matrix<T>{pb + k0 + c0 * ldb, kq, nbj, ldb});
        }
    }
    Sequence s{rt};
    for (int64_t q = 0; q < kt; ++q)
        for (int64_t j = 0; j < C.nt(); ++j)
            for (int64_t i = 0; i < C.mt(); ++i)
                s.submit(cl::gemm<T>, rt::value(transa), rt::value(transb), rt::value(T(alpha)),
                         read(apanels[std::size_t(q * C.mt() + i)]), read(bpanels[std::size_t(q * C.nt() + j)]),
                         rt::value(q == 0 ? T(beta) : T(1)), readwrite(C(i, j)));
    s.wait();
}

#define TESSERA_INSTANTIATE(T) \
    template void gemm<T>(Op, Op, int64_t, int64_t, int64_t, T, T const*, int64_t, T const*, int64_t, T, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::la
