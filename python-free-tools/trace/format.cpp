#include "trace/format.hpp"

namespace tessera::trace_tool {

std::string decimal(int64_t ns, int digits)
{
    int64_t unit = 1;
    for (int i = 0; i < digits; ++i) unit *= 10;
    // Through the magnitude as unsigned, so that INT64_MIN has one too.
    const bool negative = ns < 0;
    const uint64_t magnitude = negative ? uint64_t(0) - uint64_t(ns) : uint64_t(ns);
    std::string out = negative ? "-" : "";
    out += std::to_string(magnitude / uint64_t(unit));
    if (digits > 0) {
        std::string fraction = std::to_string(magnitude % uint64_t(unit));
        out += '.';
        out.append(std::size_t(digits) - fraction.size(), '0');
        out += fraction;
    }
    return out;
}

std::string ms(int64_t ns)
{
    return decimal((ns + (ns < 0 ? -500 : 500)) / 1000, 3);
}

std::string dot_string(std::string_view s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '\n') {  // Graphviz's centred line break
            out += "\\n";
            continue;
        }
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

}  // namespace tessera::trace_tool
