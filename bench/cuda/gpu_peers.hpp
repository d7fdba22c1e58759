// The GPU peers of `tessera-bench gemm` and `tessera-bench potrf`: one cuBLAS / cuSOLVER call of
// the same size, the best a single GPU does with the whole matrix in its memory. Built only in
// CUDA builds (gpu_peers.cpp is under cuda/); this header includes no CUDA header.
#pragma once

#include <tessera/la/scalar.hpp>

#include <cstdint>

namespace tessera::bench::gpu {

/// Median seconds of `reps` calls of cublas<t>gemm, C = A B + C with the n x n column-major a,
/// b and c copied to the current device once: one warm-up call first, C restored from its
/// device copy before each call, only the call timed (CUDA events on the peer's own stream).
template <la::Scalar T>
double gemm_seconds(int64_t n, T const* a, T const* b, T const* c, int64_t reps);

/// The same for cusolverDn<t>potrf('L') of the n x n Hermitian positive definite a, restored
/// from its device copy before each call; throws tessera::Error if its info is not 0.
template <la::Scalar T> double potrf_seconds(int64_t n, T const* a, int64_t reps);

}  // namespace tessera::bench::gpu
