#include "port/faulty_port.hpp"

#include <chrono>

#include <spdlog/spdlog.h>

namespace ornic {
namespace {

// A held frame goes out after this long even if nothing follows it, so reordering never
// turns into loss on an idle link.
constexpr auto kMaxHold = std::chrono::milliseconds(1);

} // namespace

FaultyPort::FaultyPort(EventLoop& loop, std::unique_ptr<Port> inner, const WireFaults& faults)
    : loop_(loop), inner_(std::move(inner)), faults_(faults), rng_(faults.seed) {
  spdlog::info("port: injecting wire faults on transmit: loss {}%, reorder {}%, dup {}%, "
               "corrupt {}%, seed {}",
               faults.loss * 100, faults.reorder * 100, faults.duplicate * 100,
               faults.corrupt * 100, faults.seed);
}

FaultyPort::~FaultyPort() {
  if (release_timer_)
    loop_.cancel_timer(*release_timer_);
  spdlog::info("port: wire faults injected: {} lost, {} reordered, {} duplicated, "
               "{} corrupted",
               injected_.lost, injected_.reordered, injected_.duplicated, injected_.corrupted);
}

bool FaultyPort::roll(double probability) {
  if (probability <= 0)
    return false;
  return std::uniform_real_distribution<double>(0, 1)(rng_) < probability;
}

void FaultyPort::send(std::span<const std::byte> frame) {
  if (roll(faults_.loss)) {
    ++injected_.lost;
    return;
  }
  std::vector<std::byte> copy;
  std::span<const std::byte> out = frame;
  if (frame.size() > kMinFrameBytes && roll(faults_.corrupt)) {
    copy.assign(frame.begin(), frame.end());
    const size_t byte =
        std::uniform_int_distribution<size_t>(kMinFrameBytes, copy.size() - 1)(rng_);
    copy[byte] ^= std::byte{static_cast<unsigned char>(1u << (rng_() % 8))};
    out = copy;
    ++injected_.corrupted;
  }
  if (!held_ && roll(faults_.reorder)) {
    held_.emplace(out.begin(), out.end());
    ++injected_.reordered;
    release_timer_ = loop_.add_timer(kMaxHold, [this] {
      release_timer_.reset();
      release_held();
    });
    return;
  }
  transmit(out);
  release_held();
}

void FaultyPort::transmit(std::span<const std::byte> frame) {
  inner_->send(frame);
  if (roll(faults_.duplicate)) {
    ++injected_.duplicated;
    inner_->send(frame);
  }
}

void FaultyPort::release_held() {
  if (!held_)
    return;
  if (release_timer_) {
    loop_.cancel_timer(*release_timer_);
    release_timer_.reset();
  }
  std::vector<std::byte> frame = std::move(*held_);
  held_.reset();
  transmit(frame);
}

} // namespace ornic
