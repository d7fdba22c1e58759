#include "runtime/perfmodel/bus.hpp"

#include "runtime/perfmodel/replace_file.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tessera::rt::detail {

std::string bus_model_file(std::string const& signature)
{
    uint64_t h = 14695981039346656037ull;  // FNV-1a, 64 bits: stable across builds and runs
    for (unsigned char c : signature) h = (h ^ c) * 1099511628211ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return std::string("bus-") + hex + ".model";
}

double BusModel::time(NodeId src, NodeId dst, double bytes) const noexcept
{
    if (src == dst) return 0;
    if (src != host_node && dst != host_node)
        return time(src, host_node, bytes) + time(host_node, dst, bytes);
    LinkCost c = links_[src * nodes_ + dst];
    return c.latency + (c.bandwidth > 0 ? bytes / c.bandwidth : 0.0);
}

bool BusModel::load(std::string const& path, std::string const& signature)
{
    std::ifstream in(path);
    std::string word, sig;
    int version = 0;
    if (!(in >> word >> version) || word != "tessera-bus" || version != 1) return false;
    if (!(in >> word) || word != "signature" || !std::getline(in >> std::ws, sig) ||
        sig != signature)
        return false;
    // every link between the host and a device, once: a link left out would cost nothing
    std::vector<LinkCost> links(links_.size());
    std::vector<bool> seen(links_.size(), false);
    std::size_t count = 0;
    for (std::string line; std::getline(in >> std::ws, line);) {
        std::istringstream ls(line);
        std::string tag, rest;
        long long s = -1, d = -1;
        LinkCost c;
        if (!(ls >> tag >> s >> d >> c.latency >> c.bandwidth) || (ls >> rest) || tag != "link" ||
            s < 0 || d < 0 || s >= nodes_ || d >= nodes_ || s == d ||
            (s != host_node && d != host_node) || !std::isfinite(c.latency) ||
            !std::isfinite(c.bandwidth) || c.latency < 0 || c.bandwidth < 0)
            return false;
        const std::size_t k = std::size_t(s) * nodes_ + std::size_t(d);
        if (seen[k]) return false;
        seen[k] = true;
        links[k] = c;
        ++count;
    }
    if (nodes_ < 2 || count != 2 * std::size_t(nodes_ - 1)) return false;
    links_ = std::move(links);
    return true;
}

void BusModel::save(std::string const& path, std::string const& signature) const
{
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    std::ostringstream out;
    out.precision(10);
    out << "tessera-bus 1\nsignature " << signature << "\n";
    for (NodeId s = 0; s < nodes_; ++s)
        for (NodeId d = 0; d < nodes_; ++d)
            if (s != d && (s == host_node || d == host_node))
                out << "link " << s << " " << d << " " << get(s, d).latency << " "
                    << get(s, d).bandwidth << "\n";
    replace_file(path,
                 out.str());  // on failure the old file stays, and the next run measures again
}

}  // namespace tessera::rt::detail
