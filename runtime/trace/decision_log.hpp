// DecisionLog: where the policies explain their placements, one line each (RuntimeConfig::
// sched_log / TESSERA_SCHED_LOG: a file, appended to, or "stderr"). Off unless asked for: a
// policy checks enabled() before it formats a line. Internal.
#pragma once

#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace tessera::rt::detail {

class DecisionLog {
public:
    /// Starts writing to `where` (nothing: stays off). Throws InvalidArgument naming the
    /// setting when the file cannot be opened.
    void open(std::optional<std::string> const& where);
    bool enabled() const noexcept { return out_ != nullptr; }
    /// Appends `line` (and a newline if it has none); safe from every worker.
    void write(std::string_view line);

private:
    std::unique_ptr<std::ofstream> file_;
    std::ostream* out_ = nullptr;
    std::mutex m_;
};

}  // namespace tessera::rt::detail
