#include "python-free-tools/common/model_dir.hpp"

#include "runtime/perfmodel/store.hpp"

#include <algorithm>
#include <fstream>
#include <system_error>

namespace tessera::tools {

namespace fs = std::filesystem;

std::string default_model_directory()
{
    return rt::detail::ModelStore::default_directory();
}

namespace {
int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
}  // namespace

std::string decode_symbol(std::string_view stem)
{
    std::string out;
    for (std::size_t i = 0; i < stem.size(); ++i) {
        int hi = 0, lo = 0;
        if (stem[i] == '%' && i + 2 < stem.size() && (hi = hex_digit(stem[i + 1])) >= 0 &&
            (lo = hex_digit(stem[i + 2])) >= 0) {
            out += char(hi * 16 + lo);
            i += 2;
        } else {
            out += stem[i];
        }
    }
    return out;
}

std::vector<std::string> model_symbols(fs::path const& dir)
{
    std::vector<std::string> symbols;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        fs::path const& p = it->path();
        if (p.extension() != ".model" || !it->is_regular_file(ec)) continue;
        // the first word tells a model from a bus model (bus-<hash>.model) or a stray file
        std::ifstream in(p);
        std::string word;
        if (!(in >> word) || word != "tessera-perfmodel") continue;
        symbols.push_back(decode_symbol(p.stem().string()));
    }
    std::sort(symbols.begin(), symbols.end());
    return symbols;
}

}  // namespace tessera::tools
