// Work posted to the EventLoop may run after its owner is gone or was reset. Owners keep a
// LifetimeToken; posted callbacks hold a Ticket and do nothing once it is stale.
#pragma once

#include <cstdint>
#include <memory>

namespace ornic {

class LifetimeToken {
public:
  class Ticket {
  public:
    bool valid() const {
      auto generation = generation_.lock();
      return generation && *generation == issued_;
    }

  private:
    friend class LifetimeToken;
    Ticket(std::weak_ptr<uint64_t> generation, uint64_t issued)
        : generation_(std::move(generation)), issued_(issued) {}
    std::weak_ptr<uint64_t> generation_;
    uint64_t issued_;
  };

  Ticket ticket() const { return Ticket(generation_, *generation_); }
  // Every ticket issued so far becomes stale (used on reset).
  void invalidate() { ++*generation_; }

private:
  std::shared_ptr<uint64_t> generation_ = std::make_shared<uint64_t>(0);
};

} // namespace ornic
