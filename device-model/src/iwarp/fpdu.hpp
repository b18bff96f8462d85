// The MPA FPDU: a 16-bit ULPDU length, the ULPDU (one DDP segment), zero pad to a multiple
// of four bytes, and a CRC32c over everything before it. The CRC field is always present;
// without a negotiated CRC it is sent as zero and not checked. ornic sends no markers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ornic::iwarp {

inline constexpr size_t kFpduLengthSize = 2;
inline constexpr size_t kFpduCrcSize = 4;
inline constexpr size_t kMaxUlpdu = 0xffff;

// Pad bytes after a ULPDU of `ulpdu_size` bytes.
constexpr size_t fpdu_pad(size_t ulpdu_size) {
  return (4 - (kFpduLengthSize + ulpdu_size) % 4) % 4;
}

// Wire bytes of the FPDU that carries a ULPDU of `ulpdu_size` bytes.
constexpr size_t fpdu_size(size_t ulpdu_size) {
  return kFpduLengthSize + ulpdu_size + fpdu_pad(ulpdu_size) + kFpduCrcSize;
}

// The largest ULPDU whose FPDU fits in one TCP segment of `mss` payload bytes (the FPDU
// stays a multiple of four bytes), or 0 when not even an empty one fits.
constexpr size_t max_ulpdu_for_mss(size_t mss) {
  const size_t aligned = mss & ~size_t{3};
  if (aligned < kFpduLengthSize + kFpduCrcSize)
    return 0;
  const size_t ulpdu = aligned - kFpduLengthSize - kFpduCrcSize;
  return ulpdu > kMaxUlpdu ? kMaxUlpdu : ulpdu;
}

// Appends the FPDU carrying `ulpdu` to `out`; false (and `out` untouched) when the ULPDU is
// longer than 65535 bytes.
bool append_fpdu(std::vector<uint8_t>& out, std::span<const uint8_t> ulpdu, bool crc);

} // namespace ornic::iwarp
