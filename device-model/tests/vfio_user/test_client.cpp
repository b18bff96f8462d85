#include "test_client.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <poll.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include "vfio_user/wire.hpp"

namespace ornic::vfio_user::testing {

TestClient::TestClient(UniqueFd socket, std::function<void()> pump)
    : socket_(std::move(socket)), pump_(std::move(pump)) {}

void TestClient::send_raw(std::span<const std::byte> bytes, std::span<const int> fds) {
  iovec iov{const_cast<std::byte*>(bytes.data()), bytes.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  std::vector<char> control;
  if (!fds.empty()) {
    control.resize(CMSG_SPACE(sizeof(int) * fds.size()));
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = sendmsg(socket_.get(), &msg, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) {
        if (pump_)
          pump_();
        continue;
      }
      throw std::runtime_error(std::string("test client send: ") + std::strerror(errno));
    }
    sent += static_cast<size_t>(n);
    iov.iov_base = const_cast<std::byte*>(bytes.data()) + sent;
    iov.iov_len = bytes.size() - sent;
    msg.msg_control = nullptr; // fds go with the first byte only
    msg.msg_controllen = 0;
  }
}

uint16_t TestClient::send_command(uint16_t command, std::span<const std::byte> payload,
                                  std::span<const int> fds, uint32_t flags) {
  const uint16_t id = next_id_++;
  std::vector<std::byte> bytes;
  encode_header(
      {id, command, static_cast<uint32_t>(kHeaderSize + payload.size()), kTypeRequest | flags, 0},
      bytes);
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  send_raw(bytes, fds);
  return id;
}

uint16_t TestClient::send(Command command, std::span<const std::byte> payload,
                          std::span<const int> fds, uint32_t flags) {
  return send_command(static_cast<uint16_t>(command), payload, fds, flags);
}

bool TestClient::fill(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (pump_)
      pump_();
    std::byte chunk[65536];
    const ssize_t n = recv(socket_.get(), chunk, sizeof(chunk), MSG_DONTWAIT);
    if (n > 0) {
      in_.insert(in_.end(), chunk, chunk + n);
      return true;
    }
    if (n == 0) {
      eof_ = true;
      return false;
    }
    if (errno != EAGAIN && errno != EINTR) {
      eof_ = true;
      return false;
    }
    if (std::chrono::steady_clock::now() >= deadline)
      return false;
    if (!pump_) {
      pollfd p{socket_.get(), POLLIN, 0};
      poll(&p, 1, 10);
    }
  }
}

std::optional<Message> TestClient::receive(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (in_.size() >= kHeaderSize) {
      const Header h =
          decode_header(std::span<const std::byte, kHeaderSize>(in_.data(), kHeaderSize));
      if (h.size < kHeaderSize)
        throw std::runtime_error("server sent a header with size < 16");
      if (in_.size() >= h.size) {
        Message m{h, std::vector<std::byte>(in_.begin() + kHeaderSize, in_.begin() + h.size)};
        in_.erase(in_.begin(), in_.begin() + h.size);
        return m;
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline || eof_)
      return std::nullopt;
    fill(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now));
  }
}

bool TestClient::silent_for(std::chrono::milliseconds wait) {
  return !receive(wait).has_value();
}

bool TestClient::closed_by_server(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!eof_ && std::chrono::steady_clock::now() < deadline) {
    in_.clear();
    fill(std::chrono::milliseconds(10));
  }
  return eof_;
}

Message TestClient::request(Command command, std::span<const std::byte> payload,
                            std::span<const int> fds) {
  const uint16_t id = send(command, payload, fds);
  std::optional<Message> reply = receive();
  if (!reply)
    throw std::runtime_error(std::string("no reply to ") +
                             command_name(static_cast<uint16_t>(command)));
  EXPECT_EQ(reply->header.msg_id, id);
  EXPECT_EQ(reply->header.command, static_cast<uint16_t>(command));
  EXPECT_EQ(reply->header.flags & kFlagTypeMask, kTypeReply);
  EXPECT_EQ(reply->header.size, kHeaderSize + reply->payload.size());
  return *reply;
}

int TestClient::negotiate(bool write_multiple, std::string* reply_json) {
  std::string json = R"({"capabilities":{"max_msg_fds":16,"max_data_xfer_size":1048576,)"
                     R"("pgsizes":4096,"max_dma_maps":65535,"migration":{"pgsize":4096,)"
                     R"("max_bitmap_size":268435456})";
  json += write_multiple ? R"(,"write_multiple":true}})" : "}}";
  Payload p;
  p.put<uint16_t>(0).put<uint16_t>(0).bytes(std::as_bytes(std::span(json.data(), json.size() + 1)));
  Message reply = request(Command::kVersion, p);
  if (reply.is_error())
    return static_cast<int>(reply.header.error);
  if (reply_json && reply.payload.size() > 4)
    reply_json->assign(reinterpret_cast<const char*>(reply.payload.data()) + 4,
                       reply.payload.size() - 5);
  return 0;
}

int TestClient::region_write(uint32_t region, uint64_t offset, std::span<const std::byte> data) {
  Payload p;
  p.put(offset).put(region).put(static_cast<uint32_t>(data.size())).bytes(data);
  Message reply = request(Command::kRegionWrite, p);
  return reply.is_error() ? static_cast<int>(reply.header.error) : 0;
}

void TestClient::posted_region_write(uint32_t region, uint64_t offset,
                                     std::span<const std::byte> data) {
  Payload p;
  p.put(offset).put(region).put(static_cast<uint32_t>(data.size())).bytes(data);
  send(Command::kRegionWrite, p, {}, kFlagNoReply);
}

int TestClient::write32(uint32_t region, uint64_t offset, uint32_t value) {
  return region_write(region, offset, std::as_bytes(std::span(&value, 1)));
}

void TestClient::posted_write32(uint32_t region, uint64_t offset, uint32_t value) {
  posted_region_write(region, offset, std::as_bytes(std::span(&value, 1)));
}

void TestClient::posted_write64(uint32_t region, uint64_t offset, uint64_t value) {
  posted_region_write(region, offset, std::as_bytes(std::span(&value, 1)));
}

int TestClient::region_read(uint32_t region, uint64_t offset, uint32_t count,
                            std::vector<std::byte>* out) {
  Payload p;
  p.put(offset).put(region).put(count);
  Message reply = request(Command::kRegionRead, p);
  if (reply.is_error())
    return static_cast<int>(reply.header.error);
  EXPECT_EQ(reply.payload.size(), kRegionAccessSize + count);
  EXPECT_EQ(get_le<uint64_t>(reply.payload, 0), offset);
  EXPECT_EQ(get_le<uint32_t>(reply.payload, 8), region);
  EXPECT_EQ(get_le<uint32_t>(reply.payload, 12), count);
  if (out)
    out->assign(reply.payload.begin() + kRegionAccessSize, reply.payload.end());
  return 0;
}

uint64_t TestClient::read_le(uint32_t region, uint64_t offset, unsigned size) {
  std::vector<std::byte> data;
  if (region_read(region, offset, size, &data) != 0 || data.size() != size)
    return ~uint64_t{0};
  uint64_t value = 0;
  std::memcpy(&value, data.data(), size);
  return value;
}

int TestClient::dma_map(uint64_t iova, uint64_t size, uint64_t fd_offset, int fd, uint32_t flags) {
  Payload p;
  p.put<uint32_t>(kDmaMapSize).put(flags).put(fd_offset).put(iova).put(size);
  std::vector<int> fds;
  if (fd >= 0)
    fds.push_back(fd);
  Message reply = request(Command::kDmaMap, p, fds);
  return reply.is_error() ? static_cast<int>(reply.header.error) : 0;
}

int TestClient::dma_unmap(uint64_t iova, uint64_t size, uint32_t flags) {
  Payload p;
  p.put<uint32_t>(kDmaUnmapSize).put(flags).put(iova).put(size);
  Message reply = request(Command::kDmaUnmap, p);
  return reply.is_error() ? static_cast<int>(reply.header.error) : 0;
}

int TestClient::set_irqs(uint32_t flags, uint32_t index, uint32_t start, uint32_t count,
                         std::span<const int> fds, std::span<const std::byte> data) {
  Payload p;
  p.put(static_cast<uint32_t>(kIrqSetSize + data.size()))
      .put(flags)
      .put(index)
      .put(start)
      .put(count)
      .bytes(data);
  Message reply = request(Command::kDeviceSetIrqs, p, fds);
  return reply.is_error() ? static_cast<int>(reply.header.error) : 0;
}

int TestClient::device_reset() {
  Message reply = request(Command::kDeviceReset, {});
  return reply.is_error() ? static_cast<int>(reply.header.error) : 0;
}

} // namespace ornic::vfio_user::testing
