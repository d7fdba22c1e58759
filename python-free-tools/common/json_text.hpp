// Text for JSON documents, shared by the tools that write JSON (tessera-trace, tessera-bound).
#pragma once

#include <string>
#include <string_view>

namespace tessera::tools {

/// `s` as a JSON string literal, quotes included: '"' and '\' escaped, control characters as
/// \n, \t, \r or \u00XX.
std::string json_string(std::string_view s);

}  // namespace tessera::tools
