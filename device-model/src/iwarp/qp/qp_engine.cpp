#include "iwarp/qp/qp_engine.hpp"

#include "iwarp/fpdu.hpp"

namespace ornic::iwarp::qp {

QpStream* QpEngine::stream(uint32_t qpn) {
  const auto it = streams_.find(qpn);
  return it == streams_.end() ? nullptr : it->second.get();
}

uint32_t QpEngine::connection_of(uint32_t qpn) const {
  const auto it = streams_.find(qpn);
  return it == streams_.end() ? 0 : it->second->params.conn_id;
}

uint8_t QpEngine::check_qp(uint32_t qpn) const {
  const QueuePair* qp = core_.resources.qps.find(qpn);
  if (qp == nullptr || qp->type != ORNIC_QPT_RC)
    return ORNIC_ADMIN_STATUS_BAD_HANDLE;
  if (streams_.contains(qpn))
    return ORNIC_ADMIN_STATUS_BUSY;
  if (qp->state != ORNIC_QPS_INIT)
    return ORNIC_ADMIN_STATUS_BAD_STATE;
  return ORNIC_ADMIN_STATUS_SUCCESS;
}

void QpEngine::established(const StreamParams& params) {
  QueuePair* qp = core_.resources.qps.find(params.qpn);
  // Checked at IW_CONNECT or IW_ACCEPT; software may have moved or destroyed it since.
  if (qp == nullptr || qp->type != ORNIC_QPT_RC || qp->state != ORNIC_QPS_INIT ||
      streams_.contains(params.qpn)) {
    if (io_ != nullptr)
      io_->stream_close(params.conn_id);
    return;
  }
  QpStream& s = *(streams_[params.qpn] = std::make_unique<QpStream>(params));
  s.max_ulpdu = max_ulpdu_for_mss(params.mss != 0 ? params.mss : 536);
  qp->transport = QpTransport{};
  qp->transport.req.sq_next = qp->sq.consumer;
  qp->state = ORNIC_QPS_RTS;
  qp->attr.state = ORNIC_QPS_RTS;
  pump(params.qpn);
}

void QpEngine::ended(uint32_t qpn, StreamEnd why) {
  // A FIN or software's own close is no error of the QP's; a reset or timeout is.
  const bool error = why == StreamEnd::reset || why == StreamEnd::timed_out;
  give_up(qpn, false, error ? ORNIC_EQE_QP_FATAL : 0);
}

void QpEngine::give_up(uint32_t qpn, bool close, uint32_t event) {
  const auto it = streams_.find(qpn);
  if (it == streams_.end())
    return;
  const uint32_t conn_id = it->second->params.conn_id;
  retired_.push_back(std::move(it->second));
  streams_.erase(it);
  if (close && io_ != nullptr)
    io_->stream_close(conn_id);
  const QueuePair* qp = core_.resources.qps.find(qpn);
  if (qp == nullptr)
    return;
  if (event != 0 && qp->state != ORNIC_QPS_ERR)
    core_.post_async_event(static_cast<ornic_eqe_type>(event), qpn, 0);
  core_.move_qp_to_error(qpn);
}

void QpEngine::sq_doorbell(uint32_t qpn) {
  retired_.clear();
  QueuePair* qp = core_.resources.qps.find(qpn);
  if (qp == nullptr)
    return;
  if (qp->state == ORNIC_QPS_ERR) {
    core_.flush_qp(qpn);
    return;
  }
  pump(qpn);
}

void QpEngine::qp_modified(uint32_t qpn, ornic_qp_state, ornic_qp_state to) {
  if (to == ORNIC_QPS_RESET) {
    // RESET forgets the connection's stream with everything else; the connection itself is
    // software's to close.
    streams_.erase(qpn);
    if (QueuePair* qp = core_.resources.qps.find(qpn))
      qp->transport = QpTransport{};
  }
}

void QpEngine::qp_entering_error(uint32_t qpn) {
  // The stream stays bound so that nothing more is placed; bytes that still arrive are
  // dropped, and the TCP connection is software's to close.
  (void)qpn;
}

void QpEngine::qp_destroyed(uint32_t qpn) {
  const auto it = streams_.find(qpn);
  if (it == streams_.end())
    return;
  const uint32_t conn_id = it->second->params.conn_id;
  streams_.erase(it);
  if (io_ != nullptr)
    io_->stream_close(conn_id);
}

void QpEngine::reset() {
  streams_.clear();
  retired_.clear();
}

} // namespace ornic::iwarp::qp
