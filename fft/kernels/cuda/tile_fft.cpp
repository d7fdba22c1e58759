// The stages of a 2D transform on a GPU (see tile_fft.hpp): cuFFT for the transforms,
// cudaMemcpy2DAsync and cuBLAS geam to bring a tile column's or row's elements together.
#include "fft/kernels/cuda/tile_fft.hpp"

#include "fft/kernels/cuda/twiddles.hpp"

#include <tessera/rt/cuda.hpp>

#include <cuComplex.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

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

template <class R> constexpr cufftType r2c_type = std::is_same_v<R, float> ? CUFFT_R2C : CUFFT_D2Z;
template <class R> constexpr cufftType c2r_type = std::is_same_v<R, float> ? CUFFT_C2R : CUFFT_Z2D;

/// cuFFT's forward real transform of precision R, `in` to `out` (apart).
template <class R> void execute_r2c(cufftHandle plan, R* in, C<R>* out)
{
    if constexpr (std::is_same_v<R, float>)
        rt::cuda_check(cufftExecR2C(plan, in, reinterpret_cast<cufftComplex*>(out)),
                       "cufftExecR2C");
    else
        rt::cuda_check(cufftExecD2Z(plan, in, reinterpret_cast<cufftDoubleComplex*>(out)),
                       "cufftExecD2Z");
}

/// cuFFT's backward real transform of precision R, `in` (overwritten) to `out` (apart).
template <class R> void execute_c2r(cufftHandle plan, C<R>* in, R* out)
{
    if constexpr (std::is_same_v<R, float>)
        rt::cuda_check(cufftExecC2R(plan, reinterpret_cast<cufftComplex*>(in), out),
                       "cufftExecC2R");
    else
        rt::cuda_check(cufftExecZ2D(plan, reinterpret_cast<cufftDoubleComplex*>(in), out),
                       "cufftExecZ2D");
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

/// The workspace of a real transform of `batch` columns of m points: their half-spectra
/// (half x batch complex numbers, leading dimension half) and, 256 bytes aligned after them,
/// their reals (m x batch, leading dimension m).
template <class R> struct RealWorkspace {
    C<R>* spectra;
    R* reals;
};
template <class R>
RealWorkspace<R> real_workspace(rt::CudaContext const& cuda, int64_t m, int64_t batch)
{
    const int64_t half = m / 2 + 1;
    const std::size_t spectra = (std::size_t(half * batch) * sizeof(C<R>) + 255) / 256 * 256;
    auto* ws =
        static_cast<std::byte*>(cuda.workspace(spectra + std::size_t(m * batch) * sizeof(R)));
    return {reinterpret_cast<C<R>*>(ws), reinterpret_cast<R*>(ws + spectra)};
}

/// How many columns of m points a real transform's workspace holds at a time (of w).
template <class R> int64_t real_batch(int64_t m, int64_t w)
{
    const std::size_t column = std::size_t(m / 2 + 1) * sizeof(C<R>) + std::size_t(m) * sizeof(R);
    return std::clamp<int64_t>(int64_t(workspace_bytes / column), 1, w);
}

/// Copies columns [j0, j0 + cols) of the tiles stacked in `tiles` into `ws` (leading dimension
/// ld), or back from it.
template <class T>
void gather_columns(rt::CudaContext const& cuda, std::span<TilePiece<T> const> tiles, int64_t j0,
                    int64_t cols, std::remove_const_t<T>* ws, int64_t ld)
{
    int64_t row = 0;
    for (auto const& t : tiles) {
        copy_block(cuda, t.m, cols, t.ptr + j0 * t.ld, t.ld, ws + row, ld);
        row += t.m;
    }
}
template <class T>
void scatter_columns(rt::CudaContext const& cuda, T const* ws, int64_t ld,
                     std::span<TilePiece<T> const> tiles, int64_t j0, int64_t cols)
{
    int64_t row = 0;
    for (auto const& t : tiles) {
        copy_block(cuda, t.m, cols, ws + row, ld, t.ptr + j0 * t.ld, t.ld);
        row += t.m;
    }
}

/// The column DFTs of the tile column `in`, by batches of columns gathered into the
/// workspace; `put(ws, m, j0, cols)` then stores each batch (m x cols, leading dimension m).
template <class R, class Put>
void columns_through_workspace(rt::CudaContext const& cuda,
                               std::span<TilePiece<C<R> const> const> in, int sign, Put put)
{
    if (in.empty() || in[0].n == 0) return;
    int64_t m = 0;
    for (auto const& t : in) m += t.m;
    const int64_t w = in[0].n;
    const int64_t batch =
        std::clamp<int64_t>(int64_t(workspace_bytes / (std::size_t(m) * sizeof(C<R>))), 1, w);
    auto* ws = static_cast<C<R>*>(cuda.workspace(std::size_t(m * batch) * sizeof(C<R>)));
    const int len = int(m);
    for (int64_t j0 = 0; j0 < w; j0 += batch) {
        const int64_t cols = std::min(batch, w - j0);
        gather_columns<C<R> const>(cuda, in, j0, cols, ws, m);
        execute_in_place<R>(cuda.fft_plan(1, &len, int(cols), c2c_type<R>), ws, sign);
        put(static_cast<C<R> const*>(ws), m, j0, cols);
    }
}
}  // namespace

template <class R>
void columns_c2c(rt::CudaContext const& cuda, std::span<TilePiece<C<R> const> const> in,
                 std::span<TilePiece<C<R>> const> out, int sign)
{
    columns_through_workspace<R>(cuda, in, sign,
                                 [&](C<R> const* ws, int64_t m, int64_t j0, int64_t cols) {
                                     scatter_columns<C<R>>(cuda, ws, m, out, j0, cols);
                                 });
}

namespace {
/// The row DFTs of the tile row `in` into `out` (may be `in`), by batches of rows transposed
/// into the workspace; `between(ws, n, rows, r0)` runs on each batch after its DFTs.
template <class R, class Between>
void rows_through_workspace(rt::CudaContext const& cuda, std::span<TilePiece<C<R> const> const> in,
                            std::span<TilePiece<C<R>> const> out, int sign, Between between)
{
    if (out.empty() || out[0].m == 0) return;
    const int64_t h = out[0].m;
    int64_t n = 0;
    for (auto const& t : out) n += t.n;
    const int64_t batch =
        std::clamp<int64_t>(int64_t(workspace_bytes / (std::size_t(n) * sizeof(C<R>))), 1, h);
    auto* ws = static_cast<C<R>*>(cuda.workspace(std::size_t(n * batch) * sizeof(C<R>)));
    for (int64_t r0 = 0; r0 < h; r0 += batch) {
        const int64_t rows = std::min(batch, h - r0);
        // ws (n x rows, leading dimension n): its column r is row r0 + r of the tile row
        int64_t col = 0;
        for (auto const& t : in) {
            transpose<R>(cuda, rows, t.n, t.ptr + r0, t.ld, ws + col, n);
            col += t.n;
        }
        const int len = int(n);
        execute_in_place<R>(cuda.fft_plan(1, &len, int(rows), c2c_type<R>), ws, sign);
        between(ws, n, rows, r0);
        col = 0;
        for (auto const& t : out) {
            transpose<R>(cuda, t.n, rows, ws + col, n, t.ptr + r0, t.ld);
            col += t.n;
        }
    }
}

/// The tiles of `tiles` as read-only pieces (a thread's list).
template <class R>
std::span<TilePiece<C<R> const> const> as_const(std::span<TilePiece<C<R>> const> tiles)
{
    thread_local std::vector<TilePiece<C<R> const>> list;
    list.clear();
    for (auto const& t : tiles) list.push_back({t.ptr, t.m, t.n, t.ld});
    return list;
}
}  // namespace

template <class R>
void rows_c2c(rt::CudaContext const& cuda, std::span<TilePiece<C<R>> const> row, int sign)
{
    rows_through_workspace<R>(cuda, as_const<R>(row), row, sign,
                              [](C<R>*, int64_t, int64_t, int64_t) {});
}

template <class R>
void rows_c2c_twiddled(rt::CudaContext const& cuda, std::span<TilePiece<C<R> const> const> in,
                       std::span<TilePiece<C<R>> const> out, int sign, int64_t row0, int64_t n)
{
    rows_through_workspace<R>(
        cuda, in, out, sign, [&](C<R>* ws, int64_t length, int64_t rows, int64_t r0) {
            rt::cuda_check(multiply_twiddles(cuda.stream, std::is_same_v<R, float>, ws, length,
                                             rows, row0 + r0, n, sign),
                           "multiply_twiddles");
        });
}

template <class R>
void columns_c2c_transposed(rt::CudaContext const& cuda, std::span<TilePiece<C<R> const> const> in,
                            std::span<TilePiece<C<R>> const> out, int sign)
{
    columns_through_workspace<R>(
        cuda, in, sign, [&](C<R> const* ws, int64_t m, int64_t j0, int64_t cols) {
            // out tile i (w x rows of in tile i) gets in tile i's rows as its columns
            int64_t row = 0;
            for (std::size_t i = 0; i < in.size(); ++i) {
                transpose<R>(cuda, in[i].m, cols, ws + row, m, out[i].ptr + j0, out[i].ld);
                row += in[i].m;
            }
        });
}

template <class R>
void columns_r2c(rt::CudaContext const& cuda, int64_t m, std::span<TilePiece<R const> const> in,
                 std::span<TilePiece<C<R>> const> out)
{
    if (out.empty() || out[0].n == 0 || m == 0) return;
    const int64_t half = m / 2 + 1, w = out[0].n, batch = real_batch<R>(m, w);
    const RealWorkspace<R> ws = real_workspace<R>(cuda, m, batch);
    const int n = int(m);
    for (int64_t j0 = 0; j0 < w; j0 += batch) {
        const int64_t cols = std::min(batch, w - j0);
        if (in.empty()) {  // in place: column j's m reals open the bytes of out's column j
            gather_columns<C<R>>(cuda, out, j0, cols, ws.spectra, half);
            copy_block<R>(cuda, m, cols, reinterpret_cast<R const*>(ws.spectra), 2 * half, ws.reals,
                          m);
        } else {
            gather_columns<R const>(cuda, in, j0, cols, ws.reals, m);
        }
        execute_r2c<R>(cuda.fft_plan(1, &n, int(cols), r2c_type<R>), ws.reals, ws.spectra);
        scatter_columns<C<R>>(cuda, ws.spectra, half, out, j0, cols);
    }
}

template <class R>
void columns_c2r(rt::CudaContext const& cuda, int64_t m, std::span<TilePiece<C<R>> const> in,
                 std::span<TilePiece<R> const> out)
{
    if (in.empty() || in[0].n == 0 || m == 0) return;
    const int64_t half = m / 2 + 1, w = in[0].n, batch = real_batch<R>(m, w);
    const RealWorkspace<R> ws = real_workspace<R>(cuda, m, batch);
    const int n = int(m);
    for (int64_t j0 = 0; j0 < w; j0 += batch) {
        const int64_t cols = std::min(batch, w - j0);
        gather_columns<C<R>>(cuda, in, j0, cols, ws.spectra, half);
        execute_c2r<R>(cuda.fft_plan(1, &n, int(cols), c2r_type<R>), ws.spectra, ws.reals);
        if (out.empty()) {  // in place: the m reals open the bytes of in's column, zeros after
            rt::cuda_check(cudaMemsetAsync(ws.spectra, 0, std::size_t(half * cols) * sizeof(C<R>),
                                           cuda.stream),
                           "cudaMemsetAsync");
            copy_block<R>(cuda, m, cols, ws.reals, m, reinterpret_cast<R*>(ws.spectra), 2 * half);
            scatter_columns<C<R>>(cuda, ws.spectra, half, in, j0, cols);
        } else {
            scatter_columns<R>(cuda, ws.reals, m, out, j0, cols);
        }
    }
}

template <class R>
void swap_transposed(rt::CudaContext const& cuda, C<R>* x, int64_t ldx, C<R>* y, int64_t ldy,
                     int64_t m, int64_t n)
{
    if (m == 0 || n == 0) return;
    auto* copy = static_cast<C<R>*>(cuda.workspace(std::size_t(m * n) * sizeof(C<R>)));
    copy_block<C<R>>(cuda, m, n, x, ldx, copy, m);
    transpose<R>(cuda, n, m, y, ldy, x, ldx);   // x = y^T
    transpose<R>(cuda, m, n, copy, m, y, ldy);  // y = (x as it was)^T
}

template <class R>
void transpose_in_place(rt::CudaContext const& cuda, C<R>* x, int64_t ldx, int64_t n)
{
    if (n == 0) return;
    auto* copy = static_cast<C<R>*>(cuda.workspace(std::size_t(n * n) * sizeof(C<R>)));
    copy_block<C<R>>(cuda, n, n, x, ldx, copy, n);
    transpose<R>(cuda, n, n, copy, n, x, ldx);
}

#define TESSERA_INSTANTIATE(R)                                                                     \
    template void columns_r2c<R>(rt::CudaContext const&, int64_t,                                  \
                                 std::span<TilePiece<R const> const>,                              \
                                 std::span<TilePiece<C<R>> const>);                                \
    template void columns_c2r<R>(rt::CudaContext const&, int64_t,                                  \
                                 std::span<TilePiece<C<R>> const>, std::span<TilePiece<R> const>); \
    template void swap_transposed<R>(rt::CudaContext const&, C<R>*, int64_t, C<R>*, int64_t,       \
                                     int64_t, int64_t);                                            \
    template void transpose_in_place<R>(rt::CudaContext const&, C<R>*, int64_t, int64_t);          \
    template void rows_c2c_twiddled<R>(rt::CudaContext const&,                                     \
                                       std::span<TilePiece<C<R> const> const>,                     \
                                       std::span<TilePiece<C<R>> const>, int, int64_t, int64_t);   \
    template void columns_c2c_transposed<R>(rt::CudaContext const&,                                \
                                            std::span<TilePiece<C<R> const> const>,                \
                                            std::span<TilePiece<C<R>> const>, int);
TESSERA_INSTANTIATE(float)
TESSERA_INSTANTIATE(double)
#undef TESSERA_INSTANTIATE

template void columns_c2c<float>(rt::CudaContext const&, std::span<TilePiece<C<float> const> const>,
                                 std::span<TilePiece<C<float>> const>, int);
template void columns_c2c<double>(rt::CudaContext const&,
                                  std::span<TilePiece<C<double> const> const>,
                                  std::span<TilePiece<C<double>> const>, int);
template void rows_c2c<float>(rt::CudaContext const&, std::span<TilePiece<C<float>> const>, int);
template void rows_c2c<double>(rt::CudaContext const&, std::span<TilePiece<C<double>> const>, int);

}  // namespace tessera::fft::kernels::cuda
