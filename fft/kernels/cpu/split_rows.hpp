// The n-point DFTs of the rows of an h x n column-major block, in place, as Cooley-Tukey
// split across its columns (n = n1 n2, k = k1 + n1 k2, f = f2 + n2 f1):
//
//     X(f2 + n2 f1) = sum_k1 w_n1^(k1 f1) [ w_n^(k1 f2) sum_k2 w_n2^(k2 f2) x(k1 + n1 k2) ]
//
// 1. for each k1, the n2-point DFTs of columns k1 + n1 k2, then column k1 + n1 f2 times
//    w_n^(k1 f2): one batch of h transforms strided by n1 ld, its columns still in cache;
// 2. for each f2, the n1-point DFTs of the n1 adjacent columns n1 f2 + k1;
// 3. column f1 + n1 f2 now holds X(f2 + n2 f1): the columns are moved there along the
//    cycles of that permutation (an n1 x n2 transpose of whole columns).
//
// Each pass reads and writes whole columns of h contiguous elements, where FFTW's strided
// batch of n-point transforms (its buffered plan copies 16 rows at a time out of columns
// ld apart) waits on memory: 5.8 against 9.4 ms for 512 rows of 2048 points 32 KiB apart
// on one core of this project's machine, caches cold; the permutation costs one more read
// and write of the block. Internal.
#pragma once

#include <complex>
#include <cstdint>
#include <functional>

namespace tessera::fft::kernels::cpu {

/// n1 for rows_c2c_split on an h x n block of leading dimension ld, or 0 where it does not
/// pay or FFTW's int strides cannot hold n1 ld: n1 is the divisor of n nearest sqrt(n) from
/// below, with n1 and n / n1 both at least 8; h at least 64 rows (shorter columns wait on
/// memory as the strided batch does) and n at least 256.
int64_t column_split(int64_t h, int64_t n, int64_t ld);

/// What rows_c2c_split does to output column f (its h elements at x) once it is in place,
/// while it is still in cache: nothing by default.
template <class R> using ColumnFinish = std::function<void(std::complex<R>* x, int64_t f)>;

/// Rows r < h of a (a[r + c ld], c < n) replaced by their n-point DFTs (sign -1 forward, +1
/// backward, unnormalized), through the split n = n1 (n / n1) described above; then `finish`
/// on each column.
template <class R>
void rows_c2c_split(std::complex<R>* a, int64_t h, int64_t n, int64_t ld, int sign, int64_t n1,
                    ColumnFinish<R> const& finish = {});

/// The same from another array (from[r + c ld_from]) into a: each column is copied as pass 1
/// reaches it, so that the copy costs no pass of its own.
template <class R>
void rows_c2c_split(std::complex<R> const* from, int64_t ld_from, std::complex<R>* a, int64_t h,
                    int64_t n, int64_t ld, int sign, int64_t n1,
                    ColumnFinish<R> const& finish = {});

/// Passes 1 and 2 alone, from `from` (which may be a) into a: column f1 + n1 f2 then holds
/// X(f2 + n2 f1), the digit-reversed order of n2 x n1 (digit_reversed.hpp), for a next stage
/// that reads its columns in any order.
template <class R>
void rows_c2c_split_unpermuted(std::complex<R> const* from, int64_t ld_from, std::complex<R>* a,
                               int64_t h, int64_t n, int64_t ld, int sign, int64_t n1);

}  // namespace tessera::fft::kernels::cpu
