// An unsigned integer held as big-endian bytes, as every field of a MAD is (IBA 13.4.2), so
// the MAD and attribute layouts can be plain structs of these with byte alignment: their
// offsets are the wire's, checked at compile time, on any host.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace ornic::mad {

template <typename T>
struct BigEndian {
  static_assert(std::is_unsigned_v<T>);
  std::array<uint8_t, sizeof(T)> bytes{};

  constexpr T get() const {
    T value = 0;
    for (uint8_t byte : bytes)
      value = static_cast<T>((value << 8) | byte);
    return value;
  }
  constexpr void set(T value) {
    for (size_t i = sizeof(T); i-- > 0;) {
      bytes[i] = static_cast<uint8_t>(value);
      value = static_cast<T>(value >> 8);
    }
  }
};

using Be16 = BigEndian<uint16_t>;
using Be32 = BigEndian<uint32_t>;
using Be64 = BigEndian<uint64_t>;

static_assert(sizeof(Be64) == 8 && alignof(Be64) == 1);

// The high and low nibbles of a byte, which many attribute fields share.
constexpr uint8_t high_nibble(uint8_t byte) {
  return byte >> 4;
}
constexpr uint8_t low_nibble(uint8_t byte) {
  return byte & 0x0f;
}
constexpr uint8_t nibbles(uint8_t high, uint8_t low) {
  return static_cast<uint8_t>((high & 0x0f) << 4 | (low & 0x0f));
}

} // namespace ornic::mad
