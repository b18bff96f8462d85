// The listening socket and client lifecycle: disconnect cleans up, reconnect works,
// one client at a time.
#include <filesystem>

#include <fcntl.h>
#include <sys/un.h>

#include "server_fixture.hpp"
#include "vfio_user/wire.hpp"

namespace ornic::vfio_user::testing {
namespace {

class ListenerTest : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ornic-vfio-user-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/dev.sock";
    server_ = std::make_unique<Server>(loop_, model_);
    server_->listen(path_);
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }
  void pump() {
    while (loop_.run_once(std::chrono::milliseconds(0))) {
    }
  }
  std::unique_ptr<TestClient> connect_client() {
    UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path_.copy(addr.sun_path, path_.size());
    EXPECT_EQ(connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    auto client = std::make_unique<TestClient>(std::move(fd), [this] { pump(); });
    pump();
    return client;
  }

  EventLoop loop_;
  TestFunctionModel model_;
  std::unique_ptr<Server> server_;
  std::string dir_;
  std::string path_;
};

TEST_F(ListenerTest, DisconnectCleansUpAndReconnectWorks) {
  UniqueFd ram(memfd_create("ram", MFD_CLOEXEC));
  ASSERT_EQ(ftruncate(ram.get(), 1 << 20), 0);
  {
    auto client = connect_client();
    ASSERT_EQ(client->negotiate(), 0);
    ASSERT_EQ(client->dma_map(0x100000, 1 << 20, 0, ram.get()), 0);
    UniqueFd efd(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
    const int raw = efd.get();
    ASSERT_EQ(client->set_irqs(kIrqSetDataEventfd | kIrqSetActionTrigger, kPciMsixIrqIndex, 0, 1,
                               std::span(&raw, 1)),
              0);
    EXPECT_EQ(server_->dma_maps().count(), 1u);
    EXPECT_TRUE(server_->device().msix().has_trigger(0));
  } // client destroyed: socket closed, like QEMU being killed
  pump();
  EXPECT_FALSE(server_->has_client());
  EXPECT_EQ(server_->dma_maps().count(), 0u);
  EXPECT_FALSE(server_->device().msix().has_trigger(0));
  EXPECT_EQ(model_.resets, 1);

  auto again = connect_client();
  ASSERT_EQ(again->negotiate(), 0);
  EXPECT_EQ(again->read_le(kConfig, 0, 2), 0x1de5u);
  EXPECT_EQ(server_->clients_served(), 2u);
}

TEST_F(ListenerTest, NewClientArrivingWithTheOldOnesHangUpIsServed) {
  auto first = connect_client();
  ASSERT_EQ(first->negotiate(), 0);
  first.reset(); // QEMU killed ...
  // ... and a new QEMU connects before the server has run: both events in one batch.
  UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  path_.copy(addr.sun_path, path_.size());
  ASSERT_EQ(connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  TestClient second(std::move(fd), [this] { pump(); });
  ASSERT_EQ(second.negotiate(), 0);
  EXPECT_EQ(second.read_le(kConfig, 0, 2), 0x1de5u);
  EXPECT_EQ(server_->clients_refused(), 0u);
  EXPECT_EQ(server_->clients_served(), 2u);
}

TEST_F(ListenerTest, SecondClientIsRefusedWhileFirstIsServed) {
  auto first = connect_client();
  ASSERT_EQ(first->negotiate(), 0);
  auto second = connect_client();
  EXPECT_TRUE(second->closed_by_server());
  EXPECT_EQ(server_->clients_refused(), 1u);
  EXPECT_EQ(first->read_le(kConfig, 0, 2), 0x1de5u);
}

TEST_F(ListenerTest, HangUpInTheMiddleOfAMessage) {
  {
    auto client = connect_client();
    ASSERT_EQ(client->negotiate(), 0);
    std::vector<std::byte> partial;
    encode_header({5, static_cast<uint16_t>(Command::kRegionWrite), 1000, 0, 0}, partial);
    partial.resize(100);
    client->send_raw(partial);
    pump();
  }
  pump();
  EXPECT_FALSE(server_->has_client());
  auto again = connect_client();
  ASSERT_EQ(again->negotiate(), 0);
}

TEST_F(ListenerTest, StaleSocketFileIsReplacedLiveOneIsNot) {
  EventLoop other_loop;
  TestFunctionModel other_model;
  Server other(other_loop, other_model);
  EXPECT_ANY_THROW(other.listen(path_)); // ours is alive
  server_.reset();                       // removes the file
  EXPECT_FALSE(std::filesystem::exists(path_));
  // Leave a stale socket file behind (bound, then closed without unlink).
  {
    UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path_.copy(addr.sun_path, path_.size());
    ASSERT_EQ(bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  }
  EXPECT_NO_THROW(other.listen(path_));
  // A regular file is never replaced.
  const std::string file = dir_ + "/not-a-socket";
  {
    FILE* f = fopen(file.c_str(), "w");
    fclose(f);
  }
  Server third(other_loop, other_model);
  EXPECT_ANY_THROW(third.listen(file));
  EXPECT_TRUE(std::filesystem::exists(file));
}

TEST_F(ListenerTest, ClientThatNeverReadsRepliesDoesNotHangServer) {
  auto client = connect_client();
  ASSERT_EQ(client->negotiate(), 0);
  // Fill the socket with requests whose replies nobody reads.
  std::vector<std::byte> bytes;
  for (uint16_t id = 0; id < 2000; ++id) {
    encode_header({id, static_cast<uint16_t>(Command::kRegionRead), 32, 0, 0}, bytes);
    WireWriter(bytes).put<uint64_t>(0).put<uint32_t>(kConfig).put<uint32_t>(4096);
  }
  const int flags = fcntl(client->fd(), F_GETFL);
  fcntl(client->fd(), F_SETFL, flags | O_NONBLOCK);
  size_t sent = 0;
  for (int i = 0; i < 200 && sent < bytes.size(); ++i) {
    const ssize_t n = ::send(client->fd(), bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n > 0)
      sent += static_cast<size_t>(n);
    pump(); // must always return: the server never blocks on a full socket
  }
  SUCCEED();
}

} // namespace
} // namespace ornic::vfio_user::testing
