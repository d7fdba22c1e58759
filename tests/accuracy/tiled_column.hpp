// A tile column as the panel kernels see it (tiles of their own, not contiguous), and the
// meeting point of the threads that play the ranks of one SPMD task, for the tests of the
// panel kernels (test_lu_panel.cpp, test_qr_panel.cpp).
#pragma once

#include "accuracy/accuracy.hpp"

#include "linalg/kernels/cpu/tile_column_lu.hpp"

#include <barrier>
#include <optional>

namespace tessera::test {

namespace kernel = tessera::la::kernels::cpu;  // under test; blas:: is the oracle

inline std::optional<std::barrier<>>
    group_barrier;  // the ranks' meeting point (one group at a time)
inline bool meet()
{
    group_barrier->arrive_and_wait();
    return true;
}

/// A column of m rows and width n stored as tiles of nb rows, each with its own allocation
/// and a leading dimension larger than its rows (the tiles are not contiguous).
template <Scalar T> struct TiledColumn {
    int64_t m, n, nb;
    std::vector<std::vector<T>> storage;
    std::vector<kernel::ColumnTile<T>> tiles;

    TiledColumn(Dense<T> const& A, int64_t nb_) : m(A.m), n(A.n), nb(nb_)
    {
        for (int64_t r = 0; r < m; r += nb) {
            const int64_t rows = std::min(nb, m - r), ld = rows + 3;
            auto& s = storage.emplace_back(std::size_t(ld * n), T(0));
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < rows; ++i) s[std::size_t(i + j * ld)] = A(r + i, j);
            tiles.push_back({s.data(), rows, ld});
        }
    }
    Dense<T> dense() const
    {
        Dense<T> D(m, n);
        for (std::size_t t = 0; t < tiles.size(); ++t)
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < tiles[t].rows; ++i)
                    D(int64_t(t) * nb + i, j) = tiles[t].ptr[i + j * tiles[t].ld];
        return D;
    }
};

}  // namespace tessera::test
