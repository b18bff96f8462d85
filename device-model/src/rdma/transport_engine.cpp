#include "rdma/transport_engine.hpp"

#include <algorithm>

#include "core/qp_type.hpp"
#include "iba/aeth_syndrome.hpp"
#include "iba/psn.hpp"
#include "port/port.hpp"
#include "rdma/address_vector.hpp"

namespace ornic {

TransportEngine::TransportEngine(EventLoop& loop, NicCore& core, Port* port, TransportTimer& timer,
                                 const iba::Framing& framing)
    : loop_(loop), core_(core), port_(port), timer_(timer), framing_(framing),
      requester_(*this, core, port, timer), responder_(*this, loop, core, timer),
      completer_(*this, core, timer), cc_(*this, core, timer) {}

// The engine does not plug itself into the core: NicDevice, which owns both, does.
TransportEngine::~TransportEngine() {
  lifetime_.invalidate();
  timer_.disarm();
}

void TransportEngine::reset() {
  lifetime_.invalidate();
  timer_.disarm();
  armed_deadline_ = 0;
  timers_ = {};
  ready_.clear();
  responder_.reset();
  loopback_.clear();
  run_posted_ = loopback_posted_ = false;
}

void TransportEngine::sq_doorbell(uint32_t qpn) {
  schedule(qpn);
}

void TransportEngine::qp_modified(uint32_t qpn, ornic_qp_state from, ornic_qp_state to) {
  QueuePair* qp = core_.resources.qps.find(qpn);
  if (qp == nullptr)
    return;
  if (to == ORNIC_QPS_RESET) {
    qp->transport = QpTransport{};
    ready_.erase(qpn);
    responder_.forget(qpn);
    return;
  }
  if (to == ORNIC_QPS_RTR && from != ORNIC_QPS_RTR) {
    qp->transport.resp = ResponderState{};
    qp->transport.resp.epsn = le(qp->attr.rq_psn) & iba::kPsnMask;
  }
  if (to == ORNIC_QPS_RTS && from == ORNIC_QPS_RTR) {
    RequesterState& req = qp->transport.req;
    req = RequesterState{};
    req.next_psn = req.una_psn = req.acked_psn = req.send_high =
        le(qp->attr.sq_psn) & iba::kPsnMask;
    req.sq_next = qp->sq.consumer;
  }
  RequesterState& req = qp->transport.req;
  req.retries_left = qp->attr.retry_cnt;
  req.rnr_retries_left = qp->attr.rnr_retry;
  if (to == ORNIC_QPS_SQD && from != ORNIC_QPS_SQD) {
    req.sq_drained_reported = false;
    requester_.maybe_report_drained(qpn, *qp);
  }
  if (to == ORNIC_QPS_RTS || to == ORNIC_QPS_SQD)
    schedule(qpn);
}

void TransportEngine::qp_entering_error(uint32_t qpn) {
  ready_.erase(qpn);
  responder_.forget(qpn);
  if (QueuePair* qp = core_.resources.qps.find(qpn)) {
    qp->transport.req.ack_deadline = 0;
    qp->transport.req.rnr_until = 0;
    qp->transport.req.pace_until = 0;
  }
}

void TransportEngine::schedule(uint32_t qpn) {
  ready_.insert(qpn);
  if (run_posted_)
    return;
  run_posted_ = true;
  loop_.post([this, ticket = lifetime_.ticket()] {
    if (ticket.valid())
      run_scheduled();
  });
}

void TransportEngine::run_scheduled() {
  run_posted_ = false;
  if (core_.fatal())
    return; // registers.rst, FATAL: nothing is sent any more
  unsigned budget = kPacketsPerTurn;
  std::vector<uint32_t> again;
  while (!ready_.empty()) {
    const uint32_t qpn = *ready_.begin();
    ready_.erase(ready_.begin());
    QueuePair* qp = core_.resources.qps.find(qpn);
    if (qp == nullptr)
      continue;
    // Responses first: they answer requests the peer already waits for.
    const bool responses_left = responder_.responder_work(qpn, *qp, budget);
    if (requester_.requester_work(qpn, *qp, budget) || responses_left)
      again.push_back(qpn);
    if (budget == 0)
      break;
  }
  for (uint32_t qpn : again)
    schedule(qpn);
  if (!ready_.empty())
    schedule(*ready_.begin());
  update_timer();
}

namespace {

int64_t earliest_deadline(const RequesterState& req) {
  int64_t earliest = 0;
  for (int64_t deadline : {req.ack_deadline, req.rnr_until, req.pace_until})
    if (deadline != 0 && (earliest == 0 || deadline < earliest))
      earliest = deadline;
  return earliest;
}

} // namespace

void TransportEngine::watch(uint32_t qpn, QueuePair& qp) {
  const int64_t due = earliest_deadline(qp.transport.req);
  int64_t& queued = qp.transport.timer_queued;
  // An entry that comes no later is there already: it re-queues the QP when it is reached.
  if (due == 0 || (queued != 0 && queued <= due))
    return;
  queued = due;
  timers_.push(TimerEntry{due, qpn});
}

void TransportEngine::update_timer() {
  // Until the top entry is exactly its QP's earliest deadline: the device timer then fires
  // for the earliest deadline of all (every other entry is at or before its QP's own).
  while (!timers_.empty()) {
    const TimerEntry top = timers_.top();
    QueuePair* qp = core_.resources.qps.find(top.qpn);
    if (qp != nullptr && qp->transport.timer_queued == top.deadline &&
        earliest_deadline(qp->transport.req) == top.deadline)
      break;
    timers_.pop();
    if (qp != nullptr && qp->transport.timer_queued == top.deadline) {
      qp->transport.timer_queued = 0;
      watch(top.qpn, *qp); // moved later (or gone: nothing)
    }
  }
  const int64_t earliest = timers_.empty() ? 0 : timers_.top().deadline;
  if (earliest == armed_deadline_)
    return;
  armed_deadline_ = earliest;
  if (earliest == 0) {
    timer_.disarm();
    return;
  }
  timer_.arm(earliest, [this, ticket = lifetime_.ticket()] {
    if (ticket.valid())
      on_timer();
  });
}

void TransportEngine::on_timer() {
  armed_deadline_ = 0;
  if (core_.fatal())
    return; // no retransmission, no RNR retry: the timer stays off
  const int64_t now = timer_.now_ns();
  while (!timers_.empty() && timers_.top().deadline <= now) {
    const TimerEntry due = timers_.top();
    timers_.pop();
    QueuePair* qp = core_.resources.qps.find(due.qpn);
    if (qp == nullptr || qp->transport.timer_queued != due.deadline)
      continue; // stale
    qp->transport.timer_queued = 0;
    fire_due(due.qpn, *qp, now);
    if ((qp = core_.resources.qps.find(due.qpn)) != nullptr)
      watch(due.qpn, *qp); // its next deadline, if any
  }
  update_timer();
}

void TransportEngine::fire_due(uint32_t qpn, QueuePair& qp, int64_t now) {
  RequesterState& req = qp.transport.req;
  if (req.rnr_until != 0 && now >= req.rnr_until) {
    req.rnr_until = 0;
    schedule(qpn);
  }
  if (req.pace_until != 0 && now >= req.pace_until) {
    req.pace_until = 0;
    schedule(qpn);
  }
  if (req.ack_deadline != 0 && now >= req.ack_deadline)
    completer_.on_ack_timeout(qpn, qp, now);
}

bool TransportEngine::transmit_backlogged() const {
  const size_t port_backlog = port_ != nullptr ? port_->tx_backlog() : 0;
  return port_backlog + loopback_.size() >= kUcBacklogLimit;
}

void TransportEngine::odp_resume(uint32_t qpn) {
  QueuePair* qp = core_.resources.qps.find(qpn);
  if (qp != nullptr && completer_.odp_resume(qpn, *qp))
    update_timer();
}

bool TransportEngine::partition_admits(const QueuePair& qp, uint16_t packet_pkey,
                                       uint16_t& index) const {
  if (qp.type == ORNIC_QPT_SMI)
    return true;
  return framing_.partition_admits(le(qp.attr.pkey_index), qp.type == ORNIC_QPT_GSI, packet_pkey,
                                   index);
}

bool TransportEngine::address_rc(uint32_t qpn, const QueuePair& qp, iba::Route& route) const {
  return framing_.route(address_vector_of(qp.attr), qpn, le(qp.attr.dest_qpn) & iba::kQpnMask,
                        route);
}

void TransportEngine::transmit(QueuePair& qp, const iba::OutboundPacket& packet,
                               std::span<const uint8_t> payload) {
  transmit(qp, packet, payload.size(), [payload](std::span<uint8_t> area) {
    std::copy(payload.begin(), payload.end(), area.begin());
    return true;
  });
}

bool TransportEngine::transmit(QueuePair& qp, const iba::OutboundPacket& packet,
                               size_t payload_bytes, PayloadWriter write_payload) {
  iba::FramePlan plan;
  if (!framing_.plan(packet, payload_bytes, plan)) {
    // Only a route the fabric cannot frame gets here: the packet is lost, as on a bad route.
    // Its payload is still read, so a source that fails fails the WQE all the same.
    frame_.resize(payload_bytes);
    if (!write_payload(frame_))
      return false;
    core_.log.warn(
        "rdma: cannot frame a {} packet (no route of this fabric, or the port is not up)",
        static_cast<int>(packet.bth.opcode));
    return true;
  }
  // Where the frame goes: to the wire (through the port), back to this NIC, or both (a
  // multicast group with members here).
  const bool multicast = framing_.is_multicast(packet.route);
  const bool to_self = multicast
                           ? core_.resources.mcast.has_group(packet.route.global.destination_gid)
                           : framing_.is_local(packet.route);
  const bool to_wire = multicast || !to_self;
  // Built in the port's own buffer (a ring slot the peer reads, or the port's scratch
  // buffer); only a frame the port cannot take in place (longer than any frame) or one
  // that never reaches a port is built in frame_ first.
  std::span<uint8_t> buffer;
  bool reserved = false;
  if (to_wire && port_ != nullptr) {
    const std::span<std::byte> slot = port_->reserve_tx(plan.frame_bytes);
    if (slot.size() >= plan.frame_bytes) {
      buffer = {reinterpret_cast<uint8_t*>(slot.data()), plan.frame_bytes};
      reserved = true;
    }
  }
  if (!reserved) {
    frame_.resize(plan.frame_bytes);
    buffer = frame_;
  }
  if (!write_payload(framing_.write_headers(packet, plan, buffer)))
    return false; // a reserved slot is simply not committed: nothing is sent
  framing_.seal(packet, plan, buffer);

  core_.counters.inc(ORNIC_CNT_TX_RDMA_PACKETS);
  core_.counters.inc(ORNIC_CNT_TX_RDMA_BYTES, buffer.size());
  ++qp.counters.packets_sent;
  if (to_self)
    loop_back(buffer); // a copy: the port's buffer is the port's once committed
  if (!to_wire)
    return true;
  if (port_ == nullptr) {
    core_.counters.inc(ORNIC_CNT_ETH_TX_LINK_DOWN);
    return true;
  }
  // Sent even while the port thinks the link is down: its view may be stale (the peer
  // appeared since the last probe), and a send is what refreshes it. A frame the port
  // cannot deliver is lost like any other and recovered by the transport.
  if (!port_->link_up())
    core_.counters.inc(ORNIC_CNT_ETH_TX_LINK_DOWN);
  if (reserved)
    port_->commit_tx(buffer.size());
  else
    port_->send(std::as_bytes(buffer));
  return true;
}

void TransportEngine::send_frame(std::span<const uint8_t> frame, const iba::Route& route) {
  if (framing_.is_local(route))
    return loop_back(frame);
  if (port_ == nullptr) {
    core_.counters.inc(ORNIC_CNT_ETH_TX_LINK_DOWN);
    return;
  }
  port_->send(std::as_bytes(frame));
}

void TransportEngine::loop_back(std::span<const uint8_t> frame) {
  if (loopback_.size() >= kMaxLoopbackFrames) {
    if (loopback_dropped_++ == 0)
      core_.log.warn("rdma: loopback queue full ({} frames): dropping", kMaxLoopbackFrames);
    return;
  }
  loopback_.emplace_back(frame.begin(), frame.end());
  if (loopback_posted_)
    return;
  loopback_posted_ = true;
  loop_.post([this, ticket = lifetime_.ticket()] {
    if (!ticket.valid())
      return;
    loopback_posted_ = false;
    std::deque<std::vector<uint8_t>> frames;
    frames.swap(loopback_);
    if (core_.fatal())
      return;
    for (const auto& looped : frames)
      process_frame(looped, /*from_wire=*/false);
    update_timer();
  });
}

void TransportEngine::receive(std::span<const std::byte> frame) {
  if (core_.fatal())
    return;
  process_frame(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(frame.data()), frame.size()),
      /*from_wire=*/true);
  update_timer();
}

// Each transport reaches only the QPs that speak it (roce.rst, xrc.rst): UD packets UD and
// GSI QPs, RC packets RC QPs, UC packets UC QPs, XRC requests XRC targets and XRC responses
// XRC initiators.
bool TransportEngine::transport_matches(ornic_qp_type type, const iba::OpcodeInfo& info) {
  if (info.has(iba::kDatagram))
    return is_datagram_qp(type);
  if (info.has(iba::kUnreliable))
    return type == ORNIC_QPT_UC;
  if (info.has(iba::kXrc))
    return type == (info.has(iba::kResponse) ? ORNIC_QPT_XRC_INI : ORNIC_QPT_XRC_TGT);
  return type == ORNIC_QPT_RC;
}

void TransportEngine::process_frame(std::span<const uint8_t> frame, bool from_wire) {
  core_.counters.inc(ORNIC_CNT_RX_RDMA_PACKETS);
  core_.counters.inc(ORNIC_CNT_RX_RDMA_BYTES, frame.size());
  iba::ReceivedPacket packet;
  switch (framing_.parse(frame, packet)) {
  case iba::ParseStatus::packet:
    break;
  case iba::ParseStatus::congestion_notification:
    return cc_.on_notification(packet, from_wire);
  case iba::ParseStatus::bad_icrc:
    return core_.counters.inc(ORNIC_CNT_RX_BAD_ICRC);
  case iba::ParseStatus::bad_header:
    return core_.counters.inc(ORNIC_CNT_RX_BAD_HEADER);
  }
  if (framing_.is_multicast(packet.route))
    return responder_.on_multicast(packet, frame);
  const uint32_t qpn = packet.bth.destination_qp;
  QueuePair* qp = core_.resources.qps.find(qpn);
  const iba::OpcodeInfo& info = packet.opcode_info;
  const bool datagram = info.has(iba::kDatagram);
  const bool uc = info.has(iba::kUnreliable);
  if (qp == nullptr || !transport_matches(qp->type, info)) {
    core_.counters.inc(ORNIC_CNT_RX_UNKNOWN_QP);
    framing_.count_undelivered(packet);
    return;
  }
  const ornic_qp_state state = qp->state;
  const bool receiving = state == ORNIC_QPS_RTR || state == ORNIC_QPS_RTS ||
                         state == ORNIC_QPS_SQD || state == ORNIC_QPS_SQE;
  const bool sending = state == ORNIC_QPS_RTS || state == ORNIC_QPS_SQD;
  if (info.has(iba::kResponse) ? !sending : !receiving) {
    core_.counters.inc(ORNIC_CNT_RX_UNKNOWN_QP);
    framing_.count_undelivered(packet);
    return;
  }
  // Before any PSN, key or state is looked at: a stranger's packet changes nothing.
  if (!datagram && !framing_.from_connected_peer(qp->attr, packet, from_wire)) {
    core_.counters.inc(ORNIC_CNT_RX_PEER_MISMATCH);
    core_.log.warn("rdma: QP {}: dropped a packet (opcode {:#x}) not from its peer", qpn,
                   static_cast<unsigned>(packet.bth.opcode));
    return;
  }
  // Datagrams are admitted by the responder, which also does it for each group member.
  if (!datagram && !partition_admits(*qp, packet.bth.partition_key, packet.pkey_index))
    return;
  ++qp->counters.packets_received;
  cc_.on_packet(qpn, *qp, packet);
  if (datagram)
    responder_.on_ud_request(qpn, *qp, packet, frame);
  else if (uc)
    responder_.on_uc_request(qpn, *qp, packet);
  else if (info.has(iba::kResponse))
    completer_.on_response(qpn, *qp, packet);
  else
    responder_.on_rc_request(qpn, *qp, packet);
}

} // namespace ornic
