#include "runtime/perfmodel/store.hpp"

#include "runtime/perfmodel/regression.hpp"
#include "runtime/perfmodel/replace_file.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace tessera::rt::detail {

namespace fs = std::filesystem;

namespace {
constexpr char const* magic = "tessera-perfmodel";
constexpr int format_version = 1;

/// A symbol as it is written in its file's name and in the file: [A-Za-z0-9_.-] kept, any
/// other byte as %XX, so that two symbols never share a file ("a:b" is a%3Ab, "a/b" a%2Fb).
std::string encoded(std::string const& symbol)
{
    std::string out;
    for (char c : symbol) {
        auto u = static_cast<unsigned char>(c);
        // ASCII ranges, not std::isalnum: the process's locale must not change a file's name
        const bool kept = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
                          (u >= '0' && u <= '9') || c == '_' || c == '-' || c == '.';
        if (kept) {
            out += c;
        } else {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%%%02X", unsigned(u));
            out += hex;
        }
    }
    return out;
}

std::string file_name(std::string const& symbol)
{
    return encoded(symbol) + ".model";
}

/// A count written by save(): decimal digits only (operator>> would wrap "-3" around).
bool parse_count(std::string const& text, uint64_t& out)
{
    if (text.empty() || text.size() > 19 ||
        text.find_first_not_of("0123456789") != std::string::npos)
        return false;
    out = std::stoull(text);
    return true;
}

/// A footprint written by save(): hexadecimal digits only, all of them read.
bool parse_footprint(std::string const& text, uint64_t& out)
{
    if (text.empty() || text.size() > 16 ||
        text.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
        return false;
    out = std::stoull(text, nullptr, 16);
    return true;
}
}  // namespace

std::string ModelStore::default_directory()
{
    std::string base;
    if (char const* d = std::getenv("TESSERA_PERFMODEL_DIR"); d && *d)
        base = d;
    else if (char const* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        base = std::string(x) + "/tessera/perfmodels";
    else if (char const* h = std::getenv("HOME"); h && *h)
        base = std::string(h) + "/.cache/tessera/perfmodels";
    else
        return {};
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    return base + "/" + host;
}

std::string ModelStore::path_of(std::string const& symbol) const
{
    return dir_ + "/" + file_name(symbol);
}

void ModelStore::load_locked(std::string const& symbol, Model& m)
{
    if (dir_.empty()) return;
    std::ifstream in(path_of(symbol));
    if (!in) return;  // never saved on this machine
    auto corrupt = [&](std::string const& why) {
        std::cerr << "tessera: ignoring performance model file " << path_of(symbol) << ": " << why
                  << "\n";
        m.archs.clear();
    };
    std::string word;
    int version = 0;
    if (!(in >> word >> version) || word != magic) return corrupt("not a tessera-perfmodel file");
    if (version != format_version) return corrupt("format version " + std::to_string(version));
    std::string stored;
    if (!(in >> word >> stored) || word != "symbol") return corrupt("no symbol line");
    if (stored != encoded(symbol)) return corrupt("the file is for symbol '" + stored + "'");
    for (std::string line; std::getline(in >> std::ws, line);) {
        std::istringstream ls(line);
        std::string tag, arch, fp, count, rejected, rest;
        FootprintStats s;
        uint64_t key = 0;
        if (!(ls >> tag >> arch >> fp >> s.size >> count >> s.mean >> s.m2 >> rejected) ||
            (ls >> rest) || tag != "entry" || !parse_footprint(fp, key) ||
            !parse_count(count, s.count) || !parse_count(rejected, s.rejected) ||
            !std::isfinite(s.size) || s.size < 0 || !std::isfinite(s.mean) || s.mean < 0 ||
            !std::isfinite(s.m2) || s.m2 < 0)
            return corrupt("bad line '" + line + "'");
        m.archs[arch][key] = s;
    }
}

ModelStore::Model& ModelStore::model_locked(std::string_view symbol)
{
    auto it = models_.find(std::string(symbol));
    if (it != models_.end()) return it->second;
    Model& m = models_[std::string(symbol)];
    load_locked(std::string(symbol), m);
    return m;
}

void ModelStore::record(PerfModel const& pm, std::string const& arch, uint64_t footprint,
                        double size, double seconds)
{
    std::lock_guard lock(m_);
    Model& m = model_locked(pm.symbol());
    FootprintStats& s = m.archs[arch][footprint];
    s.size = size;
    s.add(seconds);
    m.dirty = true;
}

Prediction ModelStore::predict(PerfModel const& pm, std::string const& arch, uint64_t footprint,
                               double size)
{
    std::lock_guard lock(m_);
    Model& m = model_locked(pm.symbol());
    auto a = m.archs.find(arch);
    if (a == m.archs.end()) return {};
    auto e = a->second.find(footprint);
    bool have_entry = e != a->second.end() && e->second.count > 0;
    const bool measured_enough = have_entry && e->second.count >= calibration_samples;
    if (pm.kind() == PerfModelKind::history && measured_enough)
        return {e->second.mean, Calibration::calibrated};
    // a regression over the footprints of this architecture measured a few times at least
    // (points of no size or no time have no logarithm: they are left out, not fatal)
    std::vector<SizeTime> points;
    for (auto const& [fp, s] : a->second)
        if (s.count >= FootprintStats::min_window && s.size > 0 && s.mean > 0)
            points.push_back({s.size, s.mean});
    auto fit = pm.kind() == PerfModelKind::nonlinear_regression ? fit_power_law_with_offset(points)
                                                                : fit_power_law(points);
    if (fit) return {(*fit)(size), Calibration::calibrated};
    // no fit (one size only, say): this footprint's own history still tells
    if (measured_enough) return {e->second.mean, Calibration::calibrated};
    if (have_entry) return {e->second.mean, Calibration::calibrating};
    return {};
}

std::vector<PerfModelEntry> ModelStore::entries(std::string_view symbol)
{
    std::lock_guard lock(m_);
    Model& m = model_locked(symbol);
    std::vector<PerfModelEntry> out;
    for (auto const& [arch, fps] : m.archs)
        for (auto const& [fp, s] : fps)
            out.push_back({arch, fp, s.size, s.count, s.mean, s.stddev(), s.rejected});
    return out;
}

double ModelStore::speed(std::string const& arch)
{
    std::lock_guard lock(m_);
    auto it = speed_.find(arch);
    return it == speed_.end() || it->second.second <= 0 ? 0.0
                                                        : it->second.first / it->second.second;
}

void ModelStore::record_speed(std::string const& arch, double flops, double seconds)
{
    std::lock_guard lock(m_);
    auto& s = speed_[arch];
    s.first += flops;
    s.second += seconds;
}

void ModelStore::save()
{
    std::lock_guard lock(m_);
    if (dir_.empty()) return;
    std::error_code ec;
    fs::create_directories(dir_, ec);
    for (auto& [symbol, m] : models_) {
        if (!m.dirty) continue;
        std::ostringstream out;
        out << magic << " " << format_version << "\nsymbol " << encoded(symbol) << "\n";
        out.precision(17);
        for (auto const& [arch, fps] : m.archs)
            for (auto const& [fp, s] : fps)
                out << "entry " << arch << " " << std::hex << fp << std::dec << " " << s.size << " "
                    << s.count << " " << s.mean << " " << s.m2 << " " << s.rejected << "\n";
        // a reader sees the old file or the whole new one; a failed write keeps the old one
        if (replace_file(path_of(symbol), out.str())) m.dirty = false;
    }
}

}  // namespace tessera::rt::detail
