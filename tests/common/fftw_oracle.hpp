// FFTW's own plans called directly, as the FFT tests' oracle (never Tessera's kernel layer):
// the 2D complex and real transforms and the 1D one of row-major arrays, on copies.
#pragma once

#include <fftw3.h>

#include <complex>
#include <type_traits>
#include <vector>

namespace tessera::test {

/// The n0 x n1 2D transform of x with exponent sign `sign`.
template <class R>
std::vector<std::complex<R>> fftw_c2c(int n0, int n1, std::vector<std::complex<R>> x, int sign)
{
    std::vector<std::complex<R>> y(x.size());
    if constexpr (std::is_same_v<R, float>) {
        fftwf_plan p =
            fftwf_plan_dft_2d(n0, n1, reinterpret_cast<fftwf_complex*>(x.data()),
                              reinterpret_cast<fftwf_complex*>(y.data()), sign, FFTW_ESTIMATE);
        fftwf_execute(p);
        fftwf_destroy_plan(p);
    } else {
        fftw_plan p =
            fftw_plan_dft_2d(n0, n1, reinterpret_cast<fftw_complex*>(x.data()),
                             reinterpret_cast<fftw_complex*>(y.data()), sign, FFTW_ESTIMATE);
        fftw_execute(p);
        fftw_destroy_plan(p);
    }
    return y;
}

/// The n-point 1D transform of x.
template <class R>
std::vector<std::complex<R>> fftw_1d(int n, std::vector<std::complex<R>> x, int sign)
{
    std::vector<std::complex<R>> y(x.size());
    if constexpr (std::is_same_v<R, float>) {
        fftwf_plan p =
            fftwf_plan_dft_1d(n, reinterpret_cast<fftwf_complex*>(x.data()),
                              reinterpret_cast<fftwf_complex*>(y.data()), sign, FFTW_ESTIMATE);
        fftwf_execute(p);
        fftwf_destroy_plan(p);
    } else {
        fftw_plan p =
            fftw_plan_dft_1d(n, reinterpret_cast<fftw_complex*>(x.data()),
                             reinterpret_cast<fftw_complex*>(y.data()), sign, FFTW_ESTIMATE);
        fftw_execute(p);
        fftw_destroy_plan(p);
    }
    return y;
}

/// The n0 x (n1/2 + 1) half-spectrum of the real n0 x n1 x.
template <class R> std::vector<std::complex<R>> fftw_r2c(int n0, int n1, std::vector<R> x)
{
    std::vector<std::complex<R>> y(std::size_t(n0) * std::size_t(n1 / 2 + 1));
    if constexpr (std::is_same_v<R, float>) {
        fftwf_plan p = fftwf_plan_dft_r2c_2d(
            n0, n1, x.data(), reinterpret_cast<fftwf_complex*>(y.data()), FFTW_ESTIMATE);
        fftwf_execute(p);
        fftwf_destroy_plan(p);
    } else {
        fftw_plan p = fftw_plan_dft_r2c_2d(
            n0, n1, x.data(), reinterpret_cast<fftw_complex*>(y.data()), FFTW_ESTIMATE);
        fftw_execute(p);
        fftw_destroy_plan(p);
    }
    return y;
}

}  // namespace tessera::test
