// What every ornic-bench file shares: a benchmark that finds the model misbehaving (wrong
// data, an error completion) fails through fail(), which marks it in the report and makes
// the run exit non-zero, so a smoke run catches a broken path and no number of a broken
// path is ever taken for a measurement.
#pragma once

#include <string>

#include <benchmark/benchmark.h>

namespace ornic::bench {

void fail(benchmark::State& state, const std::string& why);
int failures();

} // namespace ornic::bench
