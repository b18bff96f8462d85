// ornic-wake-floor: this machine's wake-up floor, the one-way latency of a
// message between two processes that sleep in read(2) until it comes.
// An event-driven RDMA latency (ib_send_lat -e) can be no lower, so `make
// bench` states latencies in units of it, on the host and in the guest.
//
// Two processes ping-pong over a pair of eventfds, each blocked in read();
// every round trip is timed with CLOCK_MONOTONIC and half of it is one
// one-way latency. Prints one line:
//   wake_floor median_us M p99_us P min_us L iters N
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

bool post(int fd) {
  const std::uint64_t one = 1;
  for (;;) {
    if (write(fd, &one, sizeof(one)) == static_cast<ssize_t>(sizeof(one))) {
      return true;
    }
    if (errno != EINTR) {
      return false;
    }
  }
}

bool wait_for(int fd) {
  std::uint64_t v = 0;
  for (;;) {
    if (read(fd, &v, sizeof(v)) == static_cast<ssize_t>(sizeof(v))) {
      return true;
    }
    if (errno != EINTR) {
      return false;
    }
  }
}

int usage() {
  std::fputs("usage: ornic-wake-floor [-n ROUND_TRIPS] [-w WARMUP]\n", stderr);
  return 2;
}

bool parse_count(std::string_view s, unsigned& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size() && out > 0 && out <= 10'000'000;
}

} // namespace

int main(int argc, char** argv) {
  unsigned iters = 10000;
  unsigned warmup = 100;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i + 1 >= argc) {
      return usage();
    }
    if (a == "-n") {
      if (!parse_count(argv[++i], iters)) {
        return usage();
      }
    } else if (a == "-w") {
      if (!parse_count(argv[++i], warmup)) {
        return usage();
      }
    } else {
      return usage();
    }
  }

  const int ping = eventfd(0, EFD_CLOEXEC);
  const int pong = eventfd(0, EFD_CLOEXEC);
  if (ping < 0 || pong < 0) {
    std::perror("eventfd");
    return 1;
  }
  const unsigned total = warmup + iters;
  const pid_t child = fork();
  if (child < 0) {
    std::perror("fork");
    return 1;
  }
  if (child == 0) {
    for (unsigned i = 0; i < total; ++i) {
      if (!wait_for(ping) || !post(pong)) {
        _exit(1);
      }
    }
    _exit(0);
  }

  using clock = std::chrono::steady_clock;
  std::vector<double> one_way_us;
  one_way_us.reserve(iters);
  bool ok = true;
  for (unsigned i = 0; i < total && ok; ++i) {
    const auto t0 = clock::now();
    ok = post(ping) && wait_for(pong);
    const auto t1 = clock::now();
    if (i >= warmup) {
      one_way_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / 2);
    }
  }
  int status = 0;
  if (!ok) {
    std::perror("eventfd ping-pong");
    kill(child, SIGKILL);
  }
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    ok = false;
  }
  if (!ok || one_way_us.empty()) {
    std::fputs("ornic-wake-floor: the ping-pong failed\n", stderr);
    return 1;
  }
  std::sort(one_way_us.begin(), one_way_us.end());
  const auto at = [&](double q) {
    const auto k = static_cast<std::size_t>(q * static_cast<double>(one_way_us.size() - 1));
    return one_way_us[k];
  };
  std::printf("wake_floor median_us %.2f p99_us %.2f min_us %.2f iters %u\n", at(0.5), at(0.99),
              one_way_us.front(), iters);
  return 0;
}
