// Jacobi 2D on the runtime, written on the public API as an application would: an n x n grid
// of doubles in nt x nt tiles, two copies of it (in and out, swapped at each sweep), and per
// sweep one task per tile that reads its tile and its four neighbours and writes its tile of
// the other grid. The grid's border keeps its values (Dirichlet); an interior point becomes
// the mean of its four neighbours:
//     out(i, j) = (in(i-1, j) + in(i+1, j) + in(i, j-1) + in(i, j+1)) / 4.
// A 5-point stencil is memory-bound and its tiles are reused at every sweep: the workload of
// seed 001 where data locality matters most. Used by examples/jacobi2d.cpp and by
// `tessera-bench study`.
#pragma once

#include <tessera/tessera.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace tessera::examples {

namespace jacobi_detail {
namespace rt = tessera::rt;
using Tile = rt::Matrix<double>;
using CTile = rt::Matrix<const double>;

// One sweep over tile c into o: n, s, w, e are its neighbouring tiles (a tile on the grid's
// edge gets itself for those it lacks, which only the grid's border, kept as it is, would
// read), (r0, c0) its first row and column in the grid, `size` the grid's order.
inline void sweep_tile(CTile c, CTile n, CTile s, CTile w, CTile e, Tile o, int64_t r0, int64_t c0,
                       int64_t size)
{
    auto at = [&](int64_t i, int64_t j) {  // in(i, j), i and j local, one step outside allowed
        if (i < 0) return n(n.m - 1, j);
        if (i >= c.m) return s(0, j);
        if (j < 0) return w(i, w.n - 1);
        if (j >= c.n) return e(i, 0);
        return c(i, j);
    };
    for (int64_t j = 0; j < c.n; ++j)
        for (int64_t i = 0; i < c.m; ++i) {
            int64_t gi = r0 + i, gj = c0 + j;
            bool border = gi == 0 || gj == 0 || gi == size - 1 || gj == size - 1;
            o(i, j) = border ? c(i, j)
                             : 0.25 * (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1));
        }
}

inline const rt::PerfModel sweep_model{"jacobi2d_sweep"};
inline const rt::Codelet<CTile, CTile, CTile, CTile, CTile, Tile, int64_t, int64_t, int64_t>
    sweep_codelet{
        .name = "jacobi2d_sweep",
        .cpu = &sweep_tile,
        .model = &sweep_model,
        .flops = [](auto const& c, auto const&...) { return 4.0 * double(c.m * c.n); },
    };
}  // namespace jacobi_detail

/// The grid and its two registered copies, on runtime `r`.
class Jacobi2d {
public:
    /// An n x n grid in nt x nt tiles (nt divides n), its border set to 1 and its inside to 0.
    Jacobi2d(rt::Runtime& r, int64_t n, int64_t nt)
        : r_(r), n_(n), nt_(nt), nb_(n / nt), a_(std::size_t(n * n), 0.0), b_(a_.size(), 0.0)
    {
        tessera::require(n >= 3 && nt >= 1 && n % nt == 0,
                         "Jacobi2d: n must be at least 3 and nt divide it");
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < n; ++i)
                if (i == 0 || j == 0 || i == n - 1 || j == n - 1) a_[i + j * n] = b_[i + j * n] = 1;
        ha_.emplace(r, rt::Matrix<double>{a_.data(), n, n, n});
        hb_.emplace(r, rt::Matrix<double>{b_.data(), n, n, n});
        ta_.emplace(rt::partition(*ha_, rt::tiles(nt, nt)));
        tb_.emplace(rt::partition(*hb_, rt::tiles(nt, nt)));
    }

    /// Submits `sweeps` sweeps, without waiting.
    void submit(int sweeps)
    {
        using jacobi_detail::sweep_codelet;
        for (int k = 0; k < sweeps; ++k, ++done_) {
            auto& in = done_ % 2 == 0 ? *ta_ : *tb_;
            auto& out = done_ % 2 == 0 ? *tb_ : *ta_;
            for (int64_t tj = 0; tj < nt_; ++tj)
                for (int64_t ti = 0; ti < nt_; ++ti) {
                    auto& c = in(ti, tj);
                    r_.submit(sweep_codelet, read(c), read(ti > 0 ? in(ti - 1, tj) : c),
                              read(ti < nt_ - 1 ? in(ti + 1, tj) : c),
                              read(tj > 0 ? in(ti, tj - 1) : c),
                              read(tj < nt_ - 1 ? in(ti, tj + 1) : c), write(out(ti, tj)),
                              rt::value(ti * nb_), rt::value(tj * nb_), rt::value(n_));
                }
        }
    }

    /// The grid after the sweeps submitted so far (waits for them): column-major, n x n.
    std::vector<double> grid()
    {
        r_.wait_all();
        tb_.reset();  // unpartition: the tiles' data goes home
        ta_.reset();
        std::vector<double> out = done_ % 2 == 0 ? a_ : b_;
        ta_.emplace(rt::partition(*ha_, rt::tiles(nt_, nt_)));
        tb_.emplace(rt::partition(*hb_, rt::tiles(nt_, nt_)));
        return out;
    }

    int64_t n() const noexcept { return n_; }
    int64_t tile_bytes() const noexcept { return nb_ * nb_ * int64_t(sizeof(double)); }

private:
    rt::Runtime& r_;
    int64_t n_, nt_, nb_;
    int done_ = 0;
    std::vector<double> a_, b_;
    std::optional<rt::Handle<rt::Matrix<double>>> ha_, hb_;
    std::optional<rt::Partition<rt::Matrix<double>>> ta_, tb_;
};

/// The same sweeps computed sequentially, for checking: column-major, n x n.
inline std::vector<double> jacobi2d_reference(int64_t n, int sweeps)
{
    std::vector<double> a(std::size_t(n * n), 0.0);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i)
            if (i == 0 || j == 0 || i == n - 1 || j == n - 1) a[i + j * n] = 1;
    std::vector<double> b = a;
    for (int k = 0; k < sweeps; ++k) {
        for (int64_t j = 1; j < n - 1; ++j)
            for (int64_t i = 1; i < n - 1; ++i)
                b[i + j * n] = 0.25 * (a[i - 1 + j * n] + a[i + 1 + j * n] + a[i + (j - 1) * n] +
                                       a[i + (j + 1) * n]);
        std::swap(a, b);
    }
    return a;
}

}  // namespace tessera::examples
