// ornic-bench's main: Google Benchmark's, except that the exit status says whether a
// benchmark failed (bench_util.hpp), which the library's own main does not.
#include <atomic>
#include <cstdio>

#include <spdlog/spdlog.h>

#include "bench_util.hpp"

namespace ornic::bench {
namespace {

std::atomic<int> g_failures{0};

} // namespace

void fail(benchmark::State& state, const std::string& why) {
  ++g_failures;
  std::fprintf(stderr, "ornic-bench: %s: %s\n", state.name().c_str(), why.c_str());
  state.SkipWithError(why);
}

int failures() {
  return g_failures.load();
}

} // namespace ornic::bench

int main(int argc, char** argv) {
  // The model logs warnings about guest mistakes; a benchmark makes none, and a log line per
  // packet would be what is measured.
  spdlog::set_level(spdlog::level::err);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  const int failed = ornic::bench::failures();
  if (failed != 0)
    std::fprintf(stderr, "ornic-bench: %d benchmark(s) failed\n", failed);
  return failed == 0 ? 0 : 1;
}
