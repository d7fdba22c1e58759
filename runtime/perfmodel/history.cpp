#include "runtime/perfmodel/history.hpp"

#include <algorithm>
#include <cmath>

namespace tessera::rt::detail {

namespace {
double median_of(double* v, unsigned n)
{
    std::nth_element(v, v + n / 2, v + n);
    double hi = v[n / 2];
    if (n % 2) return hi;
    return 0.5 * (hi + *std::max_element(v, v + n / 2));
}
}  // namespace

bool FootprintStats::add(double t) noexcept
{
    bool outlier = false;
    if (nrecent >= min_window) {
        std::array<double, window> v = recent;
        double med = median_of(v.data(), nrecent);
        for (unsigned i = 0; i < nrecent; ++i) v[i] = std::abs(recent[i] - med);
        double mad = median_of(v.data(), nrecent);
        double spread = std::max(1.4826 * mad, 0.01 * med);  // identical samples: 1% tolerance
        outlier = std::abs(t - med) > 5 * spread;
    }
    recent[next] = t;
    next = (next + 1) % window;
    nrecent = std::min(nrecent + 1, window);
    if (outlier) {
        ++rejected;
        return false;
    }
    ++count;
    double delta = t - mean;
    mean += delta / double(count);
    m2 += delta * (t - mean);
    return true;
}

double FootprintStats::stddev() const noexcept
{
    return count > 1 ? std::sqrt(m2 / double(count - 1)) : 0.0;
}

}  // namespace tessera::rt::detail
