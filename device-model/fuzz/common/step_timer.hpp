// The packet engine's clock for the fuzz rigs: time moves only when the fuzzer says so, so
// an input's timeouts and RNR waits happen at the same point of every run.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>

#include "core/transport_timer.hpp"

namespace ornic::fuzz {

class StepTimer final : public TransportTimer {
public:
  int64_t now_ns() override { return now; }
  void arm(int64_t deadline_ns, std::function<void()> fire) override {
    deadline = deadline_ns;
    pending = std::move(fire);
  }
  void disarm() override { pending = nullptr; }
  // As constructed, for a rig reused by the next input.
  void reset() {
    now = kStart;
    deadline = 0;
    pending = nullptr;
  }
  void advance(int64_t ns) {
    now += ns;
    if (pending && deadline <= now) {
      auto fire = std::move(pending);
      pending = nullptr;
      fire();
    }
  }
  static constexpr int64_t kStart = 1'000'000'000;
  int64_t now = kStart;
  int64_t deadline = 0;
  std::function<void()> pending;
};

} // namespace ornic::fuzz
