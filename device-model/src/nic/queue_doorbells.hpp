// Applies decoded doorbells to their queues (doorbells.rst): finds the queue, enforces
// that the page rung owns it, checks the index, and moves the queue's index. A doorbell
// that fails any check is ignored and counted, never acted on.
#pragma once

#include "core/nic_core.hpp"
#include "nic/doorbell_decoder.hpp"
#include "nic/eth_function.hpp"

namespace ornic {

class QueueDoorbells {
public:
  QueueDoorbells(NicCore& core, EthFunction& eth) : core_(core), eth_(eth) {}

  void ring(const Doorbell& doorbell);

private:
  void work_queue(const Doorbell& db);
  void shared_receive_queue(const Doorbell& db);
  void completion_queue(const Doorbell& db);
  void event_queue(const Doorbell& db);
  void eth_ring(const Doorbell& db);

  void refuse(ornic_counter_id why, const Doorbell& db);
  bool take_producer(RingState& ring, const Doorbell& db);

  NicCore& core_;
  EthFunction& eth_;
};

} // namespace ornic
