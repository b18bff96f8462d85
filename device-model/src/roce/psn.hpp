// 24-bit packet sequence numbers wrap, so they are compared by signed distance within half
// the space (IBA 9.7.1), never with < on the raw values.
#pragma once

#include <cstdint>

#include "roce/transport_headers.hpp"

namespace ornic::roce {

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

} // namespace ornic::roce
