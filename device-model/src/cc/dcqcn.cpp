#include "cc/dcqcn.hpp"

#include <algorithm>
#include <cmath>

namespace ornic::cc {
namespace {

constexpr int64_t kNsPerUs = 1000;
// A timer catching up after a long quiet spell stops after this many stages; by then the
// rate is back at the maximum for any parameters the device accepts (hyper increase grows
// quadratically), and a catch-up must not stall the event loop.
constexpr unsigned kMaxCatchUpStages = 100'000;

double fraction(uint32_t per_1024) {
  return std::min(per_1024, 1024u) / 1024.0;
}

} // namespace

DcqcnRate::DcqcnRate(const DcqcnParams& params, int64_t now_ns)
    : params_(params), current_(params.max_rate_mbps), target_(params.max_rate_mbps),
      alpha_(fraction(params.initial_alpha)),
      next_alpha_ns_(now_ns + int64_t{std::max(params.alpha_period_us, 1u)} * kNsPerUs) {}

void DcqcnRate::on_cnp(int64_t now_ns) {
  advance(now_ns);
  const int64_t monitor = int64_t{params_.rate_reduce_monitor_period_us} * kNsPerUs;
  if (last_cut_ns_ == 0 || now_ns - last_cut_ns_ >= monitor) {
    // The paper's order: the cut uses alpha as it was, then alpha rises.
    target_ = current_;
    const double cut = alpha_ / std::ldexp(1.0, static_cast<int>(std::min(params_.gd_shift, 31u)));
    current_ = std::max(current_ * (1.0 - cut), static_cast<double>(params_.min_rate_mbps));
    current_ = std::min(current_, static_cast<double>(params_.max_rate_mbps));
    timer_stage_ = byte_stage_ = 0;
    bytes_since_stage_ = 0;
    next_stage_ns_ = now_ns + int64_t{std::max(params_.time_reset_us, 1u)} * kNsPerUs;
    last_cut_ns_ = now_ns;
    ++cuts_;
  }
  const double g = fraction(params_.g);
  alpha_ = (1.0 - g) * alpha_ + g;
  next_alpha_ns_ = now_ns + int64_t{std::max(params_.alpha_period_us, 1u)} * kNsPerUs;
}

void DcqcnRate::on_sent(uint64_t bytes, int64_t now_ns) {
  advance(now_ns);
  if (!limited() || params_.byte_reset == 0)
    return;
  bytes_since_stage_ += bytes;
  while (bytes_since_stage_ >= params_.byte_reset && limited()) {
    bytes_since_stage_ -= params_.byte_reset;
    ++byte_stage_;
    increase();
  }
}

void DcqcnRate::advance(int64_t now_ns) {
  const int64_t alpha_period = int64_t{std::max(params_.alpha_period_us, 1u)} * kNsPerUs;
  if (now_ns >= next_alpha_ns_) {
    const int64_t periods = 1 + (now_ns - next_alpha_ns_) / alpha_period;
    alpha_ *= std::pow(1.0 - fraction(params_.g), static_cast<double>(periods));
    next_alpha_ns_ += periods * alpha_period;
  }
  const int64_t stage_period = int64_t{std::max(params_.time_reset_us, 1u)} * kNsPerUs;
  unsigned stages = 0;
  while (next_stage_ns_ != 0 && now_ns >= next_stage_ns_ && limited()) {
    ++timer_stage_;
    increase();
    next_stage_ns_ += stage_period;
    if (++stages == kMaxCatchUpStages) {
      current_ = target_ = params_.max_rate_mbps;
      break;
    }
  }
  if (!limited())
    next_stage_ns_ = 0;
}

// One stage of either counter (the paper's Figure 8): fast recovery while both counters
// are below the threshold F, hyper increase once both are past it, additive otherwise.
void DcqcnRate::increase() {
  const uint32_t f = params_.threshold;
  const uint32_t most = std::max(timer_stage_, byte_stage_);
  const uint32_t least = std::min(timer_stage_, byte_stage_);
  if (least > f)
    target_ += static_cast<double>(params_.hai_rate_mbps) * (least - f);
  else if (most >= f)
    target_ += params_.ai_rate_mbps;
  target_ = std::min(target_, static_cast<double>(params_.max_rate_mbps));
  current_ = (target_ + current_) / 2.0;
  // Within a hundredth of a Mbit/s of the top is the top: the halving never gets there.
  if (params_.max_rate_mbps - current_ < 0.01)
    current_ = target_ = params_.max_rate_mbps;
}

} // namespace ornic::cc
