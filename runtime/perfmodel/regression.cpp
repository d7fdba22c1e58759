#include "runtime/perfmodel/regression.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace tessera::rt::detail {

double PowerLaw::operator()(double size) const noexcept
{
    return a * std::pow(size, b) + c;
}

namespace {
struct LogFit {
    double slope, intercept, r;
};

std::optional<LogFit> log_fit(std::vector<SizeTime> const& p, double c)
{
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
    for (SizeTime const& q : p) {
        if (q.size <= 0 || q.seconds - c <= 0) return std::nullopt;
        double x = std::log(q.size), y = std::log(q.seconds - c);
        n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y, syy += y * y;
    }
    double dx = n * sxx - sx * sx, dy = n * syy - sy * sy;
    if (n < 2 || dx <= 0) return std::nullopt;
    double slope = (n * sxy - sx * sy) / dx;
    double r = dy > 0 ? (n * sxy - sx * sy) / std::sqrt(dx * dy) : 1.0;
    return LogFit{slope, (sy - slope * sx) / n, r};
}

bool distinct_sizes(std::vector<SizeTime> const& p)
{
    std::set<double> sizes;
    for (SizeTime const& q : p) sizes.insert(q.size);
    return sizes.size() >= 2;
}
}  // namespace

std::optional<PowerLaw> fit_power_law(std::vector<SizeTime> const& points)
{
    if (!distinct_sizes(points)) return std::nullopt;
    auto f = log_fit(points, 0);
    if (!f) return std::nullopt;
    return PowerLaw{std::exp(f->intercept), f->slope, 0};
}

std::optional<PowerLaw> fit_power_law_with_offset(std::vector<SizeTime> const& points)
{
    if (!distinct_sizes(points)) return std::nullopt;
    double tmin = std::min_element(points.begin(), points.end(), [](auto const& a, auto const& b) {
                      return a.seconds < b.seconds;
                  })->seconds;
    auto score = [&](double c) {
        auto f = log_fit(points, c);
        return f ? std::abs(f->r) : -1.0;
    };
    double lo = 0, hi = tmin * 0.999;
    while (hi - lo > 1e-3 * tmin + 1e-15) {  // the maximum of |r| lies on the better probe's side
        double mid = 0.5 * (lo + hi), step = 0.05 * (hi - lo);
        if (score(mid - step) > score(mid + step))
            hi = mid;
        else
            lo = mid;
    }
    double c = 0.5 * (lo + hi);
    if (score(c) < score(0)) c = 0;
    auto f = log_fit(points, c);
    if (!f) return std::nullopt;
    return PowerLaw{std::exp(f->intercept), f->slope, c};
}

}  // namespace tessera::rt::detail
