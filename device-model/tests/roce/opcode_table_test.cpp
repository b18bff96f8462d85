// The opcode table against IBA vol 1 table 35 (and rxe_opcode.c) and the XRC annex (A14):
// which headers each opcode carries, their offsets after the BTH, and the kind flags the
// transport relies on.
#include <set>

#include <gtest/gtest.h>

#include "iba/opcode_table.hpp"

namespace ornic::roce {

using namespace iba;
namespace {

using enum ExtensionHeader;

TEST(RoceOpcodeTable, CoversTheOpcodesOfTheSpec) {
  std::set<uint8_t> codes;
  for (const OpcodeInfo& info : all_opcodes())
    codes.insert(static_cast<uint8_t>(info.opcode));
  const std::set<uint8_t> expected = {
      0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c,
      0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x1c, 0x1d, 0x20,
      0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x2b, 0x64, 0x65,
      0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac,
      0xad, 0xae, 0xaf, 0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb6, 0xb7};
  EXPECT_EQ(codes, expected);
}

TEST(RoceOpcodeTable, UnknownOpcodesAreRefused) {
  // 0x2c..0x3f: UC has no READ, atomics or invalidate; 0x40: RD; 0xb5, 0xb8..: not in XRC.
  for (const uint8_t code :
       {0x15, 0x18, 0x2c, 0x2d, 0x36, 0x37, 0x40, 0x63, 0x66, 0x81, 0x9f, 0xb5, 0xb8, 0xbf, 0xff})
    EXPECT_FALSE(lookup_opcode(code).has_value()) << int(code);
}

TEST(RoceOpcodeTable, HeaderSizesOfEveryOpcode) {
  // BTH 12, XRCETH 4, DETH 8, FETH 4, RETH 16, AtomicETH 28, AETH 4, AtomicAckETH 8, ImmDt 4,
  // IETH 4.
  const std::pair<Opcode, size_t> expected[] = {
      {Opcode::rc_send_first, 12},
      {Opcode::rc_send_middle, 12},
      {Opcode::rc_send_last, 12},
      {Opcode::rc_send_last_with_immediate, 16},
      {Opcode::rc_send_only, 12},
      {Opcode::rc_send_only_with_immediate, 16},
      {Opcode::rc_rdma_write_first, 28},
      {Opcode::rc_rdma_write_middle, 12},
      {Opcode::rc_rdma_write_last, 12},
      {Opcode::rc_rdma_write_last_with_immediate, 16},
      {Opcode::rc_rdma_write_only, 28},
      {Opcode::rc_rdma_write_only_with_immediate, 32},
      {Opcode::rc_rdma_read_request, 28},
      {Opcode::rc_rdma_read_response_first, 16},
      {Opcode::rc_rdma_read_response_middle, 12},
      {Opcode::rc_rdma_read_response_last, 16},
      {Opcode::rc_rdma_read_response_only, 16},
      {Opcode::rc_acknowledge, 16},
      {Opcode::rc_atomic_acknowledge, 24},
      {Opcode::rc_compare_swap, 40},
      {Opcode::rc_fetch_add, 40},
      {Opcode::rc_send_last_with_invalidate, 16},
      {Opcode::rc_send_only_with_invalidate, 16},
      {Opcode::rc_flush, 32},
      {Opcode::rc_atomic_write, 28},
      {Opcode::uc_send_first, 12},
      {Opcode::uc_send_middle, 12},
      {Opcode::uc_send_last, 12},
      {Opcode::uc_send_last_with_immediate, 16},
      {Opcode::uc_send_only, 12},
      {Opcode::uc_send_only_with_immediate, 16},
      {Opcode::uc_rdma_write_first, 28},
      {Opcode::uc_rdma_write_middle, 12},
      {Opcode::uc_rdma_write_last, 12},
      {Opcode::uc_rdma_write_last_with_immediate, 16},
      {Opcode::uc_rdma_write_only, 28},
      {Opcode::uc_rdma_write_only_with_immediate, 32},
      {Opcode::ud_send_only, 20},
      {Opcode::ud_send_only_with_immediate, 24},
      // XRC requests carry an XRCETH, responses are RC's.
      {Opcode::xrc_send_first, 16},
      {Opcode::xrc_send_middle, 16},
      {Opcode::xrc_send_last, 16},
      {Opcode::xrc_send_last_with_immediate, 20},
      {Opcode::xrc_send_only, 16},
      {Opcode::xrc_send_only_with_immediate, 20},
      {Opcode::xrc_rdma_write_first, 32},
      {Opcode::xrc_rdma_write_middle, 16},
      {Opcode::xrc_rdma_write_last, 16},
      {Opcode::xrc_rdma_write_last_with_immediate, 20},
      {Opcode::xrc_rdma_write_only, 32},
      {Opcode::xrc_rdma_write_only_with_immediate, 36},
      {Opcode::xrc_rdma_read_request, 32},
      {Opcode::xrc_rdma_read_response_first, 16},
      {Opcode::xrc_rdma_read_response_middle, 12},
      {Opcode::xrc_rdma_read_response_last, 16},
      {Opcode::xrc_rdma_read_response_only, 16},
      {Opcode::xrc_acknowledge, 16},
      {Opcode::xrc_atomic_acknowledge, 24},
      {Opcode::xrc_compare_swap, 44},
      {Opcode::xrc_fetch_add, 44},
      {Opcode::xrc_send_last_with_invalidate, 20},
      {Opcode::xrc_send_only_with_invalidate, 20},
  };
  for (const auto& [opcode, bytes] : expected)
    EXPECT_EQ(lookup_opcode(opcode)->header_bytes(), bytes) << lookup_opcode(opcode)->name;
}

TEST(RoceOpcodeTable, ExtensionHeadersFollowWireOrder) {
  const OpcodeInfo write_imm = *lookup_opcode(Opcode::rc_rdma_write_only_with_immediate);
  EXPECT_EQ(write_imm.offset_of(reth), 12u);
  EXPECT_EQ(write_imm.offset_of(immdt), 28u);
  const OpcodeInfo atomic_ack = *lookup_opcode(Opcode::rc_atomic_acknowledge);
  EXPECT_EQ(atomic_ack.offset_of(aeth), 12u);
  EXPECT_EQ(atomic_ack.offset_of(atomic_ack_eth), 16u);
  const OpcodeInfo ud_imm = *lookup_opcode(Opcode::ud_send_only_with_immediate);
  EXPECT_EQ(ud_imm.offset_of(deth), 12u);
  EXPECT_EQ(ud_imm.offset_of(immdt), 20u);
  EXPECT_EQ(lookup_opcode(Opcode::rc_fetch_add)->offset_of(atomic_eth), 12u);
  EXPECT_EQ(lookup_opcode(Opcode::rc_send_only_with_invalidate)->offset_of(ieth), 12u);
  // IBTA 1.5 (and rxe_opcode.c): a FLUSH's FETH comes before its RETH.
  const OpcodeInfo flush = *lookup_opcode(Opcode::rc_flush);
  EXPECT_EQ(flush.offset_of(feth), 12u);
  EXPECT_EQ(flush.offset_of(reth), 16u);
  EXPECT_EQ(lookup_opcode(Opcode::rc_atomic_write)->offset_of(reth), 12u);
  // XRCETH comes first, right after the BTH.
  const OpcodeInfo xrc_write_imm = *lookup_opcode(Opcode::xrc_rdma_write_only_with_immediate);
  EXPECT_EQ(xrc_write_imm.offset_of(xrceth), 12u);
  EXPECT_EQ(xrc_write_imm.offset_of(reth), 16u);
  EXPECT_EQ(xrc_write_imm.offset_of(immdt), 32u);
  EXPECT_EQ(lookup_opcode(Opcode::xrc_fetch_add)->offset_of(atomic_eth), 16u);
  EXPECT_EQ(lookup_opcode(Opcode::xrc_send_only_with_invalidate)->offset_of(ieth), 16u);
}

TEST(RoceOpcodeTable, XrcOpcodesAreRcOpcodesWithTheXrcTransport) {
  for (const OpcodeInfo& info : all_opcodes()) {
    const auto code = static_cast<uint8_t>(info.opcode);
    SCOPED_TRACE(info.name);
    if (!info.has(kXrc)) {
      EXPECT_EQ(rc_equivalent(code), code);
      continue;
    }
    const auto rc = lookup_opcode(rc_equivalent(code));
    ASSERT_TRUE(rc.has_value());
    EXPECT_EQ(to_xrc(rc->opcode), code);
    EXPECT_EQ(info.flags, rc->flags | kXrc);
    // The same headers, plus the XRCETH on requests.
    EXPECT_EQ(info.extension_mask & ~(1u << static_cast<unsigned>(xrceth)), rc->extension_mask);
    EXPECT_EQ(info.carries(xrceth), info.has(kRequest));
    EXPECT_EQ(info.name.substr(0, 4), "XRC_");
    EXPECT_EQ(info.name.substr(4), rc->name.substr(3));
  }
}

TEST(RoceOpcodeTable, FlagsAreConsistent) {
  for (const OpcodeInfo& info : all_opcodes()) {
    SCOPED_TRACE(info.name);
    EXPECT_NE(info.has(kRequest), info.has(kResponse));
    // Exactly one transport: RC, UC or UD.
    EXPECT_EQ(info.has(kReliable) + info.has(kUnreliable) + info.has(kDatagram), 1);
    // UC carries only requests, and no READ, atomic or invalidate.
    if (info.has(kUnreliable)) {
      EXPECT_TRUE(info.has(kRequest));
      EXPECT_FALSE(info.has(kRead) || info.has(kAtomic) || info.has(kInvalidate));
    }
    EXPECT_EQ(info.has(kImmediate), info.carries(immdt));
    EXPECT_EQ(info.has(kInvalidate), info.carries(ieth));
    EXPECT_EQ(info.has(kDatagram), info.carries(deth));
    EXPECT_EQ(info.has(kStartsMessage), info.has(kRequest) && info.has(kFirst));
    // Exactly one position in the message.
    const int positions = info.has(kOnly) + (info.has(kFirst) && !info.has(kLast)) +
                          info.has(kMiddle) + (info.has(kLast) && !info.has(kFirst));
    EXPECT_EQ(positions, 1);
    // Middle packets carry nothing but payload (and an XRC request its XRCETH).
    if (info.has(kMiddle)) {
      EXPECT_EQ(info.header_bytes(), info.carries(xrceth) ? 16u : 12u);
    }
    EXPECT_EQ(info.carries(xrceth), info.has(kXrc | kRequest));
    if (info.has(kXrc)) {
      EXPECT_TRUE(info.has(kReliable));
    }
    // Requests that start a WRITE or READ name the remote buffer.
    if (info.has(kRequest) && info.has(kFirst) && (info.has(kWrite) || info.has(kRead))) {
      EXPECT_TRUE(info.carries(reth));
    }
    EXPECT_FALSE(extension_header_name(static_cast<ExtensionHeader>(0)).empty());
  }
}

TEST(RoceOpcodeTable, KindsOfSelectedOpcodes) {
  EXPECT_TRUE(lookup_opcode(Opcode::rc_rdma_read_request)->has(kRequest | kRead | kOnly));
  EXPECT_FALSE(lookup_opcode(Opcode::rc_rdma_read_request)->has(kPayload));
  EXPECT_TRUE(lookup_opcode(Opcode::rc_rdma_read_response_middle)->has(kResponse | kPayload));
  EXPECT_FALSE(lookup_opcode(Opcode::rc_rdma_read_response_middle)->carries(aeth));
  EXPECT_TRUE(lookup_opcode(Opcode::rc_acknowledge)->has(kAcknowledge));
  EXPECT_FALSE(lookup_opcode(Opcode::rc_acknowledge)->has(kPayload));
  EXPECT_TRUE(lookup_opcode(Opcode::rc_compare_swap)->has(kAtomic | kRequest));
  EXPECT_TRUE(lookup_opcode(Opcode::rc_rdma_write_last_with_immediate)->has(kWrite | kSend));
  EXPECT_EQ(lookup_opcode(Opcode::ud_send_only)->name, "UD_SEND_ONLY");
  // FLUSH moves no data; ATOMIC WRITE carries its 8 bytes. Neither is a WRITE or an atomic
  // to the responder: each has its own rules.
  const OpcodeInfo flush = *lookup_opcode(Opcode::rc_flush);
  EXPECT_TRUE(flush.has(kRequest | kFlush | kOnly | kStartsMessage));
  EXPECT_FALSE(flush.has(kPayload));
  EXPECT_FALSE(flush.has(kWrite) || flush.has(kRead) || flush.has(kAtomic));
  const OpcodeInfo atomic_write = *lookup_opcode(Opcode::rc_atomic_write);
  EXPECT_TRUE(atomic_write.has(kRequest | kAtomicWrite | kPayload | kOnly));
  EXPECT_FALSE(atomic_write.has(kWrite) || atomic_write.has(kAtomic) || atomic_write.has(kSend));
}

// Every UC opcode is RC's with the transport bits 001 and the same headers and kind.
TEST(RoceOpcodeTable, UcOpcodesMirrorRcSendAndWrite) {
  for (uint8_t rc = 0x00; rc <= 0x0b; ++rc) {
    const auto rc_info = lookup_opcode(rc);
    const auto uc_info = lookup_opcode(uc_opcode(static_cast<Opcode>(rc)));
    ASSERT_TRUE(rc_info && uc_info) << int(rc);
    EXPECT_EQ(static_cast<uint8_t>(uc_info->opcode), rc + 0x20);
    EXPECT_EQ(uc_info->extension_mask, rc_info->extension_mask) << uc_info->name;
    EXPECT_EQ(uc_info->flags, (rc_info->flags & ~uint32_t{kReliable}) | kUnreliable)
        << uc_info->name;
    EXPECT_EQ(uc_info->name.substr(2), rc_info->name.substr(2));
  }
}

} // namespace
} // namespace ornic::roce
