// Codelets of the diagonal-tile factorizations of the Cholesky family: potrf (A = L L^H),
// trtri (inverse of a triangle) and lauum (L^H L or U U^H). A failing potrf or trtri records
// LAPACK's info, shifted by the tile's offset in the whole matrix, into the sequence's
// info reduction (InfoTarget), with the number of its call: the smallest one wins (on a
// GPU, once the task's stream work is done). Internal.
#pragma once

#include "linalg/codelets/blas3.hpp"

#include <tessera/error.hpp>
#include <tessera/la/sequence.hpp>

#include <string>

namespace tessera::la::cl {

/// A LAPACK kernel's info < 0 means it refused an argument we passed: an error of ours (the
/// task fails), never a result to ignore.
inline void throw_if_refused(char const* kernel, int64_t info)
{
    if (info < 0)
        throw Error(std::string(kernel) + ": LAPACK refused argument " + std::to_string(-info));
}

template <Scalar T> void potrf_tile(Uplo uplo, Tile<T> a, int64_t offset, InfoTarget info)
{
    const int64_t i = kernels::cpu::potrf(uplo, a.n, a.ptr, a.ld);
    throw_if_refused("potrf", i);
    if (i > 0) info.record(offset + i);
}
/// The info comes back asynchronously: recorded by the worker once the stream work is done.
template <Scalar T>
void potrf_tile_cuda(rt::CudaContext const& cuda, Uplo uplo, Tile<T> a, int64_t offset,
                     InfoTarget info)
{
    kernels::cuda::potrf(cuda, uplo, a.n, a.ptr, a.ld,
                         [info, offset](int64_t i) { info.record(offset + i); });
}
template <Scalar T>
inline constexpr rt::PerfModel potrf_model{
    by_precision<T>("tile_spotrf", "tile_dpotrf", "tile_cpotrf", "tile_zpotrf")};
template <Scalar T>
inline const rt::Codelet<Uplo, Tile<T>, int64_t, InfoTarget> potrf{
    .name = by_precision<T>("spotrf", "dpotrf", "cpotrf", "zpotrf"),
    .cpu = &potrf_tile<T>,
    .cuda = TESSERA_IF_CUDA(&potrf_tile_cuda<T>),
    .model = &potrf_model<T>,
    .flops =
        [](Uplo const&, Tile<T> const& a, int64_t const&, InfoTarget const&) {
            const double n = double(a.n);
            return fma_flops<T> / 2.0 * n * n * n / 3.0;  // n^3/3 (real), 4n^3/3 (complex)
        },
};

// trtri's diagonal tiles are the tasks of a call that look for the smallest info
// (Sequence::submit_finding_info): their records name their finding call, after whose own
// failures they still run.
template <Scalar T>
void trtri_tile(Uplo uplo, Diag diag, Tile<T> a, int64_t offset, InfoTarget info)
{
    const int64_t i = kernels::cpu::trtri(uplo, diag, a.n, a.ptr, a.ld);
    throw_if_refused("trtri", i);
    if (i > 0) info.record(offset + i);
}
template <Scalar T>
void trtri_tile_cuda(rt::CudaContext const& cuda, Uplo uplo, Diag diag, Tile<T> a, int64_t offset,
                     InfoTarget info)
{
    kernels::cuda::trtri(cuda, uplo, diag, a.n, a.ptr, a.ld,
                         [info, offset](int64_t i) { info.record(offset + i); });
}
template <Scalar T>
inline constexpr rt::PerfModel trtri_model{
    by_precision<T>("tile_strtri", "tile_dtrtri", "tile_ctrtri", "tile_ztrtri")};
template <Scalar T>
inline const rt::Codelet<Uplo, Diag, Tile<T>, int64_t, InfoTarget> trtri{
    .name = by_precision<T>("strtri", "dtrtri", "ctrtri", "ztrtri"),
    .cpu = &trtri_tile<T>,
    .cuda = TESSERA_IF_CUDA(&trtri_tile_cuda<T>),
    .model = &trtri_model<T>,
    .flops =
        [](Uplo const&, Diag const&, Tile<T> const& a, int64_t const&, InfoTarget const&) {
            const double n = double(a.n);
            return fma_flops<T> / 2.0 * n * n * n / 3.0;
        },
};

template <Scalar T> void lauum_tile(Uplo uplo, Tile<T> a)
{
    kernels::cpu::lauum(uplo, a.n, a.ptr, a.ld);
}
template <Scalar T> void lauum_tile_cuda(rt::CudaContext const& cuda, Uplo uplo, Tile<T> a)
{
    kernels::cuda::lauum(cuda, uplo, a.n, a.ptr, a.ld);
}
template <Scalar T>
inline constexpr rt::PerfModel lauum_model{
    by_precision<T>("tile_slauum", "tile_dlauum", "tile_clauum", "tile_zlauum")};
template <Scalar T>
inline const rt::Codelet<Uplo, Tile<T>> lauum{
    .name = by_precision<T>("slauum", "dlauum", "clauum", "zlauum"),
    .cpu = &lauum_tile<T>,
    .cuda = TESSERA_IF_CUDA(&lauum_tile_cuda<T>),
    .model = &lauum_model<T>,
    .flops =
        [](Uplo const&, Tile<T> const& a) {
            const double n = double(a.n);
            return fma_flops<T> / 2.0 * n * n * n / 3.0;
        },
};

}  // namespace tessera::la::cl
