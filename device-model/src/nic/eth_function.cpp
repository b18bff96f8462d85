#include "nic/eth_function.hpp"

#include <vector>

#include "core/device_limits.hpp"
#include "nic/roce_classifier.hpp"
#include "port/port.hpp"

namespace ornic {

void EthFunction::reset() {
  lifetime_.invalidate();
  tx_scheduled_ = false;
  active_ = false;
}

void EthFunction::tx_doorbell() {
  schedule_tx();
}

void EthFunction::schedule_tx() {
  if (tx_scheduled_)
    return;
  tx_scheduled_ = true;
  loop_.post([this, ticket = lifetime_.ticket()] {
    if (ticket.valid())
      run_tx();
  });
}

void EthFunction::run_tx() {
  tx_scheduled_ = false;
  if (!active_ || core_.fatal())
    return;
  unsigned budget = limits::kEthFramesPerTurn;
  bool more = false;
  for (auto& [id, ring] : core_.resources.eth_rings) {
    if (!ring.is_tx)
      continue;
    while (ring.ring.used() != 0 && budget != 0) {
      transmit_one(id, ring);
      --budget;
    }
    more = more || ring.ring.used() != 0;
  }
  if (more)
    schedule_tx();
}

void EthFunction::transmit_one(uint32_t ring_id, EthRing& ring) {
  const uint32_t index = ring.ring.consumer++;
  ornic_eth_tx_desc desc{};
  if (!ring.memory.read(core_.memory(), uint64_t{ring.ring.slot(index)} * ORNIC_ETH_DESC_SIZE,
                        bytes_of(desc))) {
    core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
    core_.counters.inc(ORNIC_CNT_ETH_TX_ERRORS);
    complete(ring, ring_id, index, 0, ORNIC_CQE_GENERAL_ERR, ORNIC_VERR_DMA, ORNIC_CQE_OP_ETH_TX);
    return;
  }
  const uint32_t length = le(desc.length);
  if (desc.flags != 0 || desc.reserved != 0) {
    core_.counters.inc(ORNIC_CNT_ETH_TX_ERRORS);
    complete(ring, ring_id, index, length, ORNIC_CQE_GENERAL_ERR, ORNIC_VERR_RESERVED_NONZERO,
             ORNIC_CQE_OP_ETH_TX);
    return;
  }
  if (length < ORNIC_ETH_HLEN || length > core_.eth_mtu + ORNIC_ETH_HLEN) {
    core_.counters.inc(ORNIC_CNT_ETH_TX_ERRORS);
    complete(ring, ring_id, index, length, ORNIC_CQE_GENERAL_ERR, ORNIC_VERR_MSG_TOO_LONG,
             ORNIC_CQE_OP_ETH_TX);
    return;
  }
  const bool carrier = port_ != nullptr && port_->link_up();
  // With carrier the frame is read from the guest straight into the port's transmit buffer
  // (for shm: the ring slot the peer reads): one copy. Without, it is still read, so a bad
  // address is reported the same way.
  std::vector<std::byte> discard;
  std::span<std::byte> frame;
  if (carrier) {
    frame = port_->reserve_tx(length);
  } else {
    discard.resize(length);
    frame = discard;
  }
  if (!core_.memory().read(le(desc.addr), frame)) {
    // Not committed: nothing is sent.
    core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
    core_.counters.inc(ORNIC_CNT_ETH_TX_ERRORS);
    complete(ring, ring_id, index, length, ORNIC_CQE_GENERAL_ERR, ORNIC_VERR_DMA,
             ORNIC_CQE_OP_ETH_TX);
    return;
  }
  if (!carrier) {
    // Like a MAC with no carrier: the frame is gone, the descriptor completes normally.
    core_.counters.inc(ORNIC_CNT_ETH_TX_LINK_DOWN);
    core_.qos.count_tx_discard(frame);
  } else {
    port_->commit_tx(length);
    core_.counters.inc(ORNIC_CNT_ETH_TX_FRAMES);
    core_.counters.inc(ORNIC_CNT_ETH_TX_BYTES, length);
  }
  complete(ring, ring_id, index, length, ORNIC_CQE_SUCCESS, ORNIC_VERR_NONE, ORNIC_CQE_OP_ETH_TX);
}

void EthFunction::complete(const EthRing& ring, uint32_t ring_id, uint32_t index, uint32_t length,
                           uint8_t status, uint8_t vendor_err, uint8_t opcode) {
  ornic_cqe cqe{};
  cqe.wr_id = to_le(uint64_t{index});
  cqe.byte_len = to_le(length);
  cqe.qpn = to_le(ring_id);
  cqe.wqe_index = to_le(static_cast<uint16_t>(index));
  cqe.opcode = opcode;
  cqe.status = status;
  cqe.vendor_err = vendor_err;
  core_.complete(ring.cqn, cqe);
}

bool EthFunction::frame_is_ours(std::span<const std::byte> frame) const {
  const auto first = std::to_integer<uint8_t>(frame[0]);
  if (first & 1)
    return true; // multicast and broadcast
  for (size_t i = 0; i < core_.mac.size(); ++i)
    if (std::to_integer<uint8_t>(frame[i]) != core_.mac[i])
      return false;
  return true;
}

void EthFunction::receive(std::span<const std::byte> frame) {
  // A FATAL device moves no data (registers.rst): frames are dropped uncounted.
  if (!active_ || core_.fatal() || frame.size() < ORNIC_ETH_HLEN)
    return;
  if (!frame_is_ours(frame)) {
    core_.counters.inc(ORNIC_CNT_ETH_RX_FILTERED);
    return;
  }
  // An iWARP port has no RoCE: UDP 4791 and Ethertype 0x8915 are frames like any other.
  if (!core_.is_iwarp() && is_roce_for_port(frame, core_.resources.gids)) {
    // RDMA traffic belongs to the packet engine and is never shown to the net_device.
    if (core_.transport != nullptr)
      core_.transport->receive(frame);
    else
      core_.counters.inc(ORNIC_CNT_RX_RDMA_PACKETS);
    return;
  }
  if (frame.size() > core_.eth_mtu + ORNIC_ETH_HLEN) {
    core_.counters.inc(ORNIC_CNT_ETH_RX_TOO_LONG);
    core_.qos.count_rx_discard(frame);
    return;
  }
  // Lowest ring id with a posted buffer (no receive-side scaling in 1.0).
  for (auto& [id, ring] : core_.resources.eth_rings) {
    if (ring.is_tx || ring.ring.used() == 0)
      continue;
    const uint32_t index = ring.ring.consumer;
    ornic_eth_rx_desc desc{};
    if (!ring.memory.read(core_.memory(), uint64_t{ring.ring.slot(index)} * ORNIC_ETH_DESC_SIZE,
                          bytes_of(desc))) {
      ++ring.ring.consumer;
      core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
      core_.counters.inc(ORNIC_CNT_ETH_RX_ERRORS);
      complete(ring, id, index, 0, ORNIC_CQE_GENERAL_ERR, ORNIC_VERR_DMA, ORNIC_CQE_OP_ETH_RX);
      return;
    }
    const uint32_t buffer = le(desc.length);
    if (desc.reserved0 != 0 || desc.reserved1 != 0 || buffer < limits::kEthRxMinBuffer) {
      ++ring.ring.consumer;
      core_.counters.inc(ORNIC_CNT_ETH_RX_ERRORS);
      complete(ring, id, index, 0, ORNIC_CQE_GENERAL_ERR, ORNIC_VERR_RESERVED_NONZERO,
               ORNIC_CQE_OP_ETH_RX);
      return;
    }
    if (frame.size() > buffer) {
      core_.counters.inc(ORNIC_CNT_ETH_RX_TOO_LONG);
      core_.qos.count_rx_discard(frame);
      return; // the buffer stays posted for a frame that fits
    }
    ++ring.ring.consumer;
    if (!core_.memory().write(le(desc.addr), frame)) {
      core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
      core_.counters.inc(ORNIC_CNT_ETH_RX_ERRORS);
      complete(ring, id, index, 0, ORNIC_CQE_GENERAL_ERR, ORNIC_VERR_DMA, ORNIC_CQE_OP_ETH_RX);
      return;
    }
    core_.counters.inc(ORNIC_CNT_ETH_RX_FRAMES);
    core_.counters.inc(ORNIC_CNT_ETH_RX_BYTES, frame.size());
    complete(ring, id, index, static_cast<uint32_t>(frame.size()), ORNIC_CQE_SUCCESS,
             ORNIC_VERR_NONE, ORNIC_CQE_OP_ETH_RX);
    return;
  }
  core_.counters.inc(ORNIC_CNT_ETH_RX_NO_BUFFER);
  core_.qos.count_rx_discard(frame);
}

} // namespace ornic
