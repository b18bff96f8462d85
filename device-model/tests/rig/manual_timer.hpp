// A TransportTimer whose time only moves when the test says so.
#pragma once

#include <functional>

#include "core/transport_timer.hpp"

namespace ornic::test {

class ManualTimer final : public TransportTimer {
public:
  int64_t now_ns() override { return now_; }
  void arm(int64_t deadline_ns, std::function<void()> fire) override {
    deadline_ = deadline_ns;
    fire_ = std::move(fire);
  }
  void disarm() override { fire_ = nullptr; }

  // Fires the wakeup if it falls due; true if it did.
  bool advance(int64_t ns) {
    now_ += ns;
    if (!fire_ || deadline_ > now_)
      return false;
    auto fire = std::move(fire_);
    fire_ = nullptr;
    fire();
    return true;
  }
  bool armed() const { return static_cast<bool>(fire_); }
  int64_t deadline() const { return deadline_; }

private:
  int64_t now_ = 1'000'000'000;
  int64_t deadline_ = 0;
  std::function<void()> fire_;
};

} // namespace ornic::test
