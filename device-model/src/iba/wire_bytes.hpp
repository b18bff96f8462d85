// Network-order (big-endian) loads and stores on byte spans.
//
// Every header codec goes through these so no code ever casts a packet buffer to a struct:
// packet bytes carry no alignment and the host may be little-endian.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ornic::iba {

inline uint16_t load_be16(std::span<const uint8_t> bytes, size_t offset) {
  return static_cast<uint16_t>(bytes[offset] << 8 | bytes[offset + 1]);
}

inline uint32_t load_be24(std::span<const uint8_t> bytes, size_t offset) {
  return uint32_t{bytes[offset]} << 16 | uint32_t{bytes[offset + 1]} << 8 | bytes[offset + 2];
}

inline uint32_t load_be32(std::span<const uint8_t> bytes, size_t offset) {
  return uint32_t{load_be16(bytes, offset)} << 16 | load_be16(bytes, offset + 2);
}

inline uint64_t load_be64(std::span<const uint8_t> bytes, size_t offset) {
  return uint64_t{load_be32(bytes, offset)} << 32 | load_be32(bytes, offset + 4);
}

inline void store_be16(std::span<uint8_t> bytes, size_t offset, uint16_t value) {
  bytes[offset] = static_cast<uint8_t>(value >> 8);
  bytes[offset + 1] = static_cast<uint8_t>(value);
}

inline void store_be24(std::span<uint8_t> bytes, size_t offset, uint32_t value) {
  bytes[offset] = static_cast<uint8_t>(value >> 16);
  bytes[offset + 1] = static_cast<uint8_t>(value >> 8);
  bytes[offset + 2] = static_cast<uint8_t>(value);
}

inline void store_be32(std::span<uint8_t> bytes, size_t offset, uint32_t value) {
  store_be16(bytes, offset, static_cast<uint16_t>(value >> 16));
  store_be16(bytes, offset + 2, static_cast<uint16_t>(value));
}

inline void store_be64(std::span<uint8_t> bytes, size_t offset, uint64_t value) {
  store_be32(bytes, offset, static_cast<uint32_t>(value >> 32));
  store_be32(bytes, offset + 4, static_cast<uint32_t>(value));
}

} // namespace ornic::iba
