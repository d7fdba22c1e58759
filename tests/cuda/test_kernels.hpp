// Small CUDA kernels for the driver's tests (test_kernels.cu), launched on a given stream.
// No CUDA headers here: the stream is passed as the opaque cudaStream_t it is.
#pragma once

#include <cstdint>

struct CUstream_st;

namespace tessera_test {

using Stream = CUstream_st*;

void launch_fill(double* x, int64_t n, double value, Stream s);
void launch_add(double* x, int64_t n, double value, Stream s);
/// *mismatches += the number of x[i] != value (device memory).
void launch_count_mismatches(double const* x, int64_t n, double value, int64_t* mismatches,
                             Stream s);
/// Keeps one thread busy for about `seconds` (clock64 at the device's clock rate).
void launch_spin(double seconds, Stream s);
/// A launch that cannot start (more threads per block than any GPU has): the launch itself
/// fails with cudaErrorInvalidConfiguration, which cudaGetLastError reports; not sticky.
void launch_misconfigured(Stream s);
/// A kernel that traps: the device reports an error at the next synchronization.
void launch_trap(Stream s);

}  // namespace tessera_test
