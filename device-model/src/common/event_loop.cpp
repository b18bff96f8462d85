#include "common/event_loop.hpp"

#include <cerrno>
#include <system_error>
#include <vector>

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

namespace ornic {
namespace {

constexpr uint64_t kWakeRegistration = 0; // epoll data of the stop eventfd
constexpr int kMaxEventsPerWait = 64;

[[noreturn]] void throw_errno(const char* what) {
  throw std::system_error(errno, std::generic_category(), what);
}

} // namespace

template <typename F>
void EventLoop::guarded(const char* what, F&& handler) {
  try {
    handler();
  } catch (const std::exception& e) {
    ++handler_exceptions_;
    spdlog::critical("event loop: {} handler threw: {}", what, e.what());
  }
}

EventLoop::EventLoop() {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0)
    throw_errno("epoll_create1");
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    close(epoll_fd_);
    throw_errno("eventfd");
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kWakeRegistration;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev) < 0) {
    close(wake_fd_);
    close(epoll_fd_);
    throw_errno("epoll_ctl(wake)");
  }
}

EventLoop::~EventLoop() {
  close(wake_fd_);
  close(epoll_fd_);
}

void EventLoop::add_fd(int fd, uint32_t epoll_events, FdCallback cb) {
  if (fds_.contains(fd))
    throw std::system_error(EEXIST, std::generic_category(), "EventLoop::add_fd");
  const uint64_t registration = next_registration_++;
  epoll_event ev{};
  ev.events = epoll_events;
  ev.data.u64 = registration;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) < 0)
    throw_errno("epoll_ctl(ADD)");
  fds_[fd] = FdEntry{registration, std::make_shared<FdCallback>(std::move(cb))};
  registration_to_fd_[registration] = fd;
}

void EventLoop::modify_fd(int fd, uint32_t epoll_events) {
  auto it = fds_.find(fd);
  if (it == fds_.end())
    throw std::system_error(ENOENT, std::generic_category(), "EventLoop::modify_fd");
  epoll_event ev{};
  ev.events = epoll_events;
  ev.data.u64 = it->second.registration;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) < 0)
    throw_errno("epoll_ctl(MOD)");
}

void EventLoop::remove_fd(int fd) {
  auto it = fds_.find(fd);
  if (it == fds_.end())
    return;
  // The fd may already be closed by the caller; epoll forgets closed fds by itself.
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
  registration_to_fd_.erase(it->second.registration);
  fds_.erase(it);
}

EventLoop::TimerId EventLoop::add_timer(std::chrono::nanoseconds delay, Callback cb) {
  const TimerId id = next_timer_id_++;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(delay);
  timers_.emplace(std::make_pair(deadline, id), std::move(cb));
  timer_deadlines_.emplace(id, deadline);
  return id;
}

void EventLoop::cancel_timer(TimerId id) {
  auto it = timer_deadlines_.find(id);
  if (it == timer_deadlines_.end())
    return;
  timers_.erase(std::make_pair(it->second, id));
  timer_deadlines_.erase(it);
}

void EventLoop::post(Callback cb) {
  posted_.push_back(std::move(cb));
}

void EventLoop::stop() {
  stop_requested_ = true;
  const uint64_t one = 1;
  // write() on an eventfd is async-signal-safe; a full counter still leaves it readable.
  [[maybe_unused]] ssize_t n = write(wake_fd_, &one, sizeof(one));
}

void EventLoop::run() {
  while (!stop_requested_.load())
    run_once(std::chrono::milliseconds(1000));
  stop_requested_.store(false);
}

std::chrono::nanoseconds EventLoop::next_wait(std::chrono::nanoseconds cap) const {
  using std::chrono::nanoseconds;
  if (!posted_.empty())
    return nanoseconds::zero();
  auto wait = cap;
  if (!timers_.empty()) {
    const auto until = timers_.begin()->first.first - Clock::now();
    if (until <= Clock::duration::zero())
      return nanoseconds::zero();
    // Round up so a timer is never polled for a moment before its deadline.
    const auto until_ns = std::chrono::ceil<nanoseconds>(until);
    if (until_ns < wait)
      wait = until_ns;
  }
  return wait;
}

int EventLoop::wait_for_events(epoll_event* events, int max_events, std::chrono::nanoseconds wait) {
  if (have_pwait2_) {
    const auto secs = std::chrono::floor<std::chrono::seconds>(wait);
    const timespec ts{static_cast<time_t>(secs.count()), static_cast<long>((wait - secs).count())};
    const int n = epoll_pwait2(epoll_fd_, events, max_events, &ts, nullptr);
    if (n >= 0 || errno != ENOSYS)
      return n;
    have_pwait2_ = false;
    spdlog::info("event loop: no epoll_pwait2 in this kernel; timers wait in milliseconds");
  }
  // Rounded up, for the same reason as in next_wait().
  const auto wait_ms = std::chrono::ceil<std::chrono::milliseconds>(wait);
  return epoll_wait(epoll_fd_, events, max_events, static_cast<int>(wait_ms.count()));
}

bool EventLoop::run_due_timers() {
  if (timers_.empty())
    return false;
  bool ran = false;
  const auto now = Clock::now();
  while (!timers_.empty() && timers_.begin()->first.first <= now) {
    auto node = timers_.extract(timers_.begin());
    timer_deadlines_.erase(node.key().second);
    guarded("timer", node.mapped());
    ran = true;
  }
  return ran;
}

bool EventLoop::run_posted() {
  if (posted_.empty())
    return false; // a deque, even an empty one, costs two allocations
  // Only what was posted before this point: self-reposting work yields to fds.
  std::deque<Callback> batch;
  batch.swap(posted_);
  for (auto& cb : batch)
    guarded("posted", cb);
  return !batch.empty();
}

bool EventLoop::run_once(std::chrono::milliseconds timeout) {
  bool did_something = false;
  epoll_event events[kMaxEventsPerWait];
  int n = wait_for_events(events, kMaxEventsPerWait, next_wait(timeout));
  if (n < 0) {
    if (errno != EINTR)
      throw_errno("epoll_wait");
    n = 0;
  }
  for (int i = 0; i < n; ++i) {
    const uint64_t registration = events[i].data.u64;
    if (registration == kWakeRegistration) {
      uint64_t value;
      [[maybe_unused]] ssize_t r = read(wake_fd_, &value, sizeof(value));
      did_something = true;
      continue;
    }
    auto fd_it = registration_to_fd_.find(registration);
    if (fd_it == registration_to_fd_.end())
      continue; // removed by an earlier handler in this batch
    // Hold the callback so remove_fd() inside it cannot destroy the running closure.
    std::shared_ptr<FdCallback> cb = fds_.at(fd_it->second).callback;
    guarded("fd", [&] { (*cb)(events[i].events); });
    did_something = true;
  }
  did_something |= run_due_timers();
  did_something |= run_posted();
  return did_something;
}

bool EventLoop::run_ready() {
  const bool timers = run_due_timers();
  return run_posted() || timers;
}

} // namespace ornic
