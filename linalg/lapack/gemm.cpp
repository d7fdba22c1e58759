// LAPACK-style gemm on the library's runtime, in place. C is cut into blocks, and each task
// computes one block with whole panels of the other operands,
//     C(i,j) = alpha op(A)(i,:) op(B)(:,j) + beta C(i,j),
// rather than the k-loop of tile products of the tile algorithm (algorithms/gemm.cpp): C is
// read and written once, and OpenBLAS gets the whole k to block as it likes, which is worth
// 5-10% on one core. The panels are registered in place (rows of A and columns of B, or
// their transposes); they are only read. Where a device's memory is bounded, the blocks are
// halved until one takes at most an eighth of it, and k is cut into chunks so that a task's
// panels take at most another eighth.
//
// The blocks: on cores alone, one strip of C per worker (strips.hpp). Strips of whole columns
// keep every call tall, and OpenBLAS runs a tall call fastest, packing op(B) once and
// amortizing it over all of m (dgemm on 2 cores against OpenBLAS's own 2 threads: 0.98-1.02x
// with 2 strips, 0.86-0.94x with 4 x 4 square tiles at n = 1000 to 8000; docs/tile-size.md).
// C too narrow for that (under 16 columns a strip) is cut into row strips instead. With
// accelerators, or a tile size set by set_tile_size, C is cut into square tiles of
// tile_size(): more tasks than units, for the schedulers to balance unequal units.
#include <tessera/la/blas.hpp>
#include <tessera/la/context.hpp>

#include "linalg/codelets/blas3.hpp"
#include "linalg/instantiate.hpp"
#include "linalg/kernels/cpu/blas_lapack.hpp"
#include "linalg/lapack/arguments.hpp"
#include "linalg/lapack/library_call.hpp"
#include "linalg/lapack/strips.hpp"

#include <vector>

namespace tessera::inline la {

namespace {
struct Blocks {
    int64_t rows, cols;
};
/// How the m x n C is cut (see the top of this file).
Blocks gemm_blocks(rt::Runtime& rt, int64_t m, int64_t n, char precision)
{
    if (const int64_t width = detail::strip_width(rt, n)) return {m, width};
    if (const int64_t height = detail::strip_width(rt, m))
        return {height, n};  // C too narrow: rows
    const int64_t nb = tile_size(Routine::gemm, precision, std::max(m, n));
    return {nb, nb};
}
}  // namespace

template <Scalar T>
void gemm(Op transa, Op transb, int64_t m, int64_t n, int64_t k, scalar_arg<T> alpha, T const* a,
          int64_t lda, T const* b, int64_t ldb, scalar_arg<T> beta, T* c, int64_t ldc)
{
    constexpr char const* fn = "gemm";
    detail::check_option(detail::is_operation(transa), fn, 1, "transa", transa);
    detail::check_option(detail::is_operation(transb), fn, 2, "transb", transb);
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
    // BLAS's quick return, C not referenced: nothing to multiply and beta = 1
    const bool quick = m == 0 || n == 0 || (!uses_ab && beta == T(1));
    detail::check_array(fn, 12, "C", c, quick);
    detail::check_leading(fn, 13, "ldc", ldc, m);
    if (quick) return;
    if (detail::inside_task())
        return detail::run_inline([&] {
            kernels::cpu::gemm<T>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        });
    const detail::LibraryCall library_call{
        __func__};  // finalize() on another thread waits for this call
    rt::Runtime& rt = library_call.runtime();
    if (!uses_ab) {  // C = beta C: A and B are not referenced
        auto C = TileMatrix<T>::wrap(
            rt, c, m, n, ldc, tile_size(Routine::gemm, precision_letter<T>(), std::max(m, n)));
        scale(beta, C);
        return;
    }
    const Blocks blocks = gemm_blocks(rt, m, n, precision_letter<T>());
    int64_t mb = blocks.rows, nb = blocks.cols;
    // The k chunk: all of k, unless a bounded device could not hold a task's panels.
    int64_t kb = k;
    for (rt::MemoryNodeInfo const& node : rt.memory_nodes())
        if (node.capacity > 0) {
            while (std::size_t(mb) * std::size_t(nb) * sizeof(T) > node.capacity / 8 &&
                   (mb > 1 || nb > 1))
                (mb >= nb ? mb : nb) = (std::max(mb, nb) + 1) / 2;
            kb = std::min<int64_t>(
                kb, std::max<int64_t>(
                        1, int64_t(node.capacity / 8 / (std::size_t(mb + nb) * sizeof(T)))));
        }
    const int64_t mt = (m + mb - 1) / mb, nt = (n + nb - 1) / nb, kt = (k + kb - 1) / kb;
    // Block (i, j) of C: rows [i mb, i mb + mi), columns [j nb, j nb + nj). Panel (i, q) of
    // op(A): its rows [i mb, i mb + mi), columns [q kb, q kb + kq); panel (q, j) of op(B)
    // likewise. A and B are only read: read-only handles over their const memory.
    auto span = [](int64_t rows, int64_t cols, int64_t ld) {
        return std::size_t((cols - 1) * ld + rows) * sizeof(T);
    };
    const rt::PinnedRegion pinned_a = rt.pin_for_transfers(a, span(arows, ta ? m : k, lda));
    const rt::PinnedRegion pinned_b = rt.pin_for_transfers(b, span(brows, tb ? k : n, ldb));
    const rt::PinnedRegion pinned_c = rt.pin_for_transfers(c, span(m, n, ldc));
    auto rows = [&](int64_t i) { return std::min(mb, m - i * mb); };
    auto cols = [&](int64_t j) { return std::min(nb, n - j * nb); };
    std::vector<rt::Handle<rt::Matrix<T>>> cblocks;
    std::vector<rt::ReadOnlyHandle<rt::Matrix<T>>> apanels, bpanels;
    cblocks.reserve(std::size_t(mt * nt));
    apanels.reserve(std::size_t(mt * kt));
    bpanels.reserve(std::size_t(nt * kt));
    for (int64_t j = 0; j < nt; ++j)
        for (int64_t i = 0; i < mt; ++i)
            cblocks.emplace_back(rt,
                                 rt::Matrix<T>{c + i * mb + j * nb * ldc, rows(i), cols(j), ldc});
    for (int64_t q = 0; q < kt; ++q) {
        const int64_t k0 = q * kb, kq = std::min(kb, k - k0);
        for (int64_t i = 0; i < mt; ++i) {
            const int64_t r0 = i * mb;
            apanels.emplace_back(rt, ta ? rt::Matrix<T const>{a + k0 + r0 * lda, kq, rows(i), lda}
                                        : rt::Matrix<T const>{a + r0 + k0 * lda, rows(i), kq, lda});
        }
        for (int64_t j = 0; j < nt; ++j) {
            const int64_t c0 = j * nb;
            bpanels.emplace_back(rt, tb ? rt::Matrix<T const>{b + c0 + k0 * ldb, cols(j), kq, ldb}
                                        : rt::Matrix<T const>{b + k0 + c0 * ldb, kq, cols(j), ldb});
        }
    }
    Sequence s{rt};
    const auto call = s.call("gemm");  // one call, not one per task
    for (int64_t q = 0; q < kt; ++q)
        for (int64_t j = 0; j < nt; ++j)
            for (int64_t i = 0; i < mt; ++i)
                s.submit(cl::gemm<T>, rt::value(transa), rt::value(transb), rt::value(T(alpha)),
                         read(apanels[std::size_t(q * mt + i)]),
                         read(bpanels[std::size_t(q * nt + j)]), rt::value(q == 0 ? T(beta) : T(1)),
                         readwrite(cblocks[std::size_t(j * mt + i)]));
    s.wait();
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void gemm<T>(Op, Op, int64_t, int64_t, int64_t, T, T const*, int64_t, T const*,       \
                          int64_t, T, T*, int64_t);
TESSERA_FOR_EACH_SCALAR(TESSERA_INSTANTIATE)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::inline la
