#include "trace/paje.hpp"

#include "trace/format.hpp"
#include "trace/palette.hpp"

#include <algorithm>
#include <ostream>
#include <string>

namespace tessera::trace_tool {

namespace {

// The event definitions (Paje file format, §"Event definitions"): each event line starts with
// its number, then its fields in the order declared here.
constexpr char const* header = R"(%EventDef PajeDefineContainerType 0
%	Alias string
%	Type string
%	Name string
%EndEventDef
%EventDef PajeDefineStateType 1
%	Alias string
%	Type string
%	Name string
%EndEventDef
%EventDef PajeDefineLinkType 2
%	Alias string
%	Type string
%	StartContainerType string
%	EndContainerType string
%	Name string
%EndEventDef
%EventDef PajeDefineEntityValue 3
%	Alias string
%	Type string
%	Name string
%	Color color
%EndEventDef
%EventDef PajeCreateContainer 4
%	Time date
%	Alias string
%	Type string
%	Container string
%	Name string
%EndEventDef
%EventDef PajeDestroyContainer 5
%	Time date
%	Type string
%	Name string
%EndEventDef
%EventDef PajeSetState 6
%	Time date
%	Type string
%	Container string
%	Value string
%EndEventDef
%EventDef PajeStartLink 7
%	Time date
%	Type string
%	Container string
%	StartContainer string
%	Value string
%	Key string
%	Size string
%EndEventDef
%EventDef PajeEndLink 8
%	Time date
%	Type string
%	Container string
%	EndContainer string
%	Value string
%	Key string
%	Size string
%EndEventDef
)";

enum Event {
    define_container_type = 0,
    define_state_type,
    define_link_type,
    define_entity_value,
    create_container,
    destroy_container,
    set_state,
    start_link,
    end_link
};

/// A string field: Paje splits on blanks outside double quotes and has no escapes, so names
/// are quoted and their own quotes become single ones.
std::string quoted(std::string s)
{
    std::replace(s.begin(), s.end(), '"', '\'');
    std::replace(s.begin(), s.end(), '\n', ' ');
    return "\"" + s + "\"";
}

std::string seconds(int64_t ns)
{
    return decimal(ns, 9);
}

/// A timed event; Paje wants them in time order, and at one time in the order made.
struct Timed {
    int64_t time;
    std::string line;
};

/// A worker's state changes: its intervals (tasks, data waits, sleeps) in time order, with
/// "Overhead" in the holes between them.
void worker_states(std::vector<Timed>& events, trace::Trace const& t, Timeline const& tl,
                   std::size_t w)
{
    struct State {
        int64_t begin, end;
        std::string value;
    };
    std::vector<State> states;
    for (std::size_t i : tl.tasks[w]) {
        trace::TaskRecord const& r = t.tasks[i];
        states.push_back({r.begin, r.start, "fetch"});
        states.push_back({r.start, r.end, "c" + std::to_string(r.codelet)});
    }
    for (trace::IdleRecord const& i : t.idles)
        if (i.worker == w) states.push_back({i.start, i.end, "idle"});
    std::stable_sort(states.begin(), states.end(),
                     [](State const& a, State const& b) { return a.begin < b.begin; });

    const std::string container = quoted("w" + std::to_string(w));
    std::string current;
    auto set = [&](int64_t time, std::string const& value) {
        if (value == current) return;  // touching intervals of one kind (a sleep split in two)
        current = value;
        events.push_back({time, std::to_string(set_state) + ' ' + seconds(time) + " S " +
                                    container + ' ' + value});
    };
    int64_t until = 0;  // the end of the last state set
    set(0, "overhead");
    for (State const& s : states) {
        if (s.end <= s.begin) continue;  // nothing to see (no data wait, a cancelled task)
        if (s.begin > until) set(until, "overhead");
        set(std::max(s.begin, until), s.value);
        until = std::max(until, s.end);
    }
    if (tl.length > until) set(until, "overhead");
}

}  // namespace

void write_paje(std::ostream& out, trace::Trace const& t, Timeline const& tl)
{
    out << header;
    // Types: the program holds workers and memory nodes; links join two memory nodes.
    out << define_container_type << " PROG 0 \"Program\"\n"
        << define_container_type << " W PROG \"Worker\"\n"
        << define_container_type << " MN PROG \"Memory node\"\n"
        << define_state_type << " S W \"Worker state\"\n"
        << define_link_type << " L PROG MN MN \"Transfer\"\n";
    for (std::size_t c = 0; c < t.codelets.size(); ++c)
        out << define_entity_value << " c" << c << " S " << quoted(t.codelets[c]) << ' '
            << quoted(paje_colour(codelet_colour(c))) << '\n';
    out << define_entity_value << " fetch S \"Fetching\" \"1.000 1.000 0.600\"\n"
        << define_entity_value << " idle S \"Idle\" \"0.900 0.900 0.900\"\n"
        << define_entity_value << " overhead S \"Overhead\" \"0.600 0.600 0.600\"\n"
        << define_entity_value << " x L \"Transfer\" \"0.300 0.300 0.300\"\n";

    const std::string zero = seconds(0);
    const std::string host = t.meta_value("host");
    out << create_container << ' ' << zero << " prog PROG 0 "
        << quoted(host.empty() ? "program" : "program on " + host) << '\n';
    for (trace::WorkerRecord const& w : t.workers)
        out << create_container << ' ' << zero << ' ' << quoted("w" + std::to_string(w.id))
            << " W prog " << quoted(w.name) << '\n';
    for (trace::NodeRecord const& n : t.nodes)
        out << create_container << ' ' << zero << ' ' << quoted("n" + std::to_string(n.id))
            << " MN prog " << quoted(n.name) << '\n';

    std::vector<Timed> events;
    for (std::size_t w = 0; w < t.workers.size(); ++w) worker_states(events, t, tl, w);
    for (std::size_t i = 0; i < t.transfers.size(); ++i) {
        trace::TransferRecord const& x = t.transfers[i];
        const std::string tail =
            " x " + quoted("t" + std::to_string(i)) + ' ' + quoted(std::to_string(x.bytes));
        // (the containers exist from 0 on)
        const int64_t start = std::max<int64_t>(x.start, 0), end = std::max<int64_t>(x.end, 0);
        events.push_back({start, std::to_string(start_link) + ' ' + seconds(start) + " L prog " +
                                     quoted("n" + std::to_string(x.src)) + tail});
        events.push_back({end, std::to_string(end_link) + ' ' + seconds(end) + " L prog " +
                                   quoted("n" + std::to_string(x.dst)) + tail});
    }
    std::stable_sort(events.begin(), events.end(),
                     [](Timed const& a, Timed const& b) { return a.time < b.time; });
    for (Timed const& e : events) out << e.line << '\n';

    const std::string last = seconds(tl.length);
    for (trace::WorkerRecord const& w : t.workers)
        out << destroy_container << ' ' << last << " W " << quoted("w" + std::to_string(w.id))
            << '\n';
    for (trace::NodeRecord const& n : t.nodes)
        out << destroy_container << ' ' << last << " MN " << quoted("n" + std::to_string(n.id))
            << '\n';
    out << destroy_container << ' ' << last << " PROG prog\n";
}

}  // namespace tessera::trace_tool
