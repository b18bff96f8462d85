// DCQCN's reaction point (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
// SIGCOMM 2015; spec: roce.rst, "Congestion control"): one sending QP's current rate RC,
// target rate RT and congestion estimate alpha. A CNP cuts the rate and raises alpha; a timer
// and a byte counter raise it again in stages (fast recovery, additive, hyper increase) and
// alpha decays while no CNP comes. Pure arithmetic on the times the caller passes in, so the
// tests drive it with any clock and the model with the transport timer's.
#pragma once

#include <cstdint>

namespace ornic::cc {

// The reaction point's parameters, as ornic_cc_params holds them (rates in Mbit/s, times
// in microseconds, alpha and g in 1/1024).
struct DcqcnParams {
  uint32_t max_rate_mbps = 100'000; // the rate of an unlimited QP (the line rate)
  uint32_t min_rate_mbps = 10;
  uint32_t ai_rate_mbps = 5;    // additive increase of RT per stage
  uint32_t hai_rate_mbps = 50;  // hyper increase of RT per stage beyond the threshold
  uint32_t byte_reset = 32768;  // bytes sent per byte-counter stage (0: no byte counter)
  uint32_t time_reset_us = 300; // time per timer stage
  uint32_t threshold = 5;       // F: stages of fast recovery before additive increase
  uint32_t gd_shift = 1;        // a cut is RC * (1 - alpha / 2^gd_shift)
  uint32_t initial_alpha = 1023;
  uint32_t g = 4;                             // alpha = (1 - g) alpha + g on a CNP
  uint32_t alpha_period_us = 55;              // alpha decays by (1 - g) per period without CNP
  uint32_t rate_reduce_monitor_period_us = 4; // at most one cut per period
};

class DcqcnRate {
public:
  // A QP that has just received its first CNP: unlimited until on_cnp() cuts its rate.
  DcqcnRate(const DcqcnParams& params, int64_t now_ns);

  void on_cnp(int64_t now_ns);
  void on_sent(uint64_t bytes, int64_t now_ns);
  // Runs the timers (rate increase stages, alpha decay) up to `now_ns`.
  void advance(int64_t now_ns);

  // Back at the maximum rate: the QP needs no limiting (and no state) any more.
  bool limited() const { return current_ < params_.max_rate_mbps; }
  double current_mbps() const { return current_; }
  double target_mbps() const { return target_; }
  double alpha() const { return alpha_; }
  uint32_t timer_stage() const { return timer_stage_; }
  uint32_t byte_stage() const { return byte_stage_; }
  uint64_t cuts() const { return cuts_; }

private:
  void increase();

  DcqcnParams params_;
  double current_;
  double target_;
  double alpha_;
  uint32_t timer_stage_ = 0;
  uint32_t byte_stage_ = 0;
  uint64_t bytes_since_stage_ = 0;
  int64_t next_stage_ns_ = 0; // the timer's next stage (0: not running)
  int64_t next_alpha_ns_;
  int64_t last_cut_ns_ = 0; // 0: never cut
  uint64_t cuts_ = 0;
};

} // namespace ornic::cc
