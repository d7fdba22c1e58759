// The solves with getrf's factors by strips of B (strips.hpp): on cores alone with many
// right-hand sides, each worker's strip of B gets the interchanges and two whole triangular
// solves, one task each (the recursive trsm, most of whose flops are tall gemm calls), where
// the tile algorithm's small steps leave the cores waiting on each other. getrs uses all of
// it; gesv, whose forward solve went along the factorization, the solve with U alone.
// Internal.
#pragma once

#include <tessera/la/lu.hpp>
#include <tessera/la/sequence.hpp>

#include "linalg/codelets/blas3.hpp"
#include "linalg/codelets/lu.hpp"

#include <vector>

namespace tessera::inline la::detail {

/// Which part of the solve with A = P L U the strips get.
enum class LuSolvePart {
    whole,      ///< op(A) X = B: with trans = N, U^{-1} L^{-1} P^T B; else P L^{-op} U^{-op} B
    upper_only  ///< U X = B (trans = N)
};

/// Solves the n x nrhs array b (ld ldb) in strips of `width` columns with the factors a (ld
/// lda) and, for the whole solve, the n interchanges ipiv (from 1); waits.
template <Scalar T>
void lu_solve_in_strips(rt::Runtime& rt, LuSolvePart part, Op trans, int64_t n, int64_t nrhs,
                        T const* a, int64_t lda, int64_t const* ipiv, T* b, int64_t ldb,
                        int64_t width)
{
    const rt::ReadOnlyHandle factors(rt, rt::Matrix<T const>{a, n, n, lda});
    std::vector<rt::Handle<rt::Matrix<T>>> strips;
    strips.reserve(std::size_t((nrhs + width - 1) / width));
    for (int64_t j0 = 0; j0 < nrhs; j0 += width)
        strips.emplace_back(rt, rt::Matrix<T>{b + j0 * ldb, n, std::min(width, nrhs - j0), ldb});
    const bool whole = part == LuSolvePart::whole;
    const Pivots pivots = whole ? Pivots::copy_of(rt, ipiv, n, n) : Pivots{};  // one piece
    std::vector<Pivots::Piece const*> pieces;
    if (whole) pieces.push_back(&pivots.piece(0));
    Sequence s{rt};
    const auto call = s.call(whole ? "getrs" : "gesv");  // one call, not one per task
    for (auto& strip : strips) {
        auto swaps = [&](kernels::cpu::SwapOrder order) {
            std::vector<rt::Handle<rt::Matrix<T>>*> column{&strip};
            s.submit(cl::swap_rows_all_pieces<T>, rt::readwrite_all(column), rt::read_all(pieces),
                     rt::value(order));
        };
        auto solve = [&](Uplo uplo, Op op, Diag diag) {
            s.submit(cl::trsm<T>, rt::value(Side::left), rt::value(uplo), rt::value(op),
                     rt::value(diag), rt::value(T(1)), read(factors), readwrite(strip));
        };
        if (!whole) {
            solve(Uplo::upper, Op::notrans, Diag::nonunit);
        } else if (trans == Op::notrans) {
            swaps(kernels::cpu::SwapOrder::forward);
            solve(Uplo::lower, Op::notrans, Diag::unit);
            solve(Uplo::upper, Op::notrans, Diag::nonunit);
        } else {
            solve(Uplo::upper, trans, Diag::nonunit);
            solve(Uplo::lower, trans, Diag::unit);
            swaps(kernels::cpu::SwapOrder::backward);
        }
    }
    s.wait();
}

}  // namespace tessera::inline la::detail
