// RuntimeConfig resolution: a field left at its default takes its environment variable, then
// the built-in default. A malformed value is an InvalidArgument naming the field and variable.
#include "runtime/core/runtime_impl.hpp"

#include <tessera/error.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

namespace tessera::rt {

std::size_t parse_bytes(std::string const& text, std::string const& what)
{
    std::string_view s(text);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    double value = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    require(ec == std::errc() && value >= 0, what + ": '" + text + "' is not a size such as 16MB");
    std::string unit(p, s.data() + s.size());
    for (char& c : unit) c = char(std::toupper(static_cast<unsigned char>(c)));
    double scale = 1;
    if (unit.empty() || unit == "B")
        scale = 1;
    else if (unit == "K" || unit == "KB" || unit == "KIB")
        scale = 1024.0;
    else if (unit == "M" || unit == "MB" || unit == "MIB")
        scale = 1024.0 * 1024;
    else if (unit == "G" || unit == "GB" || unit == "GIB")
        scale = 1024.0 * 1024 * 1024;
    else if (unit == "T" || unit == "TB" || unit == "TIB")
        scale = 1024.0 * 1024 * 1024 * 1024;
    else
        require(false, what + ": unknown unit in '" + text + "' (use B, KB, MB, GB or TB)");
    return std::size_t(value * scale);
}

namespace detail {

namespace {
char const* env(char const* name)
{
    char const* v = std::getenv(name);
    return (v && *v) ? v : nullptr;
}

std::string lowercase(std::string s)
{
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

template <class T> std::optional<T> env_number(char const* name, std::string const& field)
{
    char const* v = env(name);
    if (!v) return std::nullopt;
    T x{};
    std::string_view s(v);
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    require(ec == std::errc() && p == s.data() + s.size(),
            field + " / " + name + "='" + v + "' is not a number");
    return x;
}
}  // namespace

void RuntimeImpl::resolve_config()
{
    RuntimeConfig& c = config_;
    // a string setting left unset takes its environment variable, if any
    auto from_env = [](std::optional<std::string>& field, char const* name) {
        if (!field && env(name)) field = env(name);
    };
    if (!c.ncuda) c.ncuda = env_number<int>("TESSERA_NCUDA", "RuntimeConfig::ncuda");
    require(!c.ncuda || *c.ncuda >= 0, "RuntimeConfig::ncuda / TESSERA_NCUDA must be >= 0");
    from_env(c.cuda_memory, "TESSERA_CUDA_MEM");
    if (c.cuda_memory) parse_bytes(*c.cuda_memory, "RuntimeConfig::cuda_memory / TESSERA_CUDA_MEM");
    from_env(c.cuda_pin_threshold, "TESSERA_CUDA_PIN_THRESHOLD");
    if (!c.cuda_pin_threshold)
        pin_threshold_ = Runtime::default_pin_threshold;
    else if (lowercase(*c.cuda_pin_threshold) == "never")
        pin_threshold_ = std::numeric_limits<std::size_t>::max();
    else
        pin_threshold_ = parse_bytes(
            *c.cuda_pin_threshold,
            "RuntimeConfig::cuda_pin_threshold / TESSERA_CUDA_PIN_THRESHOLD (a size or never)");
    // the drivers find their devices: a GPU's worker takes a core of its own, which the CPU
    // workers leave it by default; a build without a GPU driver has no GPU, whatever was asked
    unsigned cores_for_devices = 0;
    bool gpu_driver = false;
    for (auto const& driver : machine_.drivers()) {
        cores_for_devices += driver->discover(c);
        gpu_driver = gpu_driver || driver->name() == "cuda";
    }
    if (!gpu_driver) c.ncuda = 0;
    const int default_cpus = std::max(1, int(machine_.topology().cores()) - int(cores_for_devices));
    if (!c.ncpus)
        c.ncpus = env_number<int>("TESSERA_NCPU", "RuntimeConfig::ncpus").value_or(default_cpus);
    require(*c.ncpus >= 1, "RuntimeConfig::ncpus / TESSERA_NCPU must be at least 1, got " +
                               std::to_string(*c.ncpus));
    from_env(c.scheduler, "TESSERA_SCHED");
    if (!c.scheduler) c.scheduler = "dmdas";
    if (!c.pin_workers)
        c.pin_workers =
            env_number<int>("TESSERA_PIN", "RuntimeConfig::pin_workers").value_or(1) != 0;
    if (!c.max_pending_tasks)
        c.max_pending_tasks =
            env_number<int64_t>("TESSERA_MAX_PENDING", "RuntimeConfig::max_pending_tasks")
                .value_or(10000);
    require(*c.max_pending_tasks == 0 || *c.max_pending_tasks >= 2,
            "RuntimeConfig::max_pending_tasks / TESSERA_MAX_PENDING must be 0 (no limit) or >= 2");

    if (!c.nemu) c.nemu = env_number<int>("TESSERA_NEMU", "RuntimeConfig::nemu").value_or(0);
    require(*c.nemu >= 0 && *c.nemu <= 64, "RuntimeConfig::nemu / TESSERA_NEMU must be in [0, 64]");
    from_env(c.emu_memory, "TESSERA_EMU_MEM");
    from_env(c.emu_bandwidth, "TESSERA_EMU_BANDWIDTH");
    if (!c.emu_latency_us)
        c.emu_latency_us =
            env_number<double>("TESSERA_EMU_LATENCY", "RuntimeConfig::emu_latency_us").value_or(0);
    require(*c.emu_latency_us >= 0,
            "RuntimeConfig::emu_latency_us / TESSERA_EMU_LATENCY must be >= 0");
    if (!c.emu_speed)
        c.emu_speed =
            env_number<double>("TESSERA_EMU_SPEED", "RuntimeConfig::emu_speed").value_or(1);
    require(*c.emu_speed > 0, "RuntimeConfig::emu_speed / TESSERA_EMU_SPEED must be positive");
    if (!c.perfmodel_dir)
        c.perfmodel_dir = ModelStore::default_directory();  // TESSERA_PERFMODEL_DIR/<host>...
    from_env(c.sched_log, "TESSERA_SCHED_LOG");
    from_env(c.trace, "TESSERA_TRACE");
    // validate the sizes now, with the names of where they came from
    if (c.emu_memory) parse_bytes(*c.emu_memory, "RuntimeConfig::emu_memory / TESSERA_EMU_MEM");
    if (c.emu_bandwidth)
        parse_bytes(*c.emu_bandwidth, "RuntimeConfig::emu_bandwidth / TESSERA_EMU_BANDWIDTH");
}

}  // namespace detail
}  // namespace tessera::rt
