#include "iwarp/crc32c.hpp"

#include <isa-l/crc.h>

namespace ornic::iwarp {

uint32_t crc32c_update(uint32_t running, std::span<const uint8_t> bytes) {
  if (bytes.empty())
    return running;
  // ISA-L takes a length of int: FPDUs are at most 64 KiB, but split to stay in range anyway.
  constexpr size_t kChunk = size_t{1} << 30;
  while (bytes.size() > kChunk) {
    running = crc32_iscsi(const_cast<uint8_t*>(bytes.data()), static_cast<int>(kChunk), running);
    bytes = bytes.subspan(kChunk);
  }
  return crc32_iscsi(const_cast<uint8_t*>(bytes.data()), static_cast<int>(bytes.size()), running);
}

void store_crc32c(std::span<uint8_t, 4> bytes, uint32_t crc) {
  for (size_t i = 0; i < 4; ++i)
    bytes[i] = static_cast<uint8_t>(crc >> (8 * i));
}

uint32_t load_crc32c(std::span<const uint8_t, 4> bytes) {
  return uint32_t{bytes[0]} | uint32_t{bytes[1]} << 8 | uint32_t{bytes[2]} << 16 |
         uint32_t{bytes[3]} << 24;
}

} // namespace ornic::iwarp
