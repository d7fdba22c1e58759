// Text helpers shared by tessera-trace's outputs: exact decimal times from integer nanoseconds
// and the escaping each output language needs (JSON, XML, Graphviz).
#pragma once

#include "python-free-tools/common/json_text.hpp"
#include "python-free-tools/common/xml_text.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::trace_tool {

/// `ns` nanoseconds written in a unit of 10^digits ns with `digits` decimals, exactly (integer
/// arithmetic, no rounding): decimal(1500, 3) = "1.500" (µs), decimal(1500, 9) = "0.000001500"
/// (s), decimal(-20, 3) = "-0.020".
std::string decimal(int64_t ns, int digits);

/// `ns` in ms to the µs, rounded half away from zero: ms(1'234'567) = "1.235".
std::string ms(int64_t ns);

/// `s` as a JSON string literal, quotes included (the tools' common escape).
inline std::string json_string(std::string_view s)
{
    return tools::json_string(s);
}

/// `s` as XML character data or attribute text (the tools' common escape).
inline std::string xml_text(std::string_view s)
{
    return tools::xml_escape(s);
}

/// `s` as a Graphviz double-quoted string, quotes included; a newline becomes a line break.
std::string dot_string(std::string_view s);

}  // namespace tessera::trace_tool
