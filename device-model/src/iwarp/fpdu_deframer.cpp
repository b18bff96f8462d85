#include "iwarp/fpdu_deframer.hpp"

#include <algorithm>

#include "iba/wire_bytes.hpp"
#include "iwarp/crc32c.hpp"

namespace ornic::iwarp {

FpduDeframer::FpduDeframer(FpduDeframerConfig config) : config_(config) {
  config_.max_ulpdu = std::min(config_.max_ulpdu, kMaxUlpdu);
}

std::optional<TerminateCause> FpduDeframer::deliver(std::span<const uint8_t> fpdu,
                                                    UlpduSink& on_ulpdu, bool& keep_going) {
  const size_t ulpdu_size = iba::load_be16(fpdu, 0);
  const size_t covered = fpdu.size() - kFpduCrcSize;
  if (config_.crc) {
    const uint32_t sent = load_crc32c(fpdu.subspan(covered).first<kFpduCrcSize>());
    if (sent != crc32c(fpdu.first(covered)))
      return cause::mpa_crc_error;
  }
  keep_going = on_ulpdu(fpdu.subspan(kFpduLengthSize, ulpdu_size));
  return std::nullopt;
}

FpduDeframer::FeedResult FpduDeframer::feed(std::span<const uint8_t> bytes, UlpduSink on_ulpdu) {
  FeedResult result;
  if (error_) {
    result.error = error_;
    return result;
  }
  bool keep_going = true;
  while (!bytes.empty() && keep_going) {
    // Whole FPDUs straight from the chunk, when nothing is held over.
    if (partial_.empty() && bytes.size() >= kFpduLengthSize) {
      const size_t ulpdu_size = iba::load_be16(bytes, 0);
      if (ulpdu_size > config_.max_ulpdu) {
        error_ = cause::mpa_length_mismatch;
        break;
      }
      const size_t size = fpdu_size(ulpdu_size);
      if (bytes.size() >= size) {
        error_ = deliver(bytes.first(size), on_ulpdu, keep_going);
        if (error_)
          break;
        result.consumed += size;
        bytes = bytes.subspan(size);
        continue;
      }
    }
    // Otherwise gather: first the length field, then the rest of the FPDU it announces.
    const size_t target = expected_ ? expected_ : kFpduLengthSize;
    const size_t take = std::min(target - partial_.size(), bytes.size());
    partial_.insert(partial_.end(), bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(take));
    result.consumed += take;
    bytes = bytes.subspan(take);
    if (partial_.size() < target)
      break;
    if (!expected_) {
      const size_t ulpdu_size = iba::load_be16(partial_, 0);
      if (ulpdu_size > config_.max_ulpdu) {
        error_ = cause::mpa_length_mismatch;
        break;
      }
      expected_ = fpdu_size(ulpdu_size);
      continue;
    }
    error_ = deliver(partial_, on_ulpdu, keep_going);
    partial_.clear();
    expected_ = 0;
    if (error_)
      break;
  }
  result.error = error_;
  return result;
}

} // namespace ornic::iwarp
