#include "vfio_user/fd_kind.hpp"

#include <array>
#include <string>
#include <string_view>

#include <unistd.h>

namespace ornic::vfio_user {

bool is_eventfd(int fd) {
  // eventfds are anonymous inodes; /proc names them "anon_inode:[eventfd]".
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  std::array<char, 64> target{};
  const ssize_t n = readlink(link.c_str(), target.data(), target.size() - 1);
  return n > 0 && std::string_view(target.data(), static_cast<size_t>(n)) == "anon_inode:[eventfd]";
}

} // namespace ornic::vfio_user
