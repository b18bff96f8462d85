// A Server on a single-threaded EventLoop with a TestClient on the other end of a
// socketpair; the client pumps the loop while it waits.
#pragma once

#include <memory>

#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "common/event_loop.hpp"
#include "common/test_function_model.hpp"
#include "test_client.hpp"
#include "vfio_user/server.hpp"

namespace ornic::vfio_user::testing {

using ornic::testing::TestFunctionModel;

constexpr uint32_t kConfig = 7;
constexpr uint64_t kMsixControl = 0x80 + 2;
constexpr uint64_t kDevCtl = 0x40 + 8;

class ServerTest : public ::testing::Test {
protected:
  void SetUp() override {
    server_ = std::make_unique<Server>(loop_, model_);
    client_ = connect_client();
  }

  std::unique_ptr<TestClient> connect_client() {
    int sv[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    server_->adopt_client(UniqueFd(sv[0]));
    return std::make_unique<TestClient>(UniqueFd(sv[1]), [this] { pump(); });
  }

  void pump() {
    while (loop_.run_once(std::chrono::milliseconds(0))) {
    }
  }

  // Guest RAM: a memfd the client maps into the server, also mapped here to look at it.
  void make_guest_ram(size_t size) {
    ram_size_ = size;
    ram_fd_.reset(memfd_create("guest-ram", MFD_CLOEXEC));
    ASSERT_TRUE(ram_fd_.valid());
    ASSERT_EQ(ftruncate(ram_fd_.get(), static_cast<off_t>(size)), 0);
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, ram_fd_.get(), 0);
    ASSERT_NE(p, MAP_FAILED);
    ram_ = static_cast<std::byte*>(p);
  }

  void TearDown() override {
    client_.reset();
    server_.reset();
    if (ram_)
      munmap(ram_, ram_size_);
  }

  // Model's DMA test register: add `value` to the u64 at iova; returns the status register
  // (1 = done, 2 = DMA refused).
  uint64_t device_dma_add(uint64_t iova, uint64_t value) {
    uint64_t address = iova;
    EXPECT_EQ(client_->region_write(0, TestFunctionModel::kRegDmaAddress,
                                    std::as_bytes(std::span(&address, 1))),
              0);
    EXPECT_EQ(client_->write32(0, TestFunctionModel::kRegDmaAdd, static_cast<uint32_t>(value)), 0);
    return client_->read_le(0, TestFunctionModel::kRegDmaStatus, 8);
  }

  void enable_bus_master() { ASSERT_EQ(client_->write32(kConfig, 0x04, 0x0006), 0); }

  UniqueFd make_eventfd() { return UniqueFd(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)); }

  static uint64_t drain(int fd) {
    uint64_t value = 0;
    return read(fd, &value, sizeof(value)) == sizeof(value) ? value : 0;
  }

  EventLoop loop_;
  TestFunctionModel model_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<TestClient> client_;
  UniqueFd ram_fd_;
  std::byte* ram_ = nullptr;
  size_t ram_size_ = 0;
};

} // namespace ornic::vfio_user::testing
