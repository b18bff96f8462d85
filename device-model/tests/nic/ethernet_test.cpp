// The Ethernet function through a fake Port (ethernet.rst): TX descriptors to the wire,
// frames from the wire into posted RX buffers, drops and their counters, link events.
#include <gtest/gtest.h>

#include "driver_harness.hpp"

namespace ornic::test {
namespace {

std::vector<std::byte> frame_to(const MacAddress& dst, size_t length, uint8_t fill) {
  std::vector<std::byte> frame(length, std::byte{fill});
  for (size_t i = 0; i < 6; ++i)
    frame[i] = std::byte{dst[i]};
  return frame;
}

class NicEthernet : public ::testing::Test {
protected:
  explicit NicEthernet(ornic_link_layer link_layer = ORNIC_LINK_LAYER_ETH)
      : h(nullptr, nullptr, kTestMac, {}, GuestRam::fake, link_layer) {}

  void SetUp() override {
    ASSERT_TRUE(h.bring_up(32));
    cqn = h.create_cq(h.create_eq(), 6, 0, &cq_ring);
    tx = create_ring(ORNIC_ADMIN_ETH_CREATE_TX_RING, &tx_ring);
    rx = create_ring(ORNIC_ADMIN_ETH_CREATE_RX_RING, &rx_ring);
  }

  uint32_t create_ring(uint8_t opcode, uint64_t* ring) {
    ornic_admin_create_eth_ring c{};
    c.hdr.opcode = opcode;
    c.mem = h.contiguous_ring(16 * 16);
    c.log_depth = 4;
    c.cqn = to_le(cqn);
    *ring = le(c.mem.addr);
    const auto cqe = h.execute(DriverHarness::as_sqe(c));
    EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
    return le(cqe.result0);
  }

  ornic_cqe next_cqe() {
    const auto cqe = h.read<ornic_cqe>(cq_ring + uint64_t{cq_head} * ORNIC_CQE_SIZE);
    EXPECT_EQ(cqe.owner & ORNIC_CQE_OWNER_PHASE, expected_phase(cq_head, 64));
    ++cq_head;
    return cqe;
  }

  void post_rx(uint32_t index, uint64_t buffer, uint16_t length) {
    ornic_eth_rx_desc desc{};
    desc.addr = to_le(buffer);
    desc.length = to_le(length);
    h.write(rx_ring + uint64_t{index % 16} * ORNIC_ETH_DESC_SIZE, desc);
    h.doorbell(0, ORNIC_DB_ETH_RX, ORNIC_DB_VALUE(rx, 0, index + 1));
  }

  DriverHarness h;
  uint32_t cqn = 0, tx = 0, rx = 0, cq_head = 0;
  uint64_t cq_ring = 0, tx_ring = 0, rx_ring = 0;
};

TEST_F(NicEthernet, TransmitSendsFramesAndCompletes) {
  const auto frame = frame_to({0x02, 0, 0, 0, 0, 0x02}, 60, 0xab);
  const uint64_t buffer = h.alloc(frame.size(), 64);
  std::memcpy(h.memory.at(buffer), frame.data(), frame.size());
  ornic_eth_tx_desc desc{};
  desc.addr = to_le(buffer);
  desc.length = to_le<uint16_t>(60);
  h.write(tx_ring, desc);
  desc.length = to_le<uint16_t>(9000); // longer than MTU + 14
  h.write(tx_ring + ORNIC_ETH_DESC_SIZE, desc);
  h.doorbell(0, ORNIC_DB_ETH_TX, ORNIC_DB_VALUE(tx, 0, 2));
  h.run_loop();

  ASSERT_EQ(h.port.sent.size(), 1u);
  EXPECT_EQ(h.port.sent[0], frame);
  auto cqe = next_cqe();
  EXPECT_EQ(cqe.opcode, ORNIC_CQE_OP_ETH_TX);
  EXPECT_EQ(cqe.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(cqe.byte_len), 60u);
  EXPECT_EQ(le(cqe.qpn), tx);
  EXPECT_EQ(le(cqe.wr_id), 0u);
  cqe = next_cqe();
  EXPECT_EQ(cqe.status, ORNIC_CQE_GENERAL_ERR);
  EXPECT_EQ(cqe.vendor_err, ORNIC_VERR_MSG_TOO_LONG);
  EXPECT_EQ(le(cqe.wr_id), 1u);
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_TX_FRAMES), 1u);
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_TX_BYTES), 60u);
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_TX_ERRORS), 1u);
}

TEST_F(NicEthernet, TransmitWithLinkDownDropsButCompletes) {
  h.port.set_link(false);
  ornic_eth_tx_desc desc{};
  desc.addr = to_le(h.alloc(64, 64));
  desc.length = to_le<uint16_t>(64);
  h.write(tx_ring, desc);
  h.doorbell(0, ORNIC_DB_ETH_TX, ORNIC_DB_VALUE(tx, 0, 1));
  h.run_loop();
  EXPECT_TRUE(h.port.sent.empty());
  EXPECT_EQ(next_cqe().status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_TX_LINK_DOWN), 1u);
}

TEST_F(NicEthernet, ReceiveFillsPostedBuffers) {
  const auto frame = frame_to(kTestMac, 100, 0x5c);
  h.port.deliver(frame); // nothing posted yet
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_NO_BUFFER), 1u);

  const uint64_t buffer = h.alloc(2048, 64);
  post_rx(0, buffer, 2048);
  h.port.deliver(frame);
  const auto cqe = next_cqe();
  EXPECT_EQ(cqe.opcode, ORNIC_CQE_OP_ETH_RX);
  EXPECT_EQ(cqe.status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(cqe.byte_len), 100u);
  EXPECT_EQ(le(cqe.qpn), rx);
  EXPECT_EQ(std::memcmp(h.memory.at(buffer), frame.data(), frame.size()), 0);
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_FRAMES), 1u);
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_BYTES), 100u);
}

TEST_F(NicEthernet, ReceiveFiltersAndDrops) {
  const uint64_t buffer = h.alloc(2048, 64);
  post_rx(0, buffer, 128);
  h.port.deliver(frame_to({0x02, 9, 9, 9, 9, 9}, 80, 1)); // someone else's unicast
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_FILTERED), 1u);
  h.port.deliver(frame_to(kTestMac, 200, 1)); // longer than the posted buffer
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_TOO_LONG), 1u);
  h.port.deliver(frame_to({0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 64, 2)); // broadcast fits
  EXPECT_EQ(next_cqe().status, ORNIC_CQE_SUCCESS);

  // A descriptor with a bad length is consumed with an error completion.
  post_rx(1, buffer, 16);
  h.port.deliver(frame_to(kTestMac, 64, 3));
  const auto cqe = next_cqe();
  EXPECT_EQ(cqe.status, ORNIC_CQE_GENERAL_ERR);
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_ERRORS), 1u);
}

TEST_F(NicEthernet, SetMacChangesTheFilter) {
  ornic_admin_eth_set_mac c{};
  c.hdr.opcode = ORNIC_ADMIN_ETH_SET_MAC;
  const MacAddress mac = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
  std::copy(mac.begin(), mac.end(), c.mac);
  ASSERT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  c.mac[0] = 0x01; // multicast
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  post_rx(0, h.alloc(2048, 64), 2048);
  h.port.deliver(frame_to(kTestMac, 64, 1));
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_FILTERED), 1u);
  h.port.deliver(frame_to(mac, 64, 1));
  EXPECT_EQ(next_cqe().status, ORNIC_CQE_SUCCESS);
}

TEST_F(NicEthernet, MtuBoundsTransmitAndReceive) {
  ornic_admin_eth_set_mtu c{};
  c.hdr.opcode = ORNIC_ADMIN_ETH_SET_MTU;
  c.mtu = to_le(9001u);
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  c.mtu = to_le(9000u);
  ASSERT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  post_rx(0, h.alloc(9014, 64), 9014);
  h.port.deliver(frame_to(kTestMac, 9014, 7));
  EXPECT_EQ(le(next_cqe().byte_len), 9014u);
}

TEST_F(NicEthernet, LinkChangesBecomePortStateEvents) {
  h.port.set_link(false);
  EXPECT_EQ(h.reg(ORNIC_REG_LINK_STATUS) & ORNIC_LINK_STATUS_UP, 0u);
  auto event = h.poll_async_event();
  ASSERT_TRUE(event);
  EXPECT_EQ(event->type, ORNIC_EQE_PORT_STATE);
  EXPECT_EQ(le(event->data), static_cast<uint32_t>(ORNIC_PORT_DOWN));
  EXPECT_EQ(h.irqs.count(ORNIC_MSIX_VECTOR_ADMIN) >= 1, true);
  h.port.set_link(true);
  event = h.poll_async_event();
  ASSERT_TRUE(event);
  EXPECT_EQ(le(event->data), static_cast<uint32_t>(ORNIC_PORT_ACTIVE));
}

TEST_F(NicEthernet, RingsAreKernelOnlyAndCountedInQueryCounters) {
  const auto page = le(h.execute(DriverHarness::simple(ORNIC_ADMIN_ALLOC_DB_PAGE)).result0);
  h.doorbell(page, ORNIC_DB_ETH_TX, ORNIC_DB_VALUE(tx, 0, 1));
  h.doorbell(0, ORNIC_DB_ETH_TX, ORNIC_DB_VALUE(rx, 0, 1)); // RX ring through the TX register
  const auto counters = h.query_counters();
  EXPECT_EQ(le(counters.num_counters), static_cast<uint32_t>(ORNIC_CNT_COUNT));
  EXPECT_EQ(le(counters.counter[ORNIC_CNT_DB_FOREIGN_PAGE]), 1u);
  EXPECT_EQ(le(counters.counter[ORNIC_CNT_DB_BAD_QUEUE]), 1u);
  EXPECT_GE(le(counters.counter[ORNIC_CNT_ADMIN_COMMANDS]), 5u);
}

} // namespace
} // namespace ornic::test

namespace ornic::test {
namespace {

// An IPv4/UDP frame to 10.0.0.1:dport.
std::vector<std::byte> udp4_frame(uint16_t dport) {
  std::vector<std::byte> frame(14 + 20 + 8 + 16, std::byte{0});
  for (size_t i = 0; i < 6; ++i)
    frame[i] = std::byte{kTestMac[i]};
  frame[12] = std::byte{0x08};
  frame[14] = std::byte{0x45};
  frame[14 + 9] = std::byte{17};
  const uint8_t ip[4] = {10, 0, 0, 1};
  for (size_t i = 0; i < 4; ++i)
    frame[14 + 16 + i] = std::byte{ip[i]};
  frame[34 + 2] = std::byte{static_cast<uint8_t>(dport >> 8)};
  frame[34 + 3] = std::byte{static_cast<uint8_t>(dport)};
  return frame;
}

TEST_F(NicEthernet, RoceFramesForOurGidsNeverReachTheRxRing) {
  const std::array<uint8_t, 16> gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
  ASSERT_EQ(h.add_gid(0, gid).status, ORNIC_ADMIN_STATUS_SUCCESS);
  post_rx(0, h.alloc(2048, 64), 2048);
  h.port.deliver(udp4_frame(4791));
  EXPECT_EQ(h.counter(ORNIC_CNT_RX_RDMA_PACKETS), 1u);
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_FRAMES), 0u);
  h.port.deliver(udp4_frame(53)); // ordinary UDP goes to the net_device
  EXPECT_EQ(next_cqe().status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_FRAMES), 1u);
}

// A tagged RoCE frame is for the GID of its VLAN only; one for a GID on another VLAN, or
// with a tag the GID has none of, is the net_device's (which has no such VLAN and drops it).
TEST_F(NicEthernet, TaggedRoceFramesAreForTheGidOfTheirVlan) {
  const std::array<uint8_t, 16> gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
  ASSERT_EQ(h.add_gid(0, gid, ORNIC_GID_TYPE_ROCE_V2_IPV4, 42).status, ORNIC_ADMIN_STATUS_SUCCESS);
  post_rx(0, h.alloc(2048, 64), 2048);
  const auto tagged = [](std::vector<std::byte> frame, uint16_t tci) {
    const std::byte tag[4] = {std::byte{0x81}, std::byte{0}, std::byte(tci >> 8),
                              std::byte(tci & 0xff)};
    frame.insert(frame.begin() + 12, std::begin(tag), std::end(tag));
    return frame;
  };
  h.port.deliver(tagged(udp4_frame(4791), 3 << 13 | 42));
  EXPECT_EQ(h.counter(ORNIC_CNT_RX_RDMA_PACKETS), 1u);
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_FRAMES), 0u);
  h.port.deliver(udp4_frame(4791)); // untagged: not the VLAN GID's
  EXPECT_EQ(h.counter(ORNIC_CNT_RX_RDMA_PACKETS), 1u);
  h.port.deliver(tagged(udp4_frame(4791), 43)); // another VLAN
  EXPECT_EQ(h.counter(ORNIC_CNT_RX_RDMA_PACKETS), 1u);
  // VLAN IDs 0 and 4095 name no VLAN; the flag is needed for any.
  EXPECT_EQ(h.add_gid(1, gid, ORNIC_GID_TYPE_ROCE_V2_IPV4, 0).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(h.add_gid(1, gid, ORNIC_GID_TYPE_ROCE_V2_IPV4, 4095).status,
            ORNIC_ADMIN_STATUS_BAD_FIELD);
}

// An IPv4 frame with protocol `proto` (UDP: to port dport) to 239.1.2.3, at its IP
// multicast MAC.
std::vector<std::byte> multicast4_frame(uint8_t proto, uint16_t dport) {
  auto frame = udp4_frame(dport);
  const uint8_t mac[6] = {0x01, 0x00, 0x5e, 1, 2, 3};
  const uint8_t ip[4] = {239, 1, 2, 3};
  for (size_t i = 0; i < 6; ++i)
    frame[i] = std::byte{mac[i]};
  for (size_t i = 0; i < 4; ++i)
    frame[14 + 16 + i] = std::byte{ip[i]};
  frame[14 + 9] = std::byte{proto};
  return frame;
}

// An IPv6 frame with next header `next` (UDP: to port dport) to ff02::1:ff00:1.
std::vector<std::byte> multicast6_frame(uint8_t next, uint16_t dport) {
  std::vector<std::byte> frame(14 + 40 + 8 + 16, std::byte{0});
  const uint8_t mac[6] = {0x33, 0x33, 0xff, 0, 0, 1};
  for (size_t i = 0; i < 6; ++i)
    frame[i] = std::byte{mac[i]};
  frame[12] = std::byte{0x86};
  frame[13] = std::byte{0xdd};
  frame[14] = std::byte{0x60};
  frame[14 + 6] = std::byte{next};
  const uint8_t ip[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0, 0, 1};
  for (size_t i = 0; i < 16; ++i)
    frame[14 + 24 + i] = std::byte{ip[i]};
  frame[54 + 2] = std::byte{static_cast<uint8_t>(dport >> 8)};
  frame[54 + 3] = std::byte{static_cast<uint8_t>(dport)};
  return frame;
}

// ethernet.rst: every multicast MAC is accepted for the net_device (IGMP, MLD, neighbour
// discovery need theirs), but RoCEv2 to a multicast IP belongs to the RDMA engine.
TEST_F(NicEthernet, MulticastReachesTheNetdevUnlessItIsRoce) {
  const uint64_t buffer = h.alloc(4 * 2048, 64);
  for (uint32_t i = 0; i < 4; ++i)
    post_rx(i, buffer + i * 2048, 2048);
  h.port.deliver(multicast4_frame(2, 0));     // IGMP
  h.port.deliver(multicast4_frame(17, 5353)); // mDNS
  h.port.deliver(multicast6_frame(58, 0));    // ICMPv6 neighbour solicitation
  h.port.deliver(multicast6_frame(17, 547));  // DHCPv6
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(next_cqe().status, ORNIC_CQE_SUCCESS) << "frame " << i;
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_FRAMES), 4u);
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_FILTERED), 0u);

  // RoCEv2 to a group, with no GID of ours involved: never shown to the net_device.
  post_rx(4, buffer, 2048);
  h.port.deliver(multicast4_frame(17, 4791));
  h.port.deliver(multicast6_frame(17, 4791));
  EXPECT_EQ(h.counter(ORNIC_CNT_RX_RDMA_PACKETS), 2u);
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_FRAMES), 4u);
}

// iwarp.rst, "Port mode": an iWARP port reports its link layer and the IWARP capability
// without RoCE's, and frames no RoCE: UDP 4791 to one of its GIDs is the net_device's.
class NicEthernetIwarp : public NicEthernet {
protected:
  NicEthernetIwarp() : NicEthernet(ORNIC_LINK_LAYER_IWARP) {}
};

TEST_F(NicEthernetIwarp, ReportsTheLinkLayerAndCapability) {
  const uint64_t buffer = h.alloc(sizeof(ornic_port_attr));
  ornic_admin_query query{};
  query.hdr.opcode = ORNIC_ADMIN_QUERY_PORT;
  query.resp_addr = to_le(buffer);
  query.resp_len = to_le<uint32_t>(sizeof(ornic_port_attr));
  ASSERT_EQ(h.execute(DriverHarness::as_sqe(query)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  const auto attr = h.read<ornic_port_attr>(buffer);
  EXPECT_EQ(attr.link_layer, ORNIC_LINK_LAYER_IWARP);
  EXPECT_EQ(attr.state, ORNIC_PORT_ACTIVE);
  const uint64_t caps = h.reg(ORNIC_REG_CAPS_LO) | uint64_t{h.reg(ORNIC_REG_CAPS_HI)} << 32;
  EXPECT_NE(caps & ORNIC_CAP_IWARP, 0u);
  EXPECT_NE(caps & ORNIC_CAP_ETH, 0u);
  EXPECT_EQ(caps & (ORNIC_CAP_IB | ORNIC_CAP_CC | ORNIC_CAP_ROCE_V1 | ORNIC_CAP_ROCE_VLAN), 0u);
}

TEST_F(NicEthernetIwarp, RoceFramesGoToTheNetdev) {
  const std::array<uint8_t, 16> gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
  ASSERT_EQ(h.add_gid(0, gid).status, ORNIC_ADMIN_STATUS_SUCCESS);
  const uint64_t buffer = h.alloc(2 * 2048, 64);
  post_rx(0, buffer, 2048);
  post_rx(1, buffer + 2048, 2048);
  h.port.deliver(udp4_frame(4791));
  h.port.deliver(multicast4_frame(17, 4791));
  EXPECT_EQ(next_cqe().status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(next_cqe().status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(h.counter(ORNIC_CNT_RX_RDMA_PACKETS), 0u);
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_FRAMES), 2u);
}

// An IPv4 TCP SYN from 10.0.0.9:40000 to 10.0.0.1:dport.
std::vector<std::byte> tcp_syn_frame(uint16_t dport) {
  std::vector<std::byte> frame(14 + 20 + 20, std::byte{0});
  for (size_t i = 0; i < 6; ++i) {
    frame[i] = std::byte{kTestMac[i]};
    frame[6 + i] = std::byte{static_cast<uint8_t>(i == 0 ? 0x02 : 9)};
  }
  frame[12] = std::byte{0x08};
  const uint8_t ip[20] = {0x45, 0, 0, 40, 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 9, 10, 0, 0, 1};
  for (size_t i = 0; i < 20; ++i)
    frame[14 + i] = std::byte{ip[i]};
  frame[34] = std::byte{40000 >> 8};
  frame[35] = std::byte{40000 & 0xff};
  frame[36] = std::byte{static_cast<uint8_t>(dport >> 8)};
  frame[37] = std::byte{static_cast<uint8_t>(dport)};
  frame[34 + 12] = std::byte{0x50};
  frame[34 + 13] = std::byte{0x02};
  return frame;
}

// iwarp-cm.rst, "Receive": TCP to a device listener is the device's, other TCP the netdev's.
TEST_F(NicEthernetIwarp, TcpToAListenerIsTheDevices) {
  ornic_admin_iw_listen c{};
  c.hdr.opcode = ORNIC_ADMIN_IW_LISTEN;
  const uint8_t ip[4] = {10, 0, 0, 1};
  std::copy(std::begin(ip), std::end(ip), c.ip);
  c.port = to_le<uint16_t>(6000);
  c.backlog = to_le<uint16_t>(4);
  const auto listened = h.execute(DriverHarness::as_sqe(c));
  ASSERT_EQ(listened.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(le(listened.result0), 1u);
  const uint64_t buffer = h.alloc(2 * 2048, 64);
  post_rx(0, buffer, 2048);
  h.port.deliver(tcp_syn_frame(6000));
  h.run_loop();
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_FRAMES), 0u);
  h.port.deliver(tcp_syn_frame(80));
  EXPECT_EQ(next_cqe().status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(h.counter(ORNIC_CNT_ETH_RX_FRAMES), 1u);
  c.reserved[0] = 1;
  EXPECT_EQ(h.execute(DriverHarness::as_sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
}

TEST_F(NicEthernet, IwarpCommandsNeedAnIwarpPort) {
  for (uint8_t opcode = ORNIC_ADMIN_IW_LISTEN; opcode <= ORNIC_ADMIN_IW_QUERY_CONN; ++opcode)
    EXPECT_EQ(h.execute(DriverHarness::simple(opcode)).status, ORNIC_ADMIN_STATUS_BAD_OPCODE);
}

} // namespace
} // namespace ornic::test
