#include "vfio_user/server.hpp"

#include <cerrno>
#include <stdexcept>
#include <system_error>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

namespace ornic::vfio_user {
namespace {

[[noreturn]] void throw_errno(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

sockaddr_un unix_address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(addr.sun_path))
    throw std::runtime_error("socket path '" + path + "' is empty or longer than " +
                             std::to_string(sizeof(addr.sun_path) - 1) + " bytes");
  path.copy(addr.sun_path, path.size());
  return addr;
}

// Removes path if it is a socket nobody listens on; refuses to touch anything else.
void remove_stale_socket(const std::string& path, const sockaddr_un& addr) {
  struct stat st{};
  if (lstat(path.c_str(), &st) < 0)
    return; // nothing there
  if (!S_ISSOCK(st.st_mode))
    throw std::runtime_error("'" + path + "' exists and is not a socket; not replacing it");
  UniqueFd probe(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (probe && connect(probe.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0)
    throw std::runtime_error("'" + path + "' is in use by another live server");
  unlink(path.c_str());
}

} // namespace

Server::Server(EventLoop& loop, PciFunctionModel& model, ServerLimits limits)
    : loop_(loop), limits_(limits), dma_maps_(limits.max_dma_maps), guest_memory_(dma_maps_),
      device_(model, guest_memory_),
      session_(std::make_unique<Session>(device_, dma_maps_, limits_)) {}

Server::~Server() {
  connection_.reset();
  if (listener_) {
    loop_.remove_fd(listener_.get());
    listener_.reset();
    unlink(socket_path_.c_str());
  }
}

void Server::listen(const std::string& path) {
  const sockaddr_un addr = unix_address(path);
  remove_stale_socket(path, addr);
  UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd)
    throw_errno("socket");
  if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) < 0)
    throw_errno("bind " + path);
  if (::listen(fd.get(), 4) < 0) {
    unlink(path.c_str());
    throw_errno("listen " + path);
  }
  listener_ = std::move(fd);
  socket_path_ = path;
  loop_.add_fd(listener_.get(), EPOLLIN, [this](uint32_t) { on_listener_ready(); });
  spdlog::info("vfio-user: listening on {}", path);
}

void Server::on_listener_ready() {
  UniqueFd client(accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
  if (!client) {
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      spdlog::warn("vfio-user: accept failed: {}", std::strerror(errno));
    return;
  }
  // The old client's hang-up may be in this same event batch, or not processed yet.
  if (connection_ && connection_->peer_gone())
    drop_client("client gone");
  if (connection_) {
    ++clients_refused_;
    spdlog::warn("vfio-user: refused a second client: one client at a time");
    return; // closing `client` tells it
  }
  spdlog::info("vfio-user: client connected");
  adopt_client(std::move(client));
}

void Server::adopt_client(UniqueFd socket) {
  if (connection_)
    drop_client("replaced by a new client");
  ++clients_served_;
  session_ = std::make_unique<Session>(device_, dma_maps_, limits_);
  // The close notification is posted: it must not outlive us or hit a newer client.
  auto closed = [this, alive = std::weak_ptr<int>(alive_), id = clients_served_] {
    if (!alive.expired() && id == clients_served_)
      drop_client("client gone");
  };
  connection_ = std::make_unique<Connection>(loop_, std::move(socket), *session_,
                                             limits_.max_message_size(), std::move(closed));
}

void Server::drop_client(const char* why) {
  if (!connection_)
    return;
  connection_.reset();
  // Forget everything the client gave us: its memory, its eventfds, the device state.
  const size_t maps = dma_maps_.count();
  dma_maps_.clear();
  device_.msix().clear_triggers();
  device_.reset();
  spdlog::info("vfio-user: {}: dropped {} DMA maps, device reset, waiting for a client", why, maps);
  const SessionStats& st = session_->stats();
  spdlog::info("vfio-user: the session had {} requests, {} error replies, {} silent errors, "
               "{} posted writes, {} DMA maps ({} without an fd, not DMA-able), {} unmaps, "
               "{} resets",
               st.requests, st.error_replies, st.silent_errors, st.posted_writes, st.dma_maps,
               st.fdless_dma_maps, st.dma_unmaps, st.resets);
}

} // namespace ornic::vfio_user
