// Runs a TcpEngine's timers on the model's event loop: one re-armed one-shot timer per
// period on the loop's own thread, so lwIP is never entered from anywhere else.
#pragma once

#include "common/event_loop.hpp"
#include "iwarp/tcp/tcp_engine.hpp"

namespace ornic::iwarp::tcp {

class TcpEngineTimer {
public:
  TcpEngineTimer(EventLoop& loop, TcpEngine& engine,
                 std::chrono::milliseconds period = TcpEngine::kTickPeriod);
  ~TcpEngineTimer();
  TcpEngineTimer(const TcpEngineTimer&) = delete;
  TcpEngineTimer& operator=(const TcpEngineTimer&) = delete;

private:
  void arm();

  EventLoop& loop_;
  TcpEngine& engine_;
  std::chrono::milliseconds period_;
  EventLoop::TimerId timer_ = 0;
};

} // namespace ornic::iwarp::tcp
