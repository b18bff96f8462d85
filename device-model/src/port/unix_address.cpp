#include "port/unix_address.hpp"

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>

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

} // namespace ornic
