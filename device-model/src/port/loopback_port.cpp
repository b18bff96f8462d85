#include "port/loopback_port.hpp"

#include <vector>

#include "common/event_loop.hpp"
#include "port/frame_length.hpp"

namespace ornic {

LoopbackPort::LoopbackPort(EventLoop& loop) : loop_(loop), state_(std::make_shared<State>()) {}

LoopbackPort::~LoopbackPort() {
  state_->alive = false;
}

void LoopbackPort::send(std::span<const std::byte> frame) {
  State& state = *state_;
  if (!admit_tx_frame(frame.size(), state.counters))
    return;
  if (state.in_flight >= kMaxFramesInFlight) {
    ++state.counters.tx_dropped_would_block;
    return;
  }
  ++state.in_flight;
  ++state.counters.tx_frames;
  state.counters.tx_bytes += frame.size();
  loop_.post([state = state_, copy = std::vector<std::byte>(frame.begin(), frame.end())] {
    --state->in_flight;
    if (!state->alive)
      return;
    if (!state->receiver) {
      ++state->counters.rx_dropped_no_receiver;
      return;
    }
    ++state->counters.rx_frames;
    state->counters.rx_bytes += copy.size();
    state->receiver(copy);
  });
}

void LoopbackPort::set_receiver(Receiver rx) {
  state_->receiver = std::move(rx);
}

PortCounters LoopbackPort::counters() const {
  return state_->counters;
}

} // namespace ornic
