// 24-bit packet sequence numbers wrap, so they are compared by signed distance within half
// the space (IBA 9.7.1), never with < on the raw values.
#pragma once

#include <cstdint>

#include "iba/transport_headers.hpp"

namespace ornic::iba {

constexpr uint32_t psn_add(uint32_t psn, uint32_t count) {
  return (psn + count) & kPsnMask;
}

// How far `later` is after `earlier`, in -2^23 .. 2^23-1: negative when it lies behind.
constexpr int32_t psn_distance(uint32_t earlier, uint32_t later) {
  const uint32_t forward = (later - earlier) & kPsnMask;
  return forward & 0x800000 ? static_cast<int32_t>(forward) - 0x1000000
                            : static_cast<int32_t>(forward);
}

constexpr bool psn_before(uint32_t a, uint32_t b) {
  return psn_distance(a, b) > 0;
}

// How far `psn` lies after `from` going forward, 0 .. 2^24-1.
constexpr uint32_t psn_offset(uint32_t from, uint32_t psn) {
  return (psn - from) & kPsnMask;
}

// Where `psn` lies relative to a requester's oldest unacknowledged PSN `una`, in
// -2^22 .. 3 * 2^22 - 1. A requester has at most one message of 2^31 bytes (2^23 PSNs at
// a 256-byte MTU) plus its send window outstanding, all ahead of `una`, so the symmetric
// psn_distance (which turns 2^23 ahead into 2^23 behind) cannot order them; what lies
// behind `una` is never more than a send window old.
constexpr int32_t psn_from_una(uint32_t una, uint32_t psn) {
  const uint32_t forward = psn_offset(una, psn);
  return forward >= (3u << 22) ? static_cast<int32_t>(forward) - (1 << 24)
                               : static_cast<int32_t>(forward);
}

} // namespace ornic::iba
