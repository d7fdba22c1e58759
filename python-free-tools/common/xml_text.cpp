#include "python-free-tools/common/xml_text.hpp"

namespace tessera::tools {

std::string xml_escape(std::string_view s)
{
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        auto const u = static_cast<unsigned char>(s[i]);
        if (u < 0x80) {
            switch (u) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&apos;";
                break;
            default:
                out +=
                    (u < 0x20 && u != '\t' && u != '\n' && u != '\r') || u == 0x7f ? '?' : char(u);
            }
            ++i;
            continue;
        }
        // a UTF-8 sequence: its length from the lead byte, the range of its second byte (no
        // overlong forms, no surrogates, nothing above U+10FFFF), continuation bytes after
        std::size_t len = 0;
        unsigned char lo = 0x80, hi = 0xbf;
        if (u >= 0xc2 && u <= 0xdf)
            len = 2;
        else if (u >= 0xe0 && u <= 0xef)
            len = 3, lo = u == 0xe0 ? 0xa0 : 0x80, hi = u == 0xed ? 0x9f : 0xbf;
        else if (u >= 0xf0 && u <= 0xf4)
            len = 4, lo = u == 0xf0 ? 0x90 : 0x80, hi = u == 0xf4 ? 0x8f : 0xbf;
        bool ok = len > 0 && i + len <= s.size();
        for (std::size_t k = 1; ok && k < len; ++k) {
            auto const c = static_cast<unsigned char>(s[i + k]);
            ok = k == 1 ? c >= lo && c <= hi : c >= 0x80 && c <= 0xbf;
        }
        // U+FFFE and U+FFFF (EF BF BE, EF BF BF) are not XML characters
        if (ok && len == 3 && u == 0xef && static_cast<unsigned char>(s[i + 1]) == 0xbf &&
            static_cast<unsigned char>(s[i + 2]) >= 0xbe)
            ok = false;
        if (ok) {
            out.append(s.substr(i, len));
            i += len;
        } else {
            out += '?';
            ++i;
        }
    }
    return out;
}

}  // namespace tessera::tools
