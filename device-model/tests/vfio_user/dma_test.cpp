// DMA_MAP / DMA_UNMAP through the protocol, checked by letting the device DMA.
#include <limits>

#include "server_fixture.hpp"

namespace ornic::vfio_user::testing {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

class DmaTest : public ServerTest {
protected:
  void SetUp() override {
    ServerTest::SetUp();
    make_guest_ram(64 * kPage);
    ASSERT_EQ(client_->negotiate(), 0);
    enable_bus_master();
  }
  uint64_t& ram_u64(uint64_t file_offset) {
    return *reinterpret_cast<uint64_t*>(ram_ + file_offset);
  }
};

TEST_F(DmaTest, DeviceDmaReachesGuestRam) {
  ASSERT_EQ(client_->dma_map(0x100000, 16 * kPage, 4 * kPage, ram_fd_.get()), 0);
  ram_u64(4 * kPage + 0x18) = 40;
  EXPECT_EQ(device_dma_add(0x100000 + 0x18, 2), 1u);
  EXPECT_EQ(ram_u64(4 * kPage + 0x18), 42u);
  EXPECT_EQ(server_->dma_maps().count(), 1u);
}

TEST_F(DmaTest, NoDmaWithoutBusMaster) {
  ASSERT_EQ(client_->dma_map(0x100000, kPage, 0, ram_fd_.get()), 0);
  ASSERT_EQ(client_->write32(kConfig, 0x04, 0x0002), 0); // memory only
  EXPECT_EQ(device_dma_add(0x100000, 1), 2u);
  EXPECT_EQ(ram_u64(0), 0u);
}

// QEMU's fd-less ROM areas: acknowledged (an error reply can make QEMU abort), never
// entered, so the device's DMA there fails as to any unmapped address.
TEST_F(DmaTest, MapWithoutFdIsAcknowledgedButNotDmaAble) {
  EXPECT_EQ(client_->dma_map(0x100000, kPage, 0, -1), 0);
  EXPECT_EQ(server_->dma_maps().count(), 0u);
  EXPECT_EQ(device_dma_add(0x100000, 1), 2u); // the DMA faults
  EXPECT_EQ(client_->dma_unmap(0x100000, kPage), 0);
  EXPECT_EQ(client_->read_le(kConfig, 0, 2), 0x1de5u); // still serving
}

TEST_F(DmaTest, MapWithTwoFdsIsRefused) {
  Payload p;
  p.put<uint32_t>(32).put<uint32_t>(3).put<uint64_t>(0).put<uint64_t>(0x1000).put<uint64_t>(kPage);
  const int fds[2] = {ram_fd_.get(), ram_fd_.get()};
  EXPECT_TRUE(client_->request(Command::kDmaMap, p, fds).is_error());
}

TEST_F(DmaTest, OverlappingMapIsRefused) {
  ASSERT_EQ(client_->dma_map(0x100000, 4 * kPage, 0, ram_fd_.get()), 0);
  EXPECT_EQ(client_->dma_map(0x100000 + kPage, 4 * kPage, 0, ram_fd_.get()), EEXIST);
  EXPECT_EQ(client_->dma_map(0x100000 - kPage, 2 * kPage, 0, ram_fd_.get()), EEXIST);
  EXPECT_EQ(client_->dma_map(0x100000 + 4 * kPage, kPage, 0, ram_fd_.get()), 0); // adjacent
}

TEST_F(DmaTest, MapBeyondEndOfFileOrWrappingIsRefused) {
  EXPECT_NE(client_->dma_map(0x100000, 2 * kPage, 63 * kPage, ram_fd_.get()), 0);
  EXPECT_NE(client_->dma_map(kMax - kPage + 2, kPage, 0, ram_fd_.get()), 0);
  EXPECT_NE(client_->dma_map(0x100000, 0, 0, ram_fd_.get()), 0);
  EXPECT_NE(client_->dma_map(0x100000, kPage, 0, ram_fd_.get(), 0x4 /* unknown flag */), 0);
  EXPECT_EQ(server_->dma_maps().count(), 0u);
}

TEST_F(DmaTest, ReadOnlyMapRefusesDeviceWrites) {
  ASSERT_EQ(client_->dma_map(0x100000, kPage, 0, ram_fd_.get(), kDmaMapFlagRead), 0);
  EXPECT_EQ(device_dma_add(0x100000, 1), 2u);
}

TEST_F(DmaTest, PartialUnmapSplitsTheMap) {
  ASSERT_EQ(client_->dma_map(0x100000, 4 * kPage, 0, ram_fd_.get()), 0);
  ASSERT_EQ(client_->dma_unmap(0x100000 + kPage, kPage), 0);
  EXPECT_EQ(server_->dma_maps().count(), 2u);
  EXPECT_EQ(device_dma_add(0x100000 + kPage, 1), 2u); // the hole
  EXPECT_EQ(device_dma_add(0x100000 + 2 * kPage + 8, 5), 1u);
  EXPECT_EQ(ram_u64(2 * kPage + 8), 5u); // the tail still points at the right bytes
  EXPECT_EQ(device_dma_add(0x100000 + kPage - 8, 7), 1u);
  EXPECT_EQ(ram_u64(kPage - 8), 7u);
}

TEST_F(DmaTest, AccessSpanningAdjacentMaps) {
  ASSERT_EQ(client_->dma_map(0x200000, kPage, 10 * kPage, ram_fd_.get()), 0);
  ASSERT_EQ(client_->dma_map(0x200000 + kPage, kPage, 3 * kPage, ram_fd_.get()), 0);
  // The u64 straddles the two maps: 4 bytes at the end of file page 10, 4 at page 3.
  EXPECT_EQ(device_dma_add(0x200000 + kPage - 4, 1), 1u);
  EXPECT_EQ(*reinterpret_cast<uint32_t*>(ram_ + 10 * kPage + kPage - 4), 1u);
}

TEST_F(DmaTest, UnmapCoveringSeveralMapsAndHoles) {
  ASSERT_EQ(client_->dma_map(0x100000, kPage, 0, ram_fd_.get()), 0);
  ASSERT_EQ(client_->dma_map(0x300000, kPage, kPage, ram_fd_.get()), 0);
  ASSERT_EQ(client_->dma_unmap(0, 0x1000000), 0);
  EXPECT_EQ(server_->dma_maps().count(), 0u);
  EXPECT_EQ(client_->dma_unmap(0x5000000, kPage), 0); // nothing there: fine
}

TEST_F(DmaTest, UnmapWhoseEndWrapsPast2To64) {
  ASSERT_EQ(client_->dma_map(kMax - 2 * kPage + 1, 2 * kPage, 0, ram_fd_.get()), 0);
  ASSERT_EQ(client_->dma_map(0, kPage, 0, ram_fd_.get()), 0);
  // iova + size wraps around to a small number: must not be read as an empty or low range.
  ASSERT_EQ(client_->dma_unmap(kMax - kPage + 1, 3 * kPage), 0);
  EXPECT_EQ(server_->dma_maps().count(), 2u);
  EXPECT_NE(server_->dma_maps().find(0), nullptr);
  EXPECT_EQ(server_->dma_maps().find(kMax), nullptr);
  EXPECT_NE(server_->dma_maps().find(kMax - kPage), nullptr);
}

TEST_F(DmaTest, UnmapAll) {
  for (uint64_t i = 0; i < 8; ++i)
    ASSERT_EQ(client_->dma_map(0x100000 + i * 2 * kPage, kPage, i * kPage, ram_fd_.get()), 0);
  EXPECT_EQ(client_->dma_unmap(0x1000, kPage, kDmaUnmapFlagAll), EINVAL); // ALL wants 0, 0
  EXPECT_EQ(server_->dma_maps().count(), 8u);
  ASSERT_EQ(client_->dma_unmap(0, 0, kDmaUnmapFlagAll), 0);
  EXPECT_EQ(server_->dma_maps().count(), 0u);
}

TEST_F(DmaTest, UnmapReplyEchoesTheRequest) {
  ASSERT_EQ(client_->dma_map(0x100000, kPage, 0, ram_fd_.get()), 0);
  Payload p;
  p.put<uint32_t>(24).put<uint32_t>(0).put<uint64_t>(0x100000).put<uint64_t>(kPage);
  Message reply = client_->request(Command::kDmaUnmap, p);
  ASSERT_FALSE(reply.is_error());
  ASSERT_EQ(reply.payload.size(), 24u);
  EXPECT_EQ(get_le<uint64_t>(reply.payload, 8), 0x100000u);
  EXPECT_EQ(get_le<uint64_t>(reply.payload, 16), kPage);
}

TEST_F(DmaTest, UnmapThenMapInOneReadKeepTheirOwnFds) {
  // QEMU sends DMA_UNMAP (no fd) and DMA_MAP (fd) back to back without waiting; the
  // server reads both at once and must give the fd to the DMA_MAP.
  ASSERT_EQ(client_->dma_map(0x100000, kPage, 0, ram_fd_.get()), 0);
  Payload unmap;
  unmap.put<uint32_t>(24).put<uint32_t>(0).put<uint64_t>(0x100000).put<uint64_t>(kPage);
  Payload map;
  map.put<uint32_t>(32).put<uint32_t>(3).put<uint64_t>(kPage).put<uint64_t>(0x200000).put<uint64_t>(
      kPage);
  const int fd = ram_fd_.get();
  const uint16_t unmap_id = client_->send(Command::kDmaUnmap, unmap);
  const uint16_t map_id = client_->send(Command::kDmaMap, map, std::span(&fd, 1));
  for (uint16_t id : {unmap_id, map_id}) {
    std::optional<Message> reply = client_->receive();
    ASSERT_TRUE(reply.has_value());
    EXPECT_EQ(reply->header.msg_id, id);
    EXPECT_FALSE(reply->is_error()) << "reply to message " << id;
  }
  EXPECT_EQ(server_->dma_maps().count(), 1u);
  EXPECT_NE(server_->dma_maps().find(0x200000), nullptr);
}

TEST_F(DmaTest, DirtyBitmapUnmapNotSupported) {
  EXPECT_EQ(client_->dma_unmap(0x100000, kPage, kDmaUnmapFlagGetDirtyBitmap), ENOTSUP);
}

} // namespace
} // namespace ornic::vfio_user::testing
