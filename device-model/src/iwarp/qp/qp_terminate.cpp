// Giving a stream up: a TERMINATE on queue 2 naming the cause and carrying the headers of
// the segment that caused it (its length, its DDP header, a Read Request's RDMAP header),
// then FIN. Without markers an MPA stream cannot resynchronise, so after a TERMINATE,
// sent or received, nothing more is placed.
#include "iwarp/fpdu.hpp"
#include "iwarp/qp/qp_engine.hpp"

namespace ornic::iwarp::qp {

bool QpEngine::terminate(uint32_t qpn, QpStream& s, TerminateCause cause,
                         std::span<const uint8_t> ulpdu, uint32_t event) {
  core_.log.warn("qp {}: TERMINATE sent ({})", qpn, describe(cause));
  TerminateMessage message;
  message.cause = cause;
  if (const auto ddp = load_ddp_header(ulpdu)) {
    message.segment_length_valid = true;
    message.segment_length = static_cast<uint16_t>(ulpdu.size());
    message.ddp_header.assign(ulpdu.begin(), ulpdu.begin() + static_cast<ptrdiff_t>(ddp->size()));
    const bool read_request = !ddp->tagged && (ddp->ulp_control & kRdmapOpcodeMask) ==
                                                  static_cast<uint8_t>(RdmapOpcode::read_request);
    if (read_request && ulpdu.size() >= ddp->size() + kReadRequestSize)
      message.rdmap_header.assign(ulpdu.begin() + static_cast<ptrdiff_t>(ddp->size()),
                                  ulpdu.begin() +
                                      static_cast<ptrdiff_t>(ddp->size() + kReadRequestSize));
  }
  Segment seg;
  seg.opcode = RdmapOpcode::terminate;
  seg.rdmap.opcode = static_cast<uint8_t>(RdmapOpcode::terminate);
  seg.ddp.queue_number = kQueueTerminate;
  seg.ddp.msn = s.terminate_msn++;
  seg.terminate = std::move(message);
  append_segment(s, seg);
  push_tx(s);
  ++counters_.terminates_sent;
  core_.counters.inc(ORNIC_CNT_IW_TERMINATES_SENT);
  give_up(qpn, true, event);
  return false;
}

} // namespace ornic::iwarp::qp
