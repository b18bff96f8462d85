// The responder's coalesced ACKs (roce.rst, "Reliability (RC)"): a burst of requests
// delivered by one handler is acknowledged once, after the handler returns, by the ACK for
// everything executed so far, whether or not its packets asked for one (AckReq).
#include "rdma/responder.hpp"
#include "rdma/transport_engine.hpp"

namespace ornic {

void Responder::reset() {
  ack_pending_.clear();
  ack_flush_posted_ = false;
}

void Responder::schedule_ack(uint32_t qpn) {
  ack_pending_.insert(qpn);
  if (ack_flush_posted_)
    return;
  ack_flush_posted_ = true;
  // Posted work runs after the handler that delivered this burst of frames returns.
  loop_.post([this, ticket = engine_.lifetime_.ticket()] {
    if (ticket.valid())
      flush_acks();
  });
}

void Responder::flush_acks() {
  ack_flush_posted_ = false;
  if (core_.fatal())
    return;
  std::set<uint32_t> pending;
  pending.swap(ack_pending_);
  for (uint32_t qpn : pending) {
    QueuePair* qp = core_.resources.qps.find(qpn);
    if (qp == nullptr || !qp->transport.resp.ack_pending || qp->state == ORNIC_QPS_ERR)
      continue;
    acknowledge(qpn, *qp);
  }
  engine_.update_timer();
}

} // namespace ornic
