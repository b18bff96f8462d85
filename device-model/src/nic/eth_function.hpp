// The Ethernet function (ethernet.rst): TX descriptors are DMA'd out and sent on the
// Port; frames from the Port land in the next posted RX buffer. Both complete through
// ordinary CQs. TX runs in bounded batches on the EventLoop.
#pragma once

#include <cstdint>
#include <span>

#include "common/event_loop.hpp"
#include "core/lifetime_token.hpp"
#include "core/nic_core.hpp"

namespace ornic {

class Port;

class EthFunction {
public:
  EthFunction(EventLoop& loop, NicCore& core, Port* port) : loop_(loop), core_(core), port_(port) {}

  // Producer index already advanced by the doorbell; transmit from the EventLoop.
  void tx_doorbell();
  // A frame from the wire (the span is only valid during the call).
  void receive(std::span<const std::byte> frame);
  // Drops scheduled work (device reset).
  void reset();
  // False while the device is not READY: frames are dropped, nothing is sent.
  void set_active(bool active) { active_ = active; }

private:
  void schedule_tx();
  void run_tx();
  void transmit_one(uint32_t ring_id, EthRing& ring);
  void complete(const EthRing& ring, uint32_t ring_id, uint32_t index, uint32_t length,
                uint8_t status, uint8_t vendor_err, uint8_t opcode);
  bool frame_is_ours(std::span<const std::byte> frame) const;

  EventLoop& loop_;
  NicCore& core_;
  Port* port_;
  LifetimeToken lifetime_;
  bool tx_scheduled_ = false;
  bool active_ = false;
};

} // namespace ornic
