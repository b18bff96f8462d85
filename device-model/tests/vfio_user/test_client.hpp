// In-process vfio-user client for tests: speaks the protocol over a real socket with
// real fds (SCM_RIGHTS). While it waits for a reply it calls `pump` so a server on the
// same thread can run its event loop; with a server on another thread pump is empty
// and the client simply blocks in poll().
#pragma once

#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/unique_fd.hpp"
#include "vfio_user/protocol.hpp"

namespace ornic::vfio_user::testing {

struct Message {
  Header header;
  std::vector<std::byte> payload;
  bool is_error() const { return (header.flags & kFlagError) != 0; }
};

class TestClient {
public:
  TestClient(UniqueFd socket, std::function<void()> pump);

  // Sends bytes as one sendmsg, with fds attached.
  void send_raw(std::span<const std::byte> bytes, std::span<const int> fds = {});
  // Builds and sends a request; returns its message id.
  uint16_t send(Command command, std::span<const std::byte> payload, std::span<const int> fds = {},
                uint32_t flags = 0);
  uint16_t send_command(uint16_t command, std::span<const std::byte> payload,
                        std::span<const int> fds = {}, uint32_t flags = 0);
  // Next message from the server, nullopt on timeout or EOF.
  std::optional<Message> receive(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // True if the server sent nothing within `wait` (pumping all the while).
  bool silent_for(std::chrono::milliseconds wait = std::chrono::milliseconds(20));
  // True once the server has closed the connection.
  bool closed_by_server(std::chrono::milliseconds timeout = std::chrono::seconds(5));

  // send + receive; checks that the reply answers the request (id, command, type).
  Message request(Command command, std::span<const std::byte> payload,
                  std::span<const int> fds = {});

  // Protocol helpers. Return 0 or the errno of the error reply.
  int negotiate(bool write_multiple = true, std::string* reply_json = nullptr);
  int region_write(uint32_t region, uint64_t offset, std::span<const std::byte> data);
  void posted_region_write(uint32_t region, uint64_t offset, std::span<const std::byte> data);
  int write32(uint32_t region, uint64_t offset, uint32_t value);
  void posted_write32(uint32_t region, uint64_t offset, uint32_t value);
  void posted_write64(uint32_t region, uint64_t offset, uint64_t value);
  int region_read(uint32_t region, uint64_t offset, uint32_t count,
                  std::vector<std::byte>* out = nullptr);
  uint64_t read_le(uint32_t region, uint64_t offset, unsigned size); // ~0 on error
  int dma_map(uint64_t iova, uint64_t size, uint64_t fd_offset, int fd,
              uint32_t flags = kDmaMapFlagRead | kDmaMapFlagWrite);
  int dma_unmap(uint64_t iova, uint64_t size, uint32_t flags = 0);
  int set_irqs(uint32_t flags, uint32_t index, uint32_t start, uint32_t count,
               std::span<const int> fds = {}, std::span<const std::byte> data = {});
  int device_reset();

  int fd() const { return socket_.get(); }
  void close() { socket_.reset(); }

private:
  bool fill(std::chrono::milliseconds timeout);

  UniqueFd socket_;
  std::function<void()> pump_;
  std::vector<std::byte> in_;
  uint16_t next_id_ = 1;
  bool eof_ = false;
};

// Little helpers to build payloads.
class Payload {
public:
  template <typename T>
  Payload& put(T value) {
    const size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &value, sizeof(T));
    return *this;
  }
  Payload& bytes(std::span<const std::byte> more) {
    bytes_.insert(bytes_.end(), more.begin(), more.end());
    return *this;
  }
  std::span<const std::byte> span() const { return bytes_; }
  operator std::span<const std::byte>() const { return bytes_; }
  std::vector<std::byte>& vec() { return bytes_; }

private:
  std::vector<std::byte> bytes_;
};

template <typename T>
T get_le(std::span<const std::byte> bytes, size_t offset) {
  T value{};
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

} // namespace ornic::vfio_user::testing
