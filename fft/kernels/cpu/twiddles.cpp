// The four-step transform's twiddles and its two fused passes (see twiddles.hpp).
#include "fft/kernels/cpu/twiddles.hpp"

#include "fft/kernels/cpu/digit_reversed.hpp"
#include "fft/kernels/cpu/fftw_plans.hpp"
#include "fft/kernels/cpu/memory.hpp"
#include "fft/kernels/cpu/split_rows.hpp"
#include "fft/kernels/cpu/transpose.hpp"
#include "fft/kernels/cpu/vector_clones.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <numbers>
#include <utility>

// The vector helpers of multiply_by_twiddles are always inlined, into either of its clones:
// no vector crosses a call, and GCC's note (at the instantiations, the end of this file) that
// such a call's ABI depends on AVX does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace tessera::fft::kernels::cpu {

template <class R>
Twiddles<R>::Twiddles(int64_t n, int sign) : n_(std::max<int64_t>(n, 1)), shift_(0), step_(1)
{
    // a power of two, so that a factor costs a shift and a mask rather than a division
    while (step_ * step_ < n_) step_ = int64_t(1) << ++shift_;
    const int64_t highs = (n_ + step_ - 1) / step_;
    low_.resize(std::size_t(step_));
    high_.resize(std::size_t(highs));
    const long double angle = sign * 2 * std::numbers::pi_v<long double> / (long double)(n_);
    for (int64_t t = 0; t < step_; ++t)
        low_[std::size_t(t)] = std::complex<double>(std::polar(1.0L, angle * (long double)(t)));
    for (int64_t u = 0; u < highs; ++u)
        high_[std::size_t(u)] =
            std::complex<double>(std::polar(1.0L, angle * (long double)((u * step_) % n_)));
}

template <class R> std::shared_ptr<Twiddles<R> const> shared_twiddles(int64_t n, int sign)
{
    // bounded: past 32 shapes the cache starts over (a 2^30-point table is 1 MiB), and a
    // table still in use lives on in its users' pointers
    constexpr std::size_t kept = 32;
    static std::mutex m;
    // never destroyed, as FFTW's plan cache: a static plan may still execute at exit
    static auto& tables =
        *new std::map<std::pair<int64_t, int>, std::shared_ptr<Twiddles<R> const>>;
    const std::lock_guard lock(m);
    const std::pair key{n, sign};
    if (auto it = tables.find(key); it != tables.end()) return it->second;
    if (tables.size() >= kept) tables.clear();
    return tables[key] = std::make_shared<Twiddles<R> const>(n, sign);
}

template <class R>
TESSERA_VECTOR_CLONES void scale_column(std::complex<R>* x, int64_t h, std::complex<R> w)
{
    R* v = reinterpret_cast<R*>(x);
    const R wr = w.real(), wi = w.imag();
    for (int64_t r = 0; r < h; ++r) {
        const R xr = v[2 * r], xi = v[2 * r + 1];
        v[2 * r] = xr * wr - xi * wi;
        v[2 * r + 1] = xr * wi + xi * wr;
    }
}

namespace {

/// Two complex numbers as one vector (re, im, re, im), GCC's and Clang's vector extensions:
/// for doubles one AVX register in the x86-64-v3 clone and two SSE2 registers otherwise, for
/// floats one SSE register.
template <class R> struct ComplexPairOf;
template <> struct ComplexPairOf<float> {
    using type = float __attribute__((vector_size(16)));
};
template <> struct ComplexPairOf<double> {
    using type = double __attribute__((vector_size(32)));
};
template <class R> using ComplexPair = typename ComplexPairOf<R>::type;

/// (a0 b0, a1 b1) as complex products: a re(b) + swap(a) (-im(b), im(b)).
template <class V> [[gnu::always_inline]] inline V times(V const& a, V const& b)
{
    const V re = __builtin_shufflevector(b, b, 0, 0, 2, 2);
    const V im = __builtin_shufflevector(b, b, 1, 1, 3, 3);
    const V swapped = __builtin_shufflevector(a, a, 1, 0, 3, 2);
    return a * re + swapped * im * V{-1, 1, -1, 1};
}

template <class V, class R> [[gnu::always_inline]] inline V load_pair(R const* p)
{
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

template <class V, class R> [[gnu::always_inline]] inline void store_pair(R* p, V const& v)
{
    std::memcpy(p, &v, sizeof v);
}

/// x[r] *= w^((row + r) k) for r < count. Every 64 rows, 4 factors come from the tables and
/// the next ones by products with w^(4k): a few eps for runs this short, no division per
/// element (which would cost more than the transforms), and 4 independent chains of
/// products, two to a vector, where one chain would wait on each product's latency.
template <class R>
TESSERA_VECTOR_CLONES void multiply_by_twiddles(std::complex<R>* x, int64_t count, int64_t row,
                                                int64_t k, Twiddles<R> const& w)
{
    using V = ComplexPair<R>;
    constexpr int64_t lanes = 4, refresh = 64;
    const int64_t nw = w.n(), kk = k % nw;
    // exponents mod nw by additions: a division per element or per refresh costs as much as
    // the products
    const auto plus = [nw](int64_t a, int64_t b) { return a + b >= nw ? a + b - nw : a + b; };
    const std::complex<R> s = w(lanes * kk % nw);
    const V step{s.real(), s.imag(), s.real(), s.imag()};
    const int64_t jump = refresh * kk % nw;
    int64_t e = row % nw * kk % nw;  // the exponent of row r0
    R* v = reinterpret_cast<R*>(x);
    for (int64_t r0 = 0; r0 < count; r0 += refresh, e = plus(e, jump)) {
        const int64_t len = std::min(refresh, count - r0);
        std::complex<R> f[lanes];  // lane l: the factor of row r0 + r + l
        for (int64_t l = 0, el = e; l < lanes; ++l, el = plus(el, kk)) f[l] = w(el);
        V f01 = load_pair<V>(reinterpret_cast<R const*>(f)),
          f23 = load_pair<V>(reinterpret_cast<R const*>(f + 2));
        R* y = v + 2 * r0;
        int64_t r = 0;
        for (; r + lanes <= len; r += lanes) {
            store_pair(y + 2 * r, times(load_pair<V>(y + 2 * r), f01));
            store_pair(y + 2 * r + 4, times(load_pair<V>(y + 2 * r + 4), f23));
            f01 = times(f01, step);
            f23 = times(f23, step);
        }
        store_pair(reinterpret_cast<R*>(f), f01);
        store_pair(reinterpret_cast<R*>(f + 2), f23);
        for (int64_t l = 0; r + l < len; ++l) {
            const R xr = y[2 * (r + l)], xi = y[2 * (r + l) + 1];
            y[2 * (r + l)] = xr * f[l].real() - xi * f[l].imag();
            y[2 * (r + l) + 1] = xr * f[l].imag() + xi * f[l].real();
        }
    }
}

}  // namespace

template <class R>
void rows_c2c_twiddled(std::span<TilePiece<std::complex<R> const> const> in,
                       std::span<TilePiece<std::complex<R>> const> out, int sign, int64_t row0,
                       Twiddles<R> const& w)
{
    using C = std::complex<R>;
    if (out.empty() || out[0].m == 0) return;
    const int64_t h = out[0].m;
    int64_t n = 0;
    for (auto const& t : out) n += t.n;
    if (side_by_side_in_one_array(in) && side_by_side_in_one_array(out)) {
        // pieces of one array each: the rows are transformed in place, split across the
        // columns or, where that does not pay, by FFTW when its plan of these strided batches
        // was measured (as rows_c2c; its out-of-place strided plans are several times slower,
        // so in is copied to out first); then the twiddles, column by column
        C* to = out[0].ptr;
        const int64_t ld = out[0].ld;
        const Batch b = rows_batch(n, h, ld, sign);
        if (const int64_t n1 = column_split(h, n, ld); n1 > 0) {
            // the copy and the twiddles ride on the split's passes; out of place, the copy
            // puts the columns in digit-reversed order, which saves the permutation
            const auto twiddle = [&](C* x, int64_t k) { multiply_by_twiddles(x, h, row0, k, w); };
            if (in[0].ptr != to)
                rows_c2c_split_copied<R>(in[0].ptr, in[0].ld, to, h, n, ld, sign, n1, twiddle);
            else
                rows_c2c_split<R>(to, h, n, ld, sign, n1, twiddle);
            return;
        }
        if (measured<R>(b, to, to)) {
            if (in[0].ptr != to)
                for (int64_t k = 0; k < n; ++k)
                    std::memcpy(to + k * ld, in[0].ptr + k * in[0].ld, h * sizeof(C));
            execute<R>(b, to, to);
            for (int64_t k = 0; k < n; ++k) multiply_by_twiddles(to + k * ld, h, row0, k, w);
            return;
        }
    }
    // 16 rows at a time as buf[k rows + r]: contiguous pieces of the tiles' columns
    const int64_t batch = std::min<int64_t>(16, h);
    C* buf = thread_buffer<C>(std::size_t(n * batch));
    for (int64_t r0 = 0; r0 < h; r0 += batch) {
        const int64_t rows = std::min(batch, h - r0);
        int64_t k = 0;
        for (auto const& t : in)
            for (int64_t c = 0; c < t.n; ++c, ++k)
                std::memcpy(buf + k * rows, t.ptr + c * t.ld + r0, rows * sizeof(C));
        const Batch b = rows_batch(n, rows, rows, sign);
        execute<R>(b, buf, buf);
        for (k = 0; k < n; ++k) multiply_by_twiddles(buf + k * rows, rows, row0 + r0, k, w);
        k = 0;
        for (auto const& t : out)
            for (int64_t c = 0; c < t.n; ++c, ++k)
                std::memcpy(t.ptr + c * t.ld + r0, buf + k * rows, rows * sizeof(C));
    }
}

template <class R>
void columns_c2c_transposed(std::span<TilePiece<std::complex<R> const> const> in,
                            std::span<TilePiece<std::complex<R>> const> out, int sign)
{
    using C = std::complex<R>;
    if (in.empty() || in[0].n == 0) return;
    int64_t m = 0;
    for (auto const& t : in) m += t.m;
    const int64_t w = in[0].n;
    const int64_t batch = std::clamp<int64_t>(gather_buffer_elements / std::max<int64_t>(m, 1), 1,
                                              std::min<int64_t>(w, 64));
    // The buffer's columns ldb apart, 128 bytes more than m elements: the transposed reads
    // below take one element of each column in turn, and at a stride of a power of two
    // (m = 1024: 16 KiB) they would all fall in one set of the L1 cache.
    const int64_t ldb = m + 128 / int64_t(sizeof(C));
    C* buf = thread_buffer<C>(std::size_t(ldb * batch));
    // pieces of one array: FFTW reads the columns where they are, into the buffer
    const bool one_array = stacked_in_one_array(in);
    for (int64_t j0 = 0; j0 < w; j0 += batch) {
        const int64_t cols = std::min(batch, w - j0);
        int64_t row = 0;
        for (auto const& t : in) {
            for (int64_t j = 0; !one_array && j < cols; ++j)
                std::memcpy(buf + j * ldb + row, t.ptr + (j0 + j) * t.ld, t.m * sizeof(C));
            row += t.m;
        }
        const Batch b{.kind = Kind::c2c,
                      .n = int(m),
                      .howmany = int(cols),
                      .istride = 1,
                      .idist = int(one_array ? in[0].ld : ldb),
                      .ostride = 1,
                      .odist = int(ldb),
                      .sign = sign};
        execute<R>(b, one_array ? const_cast<C*>(in[0].ptr + j0 * in[0].ld) : buf, buf);
        // out tile i, column k1 - (its first row in in) and rows j0..j0+cols: buf(k1, j)
        row = 0;
        for (std::size_t i = 0; i < out.size(); ++i) {
            store_transposed(buf + row, ldb, in[i].m, cols, out[i].ptr + j0, out[i].ld);
            row += in[i].m;
        }
    }
}

template class Twiddles<float>;
template class Twiddles<double>;
template std::shared_ptr<Twiddles<float> const> shared_twiddles<float>(int64_t, int);
template std::shared_ptr<Twiddles<double> const> shared_twiddles<double>(int64_t, int);
template void scale_column<float>(std::complex<float>*, int64_t, std::complex<float>);
template void scale_column<double>(std::complex<double>*, int64_t, std::complex<double>);
template void rows_c2c_twiddled<float>(std::span<TilePiece<std::complex<float> const> const>,
                                       std::span<TilePiece<std::complex<float>> const>, int,
                                       int64_t, Twiddles<float> const&);
template void rows_c2c_twiddled<double>(std::span<TilePiece<std::complex<double> const> const>,
                                        std::span<TilePiece<std::complex<double>> const>, int,
                                        int64_t, Twiddles<double> const&);
template void columns_c2c_transposed<float>(std::span<TilePiece<std::complex<float> const> const>,
                                            std::span<TilePiece<std::complex<float>> const>, int);
template void columns_c2c_transposed<double>(std::span<TilePiece<std::complex<double> const> const>,
                                             std::span<TilePiece<std::complex<double>> const>, int);

}  // namespace tessera::fft::kernels::cpu
