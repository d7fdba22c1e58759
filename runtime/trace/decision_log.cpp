#include "runtime/trace/decision_log.hpp"

#include <tessera/error.hpp>

#include <iostream>

namespace tessera::rt::detail {

void DecisionLog::open(std::optional<std::string> const& where)
{
    if (!where) return;
    if (*where == "stderr") {
        out_ = &std::cerr;
        return;
    }
    file_ = std::make_unique<std::ofstream>(*where, std::ios::app);
    require(static_cast<bool>(*file_),
            "RuntimeConfig::sched_log / TESSERA_SCHED_LOG: cannot open '" + *where + "'");
    out_ = file_.get();
}

void DecisionLog::write(std::string_view line)
{
    if (!out_) return;
    std::lock_guard lock(m_);
    *out_ << line;
    if (line.empty() || line.back() != '\n') *out_ << '\n';
}

}  // namespace tessera::rt::detail
