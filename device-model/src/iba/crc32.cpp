#include "iba/crc32.hpp"

#include <isa-l/crc.h>

namespace ornic::iba {

uint32_t crc32_update(uint32_t crc, std::span<const uint8_t> bytes) {
  // ISA-L's gzip variant inverts before and after, as zlib does, so results chain alike.
  return crc32_gzip_refl(crc, bytes.data(), bytes.size());
}

} // namespace ornic::iba
