#include "iba/opcode_table.hpp"

#include <array>
#include <cstdint>

#include "iba/transport_headers.hpp"

namespace ornic::iba {
namespace {

constexpr uint16_t bit(ExtensionHeader header) {
  return static_cast<uint16_t>(1u << static_cast<unsigned>(header));
}

constexpr uint16_t kXrceth = bit(ExtensionHeader::xrceth);
constexpr uint16_t kDeth = bit(ExtensionHeader::deth);
constexpr uint16_t kFeth = bit(ExtensionHeader::feth);
constexpr uint16_t kReth = bit(ExtensionHeader::reth);
constexpr uint16_t kAtomicEth = bit(ExtensionHeader::atomic_eth);
constexpr uint16_t kAeth = bit(ExtensionHeader::aeth);
constexpr uint16_t kAtomicAckEth = bit(ExtensionHeader::atomic_ack_eth);
constexpr uint16_t kImmDt = bit(ExtensionHeader::immdt);
constexpr uint16_t kIeth = bit(ExtensionHeader::ieth);

constexpr uint32_t kRcRequest = kRequest | kReliable;
constexpr uint32_t kRcResponse = kResponse | kReliable;
constexpr uint32_t kUcRequest = kRequest | kUnreliable;
// XRC: reliable like RC; every request names its XRC SRQ in an XRCETH, responses do not.
constexpr uint32_t kXrcRequest = kRcRequest | kXrc;
constexpr uint32_t kXrcResponse = kRcResponse | kXrc;

constexpr std::array kOpcodes = {
    OpcodeInfo{Opcode::rc_send_first, "RC_SEND_FIRST",
               kRcRequest | kSend | kFirst | kPayload | kStartsMessage, 0},
    OpcodeInfo{Opcode::rc_send_middle, "RC_SEND_MIDDLE", kRcRequest | kSend | kMiddle | kPayload,
               0},
    OpcodeInfo{Opcode::rc_send_last, "RC_SEND_LAST", kRcRequest | kSend | kLast | kPayload, 0},
    OpcodeInfo{Opcode::rc_send_last_with_immediate, "RC_SEND_LAST_WITH_IMMEDIATE",
               kRcRequest | kSend | kLast | kPayload | kImmediate, kImmDt},
    OpcodeInfo{Opcode::rc_send_only, "RC_SEND_ONLY",
               kRcRequest | kSend | kOnly | kPayload | kStartsMessage, 0},
    OpcodeInfo{Opcode::rc_send_only_with_immediate, "RC_SEND_ONLY_WITH_IMMEDIATE",
               kRcRequest | kSend | kOnly | kPayload | kImmediate | kStartsMessage, kImmDt},
    OpcodeInfo{Opcode::rc_rdma_write_first, "RC_RDMA_WRITE_FIRST",
               kRcRequest | kWrite | kFirst | kPayload | kStartsMessage, kReth},
    OpcodeInfo{Opcode::rc_rdma_write_middle, "RC_RDMA_WRITE_MIDDLE",
               kRcRequest | kWrite | kMiddle | kPayload, 0},
    OpcodeInfo{Opcode::rc_rdma_write_last, "RC_RDMA_WRITE_LAST",
               kRcRequest | kWrite | kLast | kPayload, 0},
    // WRITE with immediate also consumes a receive WQE, for the immediate's completion.
    OpcodeInfo{Opcode::rc_rdma_write_last_with_immediate, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
               kRcRequest | kWrite | kSend | kLast | kPayload | kImmediate, kImmDt},
    OpcodeInfo{Opcode::rc_rdma_write_only, "RC_RDMA_WRITE_ONLY",
               kRcRequest | kWrite | kOnly | kPayload | kStartsMessage, kReth},
    OpcodeInfo{Opcode::rc_rdma_write_only_with_immediate, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
               kRcRequest | kWrite | kSend | kOnly | kPayload | kImmediate | kStartsMessage,
               kReth | kImmDt},
    OpcodeInfo{Opcode::rc_rdma_read_request, "RC_RDMA_READ_REQUEST",
               kRcRequest | kRead | kOnly | kStartsMessage, kReth},
    OpcodeInfo{Opcode::rc_rdma_read_response_first, "RC_RDMA_READ_RESPONSE_FIRST",
               kRcResponse | kRead | kFirst | kPayload | kAcknowledge, kAeth},
    OpcodeInfo{Opcode::rc_rdma_read_response_middle, "RC_RDMA_READ_RESPONSE_MIDDLE",
               kRcResponse | kRead | kMiddle | kPayload, 0},
    OpcodeInfo{Opcode::rc_rdma_read_response_last, "RC_RDMA_READ_RESPONSE_LAST",
               kRcResponse | kRead | kLast | kPayload | kAcknowledge, kAeth},
    OpcodeInfo{Opcode::rc_rdma_read_response_only, "RC_RDMA_READ_RESPONSE_ONLY",
               kRcResponse | kRead | kOnly | kPayload | kAcknowledge, kAeth},
    OpcodeInfo{Opcode::rc_acknowledge, "RC_ACKNOWLEDGE", kRcResponse | kOnly | kAcknowledge, kAeth},
    OpcodeInfo{Opcode::rc_atomic_acknowledge, "RC_ATOMIC_ACKNOWLEDGE",
               kRcResponse | kOnly | kAtomic | kAcknowledge, kAeth | kAtomicAckEth},
    OpcodeInfo{Opcode::rc_compare_swap, "RC_COMPARE_SWAP",
               kRcRequest | kAtomic | kOnly | kStartsMessage, kAtomicEth},
    OpcodeInfo{Opcode::rc_fetch_add, "RC_FETCH_ADD", kRcRequest | kAtomic | kOnly | kStartsMessage,
               kAtomicEth},
    OpcodeInfo{Opcode::rc_send_last_with_invalidate, "RC_SEND_LAST_WITH_INVALIDATE",
               kRcRequest | kSend | kLast | kPayload | kInvalidate, kIeth},
    OpcodeInfo{Opcode::rc_send_only_with_invalidate, "RC_SEND_ONLY_WITH_INVALIDATE",
               kRcRequest | kSend | kOnly | kPayload | kInvalidate | kStartsMessage, kIeth},
    // IBTA 1.5: answered by an RDMA READ Response Only without payload (as rxe does).
    OpcodeInfo{Opcode::rc_flush, "RC_FLUSH", kRcRequest | kFlush | kOnly | kStartsMessage,
               kFeth | kReth},
    OpcodeInfo{Opcode::rc_atomic_write, "RC_ATOMIC_WRITE",
               kRcRequest | kAtomicWrite | kOnly | kPayload | kStartsMessage, kReth},
    OpcodeInfo{Opcode::uc_send_first, "UC_SEND_FIRST",
               kUcRequest | kSend | kFirst | kPayload | kStartsMessage, 0},
    OpcodeInfo{Opcode::uc_send_middle, "UC_SEND_MIDDLE", kUcRequest | kSend | kMiddle | kPayload,
               0},
    OpcodeInfo{Opcode::uc_send_last, "UC_SEND_LAST", kUcRequest | kSend | kLast | kPayload, 0},
    OpcodeInfo{Opcode::uc_send_last_with_immediate, "UC_SEND_LAST_WITH_IMMEDIATE",
               kUcRequest | kSend | kLast | kPayload | kImmediate, kImmDt},
    OpcodeInfo{Opcode::uc_send_only, "UC_SEND_ONLY",
               kUcRequest | kSend | kOnly | kPayload | kStartsMessage, 0},
    OpcodeInfo{Opcode::uc_send_only_with_immediate, "UC_SEND_ONLY_WITH_IMMEDIATE",
               kUcRequest | kSend | kOnly | kPayload | kImmediate | kStartsMessage, kImmDt},
    OpcodeInfo{Opcode::uc_rdma_write_first, "UC_RDMA_WRITE_FIRST",
               kUcRequest | kWrite | kFirst | kPayload | kStartsMessage, kReth},
    OpcodeInfo{Opcode::uc_rdma_write_middle, "UC_RDMA_WRITE_MIDDLE",
               kUcRequest | kWrite | kMiddle | kPayload, 0},
    OpcodeInfo{Opcode::uc_rdma_write_last, "UC_RDMA_WRITE_LAST",
               kUcRequest | kWrite | kLast | kPayload, 0},
    OpcodeInfo{Opcode::uc_rdma_write_last_with_immediate, "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
               kUcRequest | kWrite | kSend | kLast | kPayload | kImmediate, kImmDt},
    OpcodeInfo{Opcode::uc_rdma_write_only, "UC_RDMA_WRITE_ONLY",
               kUcRequest | kWrite | kOnly | kPayload | kStartsMessage, kReth},
    OpcodeInfo{Opcode::uc_rdma_write_only_with_immediate, "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
               kUcRequest | kWrite | kSend | kOnly | kPayload | kImmediate | kStartsMessage,
               kReth | kImmDt},
    OpcodeInfo{Opcode::ud_send_only, "UD_SEND_ONLY",
               kRequest | kDatagram | kSend | kOnly | kPayload | kStartsMessage, kDeth},
    OpcodeInfo{Opcode::ud_send_only_with_immediate, "UD_SEND_ONLY_WITH_IMMEDIATE",
               kRequest | kDatagram | kSend | kOnly | kPayload | kImmediate | kStartsMessage,
               kDeth | kImmDt},
    OpcodeInfo{Opcode::xrc_send_first, "XRC_SEND_FIRST",
               kXrcRequest | kSend | kFirst | kPayload | kStartsMessage, kXrceth},
    OpcodeInfo{Opcode::xrc_send_middle, "XRC_SEND_MIDDLE", kXrcRequest | kSend | kMiddle | kPayload,
               kXrceth},
    OpcodeInfo{Opcode::xrc_send_last, "XRC_SEND_LAST", kXrcRequest | kSend | kLast | kPayload,
               kXrceth},
    OpcodeInfo{Opcode::xrc_send_last_with_immediate, "XRC_SEND_LAST_WITH_IMMEDIATE",
               kXrcRequest | kSend | kLast | kPayload | kImmediate, kXrceth | kImmDt},
    OpcodeInfo{Opcode::xrc_send_only, "XRC_SEND_ONLY",
               kXrcRequest | kSend | kOnly | kPayload | kStartsMessage, kXrceth},
    OpcodeInfo{Opcode::xrc_send_only_with_immediate, "XRC_SEND_ONLY_WITH_IMMEDIATE",
               kXrcRequest | kSend | kOnly | kPayload | kImmediate | kStartsMessage,
               kXrceth | kImmDt},
    OpcodeInfo{Opcode::xrc_rdma_write_first, "XRC_RDMA_WRITE_FIRST",
               kXrcRequest | kWrite | kFirst | kPayload | kStartsMessage, kXrceth | kReth},
    OpcodeInfo{Opcode::xrc_rdma_write_middle, "XRC_RDMA_WRITE_MIDDLE",
               kXrcRequest | kWrite | kMiddle | kPayload, kXrceth},
    OpcodeInfo{Opcode::xrc_rdma_write_last, "XRC_RDMA_WRITE_LAST",
               kXrcRequest | kWrite | kLast | kPayload, kXrceth},
    OpcodeInfo{Opcode::xrc_rdma_write_last_with_immediate, "XRC_RDMA_WRITE_LAST_WITH_IMMEDIATE",
               kXrcRequest | kWrite | kSend | kLast | kPayload | kImmediate, kXrceth | kImmDt},
    OpcodeInfo{Opcode::xrc_rdma_write_only, "XRC_RDMA_WRITE_ONLY",
               kXrcRequest | kWrite | kOnly | kPayload | kStartsMessage, kXrceth | kReth},
    OpcodeInfo{Opcode::xrc_rdma_write_only_with_immediate, "XRC_RDMA_WRITE_ONLY_WITH_IMMEDIATE",
               kXrcRequest | kWrite | kSend | kOnly | kPayload | kImmediate | kStartsMessage,
               kXrceth | kReth | kImmDt},
    OpcodeInfo{Opcode::xrc_rdma_read_request, "XRC_RDMA_READ_REQUEST",
               kXrcRequest | kRead | kOnly | kStartsMessage, kXrceth | kReth},
    OpcodeInfo{Opcode::xrc_rdma_read_response_first, "XRC_RDMA_READ_RESPONSE_FIRST",
               kXrcResponse | kRead | kFirst | kPayload | kAcknowledge, kAeth},
    OpcodeInfo{Opcode::xrc_rdma_read_response_middle, "XRC_RDMA_READ_RESPONSE_MIDDLE",
               kXrcResponse | kRead | kMiddle | kPayload, 0},
    OpcodeInfo{Opcode::xrc_rdma_read_response_last, "XRC_RDMA_READ_RESPONSE_LAST",
               kXrcResponse | kRead | kLast | kPayload | kAcknowledge, kAeth},
    OpcodeInfo{Opcode::xrc_rdma_read_response_only, "XRC_RDMA_READ_RESPONSE_ONLY",
               kXrcResponse | kRead | kOnly | kPayload | kAcknowledge, kAeth},
    OpcodeInfo{Opcode::xrc_acknowledge, "XRC_ACKNOWLEDGE", kXrcResponse | kOnly | kAcknowledge,
               kAeth},
    OpcodeInfo{Opcode::xrc_atomic_acknowledge, "XRC_ATOMIC_ACKNOWLEDGE",
               kXrcResponse | kOnly | kAtomic | kAcknowledge, kAeth | kAtomicAckEth},
    OpcodeInfo{Opcode::xrc_compare_swap, "XRC_COMPARE_SWAP",
               kXrcRequest | kAtomic | kOnly | kStartsMessage, kXrceth | kAtomicEth},
    OpcodeInfo{Opcode::xrc_fetch_add, "XRC_FETCH_ADD",
               kXrcRequest | kAtomic | kOnly | kStartsMessage, kXrceth | kAtomicEth},
    OpcodeInfo{Opcode::xrc_send_last_with_invalidate, "XRC_SEND_LAST_WITH_INVALIDATE",
               kXrcRequest | kSend | kLast | kPayload | kInvalidate, kXrceth | kIeth},
    OpcodeInfo{Opcode::xrc_send_only_with_invalidate, "XRC_SEND_ONLY_WITH_INVALIDATE",
               kXrcRequest | kSend | kOnly | kPayload | kInvalidate | kStartsMessage,
               kXrceth | kIeth},
};

constexpr std::array<size_t, kExtensionHeaderCount> kExtensionSizes = {
    Xrceth::kSize, Deth::kSize,         Feth::kSize,  Reth::kSize, AtomicEth::kSize,
    Aeth::kSize,   AtomicAckEth::kSize, ImmDt::kSize, Ieth::kSize};

constexpr std::array<std::string_view, kExtensionHeaderCount> kExtensionNames = {
    "XRCETH", "DETH", "FETH", "RETH", "AtomicETH", "AETH", "AtomicAckETH", "ImmDt", "IETH"};

} // namespace

size_t extension_header_size(ExtensionHeader header) {
  return kExtensionSizes[static_cast<size_t>(header)];
}

std::string_view extension_header_name(ExtensionHeader header) {
  return kExtensionNames[static_cast<size_t>(header)];
}

namespace {

// The BTH plus the extension headers in a mask, for every mask: builder and parser ask for
// an opcode's header bytes and header offsets several times per packet.
constexpr std::array<uint8_t, size_t{1} << kExtensionHeaderCount> kHeaderBytesByMask = [] {
  std::array<uint8_t, size_t{1} << kExtensionHeaderCount> bytes{};
  for (size_t mask = 0; mask < bytes.size(); ++mask) {
    size_t sum = Bth::kSize;
    for (size_t index = 0; index < kExtensionHeaderCount; ++index)
      if (mask & (size_t{1} << index))
        sum += kExtensionSizes[index];
    bytes[mask] = static_cast<uint8_t>(sum);
  }
  return bytes;
}();

} // namespace

// The headers before `header` are those of the mask's lower bits.
size_t OpcodeInfo::offset_of(ExtensionHeader header) const {
  const unsigned below = (1u << static_cast<unsigned>(header)) - 1;
  return kHeaderBytesByMask[extension_mask & below];
}

size_t OpcodeInfo::header_bytes() const {
  return kHeaderBytesByMask[extension_mask & (kHeaderBytesByMask.size() - 1)];
}

namespace {

// Every opcode byte's entry in kOpcodes, or -1: every packet built or parsed looks its
// opcode up, so this is an index, not a search.
constexpr std::array<int16_t, 256> kOpcodeIndex = [] {
  std::array<int16_t, 256> index{};
  index.fill(-1);
  for (size_t i = 0; i < kOpcodes.size(); ++i)
    index[static_cast<uint8_t>(kOpcodes[i].opcode)] = static_cast<int16_t>(i);
  return index;
}();

} // namespace

std::optional<OpcodeInfo> lookup_opcode(uint8_t opcode) {
  const int16_t at = kOpcodeIndex[opcode];
  if (at < 0)
    return std::nullopt;
  return kOpcodes[static_cast<size_t>(at)];
}

std::span<const OpcodeInfo> all_opcodes() {
  return kOpcodes;
}

} // namespace ornic::iba
