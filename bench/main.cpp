// tessera-bench: one program, a subcommand per benchmark (`tessera-bench <name> [options]`).
#include "bench/bench.hpp"

#include <tessera/error.hpp>
#include <tessera/rt/sched.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace tessera::bench {

Options::Options(int argc, char** argv)
{
    for (int i = 0; i < argc; ++i) {
        std::string a = argv[i];
        require(a.rfind("--", 0) == 0 && a.size() > 2,
                "option '" + a + "': expected --name [value]");
        std::string name = a.substr(2), value;
        if (auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
        } else if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) {
            value = argv[++i];
        } else {
            flags_.insert(name);
        }
        values_[name] = value;
    }
}

std::string const& Options::value_of(std::string const& name) const
{
    require(!flags_.contains(name), "--" + name + ": expected a value");
    return values_.at(name);
}

std::string Options::text(std::string const& name, std::string const& fallback) const
{
    return has(name) ? value_of(name) : fallback;
}

std::vector<std::string> Options::list(std::string const& name,
                                       std::vector<std::string> fallback) const
{
    if (!has(name)) return fallback;
    std::vector<std::string> out;
    std::stringstream ss(value_of(name));
    for (std::string item; std::getline(ss, item, ',');)
        if (!item.empty()) out.push_back(item);
    require(!out.empty(), "--" + name + ": expected one or more values separated by commas");
    return out;
}

std::vector<std::string> Options::policies(std::vector<std::string> fallback) const
{
    std::vector<std::string> out = list("sched", std::move(fallback));
    for (std::string const& p : out) {
        if (p.empty() || rt::policies().contains(p)) continue;
        std::string known;
        for (std::string const& name : rt::policies().all_names())
            known += (known.empty() ? "" : ", ") + name;
        require(false, "--sched: unknown policy '" + p + "' (known: " + known + ")");
    }
    return out;
}

std::vector<int64_t> Options::integers(std::string const& name, std::vector<int64_t> fallback) const
{
    if (!has(name)) return fallback;
    std::vector<int64_t> out;
    for (std::string const& s : list(name, {})) {
        int64_t x = 0;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
        require(ec == std::errc() && p == s.data() + s.size(),
                "--" + name + ": '" + s + "' is not an integer");
        out.push_back(x);
    }
    return out;
}

int64_t Options::integer(std::string const& name, int64_t fallback) const
{
    auto v = integers(name, {fallback});
    require(v.size() == 1, "--" + name + ": expected one integer");
    return v[0];
}

std::optional<int> Options::given_integer(std::string const& name) const
{
    if (!has(name)) return std::nullopt;
    return int(integer(name, 0));
}

std::optional<std::string> Options::given_text(std::string const& name) const
{
    if (!has(name)) return std::nullopt;
    return value_of(name);
}

std::vector<std::string> Options::names() const
{
    std::vector<std::string> out;
    for (auto const& [k, v] : values_) out.push_back(k);
    return out;
}

namespace {
/// x for JSON and the table: an integer in full (counts, sizes), another number to 6
/// digits, and null (JSON has no NaN or infinity) for what is not finite.
std::string number(double x)
{
    if (!std::isfinite(x)) return "null";
    char buf[32];
    if (x == std::trunc(x) && std::abs(x) < 0x1p53)
        std::snprintf(buf, sizeof buf, "%.0f", x);
    else
        std::snprintf(buf, sizeof buf, "%.6g", x);
    return buf;
}
std::string quoted(std::string const& s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}
std::string cell(double x)
{
    return std::isnan(x) ? "-" : std::isinf(x) ? (x > 0 ? "inf" : "-inf") : number(x);
}
}  // namespace

void Report::add(Result const& r)
{
    ++results_;
    if (!std::isnan(max_residual_) && !(r.residual <= max_residual_)) {
        ++residuals_above_bound_;
        std::cerr << "tessera-bench " << r.bench << ": residual "
                  << (std::isnan(r.residual) ? std::string("missing")
                                             : number(r.residual) + " above")
                  << " --max-residual " << number(max_residual_) << "\n";
    }
    // a peer's own answer is held to the same bound: a wrong call must not pass as a fast one
    for (auto const& [key, value] : r.extra)
        if (key == "peer_residual" && !std::isnan(max_residual_) && !(value <= max_residual_)) {
            ++residuals_above_bound_;
            std::cerr << "tessera-bench " << r.bench << ": " << r.peer << "'s residual "
                      << number(value) << " above --max-residual " << number(max_residual_) << "\n";
        }
    if (muted_) return;
    if (json_) {
        std::string o = "{";
        auto field = [&o](std::string const& key, std::string const& value) {
            if (o.size() > 1) o += ',';
            o.append(quoted(key)).append(":").append(value);
        };
        field("bench", quoted(r.bench));
        field("variant", quoted(r.variant));
        for (auto const& [k, v] : r.labels) field(k, quoted(v));
        for (auto const& [k, v] : r.sizes) field(k, number(v));
        field("seconds", number(r.seconds));
        field("gflops", number(r.gflops));
        field("peer", quoted(r.peer));
        field("peer_seconds", number(r.peer_seconds));
        field("peer_gflops", number(r.peer_gflops));
        field("ratio", number(r.ratio));
        field("residual", number(r.residual));
        for (auto const& [k, v] : r.extra) field(k, number(v));
        std::cout << o << "}" << std::endl;
        return;
    }
    std::ostringstream head, row;
    auto col = [](std::ostringstream& os, std::string const& s, int w) {
        os << s << std::string(std::size_t(std::max(1, w - int(s.size()))), ' ');
    };
    col(head, "bench", 10), col(row, r.bench, 10);
    col(head, "variant", 13), col(row, r.variant, 13);
    for (auto const& [k, v] : r.labels) col(head, k, 8), col(row, v, 8);
    for (auto const& [k, v] : r.sizes) col(head, k, 9), col(row, cell(v), 9);
    col(head, "seconds", 11), col(row, cell(r.seconds), 11);
    if (!std::isnan(r.gflops)) col(head, "GFlop/s", 10), col(row, cell(r.gflops), 10);
    for (auto const& [k, v] : r.extra)
        col(head, k, std::max<int>(10, int(k.size()) + 2)),
            col(row, cell(v), std::max<int>(10, int(k.size()) + 2));
    if (!std::isnan(r.residual)) col(head, "residual", 11), col(row, cell(r.residual), 11);
    col(head, "peer", 14), col(row, r.peer, 14);
    col(head, "peer_seconds", 13), col(row, cell(r.peer_seconds), 13);
    if (!std::isnan(r.peer_gflops))
        col(head, "peer_GFlop/s", 13), col(row, cell(r.peer_gflops), 13);
    col(head, "ratio", 8), col(row, cell(r.ratio), 8);
    if (!header_done_) {
        std::cout << head.str() << "\n";
        header_done_ = true;
    }
    std::cout << row.str() << std::endl;
}

std::vector<Subcommand>& subcommands()
{
    static std::vector<Subcommand> all;
    return all;
}

}  // namespace tessera::bench

int main(int argc, char** argv)
{
    using namespace tessera::bench;
    auto usage = [] {
        std::cerr
            << "usage: tessera-bench <subcommand> [options]   (--json: one JSON object per line;\n"
               "       --max-residual X: exit status 1 when a residual is above X or missing, or "
               "no result came)\n\n";
        for (auto const& s : subcommands())
            std::cerr << "  " << s.name << "\t" << s.summary << "\n    " << s.usage << "\n";
    };
    if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
        usage();
        return argc < 2 ? 2 : 0;
    }
    std::string name = argv[1];
    auto it = std::find_if(subcommands().begin(), subcommands().end(),
                           [&](Subcommand const& s) { return s.name == name; });
    if (it == subcommands().end()) {
        std::cerr << "tessera-bench: unknown subcommand '" << name << "'\n\n";
        usage();
        return 2;
    }
    if (argc == 3 && (std::string(argv[2]) == "--help" || std::string(argv[2]) == "-h")) {
        std::cout << "tessera-bench " << it->name << ": " << it->summary << "\n    " << it->usage
                  << "\n";
        return 0;
    }
    try {
        Options opts(argc - 2, argv + 2);
        for (auto const& o : opts.names()) {
            if (o != "json" && o != "max-residual" &&
                std::find(it->options.begin(), it->options.end(), o) == it->options.end()) {
                std::cerr << "tessera-bench " << name << ": unknown option --" << o << "\n    "
                          << it->usage << "\n";
                return 2;
            }
        }
        double max_residual = tessera::bench::nan;
        if (opts.has("max-residual")) {
            std::string const bound = opts.text("max-residual", "");
            char* end = nullptr;
            max_residual = std::strtod(bound.c_str(), &end);
            tessera::require(!bound.empty() && *end == '\0' && max_residual >= 0,
                             "--max-residual: '" + bound + "' is not a non-negative number");
        }
        Report report(opts.has("json"), max_residual);
        int const status = it->run(opts, report);
        return status != 0 ? status : report.residual_bound_broken() ? 1 : 0;
    } catch (std::exception const& e) {
        std::cerr << "tessera-bench " << name << ": " << e.what() << "\n";
        return 2;
    }
}
