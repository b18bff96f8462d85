// libFuzzer target for the iWARP framing (src/iwarp): the MPA setup frame parser and the
// answer and reply checks behind it, then the FPDU deframer and the DDP/RDMAP segment parser
// over what follows. No connection state, no timers: bytes in, verdicts out.
//
// Input: one mode byte, then the start of a TCP stream. Mode bit 0: CRC negotiated; bit 1:
// the setup frame expected is a reply (else a request); bit 2: no setup frame, the stream is
// FPDUs from the first byte; bits 3-7: how the stream is cut into chunks.
//
// Invariants (a violation aborts): a setup frame that parses rebuilds to the same bytes and
// its answer builds; the deframer yields the same ULPDUs and the same verdict however the
// stream is chunked; a segment that parses rebuilds to the same ULPDU, and the FPDU rebuilt
// around it (with a CRC) is the one received; every refusal is a cause the layers define; the
// largest ULPDU for an MSS fills it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <vector>

#include "iwarp/fpdu.hpp"
#include "iwarp/fpdu_deframer.hpp"
#include "iwarp/mpa_setup.hpp"
#include "iwarp/segment.hpp"

namespace {

using namespace ornic::iwarp;

void require(bool condition) {
  if (!condition)
    std::abort();
}

void check_setup(const MpaSetupParse& parse, std::span<const uint8_t> stream) {
  switch (parse.status) {
  case MpaSetupParse::Status::invalid:
    require(parse.error == cause::mpa_invalid_setup_frame);
    return;
  case MpaSetupParse::Status::need_more:
    require(parse.frame_size > stream.size());
    return;
  case MpaSetupParse::Status::complete:
    break;
  }
  require(parse.frame_size <= stream.size());
  const auto rebuilt = build_mpa_setup(parse.frame);
  require(rebuilt && std::equal(rebuilt->begin(), rebuilt->end(), stream.begin()) &&
          rebuilt->size() == parse.frame_size);
  if (parse.frame.kind == MpaFrameKind::request) {
    const MpaAnswer answer = answer_mpa_request(parse.frame, MpaLocalPolicy{});
    require(build_mpa_setup(answer.reply).has_value());
    require(answer.accepted == !parse.frame.markers);
    const MpaReplyCheck check = check_mpa_reply(parse.frame, answer.reply);
    require(check.accepted || describe(check.error) != "unknown");
  } else {
    MpaSetupFrame request;
    request.crc = true;
    request.enhanced = MpaEnhancedParams{.write_rtr = true, .ird = 4, .ord = 4};
    const MpaReplyCheck check = check_mpa_reply(request, parse.frame);
    require(check.accepted || describe(check.error) != "unknown");
  }
}

struct Deframed {
  std::vector<std::vector<uint8_t>> ulpdus;
  std::optional<TerminateCause> error;
  size_t consumed = 0;
};

Deframed deframe(std::span<const uint8_t> stream, bool crc, unsigned chunk_seed) {
  FpduDeframer deframer({.crc = crc, .max_ulpdu = 4096});
  Deframed out;
  auto sink = [&](std::span<const uint8_t> ulpdu) {
    out.ulpdus.emplace_back(ulpdu.begin(), ulpdu.end());
    return true;
  };
  size_t step = 0;
  while (!stream.empty()) {
    // Chunk sizes from 1 up, varied by the seed; seed 0 feeds the stream in one go.
    size_t size = chunk_seed == 0 ? stream.size() : 1 + (chunk_seed * 7 + step++ * 13) % 61;
    size = std::min(size, stream.size());
    const auto result = deframer.feed(stream.first(size), sink);
    out.consumed += result.consumed;
    if (result.error) {
      out.error = result.error;
      break;
    }
    require(result.consumed == size);
    stream = stream.subspan(size);
  }
  require(deframer.broken() == out.error.has_value());
  if (!out.error)
    require(deframer.buffered() < fpdu_size(4096));
  return out;
}

void check_segment(std::span<const uint8_t> ulpdu) {
  const SegmentParse parse = parse_segment(ulpdu);
  if (!parse.segment) {
    require(describe(parse.error) != "unknown");
    return;
  }
  const Segment& segment = *parse.segment;
  require(segment.invalidate_stag.has_value() == rdmap_opcode_invalidates(segment.opcode));
  require(rdmap_opcode_solicits(segment.opcode) ==
          (segment.opcode == RdmapOpcode::send_se ||
           segment.opcode == RdmapOpcode::send_se_invalidate));
  const auto rebuilt = build_segment(segment);
  require(rebuilt && std::equal(rebuilt->begin(), rebuilt->end(), ulpdu.begin(), ulpdu.end()));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0)
    return 0;
  const uint8_t mode = data[0];
  const bool crc = mode & 1;
  const auto kind = (mode & 2) ? MpaFrameKind::reply : MpaFrameKind::request;
  const bool skip_setup = mode & 4;
  const unsigned chunk_seed = mode >> 3;
  std::span<const uint8_t> stream(data + 1, size - 1);

  // The first two stream bytes as an MSS: the largest ULPDU for it fills it, and one more
  // byte would not fit.
  if (stream.size() >= 2) {
    const size_t mss = size_t{stream[0]} << 8 | stream[1];
    const size_t ulpdu = max_ulpdu_for_mss(mss);
    if (ulpdu)
      require(fpdu_size(ulpdu) <= mss && (ulpdu == kMaxUlpdu || fpdu_size(ulpdu + 1) > mss));
    else
      require(fpdu_size(0) > mss);
  }

  if (!skip_setup) {
    const MpaSetupParse parse = parse_mpa_setup(stream, kind);
    check_setup(parse, stream);
    if (parse.status != MpaSetupParse::Status::complete)
      return 0;
    stream = stream.subspan(parse.frame_size);
  }

  const Deframed whole = deframe(stream, crc, 0);
  const Deframed chunked = deframe(stream, crc, chunk_seed);
  require(whole.ulpdus == chunked.ulpdus && whole.error == chunked.error);
  if (whole.error)
    require(*whole.error == cause::mpa_crc_error || *whole.error == cause::mpa_length_mismatch);

  size_t offset = 0;
  for (const auto& ulpdu : whole.ulpdus) {
    check_segment(ulpdu);
    // With a CRC, the FPDU rebuilt around the ULPDU is the one received, byte for byte (the
    // pad is covered by the CRC, so a non-zero pad only gets through with a CRC collision).
    std::vector<uint8_t> fpdu;
    require(append_fpdu(fpdu, ulpdu, true));
    if (crc) {
      const auto received = stream.subspan(offset, fpdu.size());
      const bool same = std::equal(fpdu.begin(), fpdu.end(), received.begin());
      const bool pad_differs =
          !std::equal(fpdu.begin(), fpdu.end() - kFpduCrcSize, received.begin());
      require(same || pad_differs);
    }
    offset += fpdu.size();
  }
  return 0;
}
