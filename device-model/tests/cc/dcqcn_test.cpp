// The DCQCN reaction point against hand-computed trajectories of Zhu et al. (SIGCOMM 2015,
// Figure 8 and equations 1-3) for given CNP patterns, with the mlx5 parameter meanings.
#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "cc/cc_state.hpp"
#include "cc/dcqcn.hpp"

namespace ornic::cc {
namespace {

constexpr int64_t kT0 = 1'000'000'000;
constexpr int64_t kUs = 1000;

// The paper's 40 Gbit/s setting: F = 5, g = 1/256, timer 55 us, no byte counter.
DcqcnParams paper_params() {
  DcqcnParams p;
  p.max_rate_mbps = 40'000;
  p.min_rate_mbps = 10;
  p.ai_rate_mbps = 40;
  p.hai_rate_mbps = 400;
  p.byte_reset = 0;
  p.time_reset_us = 55;
  p.threshold = 5;
  p.gd_shift = 1;
  p.initial_alpha = 1024;
  p.g = 4;
  p.alpha_period_us = 55;
  p.rate_reduce_monitor_period_us = 0;
  return p;
}

TEST(Dcqcn, UnlimitedUntilTheFirstCut) {
  DcqcnRate rate(paper_params(), kT0);
  EXPECT_FALSE(rate.limited());
  EXPECT_DOUBLE_EQ(rate.current_mbps(), 40'000);
}

TEST(Dcqcn, OneCnpThenFastRecoveryThenAdditiveIncrease) {
  DcqcnRate rate(paper_params(), kT0);
  rate.on_cnp(kT0);
  // RT = RC; RC = RC (1 - alpha / 2) with alpha = 1; alpha = (1 - g) 1 + g = 1.
  EXPECT_DOUBLE_EQ(rate.target_mbps(), 40'000);
  EXPECT_DOUBLE_EQ(rate.current_mbps(), 20'000);
  EXPECT_DOUBLE_EQ(rate.alpha(), 1.0);
  EXPECT_TRUE(rate.limited());
  // Just before the first timer stage nothing moves.
  rate.advance(kT0 + 55 * kUs - 1);
  EXPECT_DOUBLE_EQ(rate.current_mbps(), 20'000);
  // Fast recovery: RC = (RT + RC) / 2 for stages 1..4, RT unchanged.
  const double expected[] = {30'000, 35'000, 37'500, 38'750};
  for (int stage = 1; stage <= 4; ++stage) {
    rate.advance(kT0 + stage * 55 * kUs);
    EXPECT_EQ(rate.timer_stage(), static_cast<uint32_t>(stage));
    EXPECT_DOUBLE_EQ(rate.current_mbps(), expected[stage - 1]) << "stage " << stage;
    EXPECT_DOUBLE_EQ(rate.target_mbps(), 40'000);
  }
  // Stage 5 = F: additive increase, RT capped at the line rate.
  rate.advance(kT0 + 5 * 55 * kUs);
  EXPECT_DOUBLE_EQ(rate.target_mbps(), 40'000);
  EXPECT_DOUBLE_EQ(rate.current_mbps(), 39'375);
  // Alpha decayed once per 55 us without a CNP: five periods.
  double alpha = 1.0;
  for (int i = 0; i < 5; ++i)
    alpha *= 255.0 / 256.0;
  EXPECT_NEAR(rate.alpha(), alpha, 1e-12);
}

TEST(Dcqcn, RepeatedCnpsCutWithTheAlphaOfTheirTime) {
  DcqcnParams p = paper_params();
  p.initial_alpha = 512;
  DcqcnRate rate(p, kT0);
  const double g = 1.0 / 256;
  rate.on_cnp(kT0);
  EXPECT_DOUBLE_EQ(rate.current_mbps(), 30'000); // 40000 (1 - 0.5 / 2)
  double alpha = 0.5 * (1 - g) + g;
  EXPECT_DOUBLE_EQ(rate.alpha(), alpha);
  // 50 us later (before any timer stage or alpha period): cut again with the new alpha.
  rate.on_cnp(kT0 + 50 * kUs);
  EXPECT_DOUBLE_EQ(rate.target_mbps(), 30'000);
  EXPECT_DOUBLE_EQ(rate.current_mbps(), 30'000 * (1 - alpha / 2));
  const double second = 30'000 * (1 - alpha / 2);
  alpha = alpha * (1 - g) + g;
  EXPECT_DOUBLE_EQ(rate.alpha(), alpha);
  // The cut restarted the timer: its first stage is 55 us after the second CNP.
  rate.advance(kT0 + 100 * kUs);
  EXPECT_EQ(rate.timer_stage(), 0u);
  rate.advance(kT0 + 105 * kUs);
  EXPECT_EQ(rate.timer_stage(), 1u);
  EXPECT_DOUBLE_EQ(rate.current_mbps(), (30'000 + second) / 2);
  EXPECT_EQ(rate.cuts(), 2u);
}

TEST(Dcqcn, MonitorPeriodAllowsOneCutButAlphaStillRises) {
  DcqcnParams p = paper_params();
  p.initial_alpha = 512;
  p.rate_reduce_monitor_period_us = 50;
  DcqcnRate rate(p, kT0);
  rate.on_cnp(kT0);
  rate.on_cnp(kT0 + 10 * kUs);
  rate.on_cnp(kT0 + 49 * kUs);
  EXPECT_EQ(rate.cuts(), 1u);
  EXPECT_DOUBLE_EQ(rate.current_mbps(), 30'000);
  const double g = 1.0 / 256;
  double alpha = 0.5;
  for (int i = 0; i < 3; ++i)
    alpha = alpha * (1 - g) + g;
  EXPECT_DOUBLE_EQ(rate.alpha(), alpha);
  rate.on_cnp(kT0 + 50 * kUs);
  EXPECT_EQ(rate.cuts(), 2u);
}

TEST(Dcqcn, ByteCounterAndTimerTogetherReachHyperIncrease) {
  DcqcnParams p = paper_params();
  p.max_rate_mbps = 100'000;
  p.threshold = 1;
  p.byte_reset = 1000;
  DcqcnRate rate(p, kT0);
  rate.on_cnp(kT0); // RT 100000, RC 50000
  rate.on_cnp(kT0); // RT 50000, RC 25000 (alpha stays 1)
  ASSERT_DOUBLE_EQ(rate.current_mbps(), 25'000);
  ASSERT_DOUBLE_EQ(rate.target_mbps(), 50'000);
  rate.on_sent(1000, kT0 + 1); // BC 1, T 0: additive (max = F, min <= F)
  EXPECT_DOUBLE_EQ(rate.target_mbps(), 50'040);
  EXPECT_DOUBLE_EQ(rate.current_mbps(), 37'520);
  rate.advance(kT0 + 55 * kUs); // T 1: additive
  EXPECT_DOUBLE_EQ(rate.target_mbps(), 50'080);
  EXPECT_DOUBLE_EQ(rate.current_mbps(), 43'800);
  rate.on_sent(999, kT0 + 56 * kUs); // not a whole stage yet
  EXPECT_EQ(rate.byte_stage(), 1u);
  rate.on_sent(1, kT0 + 56 * kUs); // BC 2: additive (min 1 = F)
  EXPECT_DOUBLE_EQ(rate.target_mbps(), 50'120);
  EXPECT_DOUBLE_EQ(rate.current_mbps(), 46'960);
  rate.advance(kT0 + 110 * kUs); // T 2: hyper, RT += hai (min 2 - F 1)
  EXPECT_DOUBLE_EQ(rate.target_mbps(), 50'520);
  EXPECT_DOUBLE_EQ(rate.current_mbps(), 48'740);
  rate.on_sent(1000, kT0 + 111 * kUs); // BC 3: hyper, RT += hai (min 2 - F 1)
  EXPECT_DOUBLE_EQ(rate.target_mbps(), 50'920);
  EXPECT_DOUBLE_EQ(rate.current_mbps(), 49'830);
}

TEST(Dcqcn, CutNeverGoesBelowTheMinimumRate) {
  DcqcnParams p = paper_params();
  p.gd_shift = 0; // cut by alpha itself: alpha = 1 would stop the QP
  p.min_rate_mbps = 100;
  DcqcnRate rate(p, kT0);
  rate.on_cnp(kT0);
  EXPECT_DOUBLE_EQ(rate.current_mbps(), 100);
  rate.on_cnp(kT0 + kUs);
  EXPECT_DOUBLE_EQ(rate.current_mbps(), 100);
}

TEST(Dcqcn, RecoversToTheLineRateAfterQuietAndStops) {
  DcqcnParams p = paper_params();
  p.min_rate_mbps = 1;
  p.time_reset_us = 1;
  DcqcnRate rate(p, kT0);
  for (int i = 0; i < 20; ++i)
    rate.on_cnp(kT0 + i); // down to the minimum
  EXPECT_LT(rate.current_mbps(), 2);
  // An hour without a CNP: bounded catch-up, back at the line rate, nothing left running.
  rate.advance(kT0 + int64_t{3600} * 1'000'000'000);
  EXPECT_FALSE(rate.limited());
  EXPECT_DOUBLE_EQ(rate.current_mbps(), 40'000);
  EXPECT_NEAR(rate.alpha(), 0.0, 1e-9);
}

TEST(Dcqcn, TwoFlowsOnOneBottleneckConvergeToFairShares) {
  // Two flows through a link that marks each 1 KB packet with a probability growing with
  // the oversubscription (as a RED/ECN queue does): the faster flow sends more packets,
  // so it collects more CNPs, and both end near half the link.
  DcqcnParams p = paper_params();
  p.byte_reset = 10 * 1024 * 1024; // the paper's B: the timer drives the increase
  p.rate_reduce_monitor_period_us = 4;
  const double link = 40'000;
  DcqcnRate flows[2] = {DcqcnRate(p, kT0), DcqcnRate(p, kT0)};
  flows[0].on_cnp(kT0); // flow 0 starts at half the rate of flow 1
  std::mt19937 random(7);
  std::uniform_real_distribution<double> uniform(0, 1);
  constexpr int64_t kStep = 50 * kUs;
  double sum[2] = {0, 0};
  int samples = 0;
  for (int64_t t = kT0; t < kT0 + 2'000'000 * kUs; t += kStep) {
    const double total = flows[0].current_mbps() + flows[1].current_mbps();
    const double mark = std::clamp((total - link) / link, 0.0, 1.0);
    for (DcqcnRate& flow : flows) {
      flow.advance(t);
      const auto bytes = static_cast<uint64_t>(flow.current_mbps() / 8000.0 * kStep);
      flow.on_sent(bytes, t);
      const double packets = static_cast<double>(bytes) / 1024;
      if (uniform(random) < 1 - std::pow(1 - mark, packets))
        flow.on_cnp(t);
    }
    if (t >= kT0 + 1'000'000 * kUs) { // the second second: averages
      sum[0] += flows[0].current_mbps();
      sum[1] += flows[1].current_mbps();
      ++samples;
    }
  }
  const double a = sum[0] / samples, b = sum[1] / samples;
  EXPECT_NEAR(a / b, 1.0, 0.1) << a << " vs " << b;
  EXPECT_NEAR((a + b) / link, 1.0, 0.3) << a << " + " << b;
}

TEST(TokenBucket, WaitsForTheDebtToBePaid) {
  TokenBucket bucket;
  EXPECT_EQ(bucket.wait_ns(8, kT0), 0); // 8 Mbit/s = 1 byte per us
  bucket.take(1000);
  EXPECT_NEAR(static_cast<double>(bucket.wait_ns(8, kT0)), 1000 * kUs, 2);
  EXPECT_NEAR(static_cast<double>(bucket.wait_ns(8, kT0 + 600 * kUs)), 400 * kUs, 2);
  EXPECT_EQ(bucket.wait_ns(8, kT0 + 1000 * kUs + 1), 0);
  // Idle credit is capped at the burst.
  EXPECT_EQ(bucket.wait_ns(8, kT0 + 3'600'000'000'000), 0);
  EXPECT_DOUBLE_EQ(bucket.tokens, TokenBucket::kBurstBytes);
}

} // namespace
} // namespace ornic::cc
