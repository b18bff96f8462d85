// What a TERMINATE message reports: the layer that found the error, its error type and
// its error code (RDMAP, DDP, and MPA as the LLP). Every receive-side check of the iWARP
// framing returns one of the named causes below, so the engine that sends the TERMINATE
// never has to translate.
#pragma once

#include <cstdint>
#include <string_view>

namespace ornic::iwarp {

enum class TerminateLayer : uint8_t { rdmap = 0, ddp = 1, llp = 2 };

struct TerminateCause {
  TerminateLayer layer = TerminateLayer::rdmap;
  uint8_t error_type = 0; // 4 bits on the wire
  uint8_t error_code = 0;

  friend constexpr bool operator==(const TerminateCause&, const TerminateCause&) = default;
};

namespace cause {

// RDMAP (layer 0).
inline constexpr TerminateCause rdmap_local_catastrophic{TerminateLayer::rdmap, 0, 0x00};
inline constexpr TerminateCause rdmap_invalid_stag{TerminateLayer::rdmap, 1, 0x00};
inline constexpr TerminateCause rdmap_base_or_bounds{TerminateLayer::rdmap, 1, 0x01};
inline constexpr TerminateCause rdmap_access_rights{TerminateLayer::rdmap, 1, 0x02};
inline constexpr TerminateCause rdmap_stag_not_in_stream{TerminateLayer::rdmap, 1, 0x03};
inline constexpr TerminateCause rdmap_to_wrap{TerminateLayer::rdmap, 1, 0x04};
inline constexpr TerminateCause rdmap_cannot_invalidate_protection{TerminateLayer::rdmap, 1, 0x09};
inline constexpr TerminateCause rdmap_unspecified_protection{TerminateLayer::rdmap, 1, 0xff};
inline constexpr TerminateCause rdmap_invalid_version{TerminateLayer::rdmap, 2, 0x05};
inline constexpr TerminateCause rdmap_unexpected_opcode{TerminateLayer::rdmap, 2, 0x06};
inline constexpr TerminateCause rdmap_stream_catastrophic{TerminateLayer::rdmap, 2, 0x07};
inline constexpr TerminateCause rdmap_global_catastrophic{TerminateLayer::rdmap, 2, 0x08};
inline constexpr TerminateCause rdmap_cannot_invalidate{TerminateLayer::rdmap, 2, 0x09};
inline constexpr TerminateCause rdmap_unspecified_operation{TerminateLayer::rdmap, 2, 0xff};

// DDP (layer 1).
inline constexpr TerminateCause ddp_local_catastrophic{TerminateLayer::ddp, 0, 0x00};
inline constexpr TerminateCause ddp_tagged_invalid_stag{TerminateLayer::ddp, 1, 0x00};
inline constexpr TerminateCause ddp_tagged_base_or_bounds{TerminateLayer::ddp, 1, 0x01};
inline constexpr TerminateCause ddp_tagged_stag_not_in_stream{TerminateLayer::ddp, 1, 0x02};
inline constexpr TerminateCause ddp_tagged_to_wrap{TerminateLayer::ddp, 1, 0x03};
inline constexpr TerminateCause ddp_tagged_invalid_version{TerminateLayer::ddp, 1, 0x04};
inline constexpr TerminateCause ddp_untagged_invalid_qn{TerminateLayer::ddp, 2, 0x01};
inline constexpr TerminateCause ddp_untagged_no_buffer{TerminateLayer::ddp, 2, 0x02};
inline constexpr TerminateCause ddp_untagged_msn_range{TerminateLayer::ddp, 2, 0x03};
inline constexpr TerminateCause ddp_untagged_invalid_mo{TerminateLayer::ddp, 2, 0x04};
inline constexpr TerminateCause ddp_untagged_too_long{TerminateLayer::ddp, 2, 0x05};
inline constexpr TerminateCause ddp_untagged_invalid_version{TerminateLayer::ddp, 2, 0x06};

// MPA as the lower layer protocol (layer 2, error type 0). 0x05-0x07 come with the enhanced
// connection setup.
inline constexpr TerminateCause mpa_stream_lost{TerminateLayer::llp, 0, 0x01};
inline constexpr TerminateCause mpa_crc_error{TerminateLayer::llp, 0, 0x02};
inline constexpr TerminateCause mpa_length_mismatch{TerminateLayer::llp, 0, 0x03};
inline constexpr TerminateCause mpa_invalid_setup_frame{TerminateLayer::llp, 0, 0x04};
inline constexpr TerminateCause mpa_local_catastrophic{TerminateLayer::llp, 0, 0x05};
inline constexpr TerminateCause mpa_insufficient_ird{TerminateLayer::llp, 0, 0x06};
inline constexpr TerminateCause mpa_no_matching_rtr{TerminateLayer::llp, 0, 0x07};

} // namespace cause

// A short name for logs and test messages ("ddp/untagged/invalid_qn"); "unknown" for a
// combination none of the three layers defines (a received TERMINATE may carry anything).
std::string_view describe(TerminateCause cause);

} // namespace ornic::iwarp
