// The colours tessera-trace's pictures share, so that a codelet has the same colour in the
// Gantt chart, in ViTE (Paje) and in the task graph.
#pragma once

#include <cstddef>
#include <string>

namespace tessera::trace_tool {

/// Codelet `id`'s colour, "#rrggbb": 20 distinct saturated colours, then again from the first.
std::string codelet_colour(std::size_t id);

/// Worker `id`'s colour in the task graph, "#rrggbb": 12 light colours (black text stays
/// readable on them), then again from the first.
std::string worker_colour(std::size_t id);

/// "#rrggbb" as Paje's colour, "r g b" with each component in [0, 1].
std::string paje_colour(std::string const& hex);

}  // namespace tessera::trace_tool
