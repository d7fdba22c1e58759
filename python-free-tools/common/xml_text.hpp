// Text for XML (SVG) documents, shared by the tools that draw charts.
#pragma once

#include <string>
#include <string_view>

namespace tessera::tools {

/// `s` as XML character data or attribute text: markup characters escaped, and what XML 1.0
/// cannot carry (control characters, bytes that are not UTF-8, U+FFFE and U+FFFF) as '?', so
/// that any name gives a well-formed file.
std::string xml_escape(std::string_view s);

}  // namespace tessera::tools
