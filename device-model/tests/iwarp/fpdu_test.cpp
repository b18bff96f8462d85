// FPDUs: layout and pad, the CRC and where it goes, the MSS-aligned ULPDU size, and the
// deframer over a stream of several FPDUs cut at every split point (and into single bytes),
// with every broken stream reported with its TERMINATE cause.
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "iwarp/crc32c.hpp"
#include "iwarp/fpdu.hpp"
#include "iwarp/fpdu_deframer.hpp"

namespace ornic::iwarp {
namespace {

std::vector<uint8_t> ulpdu_of(size_t size, uint8_t seed) {
  std::vector<uint8_t> ulpdu(size);
  std::iota(ulpdu.begin(), ulpdu.end(), seed);
  return ulpdu;
}

TEST(IwarpFpdu, LayoutPadAndCrc) {
  for (size_t size : {0, 1, 2, 3, 4, 5, 14, 18, 46, 1000}) {
    const auto ulpdu = ulpdu_of(size, 1);
    std::vector<uint8_t> out = {0xee}; // appended after what is there
    ASSERT_TRUE(append_fpdu(out, ulpdu, true));
    const std::span<const uint8_t> fpdu = std::span<const uint8_t>(out).subspan(1);
    ASSERT_EQ(fpdu.size(), fpdu_size(size));
    EXPECT_EQ(fpdu.size() % 4, 0u) << size;
    EXPECT_EQ(fpdu[0], size >> 8);
    EXPECT_EQ(fpdu[1], size & 0xff);
    EXPECT_TRUE(std::equal(ulpdu.begin(), ulpdu.end(), fpdu.begin() + 2));
    for (size_t i = 0; i < fpdu_pad(size); ++i)
      EXPECT_EQ(fpdu[2 + size + i], 0);
    const size_t covered = fpdu.size() - 4;
    EXPECT_EQ(load_crc32c(fpdu.subspan(covered).first<4>()), crc32c(fpdu.first(covered)));
  }
  EXPECT_EQ(fpdu_pad(0), 2u);
  EXPECT_EQ(fpdu_pad(2), 0u);
  EXPECT_EQ(fpdu_pad(3), 3u);
}

TEST(IwarpFpdu, WithoutCrcTheFieldIsZero) {
  std::vector<uint8_t> out;
  ASSERT_TRUE(append_fpdu(out, ulpdu_of(10, 3), false));
  EXPECT_EQ(std::vector<uint8_t>(out.end() - 4, out.end()), std::vector<uint8_t>(4, 0));
}

TEST(IwarpFpdu, TooLongIsRefused) {
  std::vector<uint8_t> out = {1, 2};
  EXPECT_FALSE(append_fpdu(out, std::vector<uint8_t>(kMaxUlpdu + 1), true));
  EXPECT_EQ(out.size(), 2u);
  EXPECT_TRUE(append_fpdu(out, std::vector<uint8_t>(kMaxUlpdu), true));
  EXPECT_EQ(out.size(), 2 + fpdu_size(kMaxUlpdu));
}

TEST(IwarpFpdu, MaxUlpduFillsTheMss) {
  EXPECT_EQ(max_ulpdu_for_mss(1460), 1454u);
  EXPECT_EQ(max_ulpdu_for_mss(1448), 1442u); // with TCP timestamps
  EXPECT_EQ(max_ulpdu_for_mss(8948), 8942u);
  EXPECT_EQ(max_ulpdu_for_mss(6), 0u);
  EXPECT_EQ(max_ulpdu_for_mss(5), 0u);
  EXPECT_EQ(max_ulpdu_for_mss(0), 0u);
  EXPECT_EQ(max_ulpdu_for_mss(1u << 20), kMaxUlpdu);
  for (size_t mss = 8; mss < 2000; ++mss) {
    const size_t ulpdu = max_ulpdu_for_mss(mss);
    ASSERT_LE(fpdu_size(ulpdu), mss) << mss;
    ASSERT_GT(fpdu_size(ulpdu + 1), mss) << mss;
  }
}

struct Collected {
  std::vector<std::vector<uint8_t>> ulpdus;
  bool operator()(std::span<const uint8_t> ulpdu) {
    ulpdus.emplace_back(ulpdu.begin(), ulpdu.end());
    return true;
  }
};

std::vector<std::vector<uint8_t>> sample_ulpdus() {
  return {ulpdu_of(14, 1), ulpdu_of(0, 0),   ulpdu_of(31, 9),
          ulpdu_of(18, 4), ulpdu_of(300, 2), ulpdu_of(1, 200)};
}

std::vector<uint8_t> stream_of(const std::vector<std::vector<uint8_t>>& ulpdus, bool crc) {
  std::vector<uint8_t> stream;
  for (const auto& ulpdu : ulpdus)
    EXPECT_TRUE(append_fpdu(stream, ulpdu, crc));
  return stream;
}

TEST(IwarpFpduDeframer, EverySplitPoint) {
  const auto ulpdus = sample_ulpdus();
  for (bool crc : {false, true}) {
    const auto stream = stream_of(ulpdus, crc);
    for (size_t first = 0; first <= stream.size(); ++first)
      for (size_t second = first; second <= stream.size(); second += 7) {
        FpduDeframer deframer({.crc = crc});
        Collected collected;
        const std::span<const uint8_t> all(stream);
        for (auto chunk :
             {all.first(first), all.subspan(first, second - first), all.subspan(second)}) {
          const auto result = deframer.feed(chunk, collected);
          ASSERT_FALSE(result.error);
          ASSERT_EQ(result.consumed, chunk.size());
        }
        ASSERT_EQ(collected.ulpdus, ulpdus) << first << " " << second;
        ASSERT_EQ(deframer.buffered(), 0u);
      }
  }
}

TEST(IwarpFpduDeframer, ByteByByte) {
  const auto ulpdus = sample_ulpdus();
  const auto stream = stream_of(ulpdus, true);
  FpduDeframer deframer({.crc = true});
  Collected collected;
  for (size_t i = 0; i < stream.size(); ++i) {
    ASSERT_FALSE(deframer.feed(std::span<const uint8_t>(stream).subspan(i, 1), collected).error);
  }
  EXPECT_EQ(collected.ulpdus, ulpdus);
}

TEST(IwarpFpduDeframer, EveryCorruptedByteFailsTheCrc) {
  const auto ulpdus = sample_ulpdus();
  const auto good = stream_of(ulpdus, true);
  const size_t first_fpdu = fpdu_size(ulpdus[0].size());
  // Corrupting the length field changes the framing itself; everything else must fail the
  // CRC of the first FPDU.
  for (size_t i = 2; i < first_fpdu; ++i) {
    auto stream = good;
    stream[i] ^= 0x10;
    FpduDeframer deframer({.crc = true});
    Collected collected;
    const auto result = deframer.feed(stream, collected);
    ASSERT_EQ(result.error, cause::mpa_crc_error) << i;
    EXPECT_TRUE(collected.ulpdus.empty());
    EXPECT_TRUE(deframer.broken());
    // Broken for good.
    EXPECT_EQ(deframer.feed(good, collected).error, cause::mpa_crc_error);
    EXPECT_TRUE(collected.ulpdus.empty());
  }
  // Without a negotiated CRC the same corruption of the CRC field goes through.
  auto stream = stream_of(ulpdus, false);
  stream[first_fpdu - 1] ^= 0xff;
  FpduDeframer deframer({.crc = false});
  Collected collected;
  EXPECT_FALSE(deframer.feed(stream, collected).error);
  EXPECT_EQ(collected.ulpdus, ulpdus);
}

TEST(IwarpFpduDeframer, LengthOverTheLimitBreaksTheStream) {
  const auto stream = stream_of({ulpdu_of(100, 0), ulpdu_of(101, 0)}, true);
  for (size_t split : {size_t{0}, size_t{1}, fpdu_size(100), fpdu_size(100) + 1}) {
    FpduDeframer deframer({.crc = true, .max_ulpdu = 100});
    Collected collected;
    const std::span<const uint8_t> all(stream);
    auto result = deframer.feed(all.first(split), collected);
    if (!result.error)
      result = deframer.feed(all.subspan(split), collected);
    EXPECT_EQ(result.error, cause::mpa_length_mismatch) << split;
    EXPECT_EQ(collected.ulpdus.size(), 1u);
  }
}

TEST(IwarpFpduDeframer, SinkCanStop) {
  const auto ulpdus = sample_ulpdus();
  const auto stream = stream_of(ulpdus, true);
  FpduDeframer deframer({.crc = true});
  size_t seen = 0;
  const auto result = deframer.feed(stream, [&](std::span<const uint8_t>) { return ++seen < 2; });
  EXPECT_FALSE(result.error);
  EXPECT_EQ(seen, 2u);
  EXPECT_EQ(result.consumed, fpdu_size(ulpdus[0].size()) + fpdu_size(ulpdus[1].size()));
  Collected rest;
  EXPECT_FALSE(
      deframer.feed(std::span<const uint8_t>(stream).subspan(result.consumed), rest).error);
  EXPECT_EQ(rest.ulpdus.size(), ulpdus.size() - 2);
}

} // namespace
} // namespace ornic::iwarp
