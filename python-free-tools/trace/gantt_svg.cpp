#include "trace/gantt_svg.hpp"

#include "trace/format.hpp"
#include "trace/palette.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace tessera::trace_tool {

namespace {

// The page, in px: labels on the left, the chart, then the axis and the legend below.
constexpr double page_width = 1200, chart_left = 130, chart_right = 20;
constexpr double chart_width = page_width - chart_left - chart_right;
constexpr double rows_top = 60, row_height = 20, row_gap = 6, links_gap = 12;
constexpr double legend_column = 380, legend_line = 18;
constexpr char const* idle_colour = "#e3e3e3";
constexpr char const* transfer_colour = "#6b6b6b";

std::string px(double v)
{
    char s[32];
    std::snprintf(s, sizeof s, "%.2f", v);
    return s;
}

class Chart {
public:
    Chart(std::ostream& out, trace::Trace const& t, Timeline const& tl)
        : out_(out), t_(t), tl_(tl), scale_(chart_width / double(std::max<int64_t>(tl.length, 1)))
    {}

    void write()
    {
        const double links_top = rows_top + double(t_.workers.size()) * (row_height + row_gap) +
                                 (tl_.links.empty() ? 0 : links_gap);
        const double axis_y = links_top + double(tl_.links.size()) * (row_height + row_gap);
        const double legend_top = axis_y + 44;
        const std::size_t entries = used_codelets() + 3;
        const std::size_t per_column = std::size_t(page_width / legend_column);
        const double height =
            legend_top + double((entries + per_column - 1) / per_column) * legend_line + 16;

        out_ << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << px(page_width)
             << "\" height=\"" << px(height) << "\" viewBox=\"0 0 " << px(page_width) << ' '
             << px(height) << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
        // The data waits: the codelet's colour shows through white stripes.
        out_ << "<defs><pattern id=\"hatch\" patternUnits=\"userSpaceOnUse\" width=\"6\" "
                "height=\"6\" patternTransform=\"rotate(45)\"><rect width=\"3\" height=\"6\" "
                "fill=\"#ffffff\" fill-opacity=\"0.75\"/></pattern></defs>\n";
        out_ << "<rect class=\"background\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
        title();
        grid(axis_y);
        for (std::size_t w = 0; w < t_.workers.size(); ++w)
            worker_row(w, rows_top + double(w) * (row_height + row_gap));
        for (std::size_t l = 0; l < tl_.links.size(); ++l)
            link_row(l, links_top + double(l) * (row_height + row_gap));
        legend(legend_top, per_column);
        out_ << "</svg>\n";
    }

private:
    double x(int64_t ns) const { return chart_left + double(ns) * scale_; }

    /// A rectangle from `begin` to `end` with a tooltip; at least half a pixel wide, so that
    /// short tasks still show.
    void rect(char const* cls, int64_t begin, int64_t end, double y, std::string const& fill,
              std::string const& tooltip, std::string const& extra = "")
    {
        const double width = std::max(0.5, double(end - begin) * scale_);
        out_ << "<rect class=\"" << cls << "\"" << extra << " x=\"" << px(x(begin)) << "\" y=\""
             << px(y) << "\" width=\"" << px(width) << "\" height=\"" << px(row_height)
             << "\" fill=\"" << fill << "\"><title>" << xml_text(tooltip) << "</title></rect>\n";
    }

    void label(double y, std::string const& text)
    {
        out_ << "<text class=\"row-label\" x=\"" << px(chart_left - 8) << "\" y=\""
             << px(y + row_height * 0.7) << "\" text-anchor=\"end\">" << xml_text(text)
             << "</text>\n";
        out_ << "<rect class=\"row-background\" x=\"" << px(chart_left) << "\" y=\"" << px(y)
             << "\" width=\"" << px(chart_width) << "\" height=\"" << px(row_height)
             << "\" fill=\"#fafafa\" stroke=\"#dddddd\"/>\n";
    }

    void title()
    {
        std::string head = "Tessera trace";
        if (auto s = t_.meta_value("scheduler"); !s.empty()) head += ", scheduler " + s;
        if (auto h = t_.meta_value("host"); !h.empty()) head += ", on " + h;
        std::string sub;
        if (auto d = t_.meta_value("date"); !d.empty()) sub = d + " - ";
        sub += "total time " + ms(tl_.length) + " ms, " + std::to_string(t_.tasks.size()) +
               " tasks on " + std::to_string(t_.workers.size()) + " workers";
        out_ << "<text class=\"title\" x=\"20\" y=\"24\" font-size=\"16\" font-weight=\"bold\">"
             << xml_text(head) << "</text>\n"
             << "<text class=\"subtitle\" x=\"20\" y=\"44\">" << xml_text(sub) << "</text>\n";
    }

    /// The time axis under the rows, with ticks every 1, 2 or 5 x 10^k ms (about ten), and
    /// their lines across the rows.
    void grid(double axis_y)
    {
        const double length_ms = double(std::max<int64_t>(tl_.length, 1)) / 1e6;
        const double raw = length_ms / 10, magnitude = std::pow(10.0, std::floor(std::log10(raw)));
        double step = 10 * magnitude;
        for (double m : {1.0, 2.0, 5.0})
            if (m * magnitude >= raw) {
                step = m * magnitude;
                break;
            }
        const int digits = std::max(0, -int(std::floor(std::log10(step) + 1e-9)));
        out_ << "<g class=\"axis\">\n<line x1=\"" << px(chart_left) << "\" y1=\"" << px(axis_y)
             << "\" x2=\"" << px(chart_left + chart_width) << "\" y2=\"" << px(axis_y)
             << "\" stroke=\"#333333\"/>\n";
        for (int i = 0; double(i) * step <= length_ms * (1 + 1e-9); ++i) {
            const double at = chart_left + double(i) * step * 1e6 * scale_;
            char text[32];
            std::snprintf(text, sizeof text, "%.*f", digits, double(i) * step);
            out_ << "<line x1=\"" << px(at) << "\" y1=\"" << px(rows_top - 4) << "\" x2=\""
                 << px(at) << "\" y2=\"" << px(axis_y + 5) << "\" stroke=\"#cccccc\"/>\n"
                 << "<text x=\"" << px(at) << "\" y=\"" << px(axis_y + 18)
                 << "\" text-anchor=\"middle\">" << text << "</text>\n";
        }
        out_ << "<text x=\"" << px(chart_left + chart_width) << "\" y=\"" << px(axis_y + 34)
             << "\" text-anchor=\"end\">time (ms)</text>\n</g>\n";
    }

    void worker_row(std::size_t w, double y)
    {
        trace::WorkerRecord const& worker = t_.workers[w];
        out_ << "<g class=\"worker-row\" data-worker=\"" << w << "\">\n";
        label(y, worker.name);
        for (trace::IdleRecord const& i : t_.idles)
            if (i.worker == w)
                rect("idle", i.start, i.end, y, idle_colour,
                     worker.name + ": asleep " + ms(i.end - i.start) + " ms (" + ms(i.start) +
                         " to " + ms(i.end) + ")");
        // the waits first, the runs over them: a GPU's queued task waits while others run
        for (std::size_t i : tl_.tasks[w]) {
            trace::TaskRecord const& r = t_.tasks[i];
            if (r.start <= r.begin) continue;
            const std::string wait = t_.codelets[r.codelet] + " #" + std::to_string(r.seq) +
                                     ": waiting for data " + ms(r.start - r.begin) + " ms";
            const std::string seq = " data-seq=\"" + std::to_string(r.seq) + "\"";
            rect("fetch", r.begin, r.start, y, codelet_colour(r.codelet), wait,
                 seq + " fill-opacity=\"0.45\"");
            rect("fetch-hatch", r.begin, r.start, y, "url(#hatch)", wait);
        }
        for (std::size_t i : tl_.tasks[w]) {
            trace::TaskRecord const& r = t_.tasks[i];
            std::string const& name = t_.codelets[r.codelet];
            const std::string colour = codelet_colour(r.codelet);
            const std::string seq = " data-seq=\"" + std::to_string(r.seq) + "\"";
            std::string tip = name + " #" + std::to_string(r.seq) + ", tile " + r.tile;
            if (r.call != 0) tip += ", call " + t_.calls[r.call];
            tip += "\n" + worker.name + "\nsubmit " + ms(r.submit) + ", ready " + ms(r.ready) +
                   ", begin " + ms(r.begin) + ", start " + ms(r.start) + ", end " + ms(r.end) +
                   " ms\nran " + ms(r.end - r.start) + " ms after " + ms(r.start - r.begin) +
                   " ms waiting for data; " + std::to_string(r.bytes) + " bytes";
            if (r.status != trace::TaskStatus::ok)
                tip += r.status == trace::TaskStatus::failed ? "; FAILED" : "; cancelled";
            rect("task", r.start, r.end, y, colour, tip, seq);
        }
        out_ << "</g>\n";
    }

    void link_row(std::size_t l, double y)
    {
        Link const& link = tl_.links[l];
        const std::string name = t_.nodes[link.src].name + " -> " + t_.nodes[link.dst].name;
        out_ << "<g class=\"link-row\" data-link=\"" << link.src << '-' << link.dst << "\">\n";
        label(y, name);
        for (std::size_t i : link.transfers) {
            trace::TransferRecord const& x = t_.transfers[i];
            char rate[64] = "";
            if (x.end > x.start)
                std::snprintf(rate, sizeof rate, " (%.2f MB/s)",
                              double(x.bytes) * 1e3 / double(x.end - x.start));
            rect("transfer", x.start, x.end, y, transfer_colour,
                 name + ": " + std::to_string(x.bytes) + " bytes in " + ms(x.end - x.start) +
                     " ms" + rate + ", from " + ms(x.start) + " ms",
                 " fill-opacity=\"0.7\"");
        }
        out_ << "</g>\n";
    }

    std::size_t used_codelets() const
    {
        std::size_t n = 0;
        for (std::size_t c = 0; c < t_.codelets.size(); ++c) n += count(c) > 0;
        return n;
    }
    std::size_t count(std::size_t codelet) const
    {
        return std::size_t(std::count_if(t_.tasks.begin(), t_.tasks.end(),
                                         [&](auto const& r) { return r.codelet == codelet; }));
    }

    void legend(double top, std::size_t per_column)
    {
        std::size_t at = 0;
        auto entry = [&](std::string const& fill, std::string const& text, char const* extra) {
            const double ex = 20 + double(at % per_column) * legend_column;
            const double ey = top + double(at / per_column) * legend_line;
            out_ << "<rect x=\"" << px(ex) << "\" y=\"" << px(ey) << "\" width=\"12\" "
                 << "height=\"12\" fill=\"" << fill << "\"" << extra << "/>"
                 << "<text x=\"" << px(ex + 18) << "\" y=\"" << px(ey + 10) << "\">"
                 << xml_text(text) << "</text>\n";
            ++at;
        };
        out_ << "<g class=\"legend\">\n";
        for (std::size_t c = 0; c < t_.codelets.size(); ++c) {
            const std::size_t n = count(c);
            if (n == 0) continue;
            int64_t sum = 0, ran = 0;
            for (trace::TaskRecord const& r : t_.tasks)
                if (r.codelet == c && r.status != trace::TaskStatus::cancelled) {
                    sum += r.end - r.start;
                    ++ran;
                }
            entry(codelet_colour(c),
                  t_.codelets[c] + ": " + std::to_string(n) + " tasks, mean " +
                      (ran ? ms(sum / ran) : std::string("-")) + " ms",
                  "");
        }
        entry("#999999", "waiting for data (hatched, before its task)", " fill-opacity=\"0.45\"");
        entry(idle_colour, "asleep (idle)", " stroke=\"#bbbbbb\"");
        entry(transfer_colour, "transfer", " fill-opacity=\"0.7\"");
        out_ << "</g>\n";
    }

    std::ostream& out_;
    trace::Trace const& t_;
    Timeline const& tl_;
    double scale_;  // px per ns
};

}  // namespace

void write_gantt_svg(std::ostream& out, trace::Trace const& t, Timeline const& tl)
{
    Chart(out, t, tl).write();
}

}  // namespace tessera::trace_tool
