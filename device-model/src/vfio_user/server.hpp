// The vfio-user server of one device: owns the device's PCI view, its DMA maps and the
// (single) client connection; listens on a unix socket.
//
// One client at a time: a second connection attempt is accepted and closed at once.
// When the client goes away (QEMU exits or is killed) every DMA map is dropped, the
// interrupt eventfds are closed and the device is reset, ready for the next client.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/event_loop.hpp"
#include "common/unique_fd.hpp"
#include "dma/dma_map_table.hpp"
#include "dma/mapped_guest_memory.hpp"
#include "pci/pci_device.hpp"
#include "vfio_user/connection.hpp"
#include "vfio_user/limits.hpp"
#include "vfio_user/session.hpp"

namespace ornic::vfio_user {

class Server {
public:
  // Attaches the model (throws std::invalid_argument if its layout is broken).
  Server(EventLoop& loop, PciFunctionModel& model, ServerLimits limits = {});
  ~Server(); // closes the client, stops listening and removes the socket file
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and listens on a unix stream socket at path. A stale socket file (nobody
  // listening) is replaced; a live one or any other file is an error
  // (std::system_error / std::runtime_error).
  void listen(const std::string& path);

  // Serves an already connected stream socket (tests: one end of a socketpair). Drops
  // the current client first, if any.
  void adopt_client(UniqueFd socket);

  bool has_client() const { return connection_ != nullptr; }
  uint64_t clients_served() const { return clients_served_; }
  uint64_t clients_refused() const { return clients_refused_; }

  PciDevice& device() { return device_; }
  const DmaMapTable& dma_maps() const { return dma_maps_; }
  // Statistics of the current client's session (or of the last one, if none).
  const SessionStats& stats() const { return session_->stats(); }

private:
  void on_listener_ready();
  void drop_client(const char* why);

  EventLoop& loop_;
  ServerLimits limits_;
  DmaMapTable dma_maps_;
  MappedGuestMemory guest_memory_;
  PciDevice device_;
  std::unique_ptr<Session> session_;
  std::unique_ptr<Connection> connection_;
  UniqueFd listener_;
  std::string socket_path_;
  uint64_t clients_served_ = 0;
  uint64_t clients_refused_ = 0;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0); // for posted callbacks
};

} // namespace ornic::vfio_user
