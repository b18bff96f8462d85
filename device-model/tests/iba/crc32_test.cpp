// The CRC-32 under the ICRC, checked against zlib's on lengths around every vector width
// and on chained pieces, as the ICRC feeds it.
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include <zlib.h>

#include <gtest/gtest.h>

#include "iba/crc32.hpp"

namespace ornic::iba {
namespace {

uint32_t zlib_crc(uint32_t crc, std::span<const uint8_t> bytes) {
  return static_cast<uint32_t>(crc32(crc, bytes.data(), static_cast<uInt>(bytes.size())));
}

std::vector<uint8_t> random_bytes(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> bytes(size);
  for (auto& byte : bytes)
    byte = static_cast<uint8_t>(rng());
  return bytes;
}

TEST(IbaCrc32, EmptyInputKeepsTheCrc) {
  EXPECT_EQ(crc32_update(0, {}), 0u);
  EXPECT_EQ(crc32_update(0x12345678, {}), 0x12345678u);
}

TEST(IbaCrc32, KnownCheckValue) {
  // The catalogued check value of CRC-32/ISO-HDLC over the ASCII digits 1..9.
  const std::vector<uint8_t> digits{'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  EXPECT_EQ(crc32_update(0, digits), 0xcbf43926u);
}

TEST(IbaCrc32, MatchesZlibOnEveryLengthUpToAJumboFrame) {
  const auto bytes = random_bytes(9100, 1);
  for (size_t size = 0; size <= 300; ++size)
    ASSERT_EQ(crc32_update(0, std::span(bytes).first(size)),
              zlib_crc(0, std::span(bytes).first(size)))
        << size << " bytes";
  for (size_t size : {511u, 512u, 1023u, 1024u, 1500u, 2048u, 4095u, 4096u, 4097u, 9000u, 9100u})
    ASSERT_EQ(crc32_update(0, std::span(bytes).first(size)),
              zlib_crc(0, std::span(bytes).first(size)))
        << size << " bytes";
}

TEST(IbaCrc32, MatchesZlibAtEveryAlignment) {
  const auto bytes = random_bytes(4200, 2);
  for (size_t offset = 0; offset < 64; ++offset) {
    const auto piece = std::span(bytes).subspan(offset, 4096);
    ASSERT_EQ(crc32_update(0, piece), zlib_crc(0, piece)) << "offset " << offset;
  }
}

TEST(IbaCrc32, ChainsLikeZlib) {
  const auto bytes = random_bytes(5000, 3);
  const std::span<const uint8_t> all(bytes);
  const uint32_t whole = zlib_crc(0, all);
  for (size_t split : {0u, 1u, 8u, 48u, 61u, 1000u, 4999u, 5000u}) {
    const uint32_t first = crc32_update(0, all.first(split));
    EXPECT_EQ(crc32_update(first, all.subspan(split)), whole) << "split at " << split;
    EXPECT_EQ(first, zlib_crc(0, all.first(split)));
  }
}

} // namespace
} // namespace ornic::iba
