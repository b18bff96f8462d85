// Congestion control state (spec: roce.rst, "Congestion control"): the device-wide
// configuration CC_CONFIG sets, and what each QP keeps as notification point (when it last
// sent a CNP) and as reaction point (its DCQCN rate and the token bucket that holds it to
// that rate). Plain data: NicCore holds the configuration, each QP's transport state its part.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

#include "cc/dcqcn.hpp"

namespace ornic::cc {

struct CcConfig {
  bool np_enabled = true; // answer CE-marked packets with CNPs
  bool rp_enabled = true; // cut the rate on CNPs
  uint8_t ect = 0x02;     // ECN codepoint of every RoCEv2 packet sent: ECT(0); 0 = the AV's own
  uint32_t np_min_time_between_cnps_us = 4; // per QP
  uint8_t np_cnp_dscp = 48;
  DcqcnParams rp;
};

// The reaction point's pacing: a token bucket filled at the DCQCN current rate. A frame may
// go while the bucket is not in debt; it then takes its size out (so a frame larger than
// what is left still goes, and the debt delays the next one).
struct TokenBucket {
  // Credit a limited QP may build up while it has nothing to send: two jumbo frames.
  static constexpr double kBurstBytes = 2 * 9216;
  double tokens = 0;
  int64_t filled_at = 0;

  // Nanoseconds until a frame may go at `rate_mbps` (0: now).
  int64_t wait_ns(double rate_mbps, int64_t now_ns) {
    const double bytes_per_ns = rate_mbps / 8000.0;
    if (filled_at != 0 && now_ns > filled_at)
      tokens =
          std::min(kBurstBytes, tokens + bytes_per_ns * static_cast<double>(now_ns - filled_at));
    filled_at = now_ns;
    if (tokens >= 0 || bytes_per_ns <= 0)
      return 0;
    return std::max<int64_t>(1, static_cast<int64_t>(-tokens / bytes_per_ns) + 1);
  }
  void take(uint64_t bytes) { tokens -= static_cast<double>(bytes); }
};

struct CcQpState {
  std::optional<DcqcnRate> rate; // from the first CNP until the rate is back at the maximum
  TokenBucket bucket;
  int64_t last_cnp_sent_ns = 0; // notification point; 0: none yet
  uint64_t cnps_sent = 0;
  uint64_t cnps_handled = 0;
  uint64_t ce_received = 0;
};

} // namespace ornic::cc
