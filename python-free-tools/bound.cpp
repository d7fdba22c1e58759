// tessera-bound: how far a traced run is from the best possible (thesis §6.3). Reads a trace
// (TESSERA_TRACE=FILE, Runtime::start_trace) and prints the run's time against two bounds no
// schedule of its tasks can beat:
//  - the area bound: the work split between the kinds of workers as well as a linear program
//    can (GLPK), dependencies forgotten: Σ_t n_tc d_tc <= m_c T, Σ_c n_tc = n_t;
//  - the critical path: the longest chain of dependent tasks, each at its fastest length.
// Task types are the codelets at each size, timed as they ran in the trace. With --json, one
// JSON object instead of the table.
//
// Usage: tessera-bound TRACE [--json] [--help]
#include "python-free-tools/common/json_text.hpp"
#include "runtime/trace/trace_bounds.hpp"
#include "runtime/trace/trace_file.hpp"

#include <tessera/error.hpp>

#include <cstdio>
#include <string>
#include <string_view>

namespace rt = tessera::rt;
namespace trace = tessera::rt::trace;

namespace {

constexpr char const* usage = "usage: tessera-bound TRACE [--json] [--help]\n";

void print_table(std::string const& path, trace::Trace const& t, rt::TraceBounds const& b)
{
    std::printf("trace %s: %zu tasks on", path.c_str(), t.tasks.size());
    for (rt::WorkerClass const& c : b.classes) std::printf(" %d %s", c.workers, c.name.c_str());
    std::printf(" workers (scheduler %s)\n\n", t.meta_value("scheduler").c_str());
    auto line = [&](char const* what, double s, char const* why) {
        std::printf("  %-22s %12.6f s   run/bound %6.3f   %s\n", what, s,
                    s > 0 ? b.makespan / s : 0.0, why);
    };
    std::printf("  %-22s %12.6f s\n", "run", b.makespan);
    line("area bound", b.area.seconds, "the work shared perfectly, dependencies forgotten");
    line("critical-path bound", b.critical_path.seconds,
         "the longest chain, each task at its fastest");
    std::printf("\n  the run takes %.3fx the larger bound; the critical path has %zu tasks\n\n",
                b.seconds() > 0 ? b.makespan / b.seconds() : 0.0, b.critical_path.tasks.size());

    std::printf("  area bound's split: tasks of each type per class (mean length in ms)\n");
    std::printf("  %-28s %8s", "type", "tasks");
    for (rt::WorkerClass const& c : b.classes) std::printf("  %10s %9s", c.name.c_str(), "ms");
    std::printf("\n");
    for (std::size_t k = 0; k < b.types.size(); ++k) {
        rt::TaskType const& type = b.types[k];
        std::printf("  %-28s %8llu", type.name.c_str(), (unsigned long long)type.count);
        for (std::size_t c = 0; c < b.classes.size(); ++c) {
            auto it = type.seconds.find(b.classes[c].name);
            if (it == type.seconds.end())
                std::printf("  %10s %9s", "-", "-");
            else
                std::printf("  %10.1f %9.3f", b.area.tasks[k][c], it->second * 1e3);
        }
        std::printf("\n");
    }
}

void print_json(std::string const& path, rt::TraceBounds const& b)
{
    std::printf("{\"trace\": %s, \"run_seconds\": %.9g, \"area_bound_seconds\": %.9g, "
                "\"critical_path_seconds\": %.9g, \"critical_path_tasks\": %zu, "
                "\"run_over_bound\": %.9g}\n",
                tessera::tools::json_string(path).c_str(), b.makespan, b.area.seconds,
                b.critical_path.seconds, b.critical_path.tasks.size(),
                b.seconds() > 0 ? b.makespan / b.seconds() : 0.0);
}

}  // namespace

int main(int argc, char** argv)
{
    std::string path;
    bool json = false;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--help" || a == "-h") {
            std::fputs(usage, stdout);
            return 0;
        }
        if (a == "--json") {
            json = true;
        } else if (!a.starts_with("--") && path.empty()) {
            path = a;
        } else {
            std::fprintf(stderr, "tessera-bound: unexpected argument '%s'\n%s", argv[i], usage);
            return 2;
        }
    }
    if (path.empty()) {
        std::fprintf(stderr, "tessera-bound: no trace given\n%s", usage);
        return 2;
    }
    try {
        const trace::Trace t = trace::read_file(path);
        const rt::TraceBounds b = trace::bounds_of(t);
        if (json)
            print_json(path, b);
        else
            print_table(path, t, b);
    } catch (std::exception const& e) {
        std::fprintf(stderr, "tessera-bound: %s\n", e.what());
        return 1;
    }
    return 0;
}
