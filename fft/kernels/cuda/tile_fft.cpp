// The stages of a 2D transform on a GPU (see tile_fft.hpp): cuFFT for the transforms,
// cudaMemcpy2DAsync and cuBLAS geam to bring a tile column's or row's elements together.
#include "fft/kernels/cuda/tile_fft.hpp"

#include <tessera/rt/cuda.hpp>

#include <cuComplex.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace tessera::fft::kernels::cuda {
namespace {

template <class R> using C = std::complex<R>;

/// The workspace a batch may use: enough for a few hundred columns of a large transform.
constexpr std::size_t workspace_bytes = std::size_t(64) << 20;

template <class R> constexpr cufftType c2c_type = std::is_same_v<R, float> ? CUFFT_C2C : CUFFT_Z2Z;

/// cuFFT's c2c execution of precision R on `data`, in place.
template <class R> void execute_in_place(cufftHandle plan, C<R>* data, int sign)
{
    if constexpr (std::is_same_v<R, float>) {
        auto* p = reinterpret_cast<cufftComplex*>(data);
        rt::cuda_check(cufftExecC2C(plan, p, p, sign), "cufftExecC2C");
    } else {
        auto* p = reinterpret_cast<cufftDoubleComplex*>(data);
        rt::cuda_check(cufftExecZ2Z(plan, p, p, sign), "cufftExecZ2Z");
    }
}

/// C (cols x rows, ldc) = A^T, A rows x cols with lda (cuBLAS geam; B is A again with a zero
/// factor, so that no operand is left undefined).
template <class R>
void transpose(rt::CudaContext const& cuda, int64_t rows, int64_t cols, C<R> const* a, int64_t lda,
               C<R>* c, int64_t ldc)
{
    const int m = int(cols), n = int(rows), la = int(lda), lc = int(ldc);
    if constexpr (std::is_same_v<R, float>) {
        const cuComplex one = make_cuComplex(1, 0), zero = make_cuComplex(0, 0);
        auto const* A = reinterpret_cast<cuComplex const*>(a);
        rt::cuda_check(cublasCgeam(cuda.cublas, CUBLAS_OP_T, CUBLAS_OP_T, m, n, &one, A, la, &zero,
                                   A, la, reinterpret_cast<cuComplex*>(c), lc),
                       "cublasCgeam");
    } else {
        const cuDoubleComplex one = make_cuDoubleComplex(1, 0), zero = make_cuDoubleComplex(0, 0);
        auto const* A = reinterpret_cast<cuDoubleComplex const*>(a);
        rt::cuda_check(cublasZgeam(cuda.cublas, CUBLAS_OP_T, CUBLAS_OP_T, m, n, &one, A, la, &zero,
                                   A, la, reinterpret_cast<cuDoubleComplex*>(c), lc),
                       "cublasZgeam");
    }
}

/// Copies a rows x cols block between GPU arrays (column-major, leading dimensions in elements).
template <class T>
void copy_block(rt::CudaContext const& cuda, int64_t rows, int64_t cols, T const* src, int64_t lds,
                T* dst, int64_t ldd)
{
    if (rows == 0 || cols == 0) return;
    rt::cuda_check(cudaMemcpy2DAsync(dst, std::size_t(ldd) * sizeof(T), src,
                                     std::size_t(lds) * sizeof(T), std::size_t(rows) * sizeof(T),
                                     std::size_t(cols), cudaMemcpyDeviceToDevice, cuda.stream),
                   "cudaMemcpy2DAsync");
}

}  // namespace

template <class R>
void columns_c2c(rt::CudaContext const& cuda, std::span<TilePiece<C<R> const> const> in,
                 std::span<TilePiece<C<R>> const> out, int sign)
{
    if (out.empty() || out[0].n == 0) return;
    int64_t m = 0;
    for (auto const& t : out) m += t.m;
    const int64_t w = out[0].n;
    const int64_t batch =
        std::clamp<int64_t>(int64_t(workspace_bytes / (std::size_t(m) * sizeof(C<R>))), 1, w);
    auto* ws = static_cast<C<R>*>(cuda.workspace(std::size_t(m * batch) * sizeof(C<R>)));
    for (int64_t j0 = 0; j0 < w; j0 += batch) {
        const int64_t cols = std::min(batch, w - j0);
        int64_t row = 0;
        for (auto const& t : in) {
            copy_block(cuda, t.m, cols, t.ptr + j0 * t.ld, t.ld, ws + row, m);
            row += t.m;
        }
        const int n = int(m);
        execute_in_place<R>(cuda.fft_plan(1, &n, int(cols), c2c_type<R>), ws, sign);
        row = 0;
        for (auto const& t : out) {
            copy_block<C<R>>(cuda, t.m, cols, ws + row, m, t.ptr + j0 * t.ld, t.ld);
            row += t.m;
        }
    }
}

template <class R>
void rows_c2c(rt::CudaContext const& cuda, std::span<TilePiece<C<R>> const> row, int sign)
{
    if (row.empty() || row[0].m == 0) return;
    const int64_t h = row[0].m;
    int64_t n = 0;
    for (auto const& t : row) n += t.n;
    const int64_t batch =
        std::clamp<int64_t>(int64_t(workspace_bytes / (std::size_t(n) * sizeof(C<R>))), 1, h);
    auto* ws = static_cast<C<R>*>(cuda.workspace(std::size_t(n * batch) * sizeof(C<R>)));
    for (int64_t r0 = 0; r0 < h; r0 += batch) {
        const int64_t rows = std::min(batch, h - r0);
        // ws (n x rows, leading dimension n): its column r is row r0 + r of the tile row
        int64_t col = 0;
        for (auto const& t : row) {
            transpose<R>(cuda, rows, t.n, t.ptr + r0, t.ld, ws + col, n);
            col += t.n;
        }
        const int len = int(n);
        execute_in_place<R>(cuda.fft_plan(1, &len, int(rows), c2c_type<R>), ws, sign);
        col = 0;
        for (auto const& t : row) {
            transpose<R>(cuda, t.n, rows, ws + col, n, t.ptr + r0, t.ld);
            col += t.n;
        }
    }
}

template void columns_c2c<float>(rt::CudaContext const&, std::span<TilePiece<C<float> const> const>,
                                 std::span<TilePiece<C<float>> const>, int);
template void columns_c2c<double>(rt::CudaContext const&,
                                  std::span<TilePiece<C<double> const> const>,
                                  std::span<TilePiece<C<double>> const>, int);
template void rows_c2c<float>(rt::CudaContext const&, std::span<TilePiece<C<float>> const>, int);
template void rows_c2c<double>(rt::CudaContext const&, std::span<TilePiece<C<double>> const>, int);

}  // namespace tessera::fft::kernels::cuda
