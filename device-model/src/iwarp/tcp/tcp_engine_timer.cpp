#include "iwarp/tcp/tcp_engine_timer.hpp"

namespace ornic::iwarp::tcp {

TcpEngineTimer::TcpEngineTimer(EventLoop& loop, TcpEngine& engine, std::chrono::milliseconds period)
    : loop_(loop), engine_(engine), period_(period) {
  arm();
}

TcpEngineTimer::~TcpEngineTimer() {
  loop_.cancel_timer(timer_);
}

void TcpEngineTimer::arm() {
  timer_ = loop_.add_timer(period_, [this] {
    engine_.advance(std::chrono::steady_clock::now());
    arm();
  });
}

} // namespace ornic::iwarp::tcp
