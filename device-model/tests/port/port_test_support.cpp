#include "port_test_support.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace ornic::test {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  // AF_UNIX paths are short (107 bytes): keep the directory name short as well.
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/ornic-port-XXXXXX";
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error("mkdtemp failed for " + pattern);
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

Frame make_frame(size_t size, uint8_t seed, uint16_t ethertype) {
  Frame frame(size);
  for (size_t i = 0; i < size; ++i) {
    if (i < 6)
      frame[i] = std::byte{0xff};
    else if (i < 12)
      frame[i] = std::byte(i == 6 ? 0x02 : seed);
    else if (i == 12)
      frame[i] = std::byte(ethertype >> 8);
    else if (i == 13)
      frame[i] = std::byte(ethertype & 0xff);
    else
      frame[i] = std::byte(static_cast<uint8_t>(seed * 31 + i * 7 + (i >> 8)));
  }
  return frame;
}

bool run_until(EventLoop& loop, const std::function<bool()>& done,
               std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done() && std::chrono::steady_clock::now() < deadline)
    loop.run_once(std::chrono::milliseconds(10));
  return done();
}

void run_until_idle(EventLoop& loop, std::chrono::milliseconds quiet) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (loop.run_once(quiet) && std::chrono::steady_clock::now() < deadline) {
  }
}

int busy_iterations(EventLoop& loop, std::chrono::milliseconds period) {
  const auto deadline = std::chrono::steady_clock::now() + period;
  int busy = 0;
  while (std::chrono::steady_clock::now() < deadline)
    busy += loop.run_once(std::chrono::milliseconds(10)) ? 1 : 0;
  return busy;
}

} // namespace ornic::test
