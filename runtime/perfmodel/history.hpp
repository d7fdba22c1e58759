// FootprintStats: the measurements of one (model, architecture, footprint), robust to
// outliers. Internal.
//
// Mean and variance follow Welford's online update over the accepted samples. A sample is
// rejected when, with at least `min_window` recent samples, it lies more than 5 scaled MADs
// from their median: |t - med| > 5 * 1.4826 * MAD (1.4826 makes the MAD a standard deviation
// for normal noise). Every sample, rejected or not, enters the recent window, so that a real
// change of speed is accepted once it persists.
#pragma once

#include <array>
#include <cstdint>

namespace tessera::rt::detail {

struct FootprintStats {
    static constexpr unsigned window = 16, min_window = 5;

    double size = 0;  // bytes of the buffers
    uint64_t count = 0, rejected = 0;
    double mean = 0, m2 = 0;  // Welford: m2 = sum of squared deviations
    std::array<double, window> recent{};
    unsigned nrecent = 0, next = 0;

    /// Adds a measurement; false if it was rejected as an outlier.
    bool add(double seconds) noexcept;
    double stddev() const noexcept;
};

}  // namespace tessera::rt::detail
