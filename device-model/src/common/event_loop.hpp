// Single-threaded epoll event loop that drives the whole device model.
//
// Everything (the vfio-user socket, port sockets, device work, timers) runs on one
// EventLoop. Handlers must never block; long device work is split into bounded chunks
// with post(), so a busy device can never starve the vfio-user socket.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>

#include <sys/epoll.h> // EPOLLIN etc. for callers

namespace ornic {

class EventLoop {
public:
  using Callback = std::function<void()>;
  using FdCallback = std::function<void(uint32_t epoll_events)>;
  using TimerId = uint64_t;

  EventLoop();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // Registers fd (level-triggered unless EPOLLET is passed). Throws std::system_error
  // if epoll refuses the fd or it is already registered.
  void add_fd(int fd, uint32_t epoll_events, FdCallback cb);
  void modify_fd(int fd, uint32_t epoll_events);
  // Safe to call from inside any callback, including the fd's own: events for an fd
  // removed earlier in the same iteration are dropped. Unknown fds are ignored.
  void remove_fd(int fd);

  // One-shot timer on the monotonic clock. Cancelling an expired or unknown id is a no-op.
  TimerId add_timer(std::chrono::nanoseconds delay, Callback cb);
  void cancel_timer(TimerId id);

  // Runs cb after the current handler returns, in FIFO order. Callbacks posted by a
  // posted callback run in the next iteration, after fds are polled again.
  void post(Callback cb);

  void run();  // until stop(); a stop() that came before run() makes it return at once
  void stop(); // thread- and async-signal-safe (writes an eventfd)

  // Handlers that throw: the exception is logged and counted and the loop carries on,
  // because a model that exits takes the VM's device with it for good.
  uint64_t handler_exceptions() const { return handler_exceptions_; }

  // One iteration for tests: waits up to timeout for work (no wait if callbacks are
  // pending), runs it and returns false if nothing happened.
  bool run_once(std::chrono::milliseconds timeout);
  // Due timers and posted callbacks only, without polling fds: one iteration for a test or
  // fuzz rig that drives a device with no fds of its own, at no system call per turn.
  bool run_ready();

  // How long the next iteration may sleep when nothing arrives: zero with posted work or
  // a due timer, else until the first timer's deadline, at most cap. Exact to the
  // nanosecond: the loop sleeps with epoll_pwait2, so a 50 us retransmission or drain
  // timer is not stretched to a millisecond (epoll_wait's unit) as it used to be.
  std::chrono::nanoseconds next_wait(std::chrono::nanoseconds cap) const;

private:
  struct FdEntry {
    uint64_t registration; // distinguishes a re-added fd from the one an event was for
    std::shared_ptr<FdCallback> callback;
  };
  using Clock = std::chrono::steady_clock;

  template <typename F>
  void guarded(const char* what, F&& handler);
  bool run_due_timers();
  bool run_posted();
  int wait_for_events(epoll_event* events, int max_events, std::chrono::nanoseconds wait);

  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  std::atomic<bool> stop_requested_{false}; // set by stop(), cleared when run() returns
  uint64_t next_registration_ = 1;
  std::unordered_map<int, FdEntry> fds_;
  std::unordered_map<uint64_t, int> registration_to_fd_;
  TimerId next_timer_id_ = 1;
  std::map<std::pair<Clock::time_point, TimerId>, Callback> timers_;
  std::unordered_map<TimerId, Clock::time_point> timer_deadlines_;
  std::deque<Callback> posted_;
  uint64_t handler_exceptions_ = 0;
  bool have_pwait2_ = true; // false once the kernel said ENOSYS (before Linux 5.11)
};

} // namespace ornic
