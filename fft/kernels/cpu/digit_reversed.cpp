// The split without its permutation (see digit_reversed.hpp).
#include "fft/kernels/cpu/digit_reversed.hpp"

#include "fft/kernels/cpu/fftw_plans.hpp"
#include "fft/kernels/cpu/memory.hpp"
#include "fft/kernels/cpu/twiddles.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <cstring>

namespace tessera::fft::kernels::cpu {
namespace {

/// Calls batch(first, count) for the runs of out's columns [d0, d0 + w) that share k1 = d / n2:
/// their sources are n1 columns apart, one FFTW batch each.
template <class F> void for_each_run(int64_t d0, int64_t w, int64_t n2, F&& batch)
{
    for (int64_t d = d0; d < d0 + w;) {
        const int64_t count = std::min(n2 - d % n2, d0 + w - d);
        batch(d, count);
        d += count;
    }
}

template <class T> void require_stacked(std::span<TilePiece<T> const> out)
{
    if (!stacked_in_one_array(out))
        throw Error("fft: the digit-reversed stage 1 needs its tile column in one array");
}

}  // namespace

namespace {

/// Stage 1 into the digit-reversed order for either kind of input T (complex, or real for
/// r2c): each run of out's columns that share k1 is one FFTW batch of m-point transforms
/// reading columns n1 ldi apart.
template <class R, class T>
void columns_into_digit_reversed(Kind kind, int64_t m, T const* in, int64_t ldi,
                                 std::span<TilePiece<std::complex<R>> const> out, int64_t d0,
                                 int64_t n, int64_t n1, int sign)
{
    if (out.empty() || out[0].n == 0 || m == 0) return;
    require_stacked(out);
    const int64_t n2 = n / n1, ldo = out[0].ld;
    for_each_run(d0, out[0].n, n2, [&](int64_t d, int64_t count) {
        const Batch b{.kind = kind,
                      .n = int(m),
                      .howmany = int(count),
                      .istride = 1,
                      .idist = int(n1 * ldi),
                      .ostride = 1,
                      .odist = int(ldo),
                      .sign = sign};
        execute<R>(b, const_cast<T*>(in + digit_reversed_source(d, n1, n2) * ldi),
                   out[0].ptr + (d - d0) * ldo);
    });
}

}  // namespace

template <class R>
void columns_c2c_digit_reversed(std::complex<R> const* in, int64_t ldi,
                                std::span<TilePiece<std::complex<R>> const> out, int64_t d0,
                                int64_t n, int64_t n1, int sign)
{
    int64_t m = 0;
    for (auto const& t : out) m += t.m;
    columns_into_digit_reversed<R>(Kind::c2c, m, in, ldi, out, d0, n, n1, sign);
}

template <class R>
void columns_r2c_digit_reversed(int64_t m, R const* in, int64_t ldi,
                                std::span<TilePiece<std::complex<R>> const> out, int64_t d0,
                                int64_t n, int64_t n1)
{
    columns_into_digit_reversed<R>(Kind::r2c, m, in, ldi, out, d0, n, n1, -1);
}

template <class R>
void columns_c2r_digit_reversed(int64_t m, std::complex<R> const* in, int64_t ldi,
                                std::span<TilePiece<R> const> out, int64_t d0, int64_t n,
                                int64_t n1)
{
    if (out.empty() || out[0].n == 0 || m == 0) return;
    require_stacked(out);
    const int64_t n2 = n / n1, ldo = out[0].ld, half = m / 2 + 1;
    // each batch of columns gathered into the buffer, where FFTW's transforms may overwrite
    // it, then transformed into out
    const int64_t batch = std::clamp<int64_t>(gather_buffer_elements / half, 1, out[0].n);
    std::complex<R>* buf = thread_buffer<std::complex<R>>(std::size_t(half * batch));
    const std::size_t bytes = std::size_t(half) * sizeof(std::complex<R>);
    for_each_run(d0, out[0].n, n2, [&](int64_t first, int64_t count) {
        for (int64_t d = first; d < first + count; d += batch) {
            const int64_t cols = std::min(batch, first + count - d);
            for (int64_t c = 0; c < cols; ++c)
                std::memcpy(buf + c * half, in + digit_reversed_source(d + c, n1, n2) * ldi, bytes);
            const Batch b{.kind = Kind::c2r,
                          .n = int(m),
                          .howmany = int(cols),
                          .istride = 1,
                          .idist = int(half),
                          .ostride = 1,
                          .odist = int(ldo)};
            execute<R>(b, buf, out[0].ptr + (d - d0) * ldo);
        }
    });
}

namespace {

/// The passes of rows_c2c_digit_reversed; with `from`, each group of pass 1's columns is first
/// copied into its digit-reversed place from `from`'s natural order, while it is in cache.
template <class R>
void digit_reversed_passes(std::complex<R> const* from, int64_t ld_from, std::complex<R>* a,
                           int64_t h, int64_t n, int64_t ld, int sign, int64_t n1,
                           ColumnFinish<R> const& finish)
{
    if (h == 0 || n == 0) return;
    const int64_t n2 = n / n1;
    const auto column = [&](int64_t c) { return a + c * ld; };
    const auto table = shared_twiddles<R>(n, sign);
    Twiddles<R> const& w = *table;

    // 1. along k2: the n2 adjacent columns of each k1, then their twiddles w^(k1 f2) (1 where
    // k1 or f2 is 0) while they are in cache
    const Batch along = rows_batch(n2, h, ld, sign);
    for (int64_t k1 = 0; k1 < n1; ++k1) {
        for (int64_t k2 = 0; from && k2 < n2; ++k2)
            std::memcpy(column(n2 * k1 + k2), from + (k1 + n1 * k2) * ld_from,
                        std::size_t(h) * sizeof(std::complex<R>));
        execute<R>(along, column(n2 * k1), column(n2 * k1));
        for (int64_t f2 = 1; k1 > 0 && f2 < n2; ++f2)
            scale_column(column(n2 * k1 + f2), h, w(k1 * f2));
    }

    // 2. along k1: the columns f2 + n2 k1 of each f2, in place, which is their natural place
    const Batch across = rows_batch(n1, h, n2 * ld, sign);
    for (int64_t f2 = 0; f2 < n2; ++f2) {
        execute<R>(across, column(f2), column(f2));
        for (int64_t f1 = 0; finish && f1 < n1; ++f1) finish(column(f2 + n2 * f1), f2 + n2 * f1);
    }
}

}  // namespace

template <class R>
void rows_c2c_digit_reversed(std::complex<R>* a, int64_t h, int64_t n, int64_t ld, int sign,
                             int64_t n1)
{
    digit_reversed_passes<R>(nullptr, 0, a, h, n, ld, sign, n1, {});
}

template <class R>
void rows_c2c_split_copied(std::complex<R> const* from, int64_t ld_from, std::complex<R>* a,
                           int64_t h, int64_t n, int64_t ld, int sign, int64_t n1,
                           ColumnFinish<R> const& finish)
{
    digit_reversed_passes<R>(from, ld_from, a, h, n, ld, sign, n1, finish);
}

#define TESSERA_INSTANTIATE(R)                                                                     \
    template void columns_c2c_digit_reversed<R>(std::complex<R> const*, int64_t,                   \
                                                std::span<TilePiece<std::complex<R>> const>,       \
                                                int64_t, int64_t, int64_t, int);                   \
    template void columns_r2c_digit_reversed<R>(int64_t, R const*, int64_t,                        \
                                                std::span<TilePiece<std::complex<R>> const>,       \
                                                int64_t, int64_t, int64_t);                        \
    template void columns_c2r_digit_reversed<R>(int64_t, std::complex<R> const*, int64_t,          \
                                                std::span<TilePiece<R> const>, int64_t, int64_t,   \
                                                int64_t);                                          \
    template void rows_c2c_digit_reversed<R>(std::complex<R>*, int64_t, int64_t, int64_t, int,     \
                                             int64_t);                                             \
    template void rows_c2c_split_copied<R>(std::complex<R> const*, int64_t, std::complex<R>*,      \
                                           int64_t, int64_t, int64_t, int, int64_t,                \
                                           ColumnFinish<R> const&);
TESSERA_INSTANTIATE(float)
TESSERA_INSTANTIATE(double)
#undef TESSERA_INSTANTIATE

}  // namespace tessera::fft::kernels::cpu
