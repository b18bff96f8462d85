// The responder (roce.rst, xrc.rst, "Responder resources"): checks PSNs, executes SEND /
// WRITE / READ / atomic / FLUSH requests against the receive queue and the MR table, answers
// read-class requests from its read-resource ring, acknowledges (coalesced) and NAKs what it
// cannot do; UC requests are dropped instead of NAKed, UD datagrams deliver their GRH.
// Its per-QP state is ResponderState (qp_transport.hpp); of its own it keeps the QPs whose
// coalesced ACK is due after the current burst of frames.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "common/event_loop.hpp"
#include "core/nic_core.hpp"
#include "core/qp_transport.hpp"
#include "core/transport_timer.hpp"
#include "iba/aeth_syndrome.hpp"
#include "iba/framing.hpp"
#include "rdma/memory_access.hpp"
#include "rdma/wqe_fetch.hpp"

namespace ornic {

class TransportEngine;

class Responder {
public:
  Responder(TransportEngine& engine, EventLoop& loop, NicCore& core, TransportTimer& timer)
      : engine_(engine), loop_(loop), core_(core), timer_(timer) {}
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  // Device reset: ACKs not yet flushed are forgotten.
  void reset();
  // The QP left the states that acknowledge (RESET, ERR): no ACK of it is due any more.
  void forget(uint32_t qpn) { ack_pending_.erase(qpn); }

  void on_rc_request(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet);
  // True when the datagram took a receive WQE (placed, or completed in error).
  bool on_ud_request(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet,
                     std::span<const uint8_t> frame);
  // A datagram to a multicast group: one copy to every attached QP (roce.rst, "Multicast").
  void on_multicast(const iba::ReceivedPacket& packet, std::span<const uint8_t> frame);
  // UC (uc_responder.cpp): PSN and sequence checks without NAKs, message drops.
  void on_uc_request(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet);
  // Sends pending responses in PSN order within `budget`; true when some are left.
  bool responder_work(uint32_t qpn, QueuePair& qp, unsigned& budget);

private:
  enum class Take : uint8_t { ok, none, failed };
  // Where a request's memory is checked and its receive WQE comes from (xrc.rst): the QP's
  // PD and receive queue, or for an XRC target the XRC SRQ its XRCETH names.
  struct RequestTarget {
    uint32_t pd = 0;
    std::optional<uint32_t> xrc_srqn;
  };
  struct ReceiveResult {
    uint32_t byte_len = 0;
    uint32_t src_qp = 0;
    uint32_t immediate = 0; // ImmDt number, or the IETH rkey
    uint8_t flags = 0;      // ORNIC_CQE_FLAG_*
    uint8_t status = ORNIC_CQE_SUCCESS;
    uint8_t vendor_err = ORNIC_VERR_NONE;
    bool write_imm = false;
    bool solicited = false;
    iba::ReceiveOrigin origin; // how the packet came (InfiniBand ports)
  };
  // Coalesced ACKs: sent once the handler that delivered this burst of frames returns.
  void schedule_ack(uint32_t qpn);
  void flush_acks();
  void on_duplicate(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet);
  void drop_uc_message(QueuePair& qp, ornic_counter_id why);
  // The XRC SRQ an XRC target's request names, if it may use it (xrc.rst, "Responder").
  std::optional<RequestTarget> xrc_target(const QueuePair& qp,
                                          const iba::ReceivedPacket& packet) const;
  // The target of a request to any other QP: its own PD and receive queue.
  static RequestTarget own_target(const QueuePair& qp) { return RequestTarget{qp.pd, {}}; }
  bool execute_send(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet,
                    const RequestTarget& target);
  bool execute_write(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet,
                     const RequestTarget& target);
  void execute_read(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet,
                    const RequestTarget& target, bool duplicate);
  bool execute_atomic(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet,
                      const RequestTarget& target);
  // The MR a remote request of QP `qpn` reaches in PD `pd` (nullptr for a zero-length
  // request), or nothing when the QP's rights or the key's checks refuse it.
  std::optional<const MemoryRegion*> remote_allowed(uint32_t qpn, const QueuePair& qp, uint32_t pd,
                                                    uint32_t rkey, uint64_t va, uint64_t length,
                                                    uint32_t access) const;
  void execute_flush(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet,
                     bool duplicate);
  // Read-resource ring (read_resources.cpp). A new read-class request takes an entry, or
  // is NAKed (invalid request, QP to ERR) when max_dest_rd_atomic entries still wait for
  // their responses; nullptr then.
  ReadResource* admit_resource(uint32_t qpn, QueuePair& qp, uint32_t psn);
  ReadResource* find_resource(QueuePair& qp, uint32_t psn, ReadResource::Kind kind);
  // Marks the entry as having responses to send and schedules the QP.
  void answer_resource(uint32_t qpn, ReadResource& entry);
  static bool responses_pending(const ResponderState& resp);
  void send_resource_response(uint32_t qpn, QueuePair& qp, ReadResource& entry);
  // The ACK for everything executed so far, or later if READ responses still wait: an ACK
  // must not overtake the responses of the requests before it.
  void acknowledge(uint32_t qpn, QueuePair& qp);
  void execute_atomic_write(uint32_t qpn, QueuePair& qp, const iba::ReceivedPacket& packet);
  // The answer to a FLUSH or ATOMIC WRITE: READ Response Only, AETH, no payload.
  void send_empty_read_response(uint32_t qpn, QueuePair& qp, uint32_t psn);
  Take take_receive(uint32_t qpn, QueuePair& qp, const RequestTarget& target, RecvWqe& wqe);
  void begin_receive(QueuePair& qp, const RequestTarget& target, const RecvWqe& wqe);
  // An RC request that needs a receive WQE: takes and begins one, or answers with an RNR
  // NAK (none posted) or has already failed the QP; true when the request may go on.
  bool take_receive_or_rnr(uint32_t qpn, QueuePair& qp, const RequestTarget& target, uint32_t psn);
  void complete_receive(uint32_t qpn, QueuePair& qp, const ReceiveResult& result);
  void fail_receive(uint32_t qpn, QueuePair& qp, const SgeOutcome& outcome, uint32_t psn);
  void fail_invalidate(uint32_t qpn, QueuePair& qp, ReceiveResult result, uint8_t vendor_err,
                       uint32_t psn);
  void send_ack(uint32_t qpn, QueuePair& qp, uint8_t syndrome, uint32_t psn);
  // A responder ODP page is missing: report it and answer the request with an RNR NAK.
  void responder_fault(uint32_t qpn, QueuePair& qp, const OdpFault& fault, uint32_t psn);
  // Before a remote access to an ODP MR: true when every page of [va, va + length) is
  // usable; otherwise the request has been answered (RNR NAK on a fault, NAK and QP to
  // ERR on an ERROR entry or unreadable table; nothing for a duplicate).
  bool responder_odp_ready(uint32_t qpn, QueuePair& qp, uint32_t rkey, uint64_t va, uint64_t length,
                           bool write, uint32_t psn, bool duplicate = false);
  void nak_and_fail(uint32_t qpn, QueuePair& qp, uint8_t nak_code, uint32_t psn,
                    ornic_eqe_type event);
  // A request the responder will not execute: nak_and_fail on RC; on UC (no NAKs) the
  // message is dropped and counted, unless `event` is QP_FATAL (the device's own failure).
  void refuse(uint32_t qpn, QueuePair& qp, iba::NakCode code, uint32_t psn, ornic_eqe_type event);

  TransportEngine& engine_; // scheduling, the wire and the engine's lifetime
  EventLoop& loop_;
  NicCore& core_;
  TransportTimer& timer_;
  std::set<uint32_t> ack_pending_; // QPs whose coalesced ACK is due
  bool ack_flush_posted_ = false;
  std::vector<uint8_t> payload_; // reused for every READ response gathered
};

} // namespace ornic
