// tessera-perfmodel: what this machine's performance models have learned (StarPU's
// starpu_perfmodel_display and starpu_perfmodel_plot).
//
//   list         every model symbol of the directory, with per architecture the number of
//                sizes (footprints) and of samples recorded
//   show SYMBOL  per architecture, one row per footprint: its size in bytes, samples, mean and
//                standard deviation of the time, GFlop/s where the kernel's flop count is
//                known; then the regressions the runtime fits over those sizes, t = a s^b and
//                t = a s^b + c (runtime/perfmodel/regression.hpp), with their largest error
//   plot SYMBOL --svg OUT.svg
//                an SVG chart, log-log, of time against size: per architecture the means with
//                an error bar of one standard deviation, and the fitted curves
//
// The directory is the runtime's: TESSERA_PERFMODEL_DIR/<host>, by default
// ~/.cache/tessera/perfmodels/<host>; --dir DIR reads DIR instead (or DIR/<host> when DIR holds
// no model but that folder exists, so that a TESSERA_PERFMODEL_DIR value works as well).
// The files are read with the runtime's own loader and never written.
//
// Exit status: 0, 1 when the directory or the symbol is missing (or the SVG cannot be
// written), 2 for a usage error.
//
// Usage: tessera-perfmodel [--dir DIR] list
//        tessera-perfmodel [--dir DIR] show SYMBOL
//        tessera-perfmodel [--dir DIR] plot SYMBOL --svg OUT.svg
#include "python-free-tools/common/model_dir.hpp"
#include "python-free-tools/common/xml_text.hpp"
#include "runtime/perfmodel/history.hpp"
#include "runtime/perfmodel/regression.hpp"
#include "runtime/perfmodel/store.hpp"

#include <tessera/rt/perfmodel.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace fs = std::filesystem;
namespace rt = tessera::rt;
namespace detail = tessera::rt::detail;
using tessera::tools::xml_escape;

namespace {

constexpr char const* usage_text =
    "usage: tessera-perfmodel [--dir DIR] list\n"
    "       tessera-perfmodel [--dir DIR] show SYMBOL\n"
    "       tessera-perfmodel [--dir DIR] plot SYMBOL --svg OUT.svg\n"
    "Shows the performance models of this machine: the symbols (list), the measurements and\n"
    "regressions of one (show), a log-log SVG chart of its time against size (plot).\n"
    "  --dir DIR   read the models in DIR (default: TESSERA_PERFMODEL_DIR/<host>, else\n"
    "              ~/.cache/tessera/perfmodels/<host>)\n"
    "  --svg FILE  where plot writes the chart ('-': standard output)\n";

int usage_error(std::string const& why)
{
    std::fprintf(stderr, "tessera-perfmodel: %s\n%s", why.c_str(), usage_text);
    return 2;
}

// ---- reading a model -----------------------------------------------------------------------

/// One architecture of a model: its footprints by size, and the fits the runtime would make.
struct ArchModel {
    std::string name;
    std::vector<rt::PerfModelEntry> entries;  // by size
    uint64_t samples = 0;
    std::size_t fitted = 0;  // footprints the regressions use
    std::optional<detail::PowerLaw> power, offset;
};

/// The footprints the runtime's regressions use (ModelStore::predict): measured at least
/// min_window times, with a size and a time that have logarithms.
std::vector<detail::SizeTime> fit_points(std::vector<rt::PerfModelEntry> const& entries)
{
    std::vector<detail::SizeTime> points;
    for (auto const& e : entries)
        if (e.count >= detail::FootprintStats::min_window && e.size > 0 && e.mean > 0)
            points.push_back({e.size, e.mean});
    return points;
}

std::vector<ArchModel> read_model(fs::path const& dir, std::string const& symbol)
{
    detail::ModelStore store(dir.string());
    std::map<std::string, ArchModel> archs;
    for (auto& e : store.entries(symbol)) {
        ArchModel& a = archs[e.arch];
        a.name = e.arch;
        a.samples += e.count;
        a.entries.push_back(std::move(e));
    }
    std::vector<ArchModel> out;
    for (auto& [name, a] : archs) {
        std::sort(a.entries.begin(), a.entries.end(),
                  [](auto const& x, auto const& y) { return x.size < y.size; });
        auto points = fit_points(a.entries);
        a.fitted = points.size();
        a.power = detail::fit_power_law(points);
        a.offset = detail::fit_power_law_with_offset(points);
        out.push_back(std::move(a));
    }
    return out;
}

/// The largest relative error of a fit over the points it was fitted to.
double worst_error(detail::PowerLaw const& f, std::vector<rt::PerfModelEntry> const& entries)
{
    double worst = 0;
    for (auto const& p : fit_points(entries))
        worst = std::max(worst, std::abs(f(p.size) - p.seconds) / p.seconds);
    return worst;
}

// ---- flop counts of the square-tile kernels --------------------------------------------------
// The model files keep times, not flops. For the tile kernels of the linear algebra, whose
// symbols are tile_<precision><kernel> and whose buffers are `tiles` square nb x nb tiles, nb
// follows from the size and the flops from LAPACK's count (linalg/codelets/*.hpp). A size that
// is not such a square gives no nb, and no rate is shown.
struct KernelCount {
    std::string_view kernel;
    int tiles;
    double (*multiply_adds)(double nb);
};
constexpr KernelCount kernel_counts[] = {
    {"gemm", 3, [](double n) { return n * n * n; }},
    {"symm", 3, [](double n) { return n * n * n; }},
    {"syrk", 2, [](double n) { return 0.5 * n * (n + 1) * n; }},
    {"trsm", 2, [](double n) { return 0.5 * n * n * n; }},
    {"trmm", 2, [](double n) { return 0.5 * n * n * n; }},
    {"potrf", 1, [](double n) { return n * n * n / 6; }},
    {"trtri", 1, [](double n) { return n * n * n / 6; }},
    {"lauum", 1, [](double n) { return n * n * n / 6; }},
};

struct TileFlops {
    int64_t nb = 0;
    double flops = 0;
};

std::optional<TileFlops> tile_flops(std::string_view symbol, double size)
{
    if (symbol.substr(0, 5) != "tile_" || symbol.size() < 7) return {};
    char const precision = symbol[5];
    std::string_view const kernel = symbol.substr(6);
    double element = 0, fma = 0;  // bytes of an element, flops of a multiply-add
    switch (precision) {
    case 's':
        element = 4, fma = 2;
        break;
    case 'd':
        element = 8, fma = 2;
        break;
    case 'c':
        element = 8, fma = 8;
        break;
    case 'z':
        element = 16, fma = 8;
        break;
    default:
        return {};
    }
    for (auto const& k : kernel_counts) {
        if (k.kernel != kernel) continue;
        double const nb = std::round(std::sqrt(size / (k.tiles * element)));
        if (nb < 1 || nb * nb * k.tiles * element != size) return {};
        return TileFlops{int64_t(nb), fma * k.multiply_adds(nb)};
    }
    return {};
}

// ---- formatting ------------------------------------------------------------------------------

/// Seconds with a unit that keeps 4 significant digits readable: "12.35 ms".
std::string human_time(double s)
{
    char buf[32];
    double const a = std::abs(s);
    if (a == 0)
        std::snprintf(buf, sizeof buf, "0 s");
    else if (a < 1e-6)
        std::snprintf(buf, sizeof buf, "%.4g ns", s * 1e9);
    else if (a < 1e-3)
        std::snprintf(buf, sizeof buf, "%.4g us", s * 1e6);
    else if (a < 1)
        std::snprintf(buf, sizeof buf, "%.4g ms", s * 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.4g s", s);
    return buf;
}

std::string fit_text(detail::PowerLaw const& f, bool with_offset)
{
    char buf[128];
    if (with_offset)
        std::snprintf(buf, sizeof buf, "a = %.4g, b = %.4f, c = %s", f.a, f.b,
                      human_time(f.c).c_str());
    else
        std::snprintf(buf, sizeof buf, "a = %.4g, b = %.4f", f.a, f.b);
    return buf;
}

// ---- the commands ----------------------------------------------------------------------------

int list(fs::path const& dir)
{
    auto const symbols = tessera::tools::model_symbols(dir);
    if (symbols.empty()) {
        std::fprintf(stderr, "tessera-perfmodel: no performance model in %s\n", dir.c_str());
        return 0;
    }
    std::size_t width = 0;
    for (auto const& s : symbols) width = std::max(width, s.size());
    for (auto const& symbol : symbols) {
        std::string line;
        for (auto const& a : read_model(dir, symbol)) {
            if (!line.empty()) line += "; ";
            line += a.name + ": " + std::to_string(a.entries.size()) +
                    (a.entries.size() == 1 ? " size, " : " sizes, ") + std::to_string(a.samples) +
                    " samples";
        }
        std::printf("%-*s  %s\n", int(width), symbol.c_str(),
                    line.empty() ? "(no measurement)" : line.c_str());
    }
    return 0;
}

/// The model of `symbol`, or a message and nullopt when the directory has none.
std::optional<std::vector<ArchModel>> find_model(fs::path const& dir, std::string const& symbol)
{
    auto const symbols = tessera::tools::model_symbols(dir);
    if (std::find(symbols.begin(), symbols.end(), symbol) == symbols.end()) {
        std::fprintf(stderr,
                     "tessera-perfmodel: no performance model '%s' in %s "
                     "('tessera-perfmodel list' shows the symbols)\n",
                     symbol.c_str(), dir.c_str());
        return std::nullopt;
    }
    auto model = read_model(dir, symbol);
    if (model.empty()) {
        // the loader said why on stderr when the file does not parse
        std::fprintf(stderr, "tessera-perfmodel: the model '%s' in %s has no measurement\n",
                     symbol.c_str(), dir.c_str());
        return std::nullopt;
    }
    return model;
}

int show(fs::path const& dir, std::string const& symbol)
{
    auto model = find_model(dir, symbol);
    if (!model) return 1;
    std::printf("model %s (%s)\n", symbol.c_str(), dir.c_str());
    bool any_rate = false;
    for (auto const& a : *model) {
        std::printf("\narchitecture %s: %zu %s, %llu samples\n", a.name.c_str(), a.entries.size(),
                    a.entries.size() == 1 ? "size" : "sizes", (unsigned long long)a.samples);
        std::printf("  %-16s  %12s  %6s  %7s  %8s  %11s  %11s  %8s\n", "footprint", "size (B)",
                    "nb", "samples", "rejected", "mean", "stddev", "GFlop/s");
        for (auto const& e : a.entries) {
            auto const tf = tile_flops(symbol, e.size);
            std::string nb = "-", rate = "-";
            if (tf) {
                nb = std::to_string(tf->nb);
                if (e.mean > 0) {
                    char buf[32];
                    std::snprintf(buf, sizeof buf, "%.2f", tf->flops / e.mean / 1e9);
                    rate = buf;
                    any_rate = true;
                }
            }
            std::printf("  %016llx  %12.0f  %6s  %7llu  %8llu  %11s  %11s  %8s\n",
                        (unsigned long long)e.footprint, e.size, nb.c_str(),
                        (unsigned long long)e.count, (unsigned long long)e.rejected,
                        human_time(e.mean).c_str(), human_time(e.stddev).c_str(), rate.c_str());
        }
        if (!a.power) {
            std::printf("  regression: none (it needs 2 sizes measured %u times or more; %zu "
                        "here)\n",
                        detail::FootprintStats::min_window, a.fitted);
            continue;
        }
        std::printf("  regression t = a s^b      (%zu sizes): %s; off by %.1f%% at most\n",
                    a.fitted, fit_text(*a.power, false).c_str(),
                    100 * worst_error(*a.power, a.entries));
        if (a.offset)
            std::printf("  regression t = a s^b + c  (%zu sizes): %s; off by %.1f%% at most\n",
                        a.fitted, fit_text(*a.offset, true).c_str(),
                        100 * worst_error(*a.offset, a.entries));
    }
    std::printf("\ns: the size in bytes, t in seconds.\n");
    if (any_rate)
        std::printf("GFlop/s: LAPACK's flop count of the kernel on nb x nb tiles over the mean.\n");
    return 0;
}

// ---- the SVG chart ---------------------------------------------------------------------------

/// A power of ten of bytes as a label: "1 B", "100 kB", "10 MB".
std::string bytes_label(int decade)
{
    static constexpr char const* units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
    if (decade < 0 || decade >= 18) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "1e%d B", decade);
        return buf;
    }
    std::string label = "1";
    label.append(std::size_t(decade % 3), '0');
    return label + " " + units[decade / 3];
}

/// A power of ten of seconds as a label: "1 ns", "100 us", "10 s".
std::string seconds_label(int decade)
{
    if (decade < -9 || decade > 3) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "1e%d s", decade);
        return buf;
    }
    static constexpr char const* units[] = {"ns", "us", "ms", "s"};
    int const step = (decade + 9) / 3;  // ns, us, ms, s
    std::string label = "1";
    label.append(std::size_t((decade + 9) % 3), '0');
    if (step > 3) label.append(std::size_t(3 * (step - 3)), '0');
    return label + " " + units[std::min(step, 3)];
}

class SvgChart {
public:
    SvgChart(std::string const& symbol, std::vector<ArchModel> const& model)
        : symbol_(symbol), model_(model)
    {
        ranges();
    }

    std::string render() const
    {
        std::ostringstream o;
        o.precision(2);
        o << std::fixed;
        o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\""
          << height << "\" viewBox=\"0 0 " << width << " " << height
          << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
          << "<title>" << xml_escape(symbol_) << ": time against size</title>\n"
          << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
        axes(o);
        for (std::size_t i = 0; i < model_.size(); ++i) series(o, model_[i], colour(i));
        legend(o);
        o << "</svg>\n";
        return o.str();
    }

private:
    static constexpr int width = 900, height = 560;
    static constexpr double left = 90, right = 670, top = 50, bottom = 490;  // the plot area

    static char const* colour(std::size_t i)
    {
        static constexpr char const* palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                                  "#9467bd", "#8c564b", "#e377c2", "#17becf"};
        return palette[i % std::size(palette)];
    }

    /// Whole decades around every mean, error bar and point of a curve.
    void ranges()
    {
        double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
        auto take_y = [&](double y) {
            if (y > 0 && std::isfinite(y)) ymin = std::min(ymin, y), ymax = std::max(ymax, y);
        };
        for (auto const& a : model_) {
            for (auto const& e : a.entries) {
                if (e.size <= 0 || e.mean <= 0) continue;  // no place on a log scale
                xmin = std::min(xmin, e.size), xmax = std::max(xmax, e.size);
                take_y(e.mean);
                take_y(e.mean + e.stddev);
                take_y(e.mean - e.stddev);
            }
        }
        if (!(xmax > 0)) xmin = 1, xmax = 10;
        if (!(ymax > 0)) ymin = 1e-6, ymax = 1e-5;
        for (auto const& a : model_)
            for (auto const* f : {a.power ? &*a.power : nullptr, a.offset ? &*a.offset : nullptr})
                if (f) take_y((*f)(curve_start(a))), take_y((*f)(curve_end(a)));
        x0_ = int(std::floor(std::log10(xmin))), x1_ = int(std::ceil(std::log10(xmax)));
        y0_ = int(std::floor(std::log10(ymin))), y1_ = int(std::ceil(std::log10(ymax)));
        if (x1_ <= x0_) x1_ = x0_ + 1;
        if (y1_ <= y0_) y1_ = y0_ + 1;
    }

    /// Curves span the sizes their architecture measured.
    static double curve_start(ArchModel const& a)
    {
        for (auto const& e : a.entries)
            if (e.size > 0) return e.size;
        return 1;
    }
    static double curve_end(ArchModel const& a) { return a.entries.back().size; }

    double px(double size) const
    {
        return left + (std::log10(size) - x0_) / (x1_ - x0_) * (right - left);
    }
    double py(double seconds) const
    {
        return bottom - (std::log10(seconds) - y0_) / (y1_ - y0_) * (bottom - top);
    }

    void axes(std::ostringstream& o) const
    {
        o << "<g stroke=\"#dddddd\" stroke-width=\"1\">\n";  // the grid, at every decade
        for (int d = x0_; d <= x1_; ++d)
            o << "<line x1=\"" << px(std::pow(10.0, d)) << "\" y1=\"" << top << "\" x2=\""
              << px(std::pow(10.0, d)) << "\" y2=\"" << bottom << "\"/>\n";
        for (int d = y0_; d <= y1_; ++d)
            o << "<line x1=\"" << left << "\" y1=\"" << py(std::pow(10.0, d)) << "\" x2=\"" << right
              << "\" y2=\"" << py(std::pow(10.0, d)) << "\"/>\n";
        o << "</g>\n<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << right - left
          << "\" height=\"" << bottom - top << "\" fill=\"none\" stroke=\"black\"/>\n";
        // ticks: long with a label at each decade, short at 2..9 times it
        o << "<g stroke=\"black\">\n";
        for (int d = x0_; d <= x1_; ++d)
            for (int m = 1; m <= (d < x1_ ? 9 : 1); ++m) {
                double const x = px(m * std::pow(10.0, d));
                o << "<line x1=\"" << x << "\" y1=\"" << bottom << "\" x2=\"" << x << "\" y2=\""
                  << bottom + (m == 1 ? 6 : 3) << "\"/>\n";
            }
        for (int d = y0_; d <= y1_; ++d)
            for (int m = 1; m <= (d < y1_ ? 9 : 1); ++m) {
                double const y = py(m * std::pow(10.0, d));
                o << "<line x1=\"" << left - (m == 1 ? 6 : 3) << "\" y1=\"" << y << "\" x2=\""
                  << left << "\" y2=\"" << y << "\"/>\n";
            }
        o << "</g>\n<g fill=\"black\">\n";
        for (int d = x0_; d <= x1_; ++d)
            o << "<text x=\"" << px(std::pow(10.0, d)) << "\" y=\"" << bottom + 20
              << "\" text-anchor=\"middle\">" << bytes_label(d) << "</text>\n";
        for (int d = y0_; d <= y1_; ++d)
            o << "<text x=\"" << left - 10 << "\" y=\"" << py(std::pow(10.0, d)) + 4
              << "\" text-anchor=\"end\">" << seconds_label(d) << "</text>\n";
        o << "<text x=\"" << (left + right) / 2 << "\" y=\"" << height - 25
          << "\" text-anchor=\"middle\">size of the task's data (bytes)</text>\n"
          << "<text x=\"20\" y=\"" << (top + bottom) / 2
          << "\" text-anchor=\"middle\" transform=\"rotate(-90 20 " << (top + bottom) / 2
          << ")\">execution time</text>\n"
          << "<text x=\"" << width / 2.0 << "\" y=\"28\" text-anchor=\"middle\" font-size=\"16\" "
          << "font-weight=\"bold\">" << xml_escape(symbol_) << ": time against size</text>\n"
          << "</g>\n";
    }

    void series(std::ostringstream& o, ArchModel const& a, char const* c) const
    {
        o << "<g stroke=\"" << c << "\" fill=\"" << c << "\">\n";
        double const floor_y = std::pow(10.0, y0_);
        for (auto const& e : a.entries) {
            if (e.size <= 0 || e.mean <= 0) continue;
            double const x = px(e.size);
            if (e.stddev > 0) {  // the error bar, its lower end clipped at the axis
                double const y_hi = py(e.mean + e.stddev);
                double const y_lo = py(std::max(e.mean - e.stddev, floor_y));
                o << "<line x1=\"" << x << "\" y1=\"" << y_lo << "\" x2=\"" << x << "\" y2=\""
                  << y_hi << "\"/>\n<line x1=\"" << x - 4 << "\" y1=\"" << y_hi << "\" x2=\""
                  << x + 4 << "\" y2=\"" << y_hi << "\"/>\n<line x1=\"" << x - 4 << "\" y1=\""
                  << y_lo << "\" x2=\"" << x + 4 << "\" y2=\"" << y_lo << "\"/>\n";
            }
            o << "<circle cx=\"" << x << "\" cy=\"" << py(e.mean) << "\" r=\"3.5\"/>\n";
        }
        curve(o, a, a.power, "");
        curve(o, a, a.offset, " stroke-dasharray=\"6 4\"");
        o << "</g>\n";
    }

    void curve(std::ostringstream& o, ArchModel const& a, std::optional<detail::PowerLaw> const& f,
               char const* style) const
    {
        if (!f) return;
        double const s0 = std::log10(curve_start(a)), s1 = std::log10(curve_end(a));
        o << "<polyline fill=\"none\" stroke-width=\"1.5\"" << style << " points=\"";
        constexpr int steps = 64;
        for (int k = 0; k <= steps; ++k) {
            double const t = (*f)(std::pow(10.0, s0 + (s1 - s0) * k / steps));
            if (t > 0 && std::isfinite(t))
                o << px(std::pow(10.0, s0 + (s1 - s0) * k / steps)) << "," << py(t) << " ";
        }
        o << "\"/>\n";
    }

    void legend(std::ostringstream& o) const
    {
        double y = top + 10;
        double const x = right + 20;
        for (std::size_t i = 0; i < model_.size(); ++i, y += 20)
            o << "<circle cx=\"" << x + 10 << "\" cy=\"" << y << "\" r=\"4\" fill=\"" << colour(i)
              << "\"/>\n<text x=\"" << x + 24 << "\" y=\"" << y + 4 << "\">"
              << xml_escape(model_[i].name) << " (" << model_[i].entries.size()
              << (model_[i].entries.size() == 1 ? " size" : " sizes") << ")</text>\n";
        y += 10;
        o << "<g stroke=\"black\">\n<line x1=\"" << x + 10 << "\" y1=\"" << y - 8 << "\" x2=\""
          << x + 10 << "\" y2=\"" << y + 8 << "\"/>\n</g>\n<circle cx=\"" << x + 10 << "\" cy=\""
          << y << "\" r=\"3.5\"/>\n<text x=\"" << x + 24 << "\" y=\"" << y + 4
          << "\">mean, &#177; 1 stddev</text>\n";
        y += 20;
        o << "<line x1=\"" << x << "\" y1=\"" << y << "\" x2=\"" << x + 20 << "\" y2=\"" << y
          << "\" stroke=\"black\" stroke-width=\"1.5\"/>\n<text x=\"" << x + 24 << "\" y=\""
          << y + 4 << "\">fit t = a s^b</text>\n";
        y += 20;
        o << "<line x1=\"" << x << "\" y1=\"" << y << "\" x2=\"" << x + 20 << "\" y2=\"" << y
          << "\" stroke=\"black\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n<text x=\""
          << x + 24 << "\" y=\"" << y + 4 << "\">fit t = a s^b + c</text>\n";
    }

    std::string symbol_;
    std::vector<ArchModel> const& model_;
    int x0_ = 0, x1_ = 1, y0_ = -6, y1_ = -5;  // decades of the axes
};

int plot(fs::path const& dir, std::string const& symbol, std::string const& svg)
{
    auto model = find_model(dir, symbol);
    if (!model) return 1;
    std::string const text = SvgChart(symbol, *model).render();
    if (svg == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        return 0;
    }
    std::ofstream out(svg, std::ios::binary);
    if (!(out << text) || !out.flush()) {
        std::fprintf(stderr, "tessera-perfmodel: cannot write %s\n", svg.c_str());
        return 1;
    }
    std::fprintf(stderr, "tessera-perfmodel: wrote %s\n", svg.c_str());
    return 0;
}

/// --dir DIR, else the runtime's directory; DIR/<host> when DIR itself holds no model.
std::optional<fs::path> model_directory(std::optional<std::string> const& option)
{
    std::string dir = option ? *option : tessera::tools::default_model_directory();
    if (dir.empty()) {
        std::fprintf(stderr, "tessera-perfmodel: no performance-model directory (set "
                             "TESSERA_PERFMODEL_DIR or HOME, or pass --dir)\n");
        return std::nullopt;
    }
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        std::fprintf(stderr, "tessera-perfmodel: no performance-model directory %s\n", dir.c_str());
        return std::nullopt;
    }
    if (option && tessera::tools::model_symbols(dir).empty()) {
        char host[256] = "localhost";
        gethostname(host, sizeof host - 1);
        if (fs::path hosted = fs::path(dir) / host; fs::is_directory(hosted, ec)) return hosted;
    }
    return fs::path(dir);
}

}  // namespace

int main(int argc, char** argv)
{
    std::optional<std::string> dir, svg;
    std::vector<std::string> words;
    bool options = true;  // until "--": a symbol may start with '-'
    for (int i = 1; i < argc; ++i) {
        std::string_view const a = argv[i];
        if (!options) {
            words.emplace_back(a);
        } else if (a == "--") {
            options = false;
        } else if (a == "--help" || a == "-h") {
            std::fputs(usage_text, stdout);
            return 0;
        } else if (a == "--dir" || a == "--svg") {
            if (i + 1 == argc) return usage_error(std::string(a) + ": expected a value");
            (a == "--dir" ? dir : svg) = argv[++i];
        } else if (a.size() > 1 && a[0] == '-' && a != "-") {
            return usage_error("unknown option " + std::string(a));
        } else {
            words.emplace_back(a);
        }
    }
    if (words.empty()) return usage_error("expected a command: list, show or plot");
    std::string const& command = words[0];
    std::size_t const operands = command == "list" ? 0 : 1;
    if (command != "list" && command != "show" && command != "plot")
        return usage_error("unknown command '" + command + "'");
    if (words.size() != operands + 1)
        return usage_error(command +
                           (operands ? ": expected one SYMBOL" : ": expected no operand"));
    if (command == "plot" && !svg) return usage_error("plot: expected --svg OUT.svg");
    if (command != "plot" && svg) return usage_error("--svg: only plot writes a chart");

    auto const path = model_directory(dir);
    if (!path) return 1;
    try {
        if (command == "list") return list(*path);
        if (command == "show") return show(*path, words[1]);
        return plot(*path, words[1], *svg);
    } catch (std::exception const& e) {
        std::fprintf(stderr, "tessera-perfmodel: %s\n", e.what());
        return 1;
    }
}
