// Shared helpers for the port tests: temp dirs, test frames, driving the event loop.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/event_loop.hpp"
#include "port/port.hpp"

namespace ornic::test {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents on destruction.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

using Frame = std::vector<std::byte>;

// An Ethernet frame of `size` bytes (broadcast dst, locally administered src, the given
// EtherType) whose payload is a pattern derived from `seed`, so mix-ups are detectable.
// Sizes below 14 give a truncated header: a runt.
Frame make_frame(size_t size, uint8_t seed, uint16_t ethertype = 0x88b5);

// Runs the loop until done() or the timeout; returns done(). The default is far above what
// any wait takes on an idle host, for a loaded 2-core one; a satisfied wait returns at once.
bool run_until(EventLoop& loop, const std::function<bool()>& done,
               std::chrono::milliseconds timeout = std::chrono::seconds(30));

// Runs the loop until nothing happened for `quiet` (bounded by 2 s).
void run_until_idle(EventLoop& loop,
                    std::chrono::milliseconds quiet = std::chrono::milliseconds(50));

// Runs the loop for `period` and counts the iterations that did something: an idle port
// wakes it only for its timers, a descriptor that spins (an uncleared EPOLLERR/EPOLLHUP, an
// EPOLLOUT nobody needs) wakes it thousands of times.
int busy_iterations(EventLoop& loop, std::chrono::milliseconds period);

// Collects every frame a port delivers.
struct FrameSink {
  std::vector<Frame> frames;
  Port::Receiver receiver() {
    return [this](std::span<const std::byte> f) { frames.emplace_back(f.begin(), f.end()); };
  }
};

} // namespace ornic::test
