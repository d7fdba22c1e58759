// Replacing a file whole: the performance and bus models are rewritten at every shutdown, and
// a reader (another process starting, or this one next time) must see the old file or the
// whole new one, never a part of it, whatever happens on the way (a full disk, a crash).
// Internal.
#pragma once

#include <string>
#include <string_view>

namespace tessera::rt::detail {

/// Writes `content` to a temporary file next to `path`, flushes it to the disk (fsync), then
/// renames it over `path`. Returns false, with `path` untouched and the temporary removed,
/// if any step fails.
bool replace_file(std::string const& path, std::string_view content);

}  // namespace tessera::rt::detail
