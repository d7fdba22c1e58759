#include "runtime/trace/trace_file.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <istream>
#include <ostream>
#include <string_view>
#include <unordered_set>

namespace tessera::rt::trace {

namespace {

constexpr std::string_view magic = "#tessera-trace";

/// One line split at tabs, with the byte offset it starts at for messages.
class Line {
public:
    Line(std::string_view text, uint64_t offset) : offset_(offset)
    {
        std::size_t from = 0;
        while (true) {
            std::size_t tab = text.find('\t', from);
            fields_.push_back(text.substr(from, tab - from));
            if (tab == std::string_view::npos) break;
            from = tab + 1;
        }
    }
    std::string_view kind() const { return fields_[0]; }
    [[noreturn]] void fail(std::string const& what) const
    {
        throw TraceFormatError(offset_, "'" + std::string(kind()) + "' record: " + what);
    }
    void expect_fields(std::size_t n) const
    {
        if (fields_.size() != n + 1)
            fail("expected " + std::to_string(n) + " fields, found " +
                 std::to_string(fields_.size() - 1));
    }
    std::string text(std::size_t i) const { return std::string(fields_[i]); }
    template <class Int> Int integer(std::size_t i, char const* name) const
    {
        Int v{};
        std::string_view f = fields_[i];
        auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
        if (ec != std::errc{} || p != f.data() + f.size() || f.empty())
            fail(std::string(name) + ": not an integer: '" + std::string(f) + "'");
        return v;
    }
    uint64_t hex(std::size_t i, char const* name) const
    {
        uint64_t v = 0;
        std::string_view f = fields_[i];
        auto [p, ec] = std::from_chars(f.data(), f.data() + f.size(), v, 16);
        if (ec != std::errc{} || p != f.data() + f.size() || f.empty())
            fail(std::string(name) + ": not a hexadecimal number: '" + std::string(f) + "'");
        return v;
    }

private:
    uint64_t offset_;
    std::vector<std::string_view> fields_;
};

TaskStatus status_of(Line const& l, std::string_view s)
{
    if (s == "ok") return TaskStatus::ok;
    if (s == "failed") return TaskStatus::failed;
    if (s == "cancelled") return TaskStatus::cancelled;
    l.fail("unknown status '" + std::string(s) + "'");
}

char const* status_name(TaskStatus s)
{
    switch (s) {
    case TaskStatus::ok:
        return "ok";
    case TaskStatus::failed:
        return "failed";
    case TaskStatus::cancelled:
        return "cancelled";
    }
    return "?";
}

DependencyKind dependency_kind_of(Line const& l, std::string_view s)
{
    for (DependencyKind k : {DependencyKind::read_after_write, DependencyKind::write_after_read,
                             DependencyKind::write_after_write, DependencyKind::explicit_task})
        if (s == kind_name(k)) return k;
    l.fail("unknown dependency kind '" + std::string(s) + "'");
}

/// Tabs and newlines would break the line format: names keep them as spaces.
std::string field(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        if (c == '\t' || c == '\n' || c == '\r') c = ' ';
    return out.empty() ? "-" : out;
}

/// Each record's parser checks that the ids it refers to were defined before.
class Parser {
public:
    void line(Line const& l)
    {
        if (ended_) l.fail("a record after the 'end' record");
        const std::string_view k = l.kind();
        if (k == "meta") {
            l.expect_fields(2);
            t_.meta.emplace_back(l.text(1), l.text(2));
        } else if (k == "node") {
            l.expect_fields(3);
            NodeRecord n{l.integer<uint32_t>(1, "id"), l.text(2), l.text(3)};
            if (n.id != t_.nodes.size()) l.fail("node ids must count up from 0");
            t_.nodes.push_back(std::move(n));
        } else if (k == "worker") {
            l.expect_fields(4);
            WorkerRecord w{l.integer<uint32_t>(1, "id"), l.text(2), l.integer<uint32_t>(3, "node"),
                           l.text(4)};
            if (w.id != t_.workers.size()) l.fail("worker ids must count up from 0");
            if (w.node >= t_.nodes.size()) l.fail("unknown node " + std::to_string(w.node));
            t_.workers.push_back(std::move(w));
        } else if (k == "codelet" || k == "call") {
            l.expect_fields(2);
            auto& names = k == "codelet" ? t_.codelets : t_.calls;
            if (l.integer<uint32_t>(1, "id") != names.size()) l.fail("ids must count up from 0");
            names.push_back(l.text(2));
        } else if (k == "task") {
            task(l);
        } else if (k == "edge") {
            l.expect_fields(3);
            t_.edges.push_back({l.integer<uint64_t>(1, "from"), l.integer<uint64_t>(2, "to"),
                                dependency_kind_of(l, l.text(3))});
        } else if (k == "transfer") {
            l.expect_fields(5);
            TransferRecord x{l.integer<uint32_t>(1, "src"), l.integer<uint32_t>(2, "dst"),
                             l.integer<uint64_t>(3, "bytes"), l.integer<int64_t>(4, "start"),
                             l.integer<int64_t>(5, "end")};
            if (x.src >= t_.nodes.size() || x.dst >= t_.nodes.size()) l.fail("unknown memory node");
            if (x.end < x.start) l.fail("ends before it starts");
            t_.transfers.push_back(x);
        } else if (k == "idle") {
            l.expect_fields(3);
            IdleRecord i{l.integer<uint32_t>(1, "worker"), l.integer<int64_t>(2, "start"),
                         l.integer<int64_t>(3, "end")};
            if (i.worker >= t_.workers.size()) l.fail("unknown worker " + std::to_string(i.worker));
            if (i.end < i.start) l.fail("ends before it starts");
            t_.idles.push_back(i);
        } else if (k == "end") {
            l.expect_fields(1);
            t_.end = l.integer<int64_t>(1, "ns");
            ended_ = true;
        } else {
            l.fail("unknown record");
        }
    }

    Trace finish(uint64_t offset)
    {
        if (!ended_)
            throw TraceFormatError(offset, "the trace ends without its 'end' record: it was cut "
                                           "short (the run did not stop its trace)");
        if (t_.calls.empty()) t_.calls.push_back("-");
        return std::move(t_);
    }

private:
    void task(Line const& l)
    {
        l.expect_fields(13);
        TaskRecord r;
        r.seq = l.integer<uint64_t>(1, "seq");
        r.codelet = l.integer<uint32_t>(2, "codelet");
        r.worker = l.integer<uint32_t>(3, "worker");
        r.call = l.integer<uint32_t>(4, "call");
        r.submit = l.integer<int64_t>(5, "submit");
        r.ready = l.integer<int64_t>(6, "ready");
        r.begin = l.integer<int64_t>(7, "begin");
        r.start = l.integer<int64_t>(8, "start");
        r.end = l.integer<int64_t>(9, "end");
        r.bytes = l.integer<uint64_t>(10, "bytes");
        r.footprint = l.hex(11, "footprint");
        r.status = status_of(l, l.text(12));
        r.tile = l.text(13);
        if (r.codelet >= t_.codelets.size()) l.fail("unknown codelet " + std::to_string(r.codelet));
        if (r.worker >= t_.workers.size()) l.fail("unknown worker " + std::to_string(r.worker));
        if (r.call >= t_.calls.size() && !(r.call == 0 && t_.calls.empty()))
            l.fail("unknown call " + std::to_string(r.call));
        if (!seqs_.insert(r.seq).second) l.fail("task " + std::to_string(r.seq) + " twice");
        if (!(r.submit <= r.ready && r.ready <= r.begin && r.begin <= r.start && r.start <= r.end))
            l.fail("times out of order (submit <= ready <= begin <= start <= end)");
        t_.tasks.push_back(std::move(r));
    }

    Trace t_;
    std::unordered_set<uint64_t> seqs_;
    bool ended_ = false;
};

}  // namespace

std::string Trace::meta_value(std::string const& key) const
{
    for (auto const& [k, v] : meta)
        if (k == key) return v;
    return {};
}

TraceFormatError::TraceFormatError(uint64_t offset, std::string const& what)
    : Error("trace: byte " + std::to_string(offset) + ": " + what), offset_(offset)
{}

char const* kind_name(DependencyKind k) noexcept
{
    switch (k) {
    case DependencyKind::read_after_write:
        return "raw";
    case DependencyKind::write_after_read:
        return "war";
    case DependencyKind::write_after_write:
        return "waw";
    case DependencyKind::explicit_task:
        return "explicit";
    }
    return "?";
}

Trace read(std::istream& in)
{
    Parser parser;
    std::string text;
    uint64_t offset = 0;
    if (!std::getline(in, text) || text.rfind(magic, 0) != 0)
        throw TraceFormatError(0, "not a Tessera trace (its first line is not '#tessera-trace N')");
    const std::string version = text.substr(magic.size());
    if (version != " " + std::to_string(format_version))
        throw TraceFormatError(0, "format version '" + version.substr(1) +
                                      "' is not the one this tool reads (" +
                                      std::to_string(format_version) + ")");
    offset += text.size() + 1;
    while (std::getline(in, text)) {
        if (in.eof()) {  // a last line without its newline: the file was cut mid-line
            throw TraceFormatError(offset, "the last line has no newline: the file was cut short");
        }
        if (!text.empty()) parser.line(Line(text, offset));
        offset += text.size() + 1;
    }
    return parser.finish(offset);
}

void rebase(Trace& t)
{
    int64_t origin = 0;
    for (auto& [k, v] : t.meta)
        if (k == "start_ns") {
            std::from_chars(v.data(), v.data() + v.size(), origin);
            v = "0";
        }
    if (origin <= 0) return;
    auto shift = [origin](int64_t& x) { x = std::max<int64_t>(x - origin, 0); };
    for (TaskRecord& r : t.tasks)
        for (int64_t* x : {&r.submit, &r.ready, &r.begin, &r.start, &r.end}) shift(*x);
    for (TransferRecord& x : t.transfers) shift(x.start), shift(x.end);
    for (IdleRecord& i : t.idles) shift(i.start), shift(i.end);
    shift(t.end);
}

Trace read_file(std::string const& path)
{
    std::ifstream in(path, std::ios::binary);
    require(bool(in), "trace: cannot open '" + path + "'");
    return read(in);
}

void write(std::ostream& out, Trace const& t)
{
    out << magic << ' ' << format_version << '\n';
    for (auto const& [k, v] : t.meta) out << "meta\t" << field(k) << '\t' << field(v) << '\n';
    for (NodeRecord const& n : t.nodes)
        out << "node\t" << n.id << '\t' << field(n.kind) << '\t' << field(n.name) << '\n';
    for (WorkerRecord const& w : t.workers)
        out << "worker\t" << w.id << '\t' << field(w.arch) << '\t' << w.node << '\t'
            << field(w.name) << '\n';
    for (std::size_t i = 0; i < t.codelets.size(); ++i)
        out << "codelet\t" << i << '\t' << field(t.codelets[i]) << '\n';
    for (std::size_t i = 0; i < t.calls.size(); ++i)
        out << "call\t" << i << '\t' << field(t.calls[i]) << '\n';
    char hex[17];
    for (TaskRecord const& r : t.tasks) {
        auto [p, ec] = std::to_chars(hex, hex + sizeof hex, r.footprint, 16);
        (void)ec;
        out << "task\t" << r.seq << '\t' << r.codelet << '\t' << r.worker << '\t' << r.call << '\t'
            << r.submit << '\t' << r.ready << '\t' << r.begin << '\t' << r.start << '\t' << r.end
            << '\t' << r.bytes << '\t' << std::string_view(hex, std::size_t(p - hex)) << '\t'
            << status_name(r.status) << '\t' << field(r.tile) << '\n';
    }
    for (DependencyEdge const& e : t.edges)
        out << "edge\t" << e.from << '\t' << e.to << '\t' << kind_name(e.kind) << '\n';
    for (TransferRecord const& x : t.transfers)
        out << "transfer\t" << x.src << '\t' << x.dst << '\t' << x.bytes << '\t' << x.start << '\t'
            << x.end << '\n';
    for (IdleRecord const& i : t.idles)
        out << "idle\t" << i.worker << '\t' << i.start << '\t' << i.end << '\n';
    out << "end\t" << t.end << '\n';
}

}  // namespace tessera::rt::trace
