#include "port/unix_address.hpp"

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

#include <sys/stat.h>
#include <unistd.h>

#include "common/unique_fd.hpp"

namespace ornic {

UnixAddress make_unix_address(std::string_view path, std::string_view what) {
  UnixAddress result;
  const std::string name(what);
  if (path.empty())
    throw std::invalid_argument(name + " is empty");
  if (path.find('\0') != std::string_view::npos)
    throw std::invalid_argument(name + " contains a NUL byte");
  // Keep one byte for the terminating NUL: a path that fills sun_path exactly is legal
  // for the kernel but not portable, and tools like ss print it truncated.
  if (path.size() >= sizeof(result.address.sun_path))
    throw std::invalid_argument(name + " '" + std::string(path) + "' is " +
                                std::to_string(path.size()) + " bytes; AF_UNIX allows at most " +
                                std::to_string(sizeof(result.address.sun_path) - 1));
  result.address.sun_family = AF_UNIX;
  std::memcpy(result.address.sun_path, path.data(), path.size());
  result.length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + 1);
  return result;
}

void remove_stale_socket_file(const std::string& path, const UnixAddress& address,
                              int socket_type) {
  const auto fail = [&path](const std::string& what) {
    throw std::system_error(errno, std::generic_category(), what + " '" + path + "'");
  };
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT)
      return;
    fail("port local path");
  }
  if (!S_ISSOCK(st.st_mode))
    throw std::runtime_error("port local path '" + path +
                             "' exists and is not a socket; refusing to replace it");
  UniqueFd probe(::socket(AF_UNIX, socket_type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!probe)
    fail("probing socket for");
  if (::connect(probe.get(), address.get(), address.length) == 0 || errno != ECONNREFUSED)
    throw std::runtime_error("port local path '" + path +
                             "' is in use by a running process (another model or QEMU?)");
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    fail("removing stale socket");
}

} // namespace ornic
