// libFuzzer target for Ethernet TX (the netdev's raw Ethernet queue): fuzzed descriptors in
// a TX ring a driver created, fuzzed frame bytes in guest memory, the TX doorbell, and the
// event loop until quiet (bounded). Optionally the port hands every transmitted frame back
// to the NIC, so what the guest transmits also reaches the receive classifier, the RX ring
// and the RoCE engine.
//
// Input: byte 0 is the producer index of the TX doorbell, byte 1 steers the run (bit 0: set
// the MTU from bytes 2-3 first; bit 1: reflect frames back, into an RX ring of 16 posted
// 2 KiB buffers; bit 2: ring the doorbell in two steps, half then all; bit 3: at the end
// destroy the TX ring and ring its doorbell again), bytes 2-3 the MTU (LE), then the
// descriptor ring (64 descriptors, 1 KiB), then up to 64 KiB of frame bytes at
// NicRig::kScratch, where seeds point the descriptors.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <spdlog/spdlog.h>

#include "nic_rig.hpp"

namespace {

using ornic::le;
using ornic::to_le;
using ornic::fuzz::NicRig;

constexpr size_t kHeader = 4;
constexpr uint32_t kLogDepth = 6;
constexpr size_t kRingBytes = (size_t{1} << kLogDepth) * ORNIC_ETH_DESC_SIZE;
constexpr uint32_t kRxBuffers = 16;
constexpr uint32_t kRxBufferBytes = 2048;

uint32_t create_ring(NicRig& nic, bool tx, uint64_t* ring) {
  ornic_admin_create_eth_ring c{};
  c.hdr.opcode = tx ? ORNIC_ADMIN_ETH_CREATE_TX_RING : ORNIC_ADMIN_ETH_CREATE_RX_RING;
  c.mem = nic.ring(kRingBytes);
  c.cqn = to_le(nic.cqn);
  c.log_depth = kLogDepth;
  *ring = le(c.mem.addr);
  return nic.must(&c);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ornic::fuzz::quiet_logs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kHeader)
    return 0;
  const uint32_t producer = data[0];
  const uint8_t control = data[1];
  const uint32_t mtu = data[2] | uint32_t{data[3]} << 8;
  data += kHeader;
  size -= kHeader;

  static NicRig nic;
  nic.start();
  if (control & 1) {
    ornic_admin_eth_set_mtu c{};
    c.hdr.opcode = ORNIC_ADMIN_ETH_SET_MTU;
    c.mtu = to_le(mtu);
    nic.admin(&c); // out of range is refused; the TX path must cope with either
  }
  uint64_t tx_ring = 0;
  const uint32_t tx = create_ring(nic, true, &tx_ring);
  if (control & 2) {
    nic.port.reflect_to = &nic.loop;
    uint64_t rx_ring = 0;
    const uint32_t rx = create_ring(nic, false, &rx_ring);
    for (uint32_t i = 0; i < kRxBuffers; ++i) {
      ornic_eth_rx_desc d{};
      d.addr = to_le(NicRig::kData + uint64_t{i} * kRxBufferBytes);
      d.length = to_le(static_cast<uint16_t>(kRxBufferBytes));
      nic.write(rx_ring + uint64_t{i} * ORNIC_ETH_DESC_SIZE,
                std::span(reinterpret_cast<const uint8_t*>(&d), sizeof(d)));
    }
    nic.doorbell(ORNIC_DB_ETH_RX, rx, kRxBuffers);
  }

  const size_t ring_bytes = std::min(size, kRingBytes);
  nic.write(tx_ring, std::span(data, ring_bytes));
  data += ring_bytes;
  size -= ring_bytes;
  nic.write(NicRig::kScratch, std::span(data, std::min(size, NicRig::kScratchBytes)));

  if (control & 4) {
    nic.doorbell(ORNIC_DB_ETH_TX, tx, producer / 2);
    nic.run();
  }
  nic.doorbell(ORNIC_DB_ETH_TX, tx, producer);
  nic.run();
  if (control & 8) {
    ornic_admin_destroy d{};
    d.hdr.opcode = ORNIC_ADMIN_ETH_DESTROY_RING;
    d.handle = to_le(tx);
    nic.admin(&d);
    nic.doorbell(ORNIC_DB_ETH_TX, tx, producer + 1);
    nic.run();
  }
  // Ring contents are the guest's business: they may fail WQEs and QPs, never the device.
  if (!nic.device.ready())
    ornic::fuzz::die("guest ring contents made the device FATAL");
  nic.finish();
  return 0;
}
