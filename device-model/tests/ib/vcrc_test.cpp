// The variant CRC: the catalogue-style check value (computed by python3-crcmod with the
// parameters vcrc.hpp names), the eight-byte slicing against a bit-at-a-time reference on
// every length around it, and the byte order on the wire.
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "ib/vcrc.hpp"

namespace ornic::ib {
namespace {

uint16_t bitwise_vcrc(std::span<const uint8_t> bytes) {
  uint16_t crc = 0xffff;
  for (const uint8_t byte : bytes) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit)
      crc = static_cast<uint16_t>((crc >> 1) ^ ((crc & 1u) != 0 ? 0xd008 : 0));
  }
  return static_cast<uint16_t>(~crc);
}

TEST(IbVcrc, CheckValueOfTheDigits) {
  const std::vector<uint8_t> digits{'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  // crcmod.mkCrcFun(0x1100b, initCrc=0, rev=True, xorOut=0xffff)(b"123456789")
  EXPECT_EQ(compute_vcrc(digits), 0x0a3d);
}

TEST(IbVcrc, EmptyInputIsTheInvertedInitialValue) {
  EXPECT_EQ(compute_vcrc({}), 0x0000);
}

TEST(IbVcrc, SlicingMatchesTheBitwiseReferenceOnEveryLength) {
  std::mt19937 rng(7);
  std::vector<uint8_t> bytes(4200);
  for (auto& byte : bytes)
    byte = static_cast<uint8_t>(rng());
  for (size_t size = 0; size <= 80; ++size)
    ASSERT_EQ(compute_vcrc(std::span(bytes).first(size)),
              bitwise_vcrc(std::span(bytes).first(size)))
        << size;
  for (size_t size : {255u, 256u, 1000u, 4096u, 4200u})
    ASSERT_EQ(compute_vcrc(std::span(bytes).first(size)),
              bitwise_vcrc(std::span(bytes).first(size)))
        << size;
}

TEST(IbVcrc, GoesOnTheWireLeastSignificantByteFirst) {
  std::array<uint8_t, kVcrcSize> wire{};
  store_vcrc(wire, 0x1234);
  EXPECT_EQ(wire[0], 0x34);
  EXPECT_EQ(wire[1], 0x12);
  EXPECT_EQ(load_vcrc(wire), 0x1234);
}

} // namespace
} // namespace ornic::ib
