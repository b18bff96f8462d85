#include "nic/queue_doorbells.hpp"

namespace ornic {

void QueueDoorbells::ring(const Doorbell& db) {
  switch (db.kind) {
  case DoorbellKind::kSq:
  case DoorbellKind::kRq:
    return work_queue(db);
  case DoorbellKind::kSrq:
    return shared_receive_queue(db);
  case DoorbellKind::kCq:
    return completion_queue(db);
  case DoorbellKind::kEq:
    return event_queue(db);
  case DoorbellKind::kEthTx:
  case DoorbellKind::kEthRx:
    return eth_ring(db);
  }
}

void QueueDoorbells::refuse(ornic_counter_id why, const Doorbell& db) {
  core_.counters.inc(why);
  core_.log.warn("doorbell: page {} kind {} queue {} index {} ignored (counter {})", db.page,
                 static_cast<int>(db.kind), db.queue, db.index, static_cast<int>(why));
}

void QueueDoorbells::work_queue(const Doorbell& db) {
  QueuePair* qp = core_.resources.qps.find(db.queue);
  const bool is_sq = db.kind == DoorbellKind::kSq;
  // Only the queues a QP has (xrc.rst): an XRC initiator has no RQ, a target no queue.
  if (qp == nullptr || qp->type == ORNIC_QPT_XRC_TGT ||
      (!is_sq && (qp->srqn || qp->type == ORNIC_QPT_XRC_INI)))
    return refuse(ORNIC_CNT_DB_BAD_QUEUE, db);
  if (qp->db_page != db.page) {
    ++qp->counters.db_foreign_page;
    return refuse(ORNIC_CNT_DB_FOREIGN_PAGE, db);
  }
  RingState& ring = is_sq ? qp->sq : qp->rq;
  if (!take_producer(ring, db)) {
    ++qp->counters.db_bad_index;
    return refuse(ORNIC_CNT_DB_BAD_INDEX, db);
  }
  if (qp->state == ORNIC_QPS_ERR || (is_sq && qp->state == ORNIC_QPS_SQE)) {
    core_.flush_qp(db.queue);
  } else if (is_sq && core_.transport != nullptr) {
    // The requester runs now and reads the record whenever it runs out of work, so
    // software may stop ringing until it sets kick again.
    DoorbellRecord record = core_.sq_record(*qp);
    (void)record.set_kick(false);
    (void)record.refresh();
    core_.transport->sq_doorbell(db.queue);
  }
}

// With a doorbell record, a doorbell index at or behind the device's producer (serial number
// arithmetic) is stale: the device already read a later one from the record, and may have
// consumed it (doorbells.rst, "Doorbell records"); software may have posted rings more while
// the doorbell was on its way. It only wakes the queue. Without a record, indices only move
// forward.
bool QueueDoorbells::take_producer(RingState& ring, const Doorbell& db) {
  if (ring.has_record && ring.producer - db.index < (uint32_t{1} << 31))
    return true;
  if (!ring.producer_acceptable(db.index))
    return false;
  ring.producer = db.index;
  return true;
}

void QueueDoorbells::shared_receive_queue(const Doorbell& db) {
  SharedReceiveQueue* srq = core_.resources.srqs.find(db.queue);
  if (srq == nullptr)
    return refuse(ORNIC_CNT_DB_BAD_QUEUE, db);
  if (srq->db_page != db.page)
    return refuse(ORNIC_CNT_DB_FOREIGN_PAGE, db);
  if (!take_producer(srq->ring, db))
    return refuse(ORNIC_CNT_DB_BAD_INDEX, db);
}

void QueueDoorbells::completion_queue(const Doorbell& db) {
  CompletionQueue* cq = core_.resources.cqs.find(db.queue);
  if (cq == nullptr)
    return refuse(ORNIC_CNT_DB_BAD_QUEUE, db);
  if (cq->db_page() != db.page)
    return refuse(ORNIC_CNT_DB_FOREIGN_PAGE, db);
  const auto result = cq->doorbell(db.index, db.flags);
  if (!result.accepted)
    return refuse(ORNIC_CNT_DB_BAD_INDEX, db);
  if (!result.notify)
    return;
  EventQueue* eq = core_.event_queue(cq->eqn());
  if (eq == nullptr || eq->post(core_.memory(), core_.irqs(), core_.counters, ORNIC_EQE_COMPLETION,
                                db.queue, 0) != EventQueue::PostResult::kPosted)
    cq->event_lost();
}

void QueueDoorbells::event_queue(const Doorbell& db) {
  // EQ 0 is armed through AEQ_DB only; completion EQs belong to the kernel's page.
  EventQueue* eq = db.queue == 0 ? nullptr : core_.resources.eqs.find(db.queue);
  if (eq == nullptr)
    return refuse(ORNIC_CNT_DB_BAD_QUEUE, db);
  if (db.page != ORNIC_DB_PAGE_KERNEL)
    return refuse(ORNIC_CNT_DB_FOREIGN_PAGE, db);
  if (!eq->doorbell(core_.irqs(), core_.counters, db.index,
                    (db.flags & ORNIC_DB_FLAG_ARM_NEXT) != 0))
    refuse(ORNIC_CNT_DB_BAD_INDEX, db);
}

void QueueDoorbells::eth_ring(const Doorbell& db) {
  EthRing* ring = core_.resources.eth_rings.find(db.queue);
  const bool is_tx = db.kind == DoorbellKind::kEthTx;
  if (ring == nullptr || ring->is_tx != is_tx)
    return refuse(ORNIC_CNT_DB_BAD_QUEUE, db);
  if (db.page != ORNIC_DB_PAGE_KERNEL)
    return refuse(ORNIC_CNT_DB_FOREIGN_PAGE, db);
  if (!ring->ring.producer_acceptable(db.index))
    return refuse(ORNIC_CNT_DB_BAD_INDEX, db);
  ring->ring.producer = db.index;
  if (is_tx)
    eth_.tx_doorbell();
}

} // namespace ornic
