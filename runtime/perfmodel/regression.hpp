// Regressions over the measured footprints of a model, to predict sizes never measured
// (thesis §3.5.3 and Appendix B). Internal.
//
//   power law      t = a s^b:      least squares on (ln s, ln t):
//                  b = (n Σxy - Σx Σy) / (n Σx² - (Σx)²),  ln a = (Σy - b Σx) / n
//   with offset    t = a s^b + c:  c in [0, min t) maximizing |r(ln s, ln(t - c))|, found by
//                  dichotomy (probes at mid ± 5% of the width), then a and b as above.
#pragma once

#include <optional>
#include <vector>

namespace tessera::rt::detail {

struct SizeTime {
    double size, seconds;
};

struct PowerLaw {
    double a = 0, b = 0, c = 0;
    double operator()(double size) const noexcept;
};

/// Needs at least two distinct sizes.
std::optional<PowerLaw> fit_power_law(std::vector<SizeTime> const& points);
std::optional<PowerLaw> fit_power_law_with_offset(std::vector<SizeTime> const& points);

}  // namespace tessera::rt::detail
