#include "trace/palette.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>

namespace tessera::trace_tool {

namespace {

// Tableau 10 then the rest of D3's category20 hues, without greys: grey means idle.
constexpr std::array<char const*, 20> codelet_colours{
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
    "#ff9da7", "#9c755f", "#17becf", "#bcbd22", "#8c564b", "#1f77b4", "#d62728",
    "#2ca02c", "#9467bd", "#e377c2", "#ff7f0e", "#7f3c8d", "#11a579"};

// ColorBrewer Set3.
constexpr std::array<char const*, 12> worker_colours{"#8dd3c7", "#ffffb3", "#bebada", "#fb8072",
                                                     "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
                                                     "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};

}  // namespace

std::string codelet_colour(std::size_t id)
{
    return codelet_colours[id % codelet_colours.size()];
}

std::string worker_colour(std::size_t id)
{
    return worker_colours[id % worker_colours.size()];
}

std::string paje_colour(std::string const& hex)
{
    char out[32];
    auto component = [&](int at) {
        return double(std::strtol(hex.substr(std::size_t(at), 2).c_str(), nullptr, 16)) / 255.0;
    };
    std::snprintf(out, sizeof out, "%.3f %.3f %.3f", component(1), component(3), component(5));
    return out;
}

}  // namespace tessera::trace_tool
