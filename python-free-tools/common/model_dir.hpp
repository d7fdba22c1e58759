// The performance-model directory as the tools read it: which directory the runtime would use,
// and which model symbols it holds. The models themselves are read with the runtime's own
// loader (runtime/perfmodel/store.hpp). Shared by tessera-perfmodel and tessera-calibrate;
// not a tool itself.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::tools {

/// The directory a runtime started here would keep its models in: TESSERA_PERFMODEL_DIR,
/// else $XDG_CACHE_HOME/tessera/perfmodels, else ~/.cache/tessera/perfmodels, then a folder
/// named after the host. Empty when none can be formed (no HOME).
std::string default_model_directory();

/// A symbol from its file's name without ".model": the runtime writes every byte other than
/// [A-Za-z0-9_.-] as %XX; a % not followed by two hexadecimal digits is kept as it is.
std::string decode_symbol(std::string_view file_stem);

/// The symbols of the models in `dir`, sorted: the *.model files whose first word is the
/// model format's ("tessera-perfmodel"; bus models and other files are left out).
std::vector<std::string> model_symbols(std::filesystem::path const& dir);

}  // namespace tessera::tools
