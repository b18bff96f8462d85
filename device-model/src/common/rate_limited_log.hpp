// Counting, rate-limited logging for events triggered by untrusted input: a guest
// that hammers a bad path must not flood the log or slow the model down.
#pragma once

#include <cstdint>
#include <utility>

#include <spdlog/spdlog.h>

namespace ornic {

class RateLimitedLog {
public:
  // Logs the first `burst` occurrences, then every `every`-th one.
  explicit RateLimitedLog(uint64_t burst = 16, uint64_t every = 1024)
      : burst_(burst), every_(every) {}

  uint64_t count() const { return count_; }

  template <typename... Args>
  void warn(spdlog::format_string_t<Args...> fmt, Args&&... args) {
    if (should_log())
      spdlog::warn(fmt, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void error(spdlog::format_string_t<Args...> fmt, Args&&... args) {
    if (should_log())
      spdlog::error(fmt, std::forward<Args>(args)...);
  }

private:
  bool should_log() {
    ++count_;
    return count_ <= burst_ || count_ % every_ == 0;
  }

  uint64_t burst_;
  uint64_t every_;
  uint64_t count_ = 0;
};

} // namespace ornic
