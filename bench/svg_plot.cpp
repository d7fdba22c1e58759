// The SVG plot: linear axes from 0 to the largest value (rounded up), 5 ticks each, a polyline
// and dots per series, and a legend.
#include "bench/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tessera::bench {

namespace {
/// The smallest "nice" number (1, 2 or 5 times a power of ten) at least x.
double nice_ceiling(double x)
{
    if (x <= 0) return 1;
    const double p = std::pow(10.0, std::floor(std::log10(x)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= x) return m * p;
    return 10 * p;
}
}  // namespace

void write_svg_plot(std::string const& path, std::string const& title, std::string const& xlabel,
                    std::string const& ylabel, std::vector<Series> const& series)
{
    const double W = 720, H = 440, left = 70, right = 180, top = 40, bottom = 60;
    const double pw = W - left - right, ph = H - top - bottom;
    double xmax = 0, ymax = 0;
    for (auto const& s : series)
        for (auto [x, y] : s.points) {
            xmax = std::max(xmax, x);
            if (std::isfinite(y)) ymax = std::max(ymax, y);
        }
    xmax = nice_ceiling(xmax);
    ymax = nice_ceiling(ymax);
    auto X = [&](double x) { return left + pw * x / xmax; };
    auto Y = [&](double y) { return top + ph * (1 - y / ymax); };
    static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                   "#9467bd", "#8c564b", "#e377c2"};

    std::ostringstream svg;
    svg << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << H
        << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' "
           "fill='white'/>\n";
    svg << "<text x='" << left + pw / 2 << "' y='22' text-anchor='middle' font-size='15'>" << title
        << "</text>\n";
    for (int i = 0; i <= 5; ++i) {
        const double xv = xmax * i / 5, yv = ymax * i / 5;
        svg << "<line x1='" << X(xv) << "' y1='" << top << "' x2='" << X(xv) << "' y2='" << top + ph
            << "' stroke='#ddd'/>\n<text x='" << X(xv) << "' y='" << top + ph + 18
            << "' text-anchor='middle'>" << xv << "</text>\n";
        svg << "<line x1='" << left << "' y1='" << Y(yv) << "' x2='" << left + pw << "' y2='"
            << Y(yv) << "' stroke='#ddd'/>\n<text x='" << left - 8 << "' y='" << Y(yv) + 4
            << "' text-anchor='end'>" << yv << "</text>\n";
    }
    svg << "<rect x='" << left << "' y='" << top << "' width='" << pw << "' height='" << ph
        << "' fill='none' stroke='black'/>\n";
    svg << "<text x='" << left + pw / 2 << "' y='" << H - 15 << "' text-anchor='middle'>" << xlabel
        << "</text>\n";
    svg << "<text transform='translate(18," << top + ph / 2
        << ") rotate(-90)' text-anchor='middle'>" << ylabel << "</text>\n";
    for (std::size_t k = 0; k < series.size(); ++k) {
        const char* c = colors[k % (sizeof colors / sizeof *colors)];
        svg << "<polyline fill='none' stroke='" << c << "' stroke-width='2' points='";
        for (auto [x, y] : series[k].points)
            if (std::isfinite(y)) svg << X(x) << "," << Y(y) << " ";
        svg << "'/>\n";
        for (auto [x, y] : series[k].points)
            if (std::isfinite(y))
                svg << "<circle cx='" << X(x) << "' cy='" << Y(y) << "' r='3' fill='" << c
                    << "'/>\n";
        const double ly = top + 10 + 20.0 * double(k);
        svg << "<line x1='" << left + pw + 12 << "' y1='" << ly << "' x2='" << left + pw + 36
            << "' y2='" << ly << "' stroke='" << c << "' stroke-width='2'/>\n<text x='"
            << left + pw + 42 << "' y='" << ly + 4 << "'>" << series[k].name << "</text>\n";
    }
    svg << "</svg>\n";
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write " + path);
    out << svg.str();
}

}  // namespace tessera::bench
