// The responder's read-resource ring (roce.rst, "Responder resources"): every READ, atomic,
// ATOMIC WRITE and FLUSH the responder accepts takes an entry, at most max_dest_rd_atomic
// (at least 1) of them. Responses are sent from the entries in PSN order and a bounded
// number per EventLoop turn, so one 64-byte READ request for 2 GiB costs the model no more
// per turn than any other traffic; a duplicate request is answered again only while its
// entry is still in the ring.
#include <algorithm>

#include "core/qp_type.hpp"
#include "iba/aeth_syndrome.hpp"
#include "iba/psn.hpp"
#include "rdma/memory_access.hpp"
#include "rdma/odp.hpp"
#include "rdma/qp_wire.hpp"
#include "rdma/responder.hpp"
#include "rdma/transport_engine.hpp"

namespace ornic {
namespace {

using iba::Opcode;

Opcode read_response_opcode(uint32_t index, uint32_t count) {
  if (count == 1)
    return Opcode::rc_rdma_read_response_only;
  if (index == 0)
    return Opcode::rc_rdma_read_response_first;
  if (index + 1 == count)
    return Opcode::rc_rdma_read_response_last;
  return Opcode::rc_rdma_read_response_middle;
}

size_t ring_depth(const QueuePair& qp) {
  return std::max<size_t>(1, qp.attr.max_dest_rd_atomic);
}

} // namespace

bool Responder::responses_pending(const ResponderState& resp) {
  return std::any_of(resp.resources.begin(), resp.resources.end(),
                     [](const ReadResource& entry) { return entry.pending; });
}

ReadResource* Responder::admit_resource(uint32_t qpn, QueuePair& qp, uint32_t psn) {
  std::deque<ReadResource>& ring = qp.transport.resp.resources;
  while (ring.size() >= ring_depth(qp)) {
    // The oldest entry whose responses have all gone out once makes room; one still being
    // answered for the first time is a request the peer is entitled to have outstanding.
    const auto free = std::find_if(ring.begin(), ring.end(),
                                   [](const ReadResource& entry) { return entry.answered; });
    if (free == ring.end()) {
      core_.log.warn("qp {}: READ/atomic at PSN {:#x} beyond max_dest_rd_atomic {}", qpn, psn,
                     static_cast<unsigned>(qp.attr.max_dest_rd_atomic));
      nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::invalid_request), psn,
                   ORNIC_EQE_QP_REQ_ERR);
      return nullptr;
    }
    ring.erase(free);
  }
  ReadResource& entry = ring.emplace_back();
  entry.psn = entry.pass_psn = psn;
  return &entry;
}

ReadResource* Responder::find_resource(QueuePair& qp, uint32_t psn, ReadResource::Kind kind) {
  for (ReadResource& entry : qp.transport.resp.resources) {
    if (entry.kind == kind && iba::psn_offset(entry.psn, psn) < entry.packets)
      return &entry;
  }
  return nullptr;
}

void Responder::answer_resource(uint32_t qpn, ReadResource& entry) {
  entry.next = 0;
  entry.pending = true;
  engine_.schedule(qpn);
}

void Responder::acknowledge(uint32_t qpn, QueuePair& qp) {
  ResponderState& resp = qp.transport.resp;
  if (responses_pending(resp)) {
    resp.ack_pending = true; // sent by responder_work once the responses are out
    return;
  }
  resp.ack_pending = false;
  send_ack(qpn, qp, iba::make_ack_syndrome(), iba::psn_add(resp.epsn, iba::kPsnMask));
}

bool Responder::responder_work(uint32_t qpn, QueuePair& qp, unsigned& budget) {
  ResponderState& resp = qp.transport.resp;
  for (;;) {
    const ornic_qp_state state = qp.state;
    if (state != ORNIC_QPS_RTR && state != ORNIC_QPS_RTS && state != ORNIC_QPS_SQD &&
        state != ORNIC_QPS_SQE)
      return false;
    const auto entry = std::find_if(resp.resources.begin(), resp.resources.end(),
                                    [](const ReadResource& e) { return e.pending; });
    if (entry == resp.resources.end()) {
      if (resp.ack_pending) {
        resp.ack_pending = false;
        send_ack(qpn, qp, iba::make_ack_syndrome(), iba::psn_add(resp.epsn, iba::kPsnMask));
      }
      return false;
    }
    if (budget == 0)
      return true;
    if (engine_.transmit_backlogged()) {
      // The port has enough to send: look again when the pacing timer fires.
      qp.transport.req.pace_until = timer_.now_ns() + TransportEngine::kUcPaceNs;
      engine_.watch(qpn, qp);
      return false;
    }
    --budget;
    send_resource_response(qpn, qp, *entry);
  }
}

void Responder::send_resource_response(uint32_t qpn, QueuePair& qp, ReadResource& entry) {
  using Kind = ReadResource::Kind;
  iba::OutboundPacket out = engine_.outbound(qp);
  const uint32_t index = entry.next;
  const bool addressed = engine_.address_rc(qpn, qp, out.route);
  out.bth.destination_qp = le(qp.attr.dest_qpn) & iba::kQpnMask;
  out.bth.psn = iba::psn_add(entry.pass_psn, index);
  bool sent = false; // a READ response's payload was read into the frame as it went out
  if (entry.kind == Kind::atomic) {
    out.bth.opcode = wire_opcode(qp, Opcode::rc_atomic_acknowledge);
    out.aeth = iba::Aeth{iba::make_ack_syndrome(), entry.msn & iba::kPsnMask};
    out.atomic_ack_eth = iba::AtomicAckEth{entry.original};
  } else if (entry.kind != Kind::read) {
    // FLUSH / ATOMIC WRITE: an empty READ Response Only (IBTA 1.5).
    out.bth.opcode = static_cast<uint8_t>(Opcode::rc_rdma_read_response_only);
    out.aeth = iba::Aeth{iba::make_ack_syndrome(), entry.msn & iba::kPsnMask};
  } else {
    const uint32_t mtu = path_mtu_bytes(engine_.framing_, qp);
    const uint64_t offset = uint64_t{index} * mtu;
    const uint64_t piece = std::min<uint64_t>(mtu, entry.pass_length - offset);
    const uint64_t va = entry.pass_va + offset;
    out.bth.opcode = wire_opcode(qp, read_response_opcode(index, entry.pass_count));
    if (index == 0 || index + 1 == entry.pass_count)
      out.aeth = iba::Aeth{iba::make_ack_syndrome(), entry.msn & iba::kPsnMask};
    if (piece != 0) {
      // Checked again for every packet: the MR or window may be gone since the request.
      const auto reached =
          remote_allowed(qpn, qp, entry.pd, entry.rkey, va, piece, ORNIC_ACCESS_REMOTE_READ);
      if (!reached || *reached == nullptr) {
        entry.pending = false;
        if (!entry.answered)
          nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::remote_access_error),
                       out.bth.psn, ORNIC_EQE_QP_ACCESS_ERR);
        return; // a replay that fails its checks now is dropped
      }
      const MemoryRegion& mr = **reached;
      if (mr.odp && odp_check(core_, mr, entry.rkey, va, piece, false).result != OdpProbe::ok) {
        // Invalidated since the request: this pass stops; the requester's timeout asks for
        // the rest again and that duplicate meets the fault (RNR NAK) or the error.
        entry.pending = false;
        return;
      }
      // Read straight into the frame as it goes out (TransportEngine::transmit); a packet
      // that cannot be addressed is lost on the way, but its memory is still read.
      const auto read_into = [&](std::span<uint8_t> area) {
        return mr_read(core_.memory(), mr, va, area);
      };
      bool read = false;
      if (addressed) {
        read = engine_.transmit(qp, out, piece, read_into);
        sent = read;
      } else {
        payload_.resize(piece);
        read = read_into(payload_);
      }
      if (!read) {
        core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
        entry.pending = false;
        if (!entry.answered)
          nak_and_fail(qpn, qp, static_cast<uint8_t>(iba::NakCode::remote_operational_error),
                       out.bth.psn, ORNIC_EQE_QP_FATAL);
        return;
      }
    }
  }
  if (++entry.next >= entry.pass_count) {
    entry.pending = false;
    entry.answered = true;
  }
  if (addressed && !sent)
    engine_.transmit(qp, out, {});
}

} // namespace ornic
