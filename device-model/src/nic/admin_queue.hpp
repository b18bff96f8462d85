// The admin queue engine (admin.rst, "Protocol"): fetches 64-byte commands from the SQ
// ring by DMA, has AdminCommands execute them, writes 16-byte completions with the phase
// bit and raises vector 0. Work is done in bounded batches posted to the EventLoop so
// the vfio-user socket keeps being served while a long batch runs.
#pragma once

#include <cstdint>

#include "common/event_loop.hpp"
#include "core/lifetime_token.hpp"
#include "core/nic_core.hpp"
#include "core/ring_state.hpp"
#include "nic/admin_commands.hpp"

namespace ornic {

class AdminQueue {
public:
  AdminQueue(EventLoop& loop, NicCore& core, AdminCommands& commands)
      : loop_(loop), core_(core), commands_(commands) {}

  // Configuration is validated by the caller (register file, at enable).
  void start(uint64_t sq_base, uint64_t cq_base, uint32_t depth);
  // Forgets everything; work already posted to the loop does nothing.
  void stop();

  void doorbell(uint32_t tail);
  uint32_t head() const { return sq_.consumer; }
  bool running() const { return running_; }

private:
  void schedule();
  void run_batch();
  bool run_one();

  EventLoop& loop_;
  NicCore& core_;
  AdminCommands& commands_;
  LifetimeToken lifetime_;
  bool running_ = false;
  bool scheduled_ = false;
  uint64_t sq_base_ = 0;
  uint64_t cq_base_ = 0;
  RingState sq_; // producer = tail from the doorbell, consumer = head
  RingState cq_; // producer = next completion slot
};

} // namespace ornic
