// What the NIC core tells a transport (the IB transport engine, src/rdma; iWARP's would be
// another): doorbells, QP state changes, frames the port received for it, device reset.
// An interface in the shared layer, so the core and the NIC's admin and doorbell code
// reach the transport without including it: rdma/ sits above core/, and NicDevice (nic/)
// builds the transport and holds it through this interface alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "core/hw.hpp"

namespace ornic {

class TransportHooks {
public:
  virtual ~TransportHooks() = default;
  virtual void sq_doorbell(uint32_t qpn) = 0;
  // After MODIFY_QP changed the QP's state (or attributes in the same state).
  virtual void qp_modified(uint32_t qpn, ornic_qp_state from, ornic_qp_state to) = 0;
  // The QP is entering ERR: drop transport work before its WQEs are flushed.
  virtual void qp_entering_error(uint32_t qpn) = 0;
  // DESTROY_QP: the QP is about to go (the IB transport keeps nothing outside it).
  virtual void qp_destroyed(uint32_t /*qpn*/) {}
  // A frame of the transport's fabric addressed to the port (RoCEv2: to one of its GIDs).
  virtual void receive(std::span<const std::byte> frame) = 0;
  // ODP_RESUME: a requester stalled on a page fault goes on (no-op when not stalled).
  virtual void odp_resume(uint32_t qpn) = 0;
  // Device reset: scheduled work and frames in flight are forgotten.
  virtual void reset() = 0;
};

} // namespace ornic
