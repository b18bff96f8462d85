// The RoCEv2 packet engine (roce.rst, qp.rst, wqe.rst, cqe.rst, errors.rst): the requester
// turns SQ WQEs into packets, the responder executes incoming requests and acknowledges
// them, the completer retires WQEs on ACKs/responses and recovers from loss with timeouts
// and go-back-N. UC QPs use the requester and responder without any of the acknowledging.
// Runs on the EventLoop in bounded batches; time comes from a TransportTimer.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "common/event_loop.hpp"
#include "core/lifetime_token.hpp"
#include "core/nic_core.hpp"
#include "core/qp_transport.hpp"
#include "core/transport_hooks.hpp"
#include "core/transport_timer.hpp"
#include "rdma/memory_access.hpp"
#include "rdma/wqe_fetch.hpp"
#include "roce/aeth_syndrome.hpp"
#include "roce/parser.hpp"

namespace ornic {

class Port;

class TransportEngine final : public TransportHooks {
public:
  // Packets one QP may have sent and not had acknowledged: keeps one QP from flooding the
  // link and bounds what a loss costs to resend.
  static constexpr uint32_t kSendWindow = 64;
  // The requester asks for an ACK at least this often within a long message.
  static constexpr uint32_t kAckRequestInterval = 16;
  // Packets the whole engine sends per EventLoop turn before yielding.
  static constexpr unsigned kPacketsPerTurn = 64;
  // UC has no window: a UC QP sends while the port holds fewer frames than this waiting for
  // the wire, and otherwise looks again after kUcPaceNs, so the port delays its burst
  // instead of dropping it.
  static constexpr size_t kUcBacklogLimit = 256;
  static constexpr int64_t kUcPaceNs = 100'000;
  // A responder reports a fault of the same ODP pages at most this often (memory.rst).
  static constexpr int64_t kFaultReportIntervalNs = 1'000'000;
  // Frames sent to a local GID wait here for the next turn; beyond this many they are
  // dropped (and counted) like frames the wire loses: RC recovers them by retransmission.
  static constexpr size_t kMaxLoopbackFrames = 4096;

  TransportEngine(EventLoop& loop, NicCore& core, Port* port, TransportTimer& timer);
  ~TransportEngine() override;
  TransportEngine(const TransportEngine&) = delete;
  TransportEngine& operator=(const TransportEngine&) = delete;

  void sq_doorbell(uint32_t qpn) override;
  void qp_modified(uint32_t qpn, ornic_qp_state from, ornic_qp_state to) override;
  void qp_entering_error(uint32_t qpn) override;
  void receive(std::span<const std::byte> frame) override;
  void odp_resume(uint32_t qpn) override;
  // Device reset: scheduled work and frames in flight are forgotten.
  void reset();

  // Looped-back frames waiting for the next turn, and those dropped because too many did.
  size_t loopback_backlog() const { return loopback_.size(); }
  uint64_t loopback_dropped() const { return loopback_dropped_; }

private:
  // Scheduling (transport_engine.cpp).
  void schedule(uint32_t qpn);
  void run_scheduled();
  void schedule_ack(uint32_t qpn);
  void flush_acks();
  void update_timer();
  void on_timer();
  // `from_wire`: received from the port, not looped back by this NIC.
  void process_frame(std::span<const uint8_t> frame, bool from_wire);
  // roce.rst, "Connected peer": an RC/UC packet from the QP's own peer, not to a group MAC.
  bool from_connected_peer(const QueuePair& qp, const roce::PacketDescription& packet,
                           bool from_wire) const;
  static bool transport_matches(ornic_qp_type type, const roce::OpcodeInfo& info);

  // Wire (transport_engine.cpp).
  bool address_rc(const QueuePair& qp, roce::PacketDescription& packet) const;
  void transmit(QueuePair& qp, const roce::PacketDescription& packet,
                std::span<const uint8_t> payload);
  bool is_local_gid(const roce::Gid& gid) const;
  void loop_back(const std::vector<uint8_t>& frame);

  // Requester (requester.cpp).
  bool requester_work(uint32_t qpn, QueuePair& qp, unsigned& budget);
  bool can_start_wqe(const QueuePair& qp) const;
  bool start_wqe(uint32_t qpn, QueuePair& qp);
  bool run_local_op(uint32_t qpn, QueuePair& qp, SendOp& op);
  bool uc_may_send(QueuePair& qp);
  void send_rc_packet(uint32_t qpn, QueuePair& qp, SendOp& op, uint32_t psn);
  std::optional<ornic_wqe_av> ud_address(const QueuePair& qp, const SendOp& op) const;
  void send_ud(uint32_t qpn, QueuePair& qp, SendOp& op);
  void retire(uint32_t qpn, QueuePair& qp);
  void complete_send(uint32_t qpn, QueuePair& qp, const SendOp& op, uint8_t status,
                     uint8_t vendor_err);
  void fail_send(uint32_t qpn, QueuePair& qp, const SendOp& op, uint8_t status, uint8_t vendor_err);
  void fail_started(uint32_t qpn, QueuePair& qp, const SendOp& op, uint8_t status,
                    uint8_t vendor_err);
  void maybe_report_drained(uint32_t qpn, QueuePair& qp);
  // A local ODP page is missing: report it and stall the send queue until ODP_RESUME.
  void requester_fault(uint32_t qpn, QueuePair& qp, const OdpFault& fault);
  uint32_t path_mtu_bytes(const QueuePair& qp) const;

  // Completer (completer.cpp).
  void on_response(uint32_t qpn, QueuePair& qp, const roce::ParsedPacket& packet);
  void acknowledge_up_to(QueuePair& qp, uint32_t psn);
  void rewind(QueuePair& qp, uint32_t psn);
  void on_ack_timeout(uint32_t qpn, QueuePair& qp, int64_t now);
  void restart_ack_timer(QueuePair& qp);

  // Responder (responder.cpp).
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
  };
  void on_rc_request(uint32_t qpn, QueuePair& qp, const roce::ParsedPacket& packet);
  // True when the datagram took a receive WQE (placed, or completed in error).
  bool on_ud_request(uint32_t qpn, QueuePair& qp, const roce::ParsedPacket& packet,
                     std::span<const uint8_t> frame);
  // A datagram to a multicast group: one copy to every attached QP (roce.rst, "Multicast").
  void on_multicast(const roce::ParsedPacket& packet, std::span<const uint8_t> frame);
  void on_duplicate(uint32_t qpn, QueuePair& qp, const roce::ParsedPacket& packet);
  // UC (uc_responder.cpp): PSN and sequence checks without NAKs, message drops.
  void on_uc_request(uint32_t qpn, QueuePair& qp, const roce::ParsedPacket& packet);
  void drop_uc_message(QueuePair& qp, ornic_counter_id why);
  // The XRC SRQ an XRC target's request names, if it may use it (xrc.rst, "Responder").
  std::optional<RequestTarget> xrc_target(const QueuePair& qp,
                                          const roce::ParsedPacket& packet) const;
  // The target of a request to any other QP: its own PD and receive queue.
  static RequestTarget own_target(const QueuePair& qp) { return RequestTarget{qp.pd, {}}; }
  bool execute_send(uint32_t qpn, QueuePair& qp, const roce::ParsedPacket& packet,
                    const RequestTarget& target);
  bool execute_write(uint32_t qpn, QueuePair& qp, const roce::ParsedPacket& packet,
                     const RequestTarget& target);
  void execute_read(uint32_t qpn, QueuePair& qp, const roce::ParsedPacket& packet,
                    const RequestTarget& target, bool duplicate);
  bool execute_atomic(uint32_t qpn, QueuePair& qp, const roce::ParsedPacket& packet,
                      const RequestTarget& target);
  // The MR a remote request of QP `qpn` reaches in PD `pd` (nullptr for a zero-length
  // request), or nothing when the QP's rights or the key's checks refuse it.
  std::optional<const MemoryRegion*> remote_allowed(uint32_t qpn, const QueuePair& qp, uint32_t pd,
                                                    uint32_t rkey, uint64_t va, uint64_t length,
                                                    uint32_t access) const;
  void execute_flush(uint32_t qpn, QueuePair& qp, const roce::ParsedPacket& packet, bool duplicate);
  // Read-resource ring (read_resources.cpp). A new read-class request takes an entry, or
  // is NAKed (invalid request, QP to ERR) when max_dest_rd_atomic entries still wait for
  // their responses; nullptr then.
  ReadResource* admit_resource(uint32_t qpn, QueuePair& qp, uint32_t psn);
  ReadResource* find_resource(QueuePair& qp, uint32_t psn, ReadResource::Kind kind);
  // Marks the entry as having responses to send and schedules the QP.
  void answer_resource(uint32_t qpn, ReadResource& entry);
  static bool responses_pending(const ResponderState& resp);
  // Sends pending responses in PSN order within `budget`; true when some are left.
  bool responder_work(uint32_t qpn, QueuePair& qp, unsigned& budget);
  void send_resource_response(uint32_t qpn, QueuePair& qp, ReadResource& entry);
  // The ACK for everything executed so far, or later if READ responses still wait: an ACK
  // must not overtake the responses of the requests before it.
  void acknowledge(uint32_t qpn, QueuePair& qp);
  // The port (or the loopback queue) holds enough frames not yet on the wire.
  bool transmit_backlogged() const;
  void execute_atomic_write(uint32_t qpn, QueuePair& qp, const roce::ParsedPacket& packet);
  // The answer to a FLUSH or ATOMIC WRITE: READ Response Only, AETH, no payload.
  void send_empty_read_response(uint32_t qpn, QueuePair& qp, uint32_t psn);
  Take take_receive(uint32_t qpn, QueuePair& qp, const RequestTarget& target, RecvWqe& wqe);
  void begin_receive(QueuePair& qp, const RequestTarget& target, const RecvWqe& wqe);
  // An RC request that needs a receive WQE: takes and begins one, or answers with an RNR
  // NAK (none posted) or has already failed the QP; true when the request may go on.
  bool take_receive_or_rnr(uint32_t qpn, QueuePair& qp, const RequestTarget& target, uint32_t psn);
  // The packet opcode for `rc` on this QP's transport (XRC QPs use the XRC codes).
  static uint8_t wire_opcode(const QueuePair& qp, roce::Opcode rc);
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
  void refuse(uint32_t qpn, QueuePair& qp, roce::NakCode code, uint32_t psn, ornic_eqe_type event);

  EventLoop& loop_;
  NicCore& core_;
  Port* port_;
  TransportTimer& timer_;
  LifetimeToken lifetime_;

  std::set<uint32_t> ready_; // QPs with requester work
  bool run_posted_ = false;
  std::set<uint32_t> ack_pending_;
  bool ack_flush_posted_ = false;
  std::deque<std::vector<uint8_t>> loopback_;
  uint64_t loopback_dropped_ = 0;
  bool loopback_posted_ = false;
  int64_t armed_deadline_ = 0;

  std::vector<uint8_t> frame_;   // reused for every frame built
  std::vector<uint8_t> payload_; // reused for every payload gathered
};

} // namespace ornic
