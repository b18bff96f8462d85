#include "port/mac_control.hpp"

#include <algorithm>

namespace ornic::mac_control {
namespace {

constexpr size_t kEtherTypeOffset = 12;
constexpr uint16_t kEtherTypeIpv4 = 0x0800;
constexpr uint16_t kEtherTypeIpv6 = 0x86dd;

uint16_t be16(std::span<const std::byte> bytes, size_t offset) {
  return static_cast<uint16_t>((std::to_integer<unsigned>(bytes[offset]) << 8) |
                               std::to_integer<unsigned>(bytes[offset + 1]));
}

void put16(std::vector<std::byte>& out, uint16_t value) {
  out.push_back(static_cast<std::byte>(value >> 8));
  out.push_back(static_cast<std::byte>(value & 0xff));
}

std::vector<std::byte> header(const std::array<uint8_t, 6>& source, uint16_t opcode) {
  std::vector<std::byte> out;
  out.reserve(kMinFrameBytes);
  for (const uint8_t b : kDestination)
    out.push_back(static_cast<std::byte>(b));
  for (const uint8_t b : source)
    out.push_back(static_cast<std::byte>(b));
  put16(out, kEtherType);
  put16(out, opcode);
  return out;
}

void pad(std::vector<std::byte>& out) {
  out.resize(std::max(out.size(), kMinFrameBytes), std::byte{0});
}

} // namespace

Parsed parse(std::span<const std::byte> frame) {
  Parsed result;
  if (frame.size() < kEtherTypeOffset + 2 || be16(frame, kEtherTypeOffset) != kEtherType)
    return result;
  // The padding to the minimum frame is part of the MAC Control frame (Annex 31A): a frame
  // shorter than that was cut somewhere, even if its opcode's fields fit.
  if (frame.size() < kMinFrameBytes) {
    result.kind = Kind::short_frame;
    if (frame.size() >= kEtherTypeOffset + 4)
      result.opcode = be16(frame, kEtherTypeOffset + 2);
    return result;
  }
  result.opcode = be16(frame, kEtherTypeOffset + 2);
  switch (result.opcode) {
  case kOpcodePfc: {
    const uint16_t vector = be16(frame, 16);
    result.kind = Kind::pfc;
    result.reserved_bits = (vector & 0xff00) != 0;
    result.pfc.class_enable = static_cast<uint8_t>(vector & 0xff);
    for (size_t i = 0; i < kPriorities; ++i)
      result.pfc.time[i] = be16(frame, 18 + 2 * i);
    return result;
  }
  case kOpcodePause:
    result.kind = Kind::pause;
    result.pause_time = be16(frame, 16);
    return result;
  default:
    result.kind = Kind::unknown_opcode;
    return result;
  }
}

std::vector<std::byte> build_pfc(const std::array<uint8_t, 6>& source, const PfcRequest& request) {
  std::vector<std::byte> out = header(source, kOpcodePfc);
  put16(out, request.class_enable);
  for (const uint16_t t : request.time)
    put16(out, t);
  pad(out);
  return out;
}

std::vector<std::byte> build_pause(const std::array<uint8_t, 6>& source, uint16_t pause_time) {
  std::vector<std::byte> out = header(source, kOpcodePause);
  put16(out, pause_time);
  pad(out);
  return out;
}

uint8_t frame_priority(std::span<const std::byte> frame, const DscpMap& dscp) {
  constexpr size_t kL3 = kEtherTypeOffset + 2;
  if (frame.size() < kL3)
    return 0;
  const uint16_t type = be16(frame, kEtherTypeOffset);
  if (type == kEtherTypeVlan || type == kEtherTypeQinQ)
    return frame.size() >= kL3 + 2
               ? static_cast<uint8_t>(std::to_integer<unsigned>(frame[kL3]) >> 5)
               : 0;
  if (frame.size() < kL3 + 2)
    return 0;
  const unsigned version = std::to_integer<unsigned>(frame[kL3]) >> 4;
  unsigned code;
  if (type == kEtherTypeIpv4 && version == 4)
    code = std::to_integer<unsigned>(frame[kL3 + 1]) >> 2;
  else if (type == kEtherTypeIpv6 && version == 6)
    // Four bits of version, then the traffic class, whose top six bits are the DSCP.
    code = (be16(frame, kL3) >> 6) & 0x3f;
  else
    return 0;
  return ((dscp.valid >> code) & 1) != 0 ? static_cast<uint8_t>(dscp.priority[code] & 7) : 0;
}

uint8_t frame_priority(std::span<const std::byte> frame) {
  static const DscpMap kNone{};
  return frame_priority(frame, kNone);
}

int64_t quanta_ns(uint32_t quanta, uint64_t speed_mbps) {
  if (speed_mbps == 0)
    return 0;
  // bits / (Mbit/s) = microseconds; * 1000 for nanoseconds, rounded up.
  const uint64_t bits_x1000 = uint64_t{quanta} * kBitsPerQuantum * 1000;
  return static_cast<int64_t>((bits_x1000 + speed_mbps - 1) / speed_mbps);
}

} // namespace ornic::mac_control
