// The tile transposes of transpose.hpp, by 16 x 16 blocks: each block is copied into a buffer
// by contiguous column pieces, then written transposed from it (four 16-element column pieces
// of the destination at a time), so that both matrices are touched in runs of 256 bytes or
// more and the strided side of the transpose stays in L1.
#include "fft/kernels/cpu/transpose.hpp"

#include <algorithm>
#include <complex>
#include <cstring>

namespace tessera::fft::kernels::cpu {
namespace {

constexpr int64_t block = 16;

/// buf (rows x cols, leading dimension `block`) = the block at a (leading dimension lda).
template <class T> void load(T const* a, int64_t lda, int64_t rows, int64_t cols, T* buf)
{
    for (int64_t j = 0; j < cols; ++j) std::memcpy(buf + j * block, a + j * lda, rows * sizeof(T));
}

}  // namespace

template <class T>
void store_transposed(T const* b, int64_t ldb, int64_t rows, int64_t cols, T* o, int64_t ldo)
{
    int64_t k = 0;
    for (; k + 4 <= rows; k += 4) {
        T* t = o + k * ldo;
        for (int64_t j = 0; j < cols; ++j) {
            T const* f = b + j * ldb + k;
            t[j] = f[0];
            t[ldo + j] = f[1];
            t[2 * ldo + j] = f[2];
            t[3 * ldo + j] = f[3];
        }
    }
    for (; k < rows; ++k)
        for (int64_t j = 0; j < cols; ++j) o[k * ldo + j] = b[j * ldb + k];
}

template <class T> void swap_transposed(T* x, int64_t ldx, T* y, int64_t ldy, int64_t p, int64_t q)
{
    T bx[block * block], by[block * block];
    for (int64_t j = 0; j < q; j += block)
        for (int64_t i = 0; i < p; i += block) {
            const int64_t rows = std::min(block, p - i), cols = std::min(block, q - j);
            T* xb = x + i + j * ldx;  // rows x cols
            T* yb = y + j + i * ldy;  // cols x rows
            load(xb, ldx, rows, cols, bx);
            load(yb, ldy, cols, rows, by);
            store_transposed(by, block, cols, rows, xb, ldx);
            store_transposed(bx, block, rows, cols, yb, ldy);
        }
}

template <class T> void transpose_in_place(T* x, int64_t ld, int64_t p)
{
    T buf[block * block];
    for (int64_t j = 0; j < p; j += block) {
        const int64_t cols = std::min(block, p - j);
        // the diagonal block, then the pairs of blocks on either side of it
        T* d = x + j + j * ld;
        load(d, ld, cols, cols, buf);
        store_transposed(buf, block, cols, cols, d, ld);
        for (int64_t i = j + block; i < p; i += block) {
            const int64_t rows = std::min(block, p - i);
            swap_transposed(x + i + j * ld, ld, x + j + i * ld, ld, rows, cols);
        }
    }
}

#define TESSERA_INSTANTIATE(T)                                                                     \
    template void store_transposed<T>(T const*, int64_t, int64_t, int64_t, T*, int64_t);           \
    template void swap_transposed<T>(T*, int64_t, T*, int64_t, int64_t, int64_t);                  \
    template void transpose_in_place<T>(T*, int64_t, int64_t);
TESSERA_INSTANTIATE(std::complex<float>)
TESSERA_INSTANTIATE(std::complex<double>)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::fft::kernels::cpu
