// CRC32c (Castagnoli, reflected, initial and final inversion: iSCSI's CRC) as MPA protects
// each FPDU with it. ISA-L's crc32_iscsi keeps the running register without the final
// inversion, so the update form here carries the register and only crc32c_final inverts.
#pragma once

#include <cstdint>
#include <span>

namespace ornic::iwarp {

inline constexpr uint32_t kCrc32cStart = 0xffffffffu;

// The running register after `bytes`: crc32c_update(crc32c_update(kCrc32cStart, a), b) ==
// crc32c_update(kCrc32cStart, a||b).
uint32_t crc32c_update(uint32_t running, std::span<const uint8_t> bytes);

inline uint32_t crc32c_final(uint32_t running) {
  return ~running;
}

// The CRC32c of `bytes` (0xe3069283 for "123456789").
inline uint32_t crc32c(std::span<const uint8_t> bytes) {
  return crc32c_final(crc32c_update(kCrc32cStart, bytes));
}

// The four CRC bytes as MPA (like iSCSI) sends them: least significant byte first. Linux siw
// and the iSCSI test vectors agree on this order.
void store_crc32c(std::span<uint8_t, 4> bytes, uint32_t crc);
uint32_t load_crc32c(std::span<const uint8_t, 4> bytes);

} // namespace ornic::iwarp
