/// @file layout.hpp
/// Conversion between LAPACK's column-major layout and a TileMatrix's tile storage, as one
/// copy task per tile (so a factorization can start on the first tiles while the others are
/// still being copied).
///
///     TileMatrix<double> A{rt, m, n, nb};
///     Sequence s{rt};
///     lapack_to_tiles_async(a, lda, A, s);   // a: m x n column-major, leading dimension lda
///     potrf_async(Uplo::lower, A, s);
///     tiles_to_lapack_async(A, a, lda, s);
///     s.wait();
#pragma once

#include <tessera/la/sequence.hpp>
#include <tessera/la/tile_matrix.hpp>

namespace tessera::inline la {

/// Copies the column-major A.m() x A.n() array `a` (leading dimension lda >= max(1, A.m()))
/// into the tiles of A. `a` must stay untouched until the sequence is waited for. Conversions
/// on the same array in one sequence run in the order of the calls (a tiles_to_lapack_async
/// into `a` before this call is read by it); a call on memory that overlaps an array converted
/// earlier in the sequence with another shape (position, sizes, lda, tile size) throws
/// InvalidArgument when either call writes it (reads of one array into differently tiled
/// matrices are fine).
template <Scalar T>
void lapack_to_tiles_async(T const* a, int64_t lda, TileMatrix<T>& A, Sequence& s);
/// Copies the tiles of A into the column-major array `a` (leading dimension lda).
template <Scalar T>
void tiles_to_lapack_async(TileMatrix<T> const& A, T* a, int64_t lda, Sequence& s);

/// lapack_to_tiles_async, then waits.
template <Scalar T> void lapack_to_tiles(T const* a, int64_t lda, TileMatrix<T>& A);
/// tiles_to_lapack_async, then waits.
template <Scalar T> void tiles_to_lapack(TileMatrix<T> const& A, T* a, int64_t lda);

/// A new TileMatrix with nb x nb tiles holding a copy of the column-major m x n array `a`.
template <Scalar T>
TileMatrix<T> tile_copy_of(rt::Runtime& rt, T const* a, int64_t m, int64_t n, int64_t lda,
                           int64_t nb);

}  // namespace tessera::inline la
