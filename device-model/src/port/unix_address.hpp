// Filesystem AF_UNIX socket addresses, checked up front so a path that cannot work is
// reported as a bad spec instead of a failed system call later.
#pragma once

#include <string>
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

// A socket file outlives the process that bound it. Removes the one at path (address)
// only when nobody is bound to it any more (a connect with a socket of socket_type, e.g.
// SOCK_DGRAM or SOCK_SEQPACKET, says ECONNREFUSED); throws rather than touch a live
// socket or a file that is not a socket. A missing file is fine.
void remove_stale_socket_file(const std::string& path, const UnixAddress& address, int socket_type);

} // namespace ornic
