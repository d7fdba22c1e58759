// tessera-trace: turns a run's trace (written by the runtime under TESSERA_TRACE=path; the
// format is in runtime/trace/trace_file.hpp) into pictures and statistics, like StarPU's
// starpu_fxt_tool with ViTE, or Perfetto:
//   --perfetto OUT.json  Chrome trace-event JSON for ui.perfetto.dev (trace/perfetto.hpp)
//   --paje OUT.trace     a Paje trace for ViTE (trace/paje.hpp)
//   --gantt OUT.svg      an SVG Gantt chart for a browser (trace/gantt_svg.hpp)
//   --dot OUT.dot        the task graph for Graphviz (trace/task_graph_dot.hpp)
//   --summary            the run in numbers on stdout: where the workers' time went and why
//                        they were idle (trace/summary.hpp, trace/idle_causes.hpp)
// Several outputs at once; none asked: --summary. OUT "-" is stdout.
//
// Usage: tessera-trace TRACE [--perfetto OUT.json] [--paje OUT.trace] [--gantt OUT.svg]
//                            [--dot OUT.dot] [--summary] [--help]
// Exit status: 0; 1 when the trace cannot be read (the message names the byte offset of the
// first bad line) or an output cannot be written; 2 on a usage error.
#include "runtime/trace/trace_file.hpp"
#include "trace/gantt_svg.hpp"
#include "trace/paje.hpp"
#include "trace/perfetto.hpp"
#include "trace/summary.hpp"
#include "trace/task_graph_dot.hpp"
#include "trace/timeline.hpp"

#include <cstdio>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

namespace tt = tessera::trace_tool;
namespace trace = tessera::rt::trace;

namespace {

constexpr char const* usage =
    "usage: tessera-trace TRACE [--perfetto OUT.json] [--paje OUT.trace] [--gantt OUT.svg]\n"
    "                           [--dot OUT.dot] [--summary] [--help]\n"
    "turns a trace (TESSERA_TRACE=path) into pictures and statistics:\n"
    "  --perfetto OUT.json  Chrome trace-event JSON, for ui.perfetto.dev\n"
    "  --paje OUT.trace     a Paje trace, for ViTE\n"
    "  --gantt OUT.svg      an SVG Gantt chart, for a browser\n"
    "  --dot OUT.dot        the task graph, for Graphviz (dot -Tsvg OUT.dot)\n"
    "  --summary            statistics on stdout (the default when no output is asked)\n"
    "OUT '-' is stdout.\n";

using Writer = std::function<void(std::ostream&, trace::Trace const&, tt::Timeline const&)>;

struct Output {
    std::string path;
    Writer write;
};

int usage_error(std::string const& what)
{
    std::fprintf(stderr, "tessera-trace: %s\n%s", what.c_str(), usage);
    return 2;
}

/// Writes one output; false (with a message) when its file cannot be written.
bool write(Output const& o, trace::Trace const& t, tt::Timeline const& tl)
{
    if (o.path == "-") {
        o.write(std::cout, t, tl);
        std::cout.flush();
        return bool(std::cout);
    }
    std::ofstream file(o.path, std::ios::binary);
    if (file) o.write(file, t, tl);
    file.close();
    if (!file) std::fprintf(stderr, "tessera-trace: cannot write '%s'\n", o.path.c_str());
    return bool(file);
}

}  // namespace

int main(int argc, char** argv)
{
    std::string trace_path;
    std::vector<Output> outputs;
    bool summary = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        Writer writer;
        if (a == "--help" || a == "-h") {
            std::fputs(usage, stdout);
            return 0;
        } else if (a == "--summary") {
            summary = true;
            continue;
        } else if (a == "--perfetto") {
            writer = tt::write_perfetto;
        } else if (a == "--paje") {
            writer = tt::write_paje;
        } else if (a == "--gantt") {
            writer = tt::write_gantt_svg;
        } else if (a == "--dot") {
            writer = [](std::ostream& out, trace::Trace const& t, tt::Timeline const&) {
                tt::write_task_graph_dot(out, t);
            };
        } else if (a.size() > 1 && a[0] == '-') {
            return usage_error("unknown option '" + std::string(a) + "'");
        } else if (trace_path.empty()) {
            trace_path = a;
            continue;
        } else {
            return usage_error("one trace at a time ('" + trace_path + "' and '" + std::string(a) +
                               "')");
        }
        // "--gantt --summary" is a forgotten file name, not a file called "--summary"
        const std::string_view value = i + 1 < argc ? argv[i + 1] : "";
        if (value.empty() || (value[0] == '-' && value != "-"))
            return usage_error(std::string(a) + ": expected an output file");
        outputs.push_back({argv[++i], writer});
    }
    if (trace_path.empty()) return usage_error("no trace given");

    trace::Trace t;
    try {
        t = trace::read_file(trace_path);
        trace::rebase(t);  // from start_trace, not from the runtime's start
    } catch (std::exception const& e) {
        // TraceFormatError's message names the byte offset; InvalidArgument the path.
        std::fprintf(stderr, "tessera-trace: %s: %s\n", trace_path.c_str(), e.what());
        return 1;
    }
    const tt::Timeline tl = tt::make_timeline(t);
    if (summary || outputs.empty())
        outputs.push_back(
            {"-", [&](std::ostream& out, trace::Trace const& tr, tt::Timeline const& l) {
                 tt::write_summary(out, tr, l, trace_path);
             }});
    bool ok = true;
    try {
        for (Output const& o : outputs) ok = write(o, t, tl) && ok;
    } catch (std::exception const& e) {  // out of memory on a huge trace, say: a message
        std::fprintf(stderr, "tessera-trace: %s\n", e.what());
        return 1;
    }
    return ok ? 0 : 1;
}
