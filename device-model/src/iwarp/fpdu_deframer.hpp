// Cuts the receive side of an MPA stream (TCP payload after the setup frames, in chunks of
// any size) into whole FPDUs and checks each: length within the local limit, pad, and the
// CRC when one was negotiated. The first bad FPDU breaks the stream for good: MPA has no way
// to find the next FPDU boundary without markers, so the connection must be terminated with
// the cause returned.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/function_ref.hpp"
#include "iwarp/fpdu.hpp"
#include "iwarp/terminate_cause.hpp"

namespace ornic::iwarp {

struct FpduDeframerConfig {
  bool crc = true;
  // The largest ULPDU this side accepts; longer ones are a framing error.
  size_t max_ulpdu = kMaxUlpdu;
};

class FpduDeframer {
public:
  explicit FpduDeframer(FpduDeframerConfig config);

  // Called with each whole ULPDU (valid until it returns); returning false stops the feed
  // after this FPDU, the bytes behind it left unread.
  using UlpduSink = FunctionRef<bool(std::span<const uint8_t> ulpdu)>;

  struct FeedResult {
    size_t consumed = 0;                 // bytes of the chunk taken (all, unless stopped or broken)
    std::optional<TerminateCause> error; // set once the stream is broken
  };

  // Takes the next bytes of the stream.
  FeedResult feed(std::span<const uint8_t> bytes, UlpduSink on_ulpdu);

  bool broken() const { return error_.has_value(); }
  // Bytes of a partial FPDU held for the next feed.
  size_t buffered() const { return partial_.size(); }

private:
  FpduDeframerConfig config_;
  std::vector<uint8_t> partial_;
  size_t expected_ = 0; // size of the FPDU in partial_, once its length field is in
  std::optional<TerminateCause> error_;

  // Checks a whole FPDU and hands its ULPDU on; the cause when it is bad.
  std::optional<TerminateCause> deliver(std::span<const uint8_t> fpdu, UlpduSink& on_ulpdu,
                                        bool& keep_going);
};

} // namespace ornic::iwarp
