// The benchmark driver's shared pieces: command-line options, timing, medians, and the report
// (a readable table, or with --json one JSON object per line per measured configuration).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tessera::bench {

/// `--name value`, `--name v1,v2`, `--flag`, as given after the subcommand.
class Options {
public:
    Options(int argc, char** argv);
    bool has(std::string const& name) const { return values_.contains(name); }
    std::string text(std::string const& name, std::string const& fallback) const;
    /// A comma-separated list (e.g. --n 1000,2000); `fallback` if absent.
    std::vector<std::string> list(std::string const& name, std::vector<std::string> fallback) const;
    std::vector<int64_t> integers(std::string const& name, std::vector<int64_t> fallback) const;
    int64_t integer(std::string const& name, int64_t fallback) const;
    /// The integer of --name, or nullopt when absent (RuntimeConfig's default applies).
    std::optional<int> given_integer(std::string const& name) const;
    /// The text of --name, or nullopt when absent.
    std::optional<std::string> given_text(std::string const& name) const;
    /// The policies of --sched (`fallback` if absent), each checked to be known before
    /// anything is measured; "" is the runtime's default.
    std::vector<std::string> policies(std::vector<std::string> fallback) const;
    /// The option names given.
    std::vector<std::string> names() const;

private:
    // The value of option `name`, which must have one (a flag has none: "--n --reps 3" is an
    // error, not n = 1).
    std::string const& value_of(std::string const& name) const;

    std::map<std::string, std::string> values_;
    std::set<std::string> flags_;
};

inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();

/// A policy of Options::policies as RuntimeConfig takes it: "" (the runtime's default) unset.
inline std::optional<std::string> scheduler_of(std::string const& policy)
{
    return policy.empty() ? std::nullopt : std::optional<std::string>(policy);
}

/// One measured configuration.
struct Result {
    std::string bench, variant;
    std::vector<std::pair<std::string, double>> sizes;  // e.g. {"n", 100000}
    double seconds = nan;                               // median of the repetitions
    double gflops = nan;
    std::string peer = "none";
    double peer_seconds = nan, peer_gflops = nan;
    double ratio = nan;  // our speed over the peer's (peer_seconds / seconds)
    double residual = nan;
    std::vector<std::pair<std::string, double>> extra;        // bench-specific fields
    std::vector<std::pair<std::string, std::string>> labels;  // e.g. {"sched", "ws"}
};

/// Prints results as they come: aligned table rows, or JSON lines. With a residual bound
/// (`--max-residual`), it also counts the results whose residual is above it or not a number,
/// so that a script or a test learns of a wrong result, or of none, from the exit status.
class Report {
public:
    explicit Report(bool json, double max_residual = nan) : json_(json), max_residual_(max_residual)
    {}
    void add(Result const& r);
    /// From now on, results are checked against the bound but not printed (another MPI rank
    /// prints them).
    void mute() noexcept { muted_ = true; }
    /// Whether a residual bound was given and a result broke it, or no result came to check.
    bool residual_bound_broken() const
    {
        return !std::isnan(max_residual_) && (results_ == 0 || residuals_above_bound_ > 0);
    }

private:
    bool json_;
    double max_residual_;
    bool header_done_ = false;
    bool muted_ = false;
    int results_ = 0, residuals_above_bound_ = 0;
};

/// Wall-clock seconds of f().
template <class F> double seconds_of(F&& f)
{
    auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The median of v (NaN when empty).
inline double median(std::vector<double> v)
{
    if (v.empty()) return nan;
    std::sort(v.begin(), v.end());
    const std::size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

/// A subcommand of tessera-bench.
struct Subcommand {
    std::string name, summary, usage;
    std::vector<std::string> options;  // accepted option names (besides --json and --max-residual)
    std::function<int(Options const&, Report&)> run;
};
/// Subcommands register themselves at static-initialization time.
std::vector<Subcommand>& subcommands();
struct Register {
    explicit Register(Subcommand s) { subcommands().push_back(std::move(s)); }
};

}  // namespace tessera::bench
