// The completer (roce.rst "Reliability"): ACKs, NAKs, READ responses and atomic ACKs move a
// QP's una_psn and retire its WQEs in order; loss is recovered by go-back-N from a NAK's PSN
// or, on the ACK timeout, from the oldest PSN not acknowledged; RNR NAKs wait and retry.
// Its per-QP state is the acknowledgement half of RequesterState (una_psn, acked_psn, the
// retry counts, ack_deadline, rnr_until, the READ gap), shared with the requester that
// reads it to open its send window.
#pragma once

#include <cstdint>

#include "core/nic_core.hpp"
#include "core/qp_transport.hpp"
#include "core/transport_timer.hpp"
#include "iba/framing.hpp"

namespace ornic {

class TransportEngine;

class Completer {
public:
  Completer(TransportEngine& engine, NicCore& core, TransportTimer& timer)
      : engine_(engine), core_(core), timer_(timer) {}
  Completer(const Completer&) = delete;
  Completer& operator=(const Completer&) = delete;

  // An ACK, NAK or response for a QP that is sending.
  void on_response(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet);
  void on_ack_timeout(uint32_t qpn, QueuePair& qp, int64_t now);
  // ODP_RESUME: the stalled send queue goes on from its oldest unanswered PSN; false when
  // it was not stalled.
  bool odp_resume(uint32_t qpn, QueuePair& qp);
  // Restarts the ACK timeout (or stops it when nothing waits for an ACK).
  void restart_ack_timer(uint32_t qpn, QueuePair& qp);

private:
  void acknowledge_up_to(QueuePair& qp, uint32_t psn);
  void rewind(QueuePair& qp, uint32_t psn);

  TransportEngine& engine_; // scheduling and the requester
  NicCore& core_;
  TransportTimer& timer_;
};

} // namespace ornic
