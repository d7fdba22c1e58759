// A minimal SVG line plot (GFlop/s against n, one line per series), so that a sweep can be
// looked at without Python or gnuplot.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tessera::bench {

struct Series {
    std::string name;
    std::vector<std::pair<double, double>> points;  // (x, y), in x order
};

/// Writes the plot to `path`; throws std::runtime_error when the file cannot be written.
void write_svg_plot(std::string const& path, std::string const& title, std::string const& xlabel,
                    std::string const& ylabel, std::vector<Series> const& series);

}  // namespace tessera::bench
