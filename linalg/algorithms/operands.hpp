// Checks the tile calls share before they submit anything: the side, triangle and operations
// they are given, and the runtime of their matrices. A sequence's tasks run on the sequence's
// runtime, so each matrix of the call must live there (a handle of another runtime would only
// fail inside the runtime, naming a codelet's argument, after part of the call was
// submitted). Internal.
#pragma once

#include <tessera/error.hpp>
#include <tessera/la/enums.hpp>
#include <tessera/la/pivots.hpp>
#include <tessera/la/sequence.hpp>
#include <tessera/la/tile_matrix.hpp>
#include <tessera/rt/filter.hpp>

#include <algorithm>
#include <initializer_list>
#include <string>

namespace tessera::inline la::detail {

/// Throws InvalidArgument unless `uplo` names a triangle (Uplo::lower or Uplo::upper).
inline void require_triangle(std::string const& routine, Uplo uplo)
{
    require(uplo == Uplo::lower || uplo == Uplo::upper,
            routine + ": uplo must be Uplo::lower or Uplo::upper");
}

/// Throws InvalidArgument unless `side` is Side::left or Side::right.
inline void require_side(std::string const& routine, Side side)
{
    require(side == Side::left || side == Side::right,
            routine + ": side must be Side::left or Side::right");
}

/// Throws InvalidArgument unless `op` (the argument `name` of `routine`) is one of the three
/// operations.
inline void require_op(std::string const& routine, char const* name, Op op)
{
    require(is_operation(op),
            routine + ": " + name + " must be Op::notrans, Op::trans or Op::conjtrans");
}

/// A matrix of a tile call, with its name in the call's documentation, and whether the call
/// writes it.
template <Scalar T> struct Operand {
    char const* name;
    TileMatrix<T> const& matrix;
    bool written = false;
};

/// Throws InvalidArgument naming the first matrix (not empty) that lives on another runtime
/// than sequence `s`, or one of whose tiles the application unregistered or partitioned, or a
/// written matrix that shares elements with another of the call's (BLAS's aliasing: its
/// kernels would read what they are overwriting): a call checks them all before it submits
/// anything, so that a bad one changes nothing.
template <Scalar T>
void require_usable_on(Sequence const& s, std::string const& routine,
                       std::initializer_list<Operand<T>> matrices)
{
    for (Operand<T> const& o : matrices) {
        require(!o.matrix || &o.matrix.runtime() == &s.runtime(),
                routine + ": " + o.name + " lives on another runtime than the sequence");
        for (int64_t j = 0; j < o.matrix.nt(); ++j)
            for (int64_t i = 0; i < o.matrix.mt(); ++i) {
                auto const& tile = o.matrix(i, j);
                const bool registered = tile.registered();
                if (registered && !rt::partitioned(tile)) [[likely]]
                    continue;
                require(false, routine + ": tile (" + std::to_string(i) + ", " + std::to_string(j) +
                                   ") of " + o.name +
                                   (registered ? " is partitioned: unpartition it first"
                                               : " is not registered"));
            }
    }
    for (Operand<T> const& w : matrices)
        if (w.written)
            for (Operand<T> const& o : matrices)
                if (&o != &w && w.matrix.overlaps(o.matrix)) [[unlikely]]
                    throw InvalidArgument(
                        routine + ": " + w.name + " shares elements with " + o.name +
                        ": a matrix the call writes must not overlap another of its matrices");
}

/// Throws InvalidArgument naming `routine` unless ipiv holds the min(m, n) interchanges of A's
/// LU in pieces of A's tile size, as Pivots{A} makes them.
template <Scalar T>
void require_pivots_of(std::string const& routine, Pivots const& ipiv, TileMatrix<T> const& A)
{
    const int64_t count = std::min(A.m(), A.n());
    require(ipiv.size() == count && (count == 0 || ipiv.nb() == A.nb()), [&] {
        return routine + ": ipiv has " + std::to_string(ipiv.size()) + " entries in pieces of " +
               std::to_string(ipiv.nb()) + "; A (" + std::to_string(A.m()) + " x " +
               std::to_string(A.n()) + ", nb " + std::to_string(A.nb()) + ") needs " +
               std::to_string(count) + " in pieces of " + std::to_string(A.nb()) + " (Pivots{A})";
    });
}

/// Checks the call's matrices (require_usable_on) and opens call `routine` on `s` until the
/// scope returned ends: the tasks it submits belong to it (Sequence::failed_call).
template <Scalar T>
[[nodiscard]] Sequence::CallScope begin_call(Sequence& s, std::string const& routine,
                                             std::initializer_list<Operand<T>> matrices)
{
    require_usable_on<T>(s, routine, matrices);
    return s.call(routine);
}

}  // namespace tessera::inline la::detail
