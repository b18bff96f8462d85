// The NIC on the port layer's real loopback backend: a frame the driver transmits to its
// own MAC comes back through the port and lands in its RX ring.
#include <cstring>

#include <gtest/gtest.h>

#include "dma/fake_guest_memory.hpp"
#include "driver_harness.hpp"
#include "port/loopback_port.hpp"

namespace ornic::test {
namespace {

TEST(NicLoopback, TransmittedFrameIsReceived) {
  EventLoop loop;
  FakeGuestMemory memory(0x100000, 1 << 20);
  RecordingInterruptSink irqs;
  LoopbackPort port(loop);
  NicDevice device(loop, NicConfig{kTestMac, &port});
  device.attach(memory, irqs);

  // The same bring-up a driver does, without the harness's fake port.
  uint64_t next = 0x100000;
  auto alloc = [&](size_t size) {
    const uint64_t at = next;
    next += (size + 4095) & ~size_t{4095};
    return at;
  };
  auto reg = [&](uint32_t offset, uint32_t value) { device.bar_write(0, offset, 4, value); };
  const uint64_t sq = alloc(4096), cq = alloc(4096), aeq = alloc(4096);
  reg(ORNIC_REG_AQ_SQ_BASE_LO, static_cast<uint32_t>(sq));
  reg(ORNIC_REG_AQ_CQ_BASE_LO, static_cast<uint32_t>(cq));
  reg(ORNIC_REG_AQ_DEPTH, 8);
  reg(ORNIC_REG_AEQ_BASE_LO, static_cast<uint32_t>(aeq));
  reg(ORNIC_REG_AEQ_DEPTH, 8);
  reg(ORNIC_REG_DEV_CTRL, ORNIC_DEV_CTRL_ENABLE);
  ASSERT_TRUE(device.ready());

  uint32_t tail = 0;
  auto run = [&](auto command) -> ornic_admin_cqe {
    std::memcpy(memory.at(sq + uint64_t{tail % 8} * 64), &command, 64);
    const uint32_t slot = tail % 8;
    reg(ORNIC_REG_AQ_SQ_TAIL, ++tail);
    while (loop.run_once(std::chrono::milliseconds(0))) {
    }
    ornic_admin_cqe cqe;
    std::memcpy(&cqe, memory.at(cq + uint64_t{slot} * 16), sizeof(cqe));
    return cqe;
  };
  auto contiguous = [&](size_t bytes) {
    ornic_mem_desc mem{};
    mem.addr = to_le(alloc(bytes));
    mem.num_pages = to_le(static_cast<uint32_t>((bytes + 4095) / 4096));
    mem.page_shift = 12;
    return mem;
  };

  ornic_admin_create_eq eq{};
  eq.hdr.opcode = ORNIC_ADMIN_CREATE_EQ;
  eq.mem = contiguous(4096);
  eq.log_depth = 4;
  eq.msix_vector = to_le<uint16_t>(1);
  ASSERT_EQ(run(eq).status, ORNIC_ADMIN_STATUS_SUCCESS);
  ornic_admin_create_cq cqc{};
  cqc.hdr.opcode = ORNIC_ADMIN_CREATE_CQ;
  cqc.mem = contiguous(4096);
  const uint64_t cq_ring = le(cqc.mem.addr);
  cqc.log_depth = 4;
  cqc.eqn = to_le(1u);
  ASSERT_EQ(run(cqc).status, ORNIC_ADMIN_STATUS_SUCCESS);
  ornic_admin_create_eth_ring ring{};
  ring.hdr.opcode = ORNIC_ADMIN_ETH_CREATE_TX_RING;
  ring.mem = contiguous(4096);
  const uint64_t tx_ring = le(ring.mem.addr);
  ring.log_depth = 4;
  ring.cqn = to_le(1u);
  const uint32_t tx = le(run(ring).result0);
  ring.hdr.opcode = ORNIC_ADMIN_ETH_CREATE_RX_RING;
  ring.mem = contiguous(4096);
  const uint64_t rx_ring = le(ring.mem.addr);
  const uint32_t rx = le(run(ring).result0);

  const uint64_t rx_buffer = alloc(2048);
  ornic_eth_rx_desc rx_desc{};
  rx_desc.addr = to_le(rx_buffer);
  rx_desc.length = to_le<uint16_t>(2048);
  std::memcpy(memory.at(rx_ring), &rx_desc, sizeof(rx_desc));
  device.bar_write(ORNIC_BAR_DOORBELL, ORNIC_DB_ETH_RX, 8, ORNIC_DB_VALUE(rx, 0, 1));

  const uint64_t tx_buffer = alloc(4096);
  std::vector<std::byte> frame(128, std::byte{0x77});
  std::memcpy(frame.data(), kTestMac.data(), 6);
  std::memcpy(memory.at(tx_buffer), frame.data(), frame.size());
  ornic_eth_tx_desc tx_desc{};
  tx_desc.addr = to_le(tx_buffer);
  tx_desc.length = to_le<uint16_t>(128);
  std::memcpy(memory.at(tx_ring), &tx_desc, sizeof(tx_desc));
  device.bar_write(ORNIC_BAR_DOORBELL, ORNIC_DB_ETH_TX, 8, ORNIC_DB_VALUE(tx, 0, 1));
  while (loop.run_once(std::chrono::milliseconds(0))) {
  }

  ornic_cqe cqes[2];
  std::memcpy(cqes, memory.at(cq_ring), sizeof(cqes));
  EXPECT_EQ(cqes[0].opcode, ORNIC_CQE_OP_ETH_TX);
  EXPECT_EQ(cqes[0].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(cqes[1].opcode, ORNIC_CQE_OP_ETH_RX);
  EXPECT_EQ(cqes[1].status, ORNIC_CQE_SUCCESS);
  EXPECT_EQ(le(cqes[1].byte_len), 128u);
  EXPECT_EQ(std::memcmp(memory.at(rx_buffer), frame.data(), frame.size()), 0);
}

} // namespace
} // namespace ornic::test
