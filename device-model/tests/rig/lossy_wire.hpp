// An in-process Ethernet link between two ports for transport tests: frames queue until
// the test delivers them, and a per-frame policy may drop, duplicate, hold back (reorder)
// or corrupt each one, so every loss pattern is exact and repeatable. Like the shm: port,
// an end lets the sender build a frame in place (reserve_tx/commit_tx) in a buffer that is
// then carried as it is; delivered frames' buffers are reused, so a busy wire allocates
// nothing per frame (the benchmarks measure the NIC, not the wire).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "port/ecn_mark.hpp"
#include "port/port.hpp"

namespace ornic::test {

// mark_ce: ECN Congestion Experienced on an ECN-capable frame, as a congested switch would.
enum class WireAction : uint8_t { deliver, drop, duplicate, delay, corrupt, mark_ce };

class LossyWire {
public:
  using Frame = std::vector<std::byte>;
  // Decides the fate of the n-th frame (counted per direction from 0) sent by side 0/1.
  using Policy = std::function<WireAction(int side, uint64_t n, const Frame& frame)>;

  class End final : public Port {
  public:
    End(LossyWire& wire, int side) : wire_(wire), side_(side) {}
    void send(std::span<const std::byte> frame) override {
      Frame copy = wire_.spare_frame();
      copy.assign(frame.begin(), frame.end());
      wire_.carry(side_, std::move(copy));
    }
    std::span<std::byte> reserve_tx(size_t bytes) override {
      reserved_ = wire_.spare_frame();
      reserved_.resize(std::min(bytes, kMaxFrameBytes + 1));
      return reserved_;
    }
    void commit_tx(size_t length) override {
      reserved_.resize(std::min(length, reserved_.size()));
      ++wire_.in_place[side_];
      wire_.carry(side_, std::move(reserved_));
      reserved_ = Frame();
    }
    void set_receiver(Receiver rx) override { receiver_ = std::move(rx); }
    bool link_up() const override { return wire_.up; }
    PortCounters counters() const override { return {}; }
    size_t tx_backlog() const override { return wire_.backlog; }
    Receiver receiver_;

  private:
    LossyWire& wire_;
    int side_;
    Frame reserved_;
  };

  LossyWire() : ends_{End(*this, 0), End(*this, 1)} {}
  End& end(int side) { return ends_[side]; }

  // Hands every queued frame to its receiver; true if any was delivered.
  bool deliver() {
    bool any = false;
    for (int side = 0; side < 2; ++side) {
      std::deque<Frame> frames;
      frames.swap(queue_[side]);
      for (Frame& frame : frames) {
        any = true;
        if (ends_[1 - side].receiver_)
          ends_[1 - side].receiver_(frame);
        if (spare_.size() < kMaxSpareFrames)
          spare_.push_back(std::move(frame));
      }
    }
    return any;
  }
  // Frames held back by `delay` go out after the next frame of their direction.
  size_t pending() const { return queue_[0].size() + queue_[1].size(); }

  Policy policy;
  bool up = true;
  size_t backlog = 0; // what both ends report as their transmit backlog
  uint64_t sent[2] = {0, 0};
  uint64_t in_place[2] = {0, 0}; // of those sent, built in place (commit_tx)
  uint64_t dropped = 0;

private:
  static constexpr size_t kMaxSpareFrames = 1024;

  Frame spare_frame() {
    if (spare_.empty())
      return Frame();
    Frame frame = std::move(spare_.back());
    spare_.pop_back();
    return frame;
  }

  void carry(int side, Frame frame) {
    const uint64_t n = sent[side]++;
    if (!up)
      return;
    const WireAction action = policy ? policy(side, n, frame) : WireAction::deliver;
    switch (action) {
    case WireAction::drop:
      ++dropped;
      return;
    case WireAction::duplicate:
      queue_[side].push_back(frame);
      break;
    case WireAction::delay:
      held_[side].push_back(std::move(frame));
      return;
    case WireAction::corrupt:
      frame[frame.size() / 2] ^= std::byte{0x40};
      break;
    case WireAction::mark_ce:
      (void)mark_ecn_ce(frame);
      break;
    case WireAction::deliver:
      break;
    }
    queue_[side].push_back(std::move(frame));
    for (Frame& late : held_[side])
      queue_[side].push_back(std::move(late));
    held_[side].clear();
  }

  End ends_[2];
  std::deque<Frame> queue_[2];
  std::vector<Frame> held_[2];
  std::vector<Frame> spare_; // delivered frames' buffers, for the next ones
};

} // namespace ornic::test
