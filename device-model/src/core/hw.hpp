// The shared hardware header (include/ornic/ornic_hw.h) plus the few helpers the model
// needs to use its little-endian layouts on any host.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include <ornic/ornic_hw.h>

namespace ornic {

template <typename T>
constexpr T byteswap_integer(T v) {
  static_assert(std::is_unsigned_v<T>);
  if constexpr (sizeof(T) == 1)
    return v;
  else if constexpr (sizeof(T) == 2)
    return static_cast<T>(__builtin_bswap16(v));
  else if constexpr (sizeof(T) == 4)
    return static_cast<T>(__builtin_bswap32(v));
  else
    return static_cast<T>(__builtin_bswap64(v));
}

// Device layouts are little-endian; these are the identity on x86 and arm64-le.
template <typename T>
constexpr T le(T v) {
  if constexpr (std::endian::native == std::endian::little)
    return v;
  else
    return byteswap_integer(v);
}

// Converting is symmetric, the second name only says which direction the caller means.
template <typename T>
constexpr T to_le(T v) {
  return le(v);
}

// The few big-endian fields of the layouts (GUIDs, as IB sends them).
template <typename T>
constexpr T to_be(T v) {
  if constexpr (std::endian::native == std::endian::big)
    return v;
  else
    return byteswap_integer(v);
}
template <typename T>
constexpr T be(T v) {
  return to_be(v);
}

template <typename T>
std::span<std::byte> bytes_of(T& object) {
  static_assert(std::is_trivially_copyable_v<T>);
  return std::as_writable_bytes(std::span<T, 1>(&object, 1));
}

template <typename T>
std::span<const std::byte> bytes_of(const T& object) {
  static_assert(std::is_trivially_copyable_v<T>);
  return std::as_bytes(std::span<const T, 1>(&object, 1));
}

inline bool all_zero(std::span<const std::byte> bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](std::byte b) { return b == std::byte{0}; });
}

template <typename Field>
bool field_is_zero(const Field& field) {
  return all_zero(bytes_of(field));
}

// The InfiniBand fields of an address vector (qp_attr, create_ah, wqe_av): reserved until
// the port is an IB port (infiniband.rst, "Address vectors").
template <typename Av>
bool ib_av_fields_zero(const Av& av) {
  return av.dlid == 0 && av.sl == 0 && av.src_path_bits == 0 && av.av_flags == 0 &&
         av.static_rate == 0 && av.reserved2 == 0;
}

inline bool is_power_of_two(uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

} // namespace ornic
