// Filesystem AF_UNIX socket addresses, checked up front so a path that cannot work is
// reported as a bad spec instead of a failed system call later.
#pragma once

#include <string_view>

#include <sys/socket.h>
#include <sys/un.h>

namespace ornic {

struct UnixAddress {
  sockaddr_un address{};
  socklen_t length = 0;

  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&address); }
};

// Throws std::invalid_argument if path is empty, contains a NUL byte or does not fit in
// sun_path (107 bytes on Linux). `what` names the path in the message ("local path").
UnixAddress make_unix_address(std::string_view path, std::string_view what);

} // namespace ornic
