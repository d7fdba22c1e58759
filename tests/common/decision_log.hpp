// Reading the HEFT policies' decision log (RuntimeConfig::sched_log) in tests: what a policy
// expected when it placed a task. A line reads
//     dmdas t=12.5ms task probe#7 -> worker 1 (cpu) length 1ms transfer 0ms end 13.5ms | w0:cpu ...
#pragma once

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::test {

/// One decision: the worker chosen, how long after the decision the task was expected to end
/// there (end - t) in seconds, and whether the policy placed it to calibrate a model.
struct Decision {
    unsigned worker = 0;
    double expected_wait = 0;
    bool calibrating = false;
};

/// The last decision logged for a task of `codelet`, or nothing if there is none.
inline std::optional<Decision> last_decision(std::filesystem::path const& log,
                                             std::string_view codelet)
{
    std::ifstream in(log);
    std::optional<Decision> found;
    const std::string task = " task " + std::string(codelet) + "#";
    for (std::string line; std::getline(in, line);) {
        const auto at = line.find(task), t = line.find(" t="), to = line.find("-> worker "),
                   end = line.find(" end ");
        if (at == std::string::npos || t == std::string::npos || to == std::string::npos ||
            end == std::string::npos)
            continue;
        const double now_ms = std::stod(line.substr(t + 3)),
                     end_ms = std::stod(line.substr(end + 5));
        found = Decision{unsigned(std::stoul(line.substr(to + 10))), (end_ms - now_ms) * 1e-3,
                         line.find("[calibrating]") != std::string::npos};
    }
    return found;
}

}  // namespace tessera::test
