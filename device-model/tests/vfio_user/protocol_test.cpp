// Normal operation: handshake, device/region/irq info, config space, BAR access.
#include <nlohmann/json.hpp>

#include "server_fixture.hpp"

namespace ornic::vfio_user::testing {
namespace {

TEST_F(ServerTest, VersionHandshakeAdvertisesLimits) {
  std::string json;
  ASSERT_EQ(client_->negotiate(true, &json), 0);
  const auto caps = nlohmann::json::parse(json).at("capabilities");
  EXPECT_EQ(caps.at("max_msg_fds"), 16);
  EXPECT_EQ(caps.at("max_data_xfer_size"), 1 << 20);
  EXPECT_EQ(caps.at("pgsizes"), 4096);
  EXPECT_EQ(caps.at("max_dma_maps"), 65535);
  EXPECT_EQ(caps.at("write_multiple"), true);
  EXPECT_FALSE(caps.contains("migration"));
}

TEST_F(ServerTest, WriteMultipleOnlyWhenClientOffersIt) {
  std::string json;
  ASSERT_EQ(client_->negotiate(false, &json), 0);
  EXPECT_FALSE(nlohmann::json::parse(json).at("capabilities").contains("write_multiple"));
}

TEST_F(ServerTest, VersionWithoutJsonIsAccepted) {
  Payload p;
  p.put<uint16_t>(0).put<uint16_t>(0);
  EXPECT_FALSE(client_->request(Command::kVersion, p).is_error());
}

TEST_F(ServerTest, DeviceInfo) {
  ASSERT_EQ(client_->negotiate(), 0);
  Payload p;
  p.put<uint32_t>(16).put<uint32_t>(0).put<uint32_t>(0).put<uint32_t>(0);
  Message reply = client_->request(Command::kDeviceGetInfo, p);
  ASSERT_FALSE(reply.is_error());
  ASSERT_EQ(reply.payload.size(), 16u);
  EXPECT_EQ(get_le<uint32_t>(reply.payload, 4), kDeviceFlagReset | kDeviceFlagPci);
  EXPECT_EQ(get_le<uint32_t>(reply.payload, 8), 9u);
  EXPECT_EQ(get_le<uint32_t>(reply.payload, 12), 5u);
}

TEST_F(ServerTest, RegionInfoForEveryRegion) {
  ASSERT_EQ(client_->negotiate(), 0);
  const uint64_t expected[9] = {64 * 1024, 0, 16 * 1024, 0, 0, 0, 0, 4096, 0};
  for (uint32_t index = 0; index < 9; ++index) {
    Payload p;
    p.put<uint32_t>(32).put<uint32_t>(0).put(index).put<uint32_t>(0).put<uint64_t>(0).put<uint64_t>(
        0);
    Message reply = client_->request(Command::kDeviceGetRegionInfo, p);
    ASSERT_FALSE(reply.is_error()) << index;
    ASSERT_EQ(reply.payload.size(), 32u);
    EXPECT_EQ(get_le<uint32_t>(reply.payload, 0), 32u); // argsz: no capabilities
    EXPECT_EQ(get_le<uint32_t>(reply.payload, 8), index);
    EXPECT_EQ(get_le<uint64_t>(reply.payload, 16), expected[index]) << index;
    const uint32_t flags = get_le<uint32_t>(reply.payload, 4);
    EXPECT_EQ(flags, expected[index] ? kRegionFlagRead | kRegionFlagWrite : 0u);
    EXPECT_EQ(flags & 4u, 0u) << "nothing may be mmap-able (it disables posted writes)";
  }
}

TEST_F(ServerTest, IrqInfo) {
  ASSERT_EQ(client_->negotiate(), 0);
  auto irq_info = [&](uint32_t index) {
    Payload p;
    p.put<uint32_t>(16).put<uint32_t>(0).put(index).put<uint32_t>(0);
    return client_->request(Command::kDeviceGetIrqInfo, p);
  };
  Message msix = irq_info(kPciMsixIrqIndex);
  ASSERT_FALSE(msix.is_error());
  EXPECT_EQ(get_le<uint32_t>(msix.payload, 4), kIrqInfoFlagEventfd);
  EXPECT_EQ(get_le<uint32_t>(msix.payload, 12), TestFunctionModel::kVectors);
  Message intx = irq_info(kPciIntxIrqIndex);
  ASSERT_FALSE(intx.is_error());
  EXPECT_EQ(get_le<uint32_t>(intx.payload, 12), 0u);
  EXPECT_TRUE(irq_info(kPciErrIrqIndex).is_error());
  EXPECT_TRUE(irq_info(77).is_error());
}

TEST_F(ServerTest, ConfigSpaceIdsAndCapabilities) {
  ASSERT_EQ(client_->negotiate(), 0);
  EXPECT_EQ(client_->read_le(kConfig, 0x00, 4), 0x00011de5u);
  EXPECT_EQ(client_->read_le(kConfig, 0x08, 4) >> 8, 0x020000u);
  EXPECT_EQ(client_->read_le(kConfig, 0x2c, 4), 0x01011de5u);
  EXPECT_EQ(client_->read_le(kConfig, 0x34, 1), 0x40u);
  EXPECT_EQ(client_->read_le(kConfig, 0x40, 1), 0x10u);
  EXPECT_EQ(client_->read_le(kConfig, 0x41, 1), 0x80u);
  EXPECT_EQ(client_->read_le(kConfig, 0x80, 1), 0x11u);
  EXPECT_EQ(client_->read_le(kConfig, 0x84, 4), 0x2u);
  EXPECT_EQ(client_->read_le(kConfig, 0x88, 4), 0x2002u);
  std::vector<std::byte> all;
  ASSERT_EQ(client_->region_read(kConfig, 0, 4096, &all), 0); // QEMU reads it all at once
  EXPECT_EQ(all.size(), 4096u);
}

TEST_F(ServerTest, BarWriteAndReadBack) {
  ASSERT_EQ(client_->negotiate(), 0);
  ASSERT_EQ(client_->write32(0, 0x10, 0xdeadbeef), 0);
  EXPECT_EQ(client_->read_le(0, 0x10, 4), 0xdeadbeefu);
  EXPECT_EQ(client_->read_le(0, 0x20, 8), 0u); // unimplemented reads 0
}

TEST_F(ServerTest, PostedWritesGetNoReply) {
  ASSERT_EQ(client_->negotiate(), 0);
  client_->posted_write32(0, 0x18, 0x1234);
  client_->posted_write64(0, 0x20, 0x1122334455667788ull);
  EXPECT_TRUE(client_->silent_for());
  // Ordered with later requests: the read sees both.
  EXPECT_EQ(client_->read_le(0, 0x18, 4), 0x1234u);
  EXPECT_EQ(client_->read_le(0, 0x20, 8), 0x1122334455667788ull);
  EXPECT_EQ(server_->stats().posted_writes, 2u);
}

TEST_F(ServerTest, WriteMultiAppliesEntriesInOrderWithoutReply) {
  ASSERT_EQ(client_->negotiate(true), 0);
  Payload p;
  p.put<uint64_t>(3);
  p.put<uint64_t>(0x30).put<uint32_t>(0).put<uint32_t>(4).put<uint64_t>(0xaaaa);
  p.put<uint64_t>(0x30).put<uint32_t>(0).put<uint32_t>(4).put<uint64_t>(0xbbbb); // same reg
  p.put<uint64_t>(0x38).put<uint32_t>(0).put<uint32_t>(8).put<uint64_t>(0x0102030405060708ull);
  client_->send(Command::kRegionWriteMulti, p, {}, kFlagNoReply);
  EXPECT_TRUE(client_->silent_for());
  EXPECT_EQ(client_->read_le(0, 0x30, 4), 0xbbbbu);
  EXPECT_EQ(client_->read_le(0, 0x38, 8), 0x0102030405060708ull);
}

TEST_F(ServerTest, WriteMultiSkipsOnlyTheBadEntry) {
  ASSERT_EQ(client_->negotiate(true), 0);
  Payload p;
  p.put<uint64_t>(3);
  p.put<uint64_t>(0x40).put<uint32_t>(0).put<uint32_t>(4).put<uint64_t>(1);
  p.put<uint64_t>(0x40).put<uint32_t>(5).put<uint32_t>(4).put<uint64_t>(2); // no BAR5
  p.put<uint64_t>(0x48).put<uint32_t>(0).put<uint32_t>(9).put<uint64_t>(3); // count > 8
  client_->send(Command::kRegionWriteMulti, p, {}, kFlagNoReply);
  EXPECT_TRUE(client_->silent_for());
  EXPECT_EQ(client_->read_le(0, 0x40, 4), 1u);
  EXPECT_EQ(server_->stats().silent_errors, 1u);
}

TEST_F(ServerTest, WriteMultiRefusedUnlessNegotiated) {
  ASSERT_EQ(client_->negotiate(false), 0);
  Payload p;
  p.put<uint64_t>(1).put<uint64_t>(0x40).put<uint32_t>(0).put<uint32_t>(4).put<uint64_t>(1);
  Message reply = client_->request(Command::kRegionWriteMulti, p);
  EXPECT_TRUE(reply.is_error());
  EXPECT_EQ(reply.header.error, static_cast<uint32_t>(ENOTSUP));
}

TEST_F(ServerTest, UnalignedAndOddSizedBarAccess) {
  ASSERT_EQ(client_->negotiate(), 0);
  std::vector<std::byte> data(3, std::byte{0x7f});
  ASSERT_EQ(client_->region_write(0, 0x51, data), 0);
  std::vector<std::byte> back;
  ASSERT_EQ(client_->region_read(0, 0x51, 3, &back), 0);
  EXPECT_EQ(back, data);
}

} // namespace
} // namespace ornic::vfio_user::testing
