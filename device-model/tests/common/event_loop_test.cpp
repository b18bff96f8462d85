#include <chrono>
#include <thread>
#include <vector>

#include <sys/eventfd.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "common/event_loop.hpp"
#include "common/unique_fd.hpp"

namespace ornic {
namespace {

using namespace std::chrono_literals;

void signal_eventfd(int fd) {
  const uint64_t one = 1;
  ASSERT_EQ(write(fd, &one, sizeof(one)), static_cast<ssize_t>(sizeof(one)));
}

TEST(EventLoop, RunOnceReportsIdle) {
  EventLoop loop;
  EXPECT_FALSE(loop.run_once(0ms));
}

TEST(EventLoop, FdCallbackRunsWhenReadable) {
  EventLoop loop;
  UniqueFd efd(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  int calls = 0;
  loop.add_fd(efd.get(), EPOLLIN, [&](uint32_t events) {
    EXPECT_TRUE(events & EPOLLIN);
    uint64_t v;
    ASSERT_EQ(read(efd.get(), &v, sizeof(v)), 8);
    ++calls;
  });
  EXPECT_FALSE(loop.run_once(0ms));
  signal_eventfd(efd.get());
  EXPECT_TRUE(loop.run_once(100ms));
  EXPECT_EQ(calls, 1);
  loop.remove_fd(efd.get());
  signal_eventfd(efd.get());
  EXPECT_FALSE(loop.run_once(0ms));
  EXPECT_EQ(calls, 1);
}

TEST(EventLoop, RemoveInsideOwnCallbackAndOthersInSameBatch) {
  EventLoop loop;
  UniqueFd a(eventfd(1, EFD_NONBLOCK | EFD_CLOEXEC));
  UniqueFd b(eventfd(1, EFD_NONBLOCK | EFD_CLOEXEC));
  int calls = 0;
  // Whichever runs first removes both; the other must not be called.
  auto cb = [&](uint32_t) {
    ++calls;
    loop.remove_fd(a.get());
    loop.remove_fd(b.get());
  };
  loop.add_fd(a.get(), EPOLLIN, cb);
  loop.add_fd(b.get(), EPOLLIN, cb);
  EXPECT_TRUE(loop.run_once(100ms));
  EXPECT_EQ(calls, 1);
}

TEST(EventLoop, AddFdTwiceThrows) {
  EventLoop loop;
  UniqueFd efd(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  loop.add_fd(efd.get(), EPOLLIN, [](uint32_t) {});
  EXPECT_THROW(loop.add_fd(efd.get(), EPOLLIN, [](uint32_t) {}), std::system_error);
}

TEST(EventLoop, ModifyFdSwitchesEvents) {
  EventLoop loop;
  UniqueFd efd(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  uint32_t seen = 0;
  loop.add_fd(efd.get(), 0, [&](uint32_t events) { seen |= events; });
  EXPECT_FALSE(loop.run_once(0ms));
  loop.modify_fd(efd.get(), EPOLLOUT);
  EXPECT_TRUE(loop.run_once(0ms));
  EXPECT_TRUE(seen & EPOLLOUT);
}

TEST(EventLoop, PostRunsAfterHandlerInOrder) {
  EventLoop loop;
  std::vector<int> order;
  loop.post([&] {
    order.push_back(1);
    loop.post([&] { order.push_back(3); });
  });
  loop.post([&] { order.push_back(2); });
  EXPECT_TRUE(loop.run_once(0ms));
  EXPECT_EQ(order, (std::vector<int>{1, 2})); // the re-post waits for the next iteration
  EXPECT_TRUE(loop.run_once(0ms));
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_FALSE(loop.run_once(0ms));
}

TEST(EventLoop, SelfRepostingWorkDoesNotStarveFds) {
  EventLoop loop;
  UniqueFd efd(eventfd(1, EFD_NONBLOCK | EFD_CLOEXEC));
  bool fd_ran = false;
  loop.add_fd(efd.get(), EPOLLIN, [&](uint32_t) {
    fd_ran = true;
    loop.remove_fd(efd.get());
  });
  std::function<void()> chunk = [&] { loop.post(chunk); };
  loop.post(chunk);
  EXPECT_TRUE(loop.run_once(0ms));
  EXPECT_TRUE(fd_ran);
}

TEST(EventLoop, TimersFireInDeadlineOrderAndCancel) {
  EventLoop loop;
  std::vector<int> fired;
  // Before the timers are armed: their deadlines count from there.
  const auto start = std::chrono::steady_clock::now();
  loop.add_timer(20ms, [&] { fired.push_back(2); });
  loop.add_timer(5ms, [&] { fired.push_back(1); });
  auto cancelled = loop.add_timer(10ms, [&] { fired.push_back(99); });
  loop.cancel_timer(cancelled);
  loop.cancel_timer(cancelled); // twice is fine
  loop.cancel_timer(12345);     // unknown is fine
  while (fired.size() < 2 && std::chrono::steady_clock::now() - start < 2s)
    loop.run_once(100ms);
  EXPECT_EQ(fired, (std::vector<int>{1, 2}));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 20ms);
}

// The wait is the timer's own deadline, not rounded to epoll_wait's milliseconds: a
// 300 us timer lets the loop sleep at most 300 us (and never less than what is left).
TEST(EventLoop, NextWaitIsExactToTheTimerDeadline) {
  EventLoop loop;
  EXPECT_EQ(loop.next_wait(7ms), 7ms);
  // Exact: what is left of the deadline, to less than the time this thread spent between
  // arming the timer and asking (a busy host may take that thread off the CPU meanwhile).
  const auto armed = std::chrono::steady_clock::now();
  loop.add_timer(300us, [] {});
  const auto wait = loop.next_wait(7ms);
  const auto spent = std::chrono::steady_clock::now() - armed;
  EXPECT_LE(wait, 300us);
  EXPECT_GE(wait, 300us - spent) << "rounded down to whole milliseconds";
  loop.post([] {});
  EXPECT_EQ(loop.next_wait(7ms), 0ns);
}

TEST(EventLoop, SubMillisecondTimerFiresAfterItsDeadlineNotBefore) {
  EventLoop loop;
  std::chrono::steady_clock::time_point fired_at{};
  const auto start = std::chrono::steady_clock::now();
  loop.add_timer(250us, [&] { fired_at = std::chrono::steady_clock::now(); });
  while (fired_at == std::chrono::steady_clock::time_point{} &&
         std::chrono::steady_clock::now() - start < 2s)
    loop.run_once(100ms);
  ASSERT_NE(fired_at, std::chrono::steady_clock::time_point{});
  EXPECT_GE(fired_at - start, 250us);
}

TEST(EventLoop, TimerCanCancelAnotherDueTimer) {
  EventLoop loop;
  EventLoop::TimerId second = 0;
  bool second_ran = false;
  loop.add_timer(0ns, [&] { loop.cancel_timer(second); });
  second = loop.add_timer(0ns, [&] { second_ran = true; });
  std::this_thread::sleep_for(1ms);
  loop.run_once(0ms);
  EXPECT_FALSE(second_ran);
}

TEST(EventLoop, StopFromAnotherThread) {
  EventLoop loop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(20ms);
    loop.stop();
  });
  loop.run(); // returns only because of stop()
  stopper.join();
}

TEST(EventLoop, StopBeforeRunReturnsImmediately) {
  EventLoop loop;
  loop.stop();
  loop.run();
  SUCCEED();
}

TEST(EventLoop, StopFromCallback) {
  EventLoop loop;
  int ticks = 0;
  loop.add_timer(1ms, [&] {
    ++ticks;
    loop.stop();
  });
  loop.run();
  EXPECT_EQ(ticks, 1);
}

TEST(EventLoop, ThrowingHandlerIsContainedAndCounted) {
  EventLoop loop;
  bool later_ran = false;
  loop.post([] { throw std::runtime_error("model bug"); });
  loop.post([&] { later_ran = true; });
  EXPECT_NO_THROW(loop.run_once(0ms));
  EXPECT_TRUE(later_ran);
  EXPECT_EQ(loop.handler_exceptions(), 1u);
}

} // namespace
} // namespace ornic
