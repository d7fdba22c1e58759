#include "runtime/perfmodel/replace_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>

namespace tessera::rt::detail {

namespace {
/// Writes all of `content` to fd, resuming after interruptions and short writes.
bool write_all(int fd, std::string_view content)
{
    while (!content.empty()) {
        ssize_t n = ::write(fd, content.data(), content.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        content.remove_prefix(std::size_t(n));
    }
    return true;
}
}  // namespace

bool replace_file(std::string const& path, std::string_view content)
{
    // unique per process and call: two runtimes of one process may save at the same time
    static std::atomic<unsigned> calls{0};
    const std::string tmp =
        path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(calls.fetch_add(1));
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    bool ok = write_all(fd, content) && ::fsync(fd) == 0;
    ok = ::close(fd) == 0 && ok;  // close reports the errors of a deferred write
    ok = ok && std::rename(tmp.c_str(), path.c_str()) == 0;
    if (!ok) std::remove(tmp.c_str());
    return ok;
}

}  // namespace tessera::rt::detail
