/// @file la.hpp
/// The dense linear algebra: TileMatrix, Pivots, QrFactors and sequences; the level-3 BLAS
/// and the Cholesky, LU and QR families in tile, asynchronous and LAPACK-style forms; layout
/// conversion, norms, test matrix generators, and the library's runtime behind the
/// LAPACK-style forms (context.hpp). The C API is tessera.h.
#pragma once

#include <tessera/la/blas.hpp>
#include <tessera/la/cholesky.hpp>
#include <tessera/la/context.hpp>
#include <tessera/la/enums.hpp>
#include <tessera/la/generate.hpp>
#include <tessera/la/layout.hpp>
#include <tessera/la/lu.hpp>
#include <tessera/la/norm.hpp>
#include <tessera/la/pivots.hpp>
#include <tessera/la/qr.hpp>
#include <tessera/la/scalar.hpp>
#include <tessera/la/sequence.hpp>
#include <tessera/la/tile_matrix.hpp>
