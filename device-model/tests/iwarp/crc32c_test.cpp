// CRC32c against published vectors: the check value of "123456789" and the iSCSI vectors
// (32 bytes of zeros, of ones, ascending and descending), whose wire bytes also fix the order
// MPA sends the CRC in.
#include <array>
#include <numeric>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "iwarp/crc32c.hpp"

namespace ornic::iwarp {
namespace {

std::span<const uint8_t> bytes_of(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

TEST(IwarpCrc32c, CheckValue) {
  EXPECT_EQ(crc32c(bytes_of("123456789")), 0xe3069283u);
}

TEST(IwarpCrc32c, IscsiVectors) {
  std::array<uint8_t, 32> data{};
  EXPECT_EQ(crc32c(data), 0x8a9136aau);
  data.fill(0xff);
  EXPECT_EQ(crc32c(data), 0x62a8ab43u);
  std::iota(data.begin(), data.end(), uint8_t{0});
  EXPECT_EQ(crc32c(data), 0x46dd794eu);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<uint8_t>(31 - i);
  EXPECT_EQ(crc32c(data), 0x113fdb5cu);
}

TEST(IwarpCrc32c, WireOrderIsLeastSignificantByteFirst) {
  // The iSCSI vector for 32 zero bytes is given as the bytes aa 36 91 8a.
  std::array<uint8_t, 32> data{};
  std::array<uint8_t, 4> wire{};
  store_crc32c(wire, crc32c(data));
  EXPECT_EQ(wire, (std::array<uint8_t, 4>{0xaa, 0x36, 0x91, 0x8a}));
  EXPECT_EQ(load_crc32c(wire), 0x8a9136aau);
}

TEST(IwarpCrc32c, UpdateChainsAtEverySplit) {
  std::vector<uint8_t> data(100);
  std::iota(data.begin(), data.end(), uint8_t{7});
  const uint32_t whole = crc32c(data);
  for (size_t split = 0; split <= data.size(); ++split) {
    const std::span<const uint8_t> all(data);
    const uint32_t running = crc32c_update(kCrc32cStart, all.first(split));
    EXPECT_EQ(crc32c_final(crc32c_update(running, all.subspan(split))), whole) << split;
  }
}

TEST(IwarpCrc32c, EmptyIsZero) {
  EXPECT_EQ(crc32c({}), 0u);
}

} // namespace
} // namespace ornic::iwarp
