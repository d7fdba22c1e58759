/// @file pivots.hpp
/// Pivots: the row interchanges of an LU factorization with partial pivoting, as LAPACK's
/// ipiv: for i = 1, ..., min(m, n), row i of A was interchanged with row ipiv(i) (both from
/// 1), in that order. They are cut into pieces of nb entries, one per panel of the tile
/// algorithm, each a registered handle, so that the tasks that apply them wait for the panel
/// that chose them:
///
///     tessera::Pivots ipiv{A};                // min(m, n) entries, owned
///     tessera::getrf_async(A, ipiv, s);
///     tessera::getrs_async(Op::notrans, A, ipiv, B, s);
///     s.wait();
///     int64_t first = ipiv[0];                // read once the tasks are done
///
/// Copies are views sharing the pieces; the storage lives until the last view is gone, and
/// destroying it waits for the tasks that use it.
#pragma once

#include <tessera/la/tile_matrix.hpp>
#include <tessera/rt/handle.hpp>
#include <tessera/rt/interfaces.hpp>
#include <tessera/rt/runtime.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::inline la {

/// The row interchanges of an LU with partial pivoting, LAPACK's ipiv in registered pieces of
/// nb entries (see the file's comment). Copies are views sharing the pieces.
class Pivots {
public:
    /// A piece: a registered handle of nb entries (fewer for the last piece).
    using Piece = rt::Handle<rt::Vector<int64_t>>;

    /// No pivots, on no runtime.
    Pivots() = default;
    /// The pivots of an LU of A: min(A.m(), A.n()) entries in pieces of A.nb(), on A's runtime,
    /// owned (their values are undefined until a factorization writes them).
    template <Scalar T>
    explicit Pivots(TileMatrix<T> const& A) : Pivots(A.runtime(), std::min(A.m(), A.n()), A.nb())
    {}
    /// `count` owned entries in pieces of nb. Throws InvalidArgument when count < 0 or nb < 1.
    Pivots(rt::Runtime& rt, int64_t count, int64_t nb);
    /// Registers the caller's array `ipiv` (count entries) in place: tasks read and write it
    /// directly; it must outlive the pivots. Throws InvalidArgument when count < 0, nb < 1 or
    /// ipiv is null with count > 0.
    static Pivots wrap(rt::Runtime& rt, int64_t* ipiv, int64_t count, int64_t nb);
    /// Owned pivots holding a copy of the caller's `ipiv` (count entries), which is only read.
    static Pivots copy_of(rt::Runtime& rt, int64_t const* ipiv, int64_t count, int64_t nb);

    int64_t size() const noexcept { return s_ ? s_->count : 0; }  ///< entries
    int64_t nb() const noexcept { return s_ ? s_->nb : 1; }       ///< entries per piece
    /// Pieces: entries [k nb, min((k + 1) nb, size())) are piece k.
    int64_t pieces() const noexcept { return int64_t(s_ ? s_->pieces.size() : 0); }
    /// Piece k, 0 <= k < pieces() (checked: throws InvalidArgument).
    ///@{
    Piece& piece(int64_t k);
    Piece const& piece(int64_t k) const;
    ///@}
    /// Entry i (0 <= i < size(), unchecked), in host memory: its piece is brought there first
    /// (the panel that wrote it may have run on a GPU), after the tasks that write it.
    int64_t operator[](int64_t i) const;
    /// The entries in host memory, every piece brought there first, as above.
    int64_t const* data() const;
    /// The runtime the pieces are registered with; InvalidArgument when there is none.
    rt::Runtime& runtime() const;
    /// False for default-constructed (or moved-from) pivots, which have no runtime.
    explicit operator bool() const noexcept { return s_ != nullptr; }

private:
    struct Storage {
        rt::Runtime* rt = nullptr;
        int64_t count = 0, nb = 1;
        std::vector<int64_t> owned;  ///< the entries, unless wrapped
        int64_t* data = nullptr;     ///< owned.data() or the wrapped array
        std::vector<Piece> pieces;   ///< unregistered first: waits for their tasks
        ~Storage() { pieces.clear(); }
    };
    static std::shared_ptr<Storage> make(rt::Runtime& rt, int64_t* data, int64_t count, int64_t nb);

    std::shared_ptr<Storage> s_;
};

}  // namespace tessera::inline la
