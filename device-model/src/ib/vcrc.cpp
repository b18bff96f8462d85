#include "ib/vcrc.hpp"

#include <array>

namespace ornic::ib {
namespace {

// 0x100b with its bits reversed: the polynomial as a least-significant-bit-first register
// sees it.
constexpr uint16_t kReflectedPolynomial = 0xd008;

using Tables = std::array<std::array<uint16_t, 256>, 8>;

// tables[0][b]: the register after feeding byte b to a zero register; tables[k][b]: the
// same followed by k zero bytes, so eight bytes are folded in with eight lookups.
constexpr Tables make_tables() {
  Tables tables{};
  for (unsigned byte = 0; byte < 256; ++byte) {
    uint16_t crc = static_cast<uint16_t>(byte);
    for (int bit = 0; bit < 8; ++bit)
      crc = static_cast<uint16_t>((crc >> 1) ^ ((crc & 1u) != 0 ? kReflectedPolynomial : 0));
    tables[0][byte] = crc;
  }
  for (size_t k = 1; k < tables.size(); ++k)
    for (unsigned byte = 0; byte < 256; ++byte) {
      const uint16_t previous = tables[k - 1][byte];
      tables[k][byte] = static_cast<uint16_t>((previous >> 8) ^ tables[0][previous & 0xff]);
    }
  return tables;
}

constexpr Tables kTables = make_tables();

} // namespace

uint16_t compute_vcrc(std::span<const uint8_t> bytes) {
  uint16_t crc = 0xffff;
  size_t at = 0;
  for (; at + 8 <= bytes.size(); at += 8) {
    const uint8_t b0 = static_cast<uint8_t>(bytes[at] ^ crc);
    const uint8_t b1 = static_cast<uint8_t>(bytes[at + 1] ^ (crc >> 8));
    crc = static_cast<uint16_t>(kTables[7][b0] ^ kTables[6][b1] ^ kTables[5][bytes[at + 2]] ^
                                kTables[4][bytes[at + 3]] ^ kTables[3][bytes[at + 4]] ^
                                kTables[2][bytes[at + 5]] ^ kTables[1][bytes[at + 6]] ^
                                kTables[0][bytes[at + 7]]);
  }
  for (; at < bytes.size(); ++at)
    crc = static_cast<uint16_t>((crc >> 8) ^ kTables[0][(crc ^ bytes[at]) & 0xff]);
  return static_cast<uint16_t>(~crc);
}

void store_vcrc(std::span<uint8_t, kVcrcSize> out, uint16_t vcrc) {
  out[0] = static_cast<uint8_t>(vcrc);
  out[1] = static_cast<uint8_t>(vcrc >> 8);
}

uint16_t load_vcrc(std::span<const uint8_t, kVcrcSize> in) {
  return static_cast<uint16_t>(in[0] | in[1] << 8);
}

} // namespace ornic::ib
