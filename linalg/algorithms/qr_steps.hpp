// The steps the tile QR's calls share: the eliminations that reduce a tile column to its
// diagonal triangle along the tree of a QrFactors, and the submission of one elimination's
// Q or Q^H applied to a line of tiles of another matrix (a tile column from the left, a tile
// row from the right). Internal.
#pragma once

#include <tessera/la/qr.hpp>

#include "linalg/algorithms/operands.hpp"
#include "linalg/codelets/qr.hpp"

#include <vector>

namespace tessera::inline la::detail {

/// One elimination of tile column k: geqrt of tile `row` (pivot unused), or tile `row`'s
/// square or triangle against the triangle of tile `pivot`.
struct Elimination {
    enum class Kind : uint8_t { geqrt, square, triangle } kind;
    int64_t pivot, row;
};

/// The eliminations of tile column k in the order they are made: flat trees over domains of
/// `domain` tile rows from row k (geqrt of each domain's first tile, then tsqrt of the others
/// against it, top down), then a binary tree of ttqrt over the domains' first tiles (at
/// distance 1, 2, 4 ... domains). Q_k is their product in this order.
inline std::vector<Elimination> qr_eliminations(int64_t mt, int64_t k, int64_t domain)
{
    std::vector<Elimination> list;
    std::vector<int64_t> heads;
    for (int64_t head = k; head < mt; head += domain) {
        heads.push_back(head);
        list.push_back({Elimination::Kind::geqrt, head, head});
        for (int64_t i = head + 1; i < std::min(mt, head + domain); ++i)
            list.push_back({Elimination::Kind::square, head, i});
    }
    for (std::size_t distance = 1; distance < heads.size(); distance *= 2)
        for (std::size_t d = 0; d + distance < heads.size(); d += 2 * distance)
            list.push_back({Elimination::Kind::triangle, heads[d], heads[d + distance]});
    return list;
}

/// Submits elimination e of tile column k of A applied as op(Q_e) to C: from the left to the
/// tile column `line` of C (tile rows e.pivot and e.row), from the right to its tile row `line`
/// (tile columns e.pivot and e.row).
template <Scalar T>
void apply_elimination(Side side, Op op, TileMatrix<T> const& A, QrFactors<T> const& F, int64_t k,
                       Elimination const& e, TileMatrix<T>& C, int64_t line, int priority,
                       Sequence& s)
{
    auto at = [&](int64_t i) ->
        typename TileMatrix<T>::Tile& { return side == Side::left ? C(i, line) : C(line, i); };
    const auto ib = rt::value(F.ib());
    if (e.kind == Elimination::Kind::geqrt) {
        s.submit(cl::unmqr<T>, rt::value(side), rt::value(op), read(A(e.row, k)),
                 read(F.square(e.row, k)), readwrite(at(e.row)), ib, rt::priority(priority));
        return;
    }
    const bool square = e.kind == Elimination::Kind::square;
    s.submit(cl::tpmqrt<T>, rt::value(side), rt::value(op), read(A(e.row, k)),
             read(square ? F.square(e.row, k) : F.triangle(e.row, k)), readwrite(at(e.pivot)),
             readwrite(at(e.row)),
             rt::value(square ? cl::Eliminated::square : cl::Eliminated::triangle), ib,
             rt::priority(priority));
}

/// Throws InvalidArgument unless op is one unmqr (unmlq) takes: Op::trans means Q^H only for real T.
template <Scalar T> void require_reflector_op(std::string const& routine, Op op)
{
    require_op(routine, "op", op);
    require(!(is_complex_v<T> && op == Op::trans),
            routine +
                ": op must be Op::notrans or Op::conjtrans for complex matrices (Q^T is not Q^H)");
}

/// Throws InvalidArgument naming `routine` unless F holds the factors of a QR of A.
template <Scalar T>
void require_factors_of(std::string const& routine, QrFactors<T> const& F, TileMatrix<T> const& A)
{
    require(F.fits(A.m(), A.n(), A.nb()), [&] {
        return routine + ": F does not hold the factors of a QR of A (" + std::to_string(A.m()) +
               " x " + std::to_string(A.n()) + ", nb " + std::to_string(A.nb()) +
               "): make it QrFactors{A}";
    });
    require(!F || &F.runtime() == &A.runtime(), routine + ": F lives on another runtime than A");
}

}  // namespace tessera::inline la::detail
