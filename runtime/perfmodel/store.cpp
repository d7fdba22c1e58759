#include "runtime/perfmodel/store.hpp"

#include "runtime/perfmodel/regression.hpp"

#include <unistd.h>

#include <cctype>
#include <cmath>
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

/// Symbols become file names: keep [A-Za-z0-9_.-], replace the rest.
std::string file_name(std::string const& symbol)
{
    std::string out = symbol;
    for (char& c : out)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
    return out + ".model";
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

std::string ModelStore::path_of(std::string const& symbol) const { return dir_ + "/" + file_name(symbol); }

void ModelStore::load_locked(std::string const& symbol, Model& m)
{
    if (dir_.empty()) return;
    std::ifstream in(path_of(symbol));
    if (!in) return;  // never saved on this machine
    auto corrupt = [&](std::string const& why) {
        std::cerr << "tessera: ignoring performance model file " << path_of(symbol) << ": " << why << "\n";
        m.archs.clear();
    };
    std::string word;
    int version = 0;
    if (!(in >> word >> version) || word != magic) return corrupt("not a tessera-perfmodel file");
    if (version != format_version) return corrupt("format version " + std::to_string(version));
    std::string stored;
    if (!(in >> word >> stored) || word != "symbol") return corrupt("no symbol line");
    for (std::string line; std::getline(in >> std::ws, line);) {
        std::istringstream ls(line);
        std::string tag, arch, fp;
        FootprintStats s;
        if (!(ls >> tag >> arch >> fp >> s.size >> s.count >> s.mean >> s.m2 >> s.rejected) || tag != "entry" ||
            !std::isfinite(s.mean) || s.mean < 0 || !std::isfinite(s.m2))
            return corrupt("bad line '" + line + "'");
        uint64_t key = 0;
        try {
            key = std::stoull(fp, nullptr, 16);
        } catch (...) {
            return corrupt("bad footprint '" + fp + "'");
        }
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

void ModelStore::record(PerfModel const& pm, std::string const& arch, uint64_t footprint, double size, double seconds)
{
    std::lock_guard lock(m_);
    Model& m = model_locked(pm.symbol());
    FootprintStats& s = m.archs[arch][footprint];
    s.size = size;
    s.add(seconds);
    m.dirty = true;
}

Prediction ModelStore::predict(PerfModel const& pm, std::string const& arch, uint64_t footprint, double size)
{
    std::lock_guard lock(m_);
    Model& m = model_locked(pm.symbol());
    auto a = m.archs.find(arch);
    if (a == m.archs.end()) return {};
    auto e = a->second.find(footprint);
    bool have_entry = e != a->second.end() && e->second.count > 0;
    if (pm.kind() == PerfModelKind::history && have_entry && e->second.count >= calibration_samples)
        return {e->second.mean, Calibration::calibrated};
    // a regression over the footprints of this architecture measured a few times at least
    std::vector<SizeTime> points;
    for (auto const& [fp, s] : a->second)
        if (s.count >= FootprintStats::min_window) points.push_back({s.size, s.mean});
    auto fit = pm.kind() == PerfModelKind::nonlinear_regression ? fit_power_law_with_offset(points) : fit_power_law(points);
    if (fit) return {(*fit)(size), Calibration::calibrated};
    if (have_entry) return {e->second.mean, Calibration::calibrating};
    return {};
}

std::vector<PerfModelEntry> ModelStore::entries(std::string_view symbol)
{
    std::lock_guard lock(m_);
    Model& m = model_locked(symbol);
    std::vector<PerfModelEntry> out;
    for (auto const& [arch, fps] : m.archs)
        for (auto const& [fp, s] : fps) out.push_back({arch, fp, s.size, s.count, s.mean, s.stddev(), s.rejected});
    return out;
}

double ModelStore::speed(std::string const& arch)
{
    std::lock_guard lock(m_);
    auto it = speed_.find(arch);
    return it == speed_.end() || it->second.second <= 0 ? 0.0 : it->second.first / it->second.second;
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
        // write a private temporary, then rename: a concurrent reader sees the old or the new file
        std::string path = path_of(symbol), tmp = path + ".tmp." + std::to_string(::getpid());
        {
            std::ofstream out(tmp, std::ios::trunc);
            if (!out) continue;
            std::string name = file_name(symbol);
            out << magic << " " << format_version << "\nsymbol " << name.substr(0, name.size() - 6) << "\n";
            out.precision(17);
            for (auto const& [arch, fps] : m.archs)
                for (auto const& [fp, s] : fps)
                    out << "entry " << arch << " " << std::hex << fp << std::dec << " " << s.size << " " << s.count << " "
                        << s.mean << " " << s.m2 << " " << s.rejected << "\n";
            if (!out) {
                fs::remove(tmp, ec);
                continue;
            }
        }
        fs::rename(tmp, path, ec);
        if (ec) fs::remove(tmp, ec);
        m.dirty = false;
    }
}

}  // namespace tessera::rt::detail
