#include "iwarp/terminate_cause.hpp"

#include <array>
#include <utility>

namespace ornic::iwarp {

namespace {

constexpr std::array kNames = {
    std::pair{cause::rdmap_local_catastrophic, "rdmap/local_catastrophic"},
    std::pair{cause::rdmap_invalid_stag, "rdmap/protection/invalid_stag"},
    std::pair{cause::rdmap_base_or_bounds, "rdmap/protection/base_or_bounds"},
    std::pair{cause::rdmap_access_rights, "rdmap/protection/access_rights"},
    std::pair{cause::rdmap_stag_not_in_stream, "rdmap/protection/stag_not_in_stream"},
    std::pair{cause::rdmap_to_wrap, "rdmap/protection/to_wrap"},
    std::pair{cause::rdmap_cannot_invalidate_protection, "rdmap/protection/cannot_invalidate"},
    std::pair{cause::rdmap_unspecified_protection, "rdmap/protection/unspecified"},
    std::pair{cause::rdmap_invalid_version, "rdmap/operation/invalid_version"},
    std::pair{cause::rdmap_unexpected_opcode, "rdmap/operation/unexpected_opcode"},
    std::pair{cause::rdmap_stream_catastrophic, "rdmap/operation/stream_catastrophic"},
    std::pair{cause::rdmap_global_catastrophic, "rdmap/operation/global_catastrophic"},
    std::pair{cause::rdmap_cannot_invalidate, "rdmap/operation/cannot_invalidate"},
    std::pair{cause::rdmap_unspecified_operation, "rdmap/operation/unspecified"},
    std::pair{cause::ddp_local_catastrophic, "ddp/local_catastrophic"},
    std::pair{cause::ddp_tagged_invalid_stag, "ddp/tagged/invalid_stag"},
    std::pair{cause::ddp_tagged_base_or_bounds, "ddp/tagged/base_or_bounds"},
    std::pair{cause::ddp_tagged_stag_not_in_stream, "ddp/tagged/stag_not_in_stream"},
    std::pair{cause::ddp_tagged_to_wrap, "ddp/tagged/to_wrap"},
    std::pair{cause::ddp_tagged_invalid_version, "ddp/tagged/invalid_version"},
    std::pair{cause::ddp_untagged_invalid_qn, "ddp/untagged/invalid_qn"},
    std::pair{cause::ddp_untagged_no_buffer, "ddp/untagged/no_buffer"},
    std::pair{cause::ddp_untagged_msn_range, "ddp/untagged/msn_range"},
    std::pair{cause::ddp_untagged_invalid_mo, "ddp/untagged/invalid_mo"},
    std::pair{cause::ddp_untagged_too_long, "ddp/untagged/too_long"},
    std::pair{cause::ddp_untagged_invalid_version, "ddp/untagged/invalid_version"},
    std::pair{cause::mpa_stream_lost, "mpa/stream_lost"},
    std::pair{cause::mpa_crc_error, "mpa/crc_error"},
    std::pair{cause::mpa_length_mismatch, "mpa/length_mismatch"},
    std::pair{cause::mpa_invalid_setup_frame, "mpa/invalid_setup_frame"},
    std::pair{cause::mpa_local_catastrophic, "mpa/local_catastrophic"},
    std::pair{cause::mpa_insufficient_ird, "mpa/insufficient_ird"},
    std::pair{cause::mpa_no_matching_rtr, "mpa/no_matching_rtr"},
};

} // namespace

std::string_view describe(TerminateCause cause) {
  for (const auto& [known, name] : kNames)
    if (known == cause)
      return name;
  return "unknown";
}

} // namespace ornic::iwarp
