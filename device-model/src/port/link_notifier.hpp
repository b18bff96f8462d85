// Delivers link-state changes to a Port's LinkListener through EventLoop::post, so the
// NIC hears about them from the loop and never from inside its own send().
#pragma once

#include <memory>

#include "common/event_loop.hpp"
#include "port/port.hpp"

namespace ornic {

class LinkNotifier {
public:
  explicit LinkNotifier(EventLoop& loop) : loop_(loop) {}

  // A replaced or destroyed listener gets none of the notifications still queued for it:
  // the posted callbacks only hold a weak reference.
  void set_listener(Port::LinkListener listener) {
    listener_ = listener ? std::make_shared<Port::LinkListener>(std::move(listener)) : nullptr;
  }

  void notify(bool up) {
    if (!listener_)
      return;
    loop_.post([weak = std::weak_ptr(listener_), up] {
      if (const auto listener = weak.lock())
        (*listener)(up);
    });
  }

private:
  EventLoop& loop_;
  std::shared_ptr<Port::LinkListener> listener_;
};

} // namespace ornic
