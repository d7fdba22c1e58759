// X(T) for each of the four precisions: the explicit instantiations that end each templated
// source (STYLE.md: one template, four instantiations, no code generator). Internal.
#pragma once

#include <complex>

#define TESSERA_FOR_EACH_SCALAR(X)                                                                 \
    X(float)                                                                                       \
    X(double)                                                                                      \
    X(std::complex<float>)                                                                         \
    X(std::complex<double>)
