#include "iwarp/fpdu.hpp"

#include "iba/wire_bytes.hpp"
#include "iwarp/crc32c.hpp"

namespace ornic::iwarp {

bool append_fpdu(std::vector<uint8_t>& out, std::span<const uint8_t> ulpdu, bool crc) {
  if (ulpdu.size() > kMaxUlpdu)
    return false;
  const size_t start = out.size();
  out.resize(start + fpdu_size(ulpdu.size()));
  const std::span<uint8_t> fpdu = std::span<uint8_t>(out).subspan(start);
  iba::store_be16(fpdu, 0, static_cast<uint16_t>(ulpdu.size()));
  std::copy(ulpdu.begin(), ulpdu.end(), fpdu.begin() + kFpduLengthSize);
  // resize() zeroed the pad and the CRC field.
  const size_t covered = fpdu.size() - kFpduCrcSize;
  if (crc)
    store_crc32c(fpdu.subspan(covered).first<kFpduCrcSize>(), crc32c(fpdu.first(covered)));
  return true;
}

} // namespace ornic::iwarp
