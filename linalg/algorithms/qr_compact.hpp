// The QR in LAPACK's compact form on tile matrices (the LAPACK-style calls wrap their arrays
// and run these): see codelets/qr_compact.hpp. Internal.
#pragma once

#include <tessera/la/qr.hpp>
#include <tessera/rt/interfaces.hpp>

#include <vector>

namespace tessera::inline la::detail {

/// tau registered in place in pieces of nb entries, one per panel.
template <Scalar T> class TauPieces {
public:
    using Piece = rt::Handle<rt::Vector<T>>;
    TauPieces(rt::Runtime& rt, T* tau, int64_t count, int64_t nb);
    Piece& operator[](int64_t k) { return pieces_[std::size_t(k)]; }

private:
    std::vector<Piece> pieces_;
};

/// Room for the kb x kb factor T of each of `panels` panels (T_k in tile (0, k)), which the
/// calls below fill and read: the caller keeps it until their tasks are done.
template <Scalar T> TileMatrix<T> panel_factors(rt::Runtime& rt, int64_t panels, int64_t nb);

/// A = Q R in compact form: the reflectors below the diagonal of A, tau their scalars; with B
/// (A's rows and tile size), B = Q^H B too, each step applied to B as soon as it is made
/// (gels).
template <Scalar T>
void geqrf_compact_async(TileMatrix<T>& A, TauPieces<T>& tau, TileMatrix<T>& factors, Sequence& s,
                         TileMatrix<T>* B = nullptr);
/// C = op(Q) C or C op(Q), Q from the compact form of V's k = V.n() reflectors.
template <Scalar T>
void unmqr_compact_async(Side side, Op op, TileMatrix<T> const& V, TauPieces<T>& tau,
                         TileMatrix<T>& factors, TileMatrix<T>& C, Sequence& s);
/// A (m x n) = the first n columns of H_1 ... H_k, from the k reflectors in its first columns.
template <Scalar T>
void ungqr_compact_async(TileMatrix<T>& A, int64_t k, TauPieces<T>& tau, TileMatrix<T>& factors,
                         Sequence& s);

}  // namespace tessera::inline la::detail
