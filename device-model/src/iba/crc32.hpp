// CRC-32 (IEEE 802.3, reflected: the CRC of Ethernet, gzip and zlib), the one the invariant
// CRC of every IB transport packet is built on (IBA 7.8.1), on InfiniBand and RoCE alike. ISA-L
// computes it with carry-less multiplication where the CPU has it and picks a portable loop where
// it does not; zlib's table-driven loop, which the unit tests keep as the reference, runs at a
// fraction of that speed.
#pragma once

#include <cstdint>
#include <span>

namespace ornic::iba {

// Continues `crc` over `bytes`: crc32_update(crc32_update(0, a), b) == crc32_update(0, a||b),
// and crc32_update(0, x) equals zlib's crc32(0, x).
uint32_t crc32_update(uint32_t crc, std::span<const uint8_t> bytes);

} // namespace ornic::iba
