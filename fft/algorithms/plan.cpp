// Plans over row-major arrays (FFTW's interface): each execute wraps the arrays as tile
// matrices in place on the library's runtime (the n0 x n1 row-major array is the n1 x n0
// column-major matrix) and runs the tile form; small transforms, and calls made inside a
// task, run the same two passes' kernels on the calling thread instead. The 1D and batched
// plans run the four-step and the batches the same way.
#include <tessera/fft/fft2d.hpp>
#include <tessera/la/context.hpp>
#include <tessera/la/layout.hpp>

#include "fft/algorithms/columns.hpp"
#include "fft/algorithms/four_step.hpp"
#include "fft/algorithms/real_in_place.hpp"
#include "fft/kernels/cpu/fftw_plans.hpp"
#include "fft/kernels/cpu/memory.hpp"
#include "fft/kernels/cpu/tile_fft.hpp"
#include "linalg/lapack/library_call.hpp"

#include <tessera/error.hpp>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

namespace tessera::fft {

using kernels::cpu::Kind;

namespace {

/// What a plan holds (Plan<R>::State is this, under the private name of the header).
template <Real R> struct PlanState {
    Kind kind = Kind::c2c;
    int64_t n0 = 0, n1 = 0;  ///< a 1D transform of n points: n0 = n, n1 = 1
    int sign = -1;
    void* in = nullptr;
    void* out = nullptr;
    bool one_d = false;
    int64_t howmany = 1;           ///< batched (complex) transforms: transform t at in + t idist,
    int64_t idist = 0, odist = 0;  ///< out + t odist, in elements
    /// The four-step's scratch matrix (large 1D transforms), made at the first execute
    std::shared_ptr<kernels::cpu::ScratchPool> scratch;

    bool in_place() const noexcept { return in == out; }
    /// Bytes of the input and output arrays (in place: the padded real rows of the complex
    /// array; batched: up to the last transform's end).
    std::size_t in_bytes() const noexcept
    {
        return batch_bytes(idist, bytes(kind == Kind::r2c   ? real_side
                                        : kind == Kind::c2r ? half_side
                                                            : whole));
    }
    std::size_t out_bytes() const noexcept
    {
        return batch_bytes(odist, bytes(kind == Kind::c2r   ? real_side
                                        : kind == Kind::r2c ? half_side
                                                            : whole));
    }

private:
    std::size_t batch_bytes(int64_t dist, std::size_t one) const noexcept
    {
        return std::size_t(howmany - 1) * std::size_t(dist) * sizeof(std::complex<R>) + one;
    }
    enum Side { whole, half_side, real_side };
    std::size_t bytes(Side side) const noexcept
    {
        const std::size_t rows = std::size_t(n0), half = std::size_t(n1 / 2 + 1);
        switch (side) {
        case whole:
            return rows * std::size_t(n1) * sizeof(std::complex<R>);
        case half_side:
            return rows * half * sizeof(std::complex<R>);
        case real_side:
            return in_place() ? rows * half * sizeof(std::complex<R>)
                              : rows * std::size_t(n1) * sizeof(R);
        }
        return 0;
    }
};

/// Throws InvalidArgument naming the argument of `fn` at `position` unless 1 <= n <= INT_MAX
/// (FFTW's and cuFFT's sizes are int).
void check_size(char const* fn, int position, char const* name, int64_t n)
{
    require(n >= 1 && n <= INT_MAX, [&] {
        return std::string(fn) + ": argument " + std::to_string(position) + " (" + name +
               ") must be between 1 and " + std::to_string(INT_MAX) + ", got " + std::to_string(n);
    });
}

void check_array(char const* fn, int position, char const* name, void const* p)
{
    require(p != nullptr, [&] {
        return std::string(fn) + ": argument " + std::to_string(position) + " (" + name +
               ") is null";
    });
}

void check_flags(char const* fn, int position, unsigned flags)
{
    require(flags == estimate || flags == measure, [&] {
        return std::string(fn) + ": argument " + std::to_string(position) +
               " (flags) must be estimate (" + std::to_string(estimate) + ") or measure (0), got " +
               std::to_string(flags);
    });
}

/// Throws InvalidArgument when [in, in + in_bytes) and [out, out + out_bytes) overlap without
/// being the same array: FFTW computes in place only on the very same memory.
void check_overlap(char const* fn, void const* in, std::size_t in_bytes, void const* out,
                   std::size_t out_bytes)
{
    const auto a = reinterpret_cast<std::uintptr_t>(in), b = reinterpret_cast<std::uintptr_t>(out);
    require(a == b || a + in_bytes <= b || b + out_bytes <= a, [&] {
        return std::string(fn) +
               ": in and out overlap without being the same array (in place is in == out)";
    });
}

/// The transform of `s` from `in` to `out` on the calling thread: the two stages' kernels on
/// the whole array as one tile.
template <Real R> void run_on_this_thread(PlanState<R> const& s, void* in, void* out)
{
    using C = std::complex<R>;
    using kernels::cpu::TilePiece;
    const int64_t n0 = s.n0, n1 = s.n1, half = n1 / 2 + 1;
    switch (s.kind) {
    case Kind::c2c: {
        const TilePiece<C const> from{static_cast<C const*>(in), n1, n0, n1};
        const TilePiece<C> to{static_cast<C*>(out), n1, n0, n1};
        kernels::cpu::columns_c2c<R>({&from, 1}, {&to, 1}, s.sign);
        kernels::cpu::rows_c2c<R>({&to, 1}, s.sign);
        return;
    }
    case Kind::r2c: {
        const TilePiece<C> to{static_cast<C*>(out), half, n0, half};
        const TilePiece<R const> from{static_cast<R const*>(in), n1, n0, n1};
        kernels::cpu::columns_r2c<R>(
            n1, in == out ? std::span<TilePiece<R const> const>{} : std::span{&from, 1}, {&to, 1});
        kernels::cpu::rows_c2c<R>({&to, 1}, int(Sign::forward));
        return;
    }
    case Kind::c2r: {
        const TilePiece<C> from{static_cast<C*>(in), half, n0, half};
        const TilePiece<R> to{static_cast<R*>(out), n1, n0, n1};
        kernels::cpu::rows_c2c<R>({&from, 1}, int(Sign::backward));
        kernels::cpu::columns_c2r<R>(
            n1, {&from, 1}, in == out ? std::span<TilePiece<R> const>{} : std::span{&to, 1});
        return;
    }
    }
}

/// The 1D transform of `s`: the four-step's tasks for n of at least direct_points_1d with a
/// divisor near sqrt(n), one FFTW call on the calling thread otherwise.
template <Real R> void run_1d(PlanState<R> const& s, void* in, void* out)
{
    using C = std::complex<R>;
    const int64_t n = s.n0;
    const int64_t n1 =
        n >= direct_points_1d && !la::detail::inside_task() ? detail::four_step_rows(n) : 0;
    if (n1 == 0) {
        const int len = int(n);
        kernels::cpu::execute<R>({.kind = Kind::c2c,
                                  .n = len,
                                  .howmany = 1,
                                  .istride = 1,
                                  .idist = len,
                                  .ostride = 1,
                                  .odist = len,
                                  .sign = s.sign},
                                 in, out);
        return;
    }
    const int64_t n2 = n / n1;
    const la::detail::LibraryCall call{"fft_1d"};
    rt::Runtime& rt = call.runtime();
    const int64_t nb = tile_size(rt, n2, n1);
    // the scratch matrix as one array, so that the first pass's tasks run FFTW on its tiles
    // where they are; the plan's, kept between executes
    const auto scratch = s.scratch->lease();
    auto T = TileMatrix<C>::wrap(rt, static_cast<C*>(scratch.get()), n1, n2,
                                 detail::four_step_scratch_ld(n1, sizeof(C)), nb);
    if (in == out) {  // copied first: out's handles must not overlap in's
        lapack_to_tiles(static_cast<C const*>(in), n1, T);
        auto X = TileMatrix<C>::wrap(rt, static_cast<C*>(out), n2, n1, n2, nb);
        synchronously(rt,
                      [&](Sequence& q) { detail::four_step_async<R>(Sign(s.sign), T, T, X, q); });
        return;
    }
    const auto A = TileMatrix<C>::wrap(rt, static_cast<C const*>(in), n1, n2, n1, nb);
    auto X = TileMatrix<C>::wrap(rt, static_cast<C*>(out), n2, n1, n2, nb);
    synchronously(
        rt, [&](Sequence& q) { detail::four_step_async<R>(Sign(s.sign), A.matrix(), T, X, q); });
}

/// Batched complex transforms (s.howmany > 1). Rank 1: the n x howmany matrix of the
/// transforms (leading dimensions idist and odist) in tile columns of about two per worker,
/// each one task of FFTW's batched plan. Rank 2: every transform's two passes in one
/// Sequence, a small one as one tile (two tasks); together they keep the workers busy.
template <Real R> void run_many(PlanState<R> const& s, void* in, void* out)
{
    using C = std::complex<R>;
    const int64_t points = s.n0 * s.n1;
    if (points * s.howmany < direct_points || la::detail::inside_task()) {
        if (s.one_d) {  // one FFTW call for the whole batch
            kernels::cpu::execute<R>({.kind = Kind::c2c,
                                      .n = int(s.n0),
                                      .howmany = int(s.howmany),
                                      .istride = 1,
                                      .idist = int(s.idist),
                                      .ostride = 1,
                                      .odist = int(s.odist),
                                      .sign = s.sign},
                                     in, out);
            return;
        }
        PlanState<R> one = s;
        one.howmany = 1;
        for (int64_t t = 0; t < s.howmany; ++t)
            run_on_this_thread<R>(one, static_cast<C*>(in) + t * s.idist,
                                  static_cast<C*>(out) + t * s.odist);
        return;
    }
    const la::detail::LibraryCall call{"fft_many"};
    rt::Runtime& rt = call.runtime();
    if (s.one_d) {
        const int64_t n = s.n0, workers = std::max<int64_t>(1, rt.worker_count());
        const int64_t nb = std::max((s.howmany + 2 * workers - 1) / (2 * workers), (n + 63) / 64);
        auto to = TileMatrix<C>::wrap(rt, static_cast<C*>(out), n, s.howmany, s.odist, nb);
        if (in == out) {
            synchronously(rt,
                          [&](Sequence& q) { detail::columns_async<R>(Sign(s.sign), to, to, q); });
        } else {
            const auto from =
                TileMatrix<C>::wrap(rt, static_cast<C const*>(in), n, s.howmany, s.idist, nb);
            synchronously(rt, [&](Sequence& q) {
                detail::columns_async<R>(Sign(s.sign), from.matrix(), to, q);
            });
        }
        return;
    }
    const int64_t nb = points < direct_points ? std::max(s.n0, s.n1) : tile_size(rt, s.n0, s.n1);
    std::vector<TileMatrix<C>> to, from;  // alive until the sequence is waited for
    synchronously(rt, [&](Sequence& q) {
        for (int64_t t = 0; t < s.howmany; ++t) {
            to.push_back(
                TileMatrix<C>::wrap(rt, static_cast<C*>(out) + t * s.odist, s.n1, s.n0, s.n1, nb));
            if (in == out) {
                dft_2d_async<R>(Sign(s.sign), to.back(), q);
            } else {
                from.push_back(TileMatrix<C>::wrap(rt, static_cast<C const*>(in) + t * s.idist,
                                                   s.n1, s.n0, s.n1, nb)
                                   .matrix());
                dft_2d_async<R>(Sign(s.sign), from.back(), to.back(), q);
            }
        }
    });
}

/// Runs the transform of `s` from `in` to `out`.
template <Real R> void run(PlanState<R> const& s, void* in, void* out)
{
    using C = std::complex<R>;
    if (s.howmany > 1) {
        run_many<R>(s, in, out);
        return;
    }
    if (s.one_d) {
        run_1d<R>(s, in, out);
        return;
    }
    if (s.n0 * s.n1 < direct_points || la::detail::inside_task()) {
        run_on_this_thread<R>(s, in, out);
        return;
    }
    const la::detail::LibraryCall call{"fft"};
    rt::Runtime& rt = call.runtime();
    const int64_t nb = tile_size(rt, s.n0, s.n1), half = s.n1 / 2 + 1;
    const Sign sign = Sign(s.sign);
    switch (s.kind) {
    case Kind::c2c: {
        auto to = TileMatrix<C>::wrap(rt, static_cast<C*>(out), s.n1, s.n0, s.n1, nb);
        if (in == out) {
            dft_2d<R>(sign, to);
        } else {
            auto from = TileMatrix<C>::wrap(rt, static_cast<C const*>(in), s.n1, s.n0, s.n1, nb);
            dft_2d<R>(sign, from.matrix(), to);
        }
        return;
    }
    case Kind::r2c: {
        auto to = TileMatrix<C>::wrap(rt, static_cast<C*>(out), half, s.n0, half, nb);
        if (in == out) {
            synchronously(rt, [&](Sequence& q) { detail::r2c_in_place_async<R>(s.n1, to, q); });
        } else {
            auto from = TileMatrix<R>::wrap(rt, static_cast<R const*>(in), s.n1, s.n0, s.n1, nb);
            dft_r2c_2d<R>(from.matrix(), to);
        }
        return;
    }
    case Kind::c2r: {
        auto from = TileMatrix<C>::wrap(rt, static_cast<C*>(in), half, s.n0, half, nb);
        if (in == out) {
            synchronously(rt, [&](Sequence& q) { detail::c2r_in_place_async<R>(s.n1, from, q); });
        } else {
            auto to = TileMatrix<R>::wrap(rt, static_cast<R*>(out), s.n1, s.n0, s.n1, nb);
            dft_c2r_2d<R>(from, to);
        }
        return;
    }
    }
}

/// With `measure`, runs the transform of `s` once on scratch arrays aligned as the plan's, so
/// that FFTW measures every shape its tasks will use.
template <Real R> void measure_ahead(PlanState<R> const& s, unsigned flags)
{
    if (flags == measure) {
        const kernels::cpu::Measuring measuring;
        using kernels::cpu::AlignedScratch;
        AlignedScratch scratch_in(s.in_bytes(), AlignedScratch::remainder_of(s.in));
        std::unique_ptr<AlignedScratch> scratch_out;
        if (!s.in_place())
            scratch_out = std::make_unique<AlignedScratch>(s.out_bytes(),
                                                           AlignedScratch::remainder_of(s.out));
        run<R>(s, scratch_in.get(), scratch_out ? scratch_out->get() : scratch_in.get());
    }
}

/// Makes the plan's state after checking its arguments (positions as in FFTW's planner
/// calls), and measures ahead.
template <Real R>
PlanState<R> make_state(char const* fn, Kind kind, int64_t n0, int64_t n1, void* in, void* out,
                        int sign, unsigned flags, int flags_position)
{
    check_size(fn, 1, "n0", n0);
    check_size(fn, 2, "n1", n1);
    check_array(fn, 3, "in", in);
    check_array(fn, 4, "out", out);
    check_flags(fn, flags_position, flags);
    PlanState<R> s{kind, n0, n1, sign, in, out};
    check_overlap(fn, in, s.in_bytes(), out, s.out_bytes());
    measure_ahead(s, flags);
    return s;
}

}  // namespace

template <Real R> struct Plan<R>::State : PlanState<R> {
    explicit State(PlanState<R> const& s) : PlanState<R>(s) {}
};

template <Real R> Plan<R>::Plan(std::unique_ptr<State> s) noexcept : s_(std::move(s))
{}
template <Real R> Plan<R>::Plan(Plan&&) noexcept = default;
template <Real R> Plan<R>& Plan<R>::operator=(Plan&&) noexcept = default;
template <Real R> Plan<R>::~Plan() = default;

template <Real R>
Plan<R> Plan<R>::dft_2d(int64_t n0, int64_t n1, Complex* in, Complex* out, Sign sign,
                        unsigned flags)
{
    constexpr char const* fn = "fft::Plan::dft_2d";
    require(sign == Sign::forward || sign == Sign::backward,
            std::string(fn) + ": argument 5 (sign) must be forward (-1) or backward (+1)");
    return Plan(std::make_unique<State>(
        make_state<R>(fn, Kind::c2c, n0, n1, in, out, int(sign), flags, 6)));
}

template <Real R>
Plan<R> Plan<R>::dft_1d(int64_t n, Complex* in, Complex* out, Sign sign, unsigned flags)
{
    constexpr char const* fn = "fft::Plan::dft_1d";
    check_size(fn, 1, "n", n);
    check_array(fn, 2, "in", in);
    check_array(fn, 3, "out", out);
    require(sign == Sign::forward || sign == Sign::backward,
            std::string(fn) + ": argument 4 (sign) must be forward (-1) or backward (+1)");
    check_flags(fn, 5, flags);
    PlanState<R> s{Kind::c2c, n, 1, int(sign), in, out};
    s.one_d = true;
    s.scratch = std::make_shared<kernels::cpu::ScratchPool>(
        std::size_t(detail::four_step_scratch_elements(n, sizeof(Complex))) * sizeof(Complex), 0);
    check_overlap(fn, in, s.in_bytes(), out, s.out_bytes());
    measure_ahead(s, flags);
    return Plan(std::make_unique<State>(s));
}

template <Real R>
Plan<R> Plan<R>::dft_many(int rank, int64_t const* n, int64_t howmany, Complex* in, int64_t idist,
                          Complex* out, int64_t odist, Sign sign, unsigned flags)
{
    constexpr char const* fn = "fft::Plan::dft_many";
    require(rank == 1 || rank == 2,
            std::string(fn) + ": argument 1 (rank) must be 1 or 2, got " + std::to_string(rank));
    check_array(fn, 2, "n", n);
    for (int d = 0; d < rank; ++d) check_size(fn, 2, d == 0 ? "n[0]" : "n[1]", n[d]);
    check_size(fn, 3, "howmany", howmany);
    check_array(fn, 4, "in", in);
    const int64_t points = rank == 1 ? n[0] : n[0] * n[1];
    auto check_distance = [&](int position, char const* name, int64_t dist) {
        require(dist >= points && dist <= INT_MAX, [&] {
            return std::string(fn) + ": argument " + std::to_string(position) + " (" + name +
                   ") must be between " + std::to_string(points) + " (a transform's points) and " +
                   std::to_string(INT_MAX) + ", got " + std::to_string(dist);
        });
    };
    check_distance(5, "idist", idist);
    check_array(fn, 6, "out", out);
    check_distance(7, "odist", odist);
    require(in != out || idist == odist,
            std::string(fn) + ": in place (in == out) needs idist == odist");
    require(sign == Sign::forward || sign == Sign::backward,
            std::string(fn) + ": argument 8 (sign) must be forward (-1) or backward (+1)");
    check_flags(fn, 9, flags);
    PlanState<R> s{Kind::c2c, n[0], rank == 1 ? 1 : n[1], int(sign), in, out};
    s.one_d = rank == 1;
    s.howmany = howmany;
    s.idist = idist;
    s.odist = odist;
    check_overlap(fn, in, s.in_bytes(), out, s.out_bytes());
    measure_ahead(s, flags);
    return Plan(std::make_unique<State>(s));
}

template <Real R>
Plan<R> Plan<R>::dft_r2c_2d(int64_t n0, int64_t n1, R* in, Complex* out, unsigned flags)
{
    return Plan(std::make_unique<State>(
        make_state<R>("fft::Plan::dft_r2c_2d", Kind::r2c, n0, n1, in, out, -1, flags, 5)));
}

template <Real R>
Plan<R> Plan<R>::dft_c2r_2d(int64_t n0, int64_t n1, Complex* in, R* out, unsigned flags)
{
    return Plan(std::make_unique<State>(
        make_state<R>("fft::Plan::dft_c2r_2d", Kind::c2r, n0, n1, in, out, +1, flags, 5)));
}

template <Real R> void Plan<R>::execute() const
{
    require(s_ != nullptr, "fft::Plan::execute: the plan was moved from");
    run<R>(*s_, s_->in, s_->out);
}

namespace {

/// Checks a new-array execute's arrays against the plan (FFTW's rules: same kind, in place
/// exactly when the plan is) and runs it.
template <Real R>
void execute_new(PlanState<R> const* s, char const* fn, Kind kind, void* in, void* out)
{
    require(s != nullptr, std::string(fn) + ": the plan was moved from");
    require(s->kind == kind, std::string(fn) + ": the plan is of another kind of transform");
    check_array(fn, 2, "in", in);
    check_array(fn, 3, "out", out);
    require((in == out) == s->in_place(), [&] {
        return std::string(fn) + ": the plan was made " +
               (s->in_place() ? "in place" : "out of place") + "; in and out must be " +
               (s->in_place() ? "the same array" : "different arrays");
    });
    check_overlap(fn, in, s->in_bytes(), out, s->out_bytes());
    run<R>(*s, in, out);
}

}  // namespace

template <Real R> void Plan<R>::execute_dft(Complex* in, Complex* out) const
{
    execute_new<R>(s_.get(), "fft::Plan::execute_dft", Kind::c2c, in, out);
}
template <Real R> void Plan<R>::execute_dft_r2c(R* in, Complex* out) const
{
    execute_new<R>(s_.get(), "fft::Plan::execute_dft_r2c", Kind::r2c, in, out);
}
template <Real R> void Plan<R>::execute_dft_c2r(Complex* in, R* out) const
{
    execute_new<R>(s_.get(), "fft::Plan::execute_dft_c2r", Kind::c2r, in, out);
}

template <Real R> int64_t Plan<R>::n0() const noexcept
{
    return s_ ? s_->n0 : 0;
}
template <Real R> int64_t Plan<R>::n1() const noexcept
{
    return s_ ? s_->n1 : 0;
}

std::string export_wisdom()
{
    return kernels::cpu::export_wisdom();
}
bool import_wisdom(std::string const& wisdom)
{
    return kernels::cpu::import_wisdom(wisdom);
}

template class Plan<float>;
template class Plan<double>;

}  // namespace tessera::fft
