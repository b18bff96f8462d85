// The frames the packet engine puts on the wire, byte for byte, for one of each kind it
// sends: RC SEND, WRITE, READ request and responses, ACK, atomic and atomic ACK (IPv4 and
// IPv6), UD datagrams with the GRH they deliver (IPv4 and IPv6), and a CNP. Addressing,
// the UDP source port, ECN, PSNs, pad, checksums and ICRC all come from the engine and the
// framing it sends through, so any change to either that shows on the wire fails here.
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "iba/opcode_table.hpp"
#include "iba/wire_bytes.hpp"
#include "rdma_pair.hpp"
#include "roce/parser.hpp"

namespace ornic::test {
namespace {

constexpr int kA = 0;

std::string to_hex(const std::byte* bytes, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (size_t i = 0; i < size; ++i) {
    const auto byte = static_cast<uint8_t>(bytes[i]);
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 0xf];
  }
  return hex;
}

// An rkey carries a variant the device draws at random for every registration
// (memory.rst), and the ICRC and the IPv6 UDP checksum cover it: in a frame with a RETH or
// AtomicETH the three are shown as "rkey", "icrc" and "udpc" once the frame is known to
// parse (so its ICRC and checksum are right) and to carry the rkey of B's buffer. Every
// other byte is compared as it is.
std::string with_rkey_masked(const LossyWire::Frame& frame, uint32_t rkey) {
  std::string hex = to_hex(frame.data(), frame.size());
  roce::ParsedPacket parsed;
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(frame.data()),
                                       frame.size());
  if (roce::parse_frame(bytes, parsed) != roce::ParseError::ok)
    return hex; // a CNP: no rkey
  const iba::OpcodeInfo& info = parsed.opcode_info;
  const size_t bth = frame.size() - parsed.payload.size() - parsed.description.bth.pad_count -
                     roce::kIcrcSize - info.header_bytes();
  for (const iba::ExtensionHeader header :
       {iba::ExtensionHeader::reth, iba::ExtensionHeader::atomic_eth}) {
    if (!info.carries(header))
      continue;
    const size_t at = bth + info.offset_of(header) + 8; // after the virtual address
    EXPECT_EQ(iba::load_be32(bytes, at), rkey) << hex;
    hex.replace(at * 2, 8, "rkey____");
    hex.replace(hex.size() - 8, 8, "icrc____");
    if (parsed.description.family() == roce::IpFamily::ipv6)
      hex.replace((bth - 2) * 2, 4, "udpc");
  }
  return hex;
}

// Every frame either side sends, in order, as "a:" or "b:" and its bytes in hex.
struct Capture {
  explicit Capture(RdmaPair& pair, bool mark_a = false) {
    pair.wire.policy = [this, &pair, mark_a](int side, uint64_t, const LossyWire::Frame& frame) {
      frames.push_back((side == kA ? "a:" : "b:") + with_rkey_masked(frame, pair.b.key));
      return side == kA && mark_a ? WireAction::mark_ce : WireAction::deliver;
    };
  }
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
  std::vector<std::string> frames;
};

// On a mismatch, prints what was sent in the form the expectations are written in.
void expect_frames(const std::vector<std::string>& sent, const std::vector<std::string>& golden) {
  EXPECT_EQ(sent, golden);
  if (sent == golden)
    return;
  std::string text = "sent:\n";
  for (const std::string& frame : sent)
    text += "      \"" + frame + "\",\n";
  std::fputs(text.c_str(), stderr);
}

void fill(Node& node, uint64_t offset, size_t length, uint8_t seed) {
  for (size_t i = 0; i < length; ++i)
    *node.at(offset + i) = std::byte(static_cast<uint8_t>(seed + i * 7));
}

ornic_send_wqe rdma_wqe(uint8_t opcode, uint64_t wr_id, uint64_t remote, uint32_t rkey) {
  auto w = send_wqe(opcode, wr_id);
  w.rdma.remote_addr = to_le(remote);
  w.rdma.rkey = to_le(rkey);
  return w;
}

// SEND (one packet), WRITE (first and last of two at MTU 256, the last padded), READ (the
// request and two responses) and a compare-and-swap, each answered before the next.
std::vector<std::string> rc_exchange(bool ipv6) {
  RdmaPair pair(ipv6);
  Capture capture(pair);
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_256);
  fill(pair.a, 0, 512, 3);
  fill(pair.b, 4096, 512, 11);

  qb.post_recv(1, {sge(pair.b.buffer + 8192, 64, pair.b.key)});
  qa.post_send(send_wqe(ORNIC_WQE_OP_SEND, 1), {sge(pair.a.buffer, 21, pair.a.key)});
  EXPECT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
  EXPECT_EQ(pair.wait_cqes(pair.b, 1).size(), 1u);

  qa.post_send(rdma_wqe(ORNIC_WQE_OP_RDMA_WRITE, 2, pair.b.buffer + 16384, pair.b.key),
               {sge(pair.a.buffer, 300, pair.a.key)});
  EXPECT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);

  qa.post_send(rdma_wqe(ORNIC_WQE_OP_RDMA_READ, 3, pair.b.buffer + 4096, pair.b.key),
               {sge(pair.a.buffer + 8192, 270, pair.a.key)});
  EXPECT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);

  auto cas = send_wqe(ORNIC_WQE_OP_ATOMIC_CMP_SWP, 4);
  cas.atomic.remote_addr = to_le(pair.b.buffer + 512);
  cas.atomic.rkey = to_le(pair.b.key);
  cas.atomic.compare_add = to_le<uint64_t>(0);
  cas.atomic.swap = to_le<uint64_t>(0x0123456789abcdef);
  qa.post_send(cas, {sge(pair.a.buffer + 1024, 8, pair.a.key)});
  EXPECT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
  return capture.frames;
}

TEST(WireGolden, RcIpv4) {
  expect_frames(
      rc_exchange(false),
      {
          "a:02000000000b02000000000a08004502004400004000401126a50a0000010a000002c86e12b70030000004"
          "30ffff0000000280000102030a11181f262d343b424950575e656c737a81888f00000034ecb703",
          "b:02000000000a02000000000b08004502003000004000401126b90a0000020a000001c86e12b7001c000011"
          "00ffff00000002000001021f00000193373bbc",
          "a:02000000000b02000000000a08004502013c00004000401125ad0a0000010a000002c86e12b70128000006"
          "00ffff0000000200000103000000001000a000rkey____0000012c030a11181f262d343b424950575e656c73"
          "7a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b222930373e454c535a61686f767d848b9299a0a7"
          "aeb5bcc3cad1d8dfe6edf4fb020910171e252c333a41484f565d646b727980878e959ca3aab1b8bfc6cdd4db"
          "e2e9f0f7fe050c131a21282f363d444b525960676e757c838a91989fa6adb4bbc2c9d0d7dee5ecf3fa01080f"
          "161d242b323940474e555c636a71787f868d949ba2a9b0b7bec5ccd3dae1e8eff6fd040b121920272e353c43"
          "4a51585f666d747b828990979ea5acb3bac1c8cfd6dde4ebf2f900070e151c232a31383f464d545b62697077"
          "7e858c939aa1a8afb6bdc4cbd2d9e0e7eef5fcicrc____",
          "a:02000000000b02000000000a08004502005800004000401126910a0000010a000002c86e12b70044000008"
          "00ffff0000000280000104030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dce3"
          "eaf1f8ff060d141b222930d1c30dc8",
          "b:02000000000a02000000000b08004502003000004000401126b90a0000020a000001c86e12b7001c000011"
          "00ffff00000002000001041f000002899372aa",
          "a:02000000000b02000000000a08004502003c00004000401126ad0a0000010a000002c86e12b7002800000c"
          "00ffff00000002800001050000000010007000rkey____0000010eicrc____",
          "b:02000000000a02000000000b08004502013000004000401125b90a0000020a000001c86e12b7011c00000d"
          "00ffff00000002000001051f0000030b121920272e353c434a51585f666d747b828990979ea5acb3bac1c8cf"
          "d6dde4ebf2f900070e151c232a31383f464d545b626970777e858c939aa1a8afb6bdc4cbd2d9e0e7eef5fc03"
          "0a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b22293037"
          "3e454c535a61686f767d848b9299a0a7aeb5bcc3cad1d8dfe6edf4fb020910171e252c333a41484f565d646b"
          "727980878e959ca3aab1b8bfc6cdd4dbe2e9f0f7fe050c131a21282f363d444b525960676e757c838a91989f"
          "a6adb4bbc2c9d0d7dee5ecf3fa01080f161d242b323940474e555c636a71787f868d949ba2a9b0b7bec5ccd3"
          "dae1e8eff6fd04762fc2f6",
          "b:02000000000a02000000000b08004502004000004000401126a90a0000020a000001c86e12b7002c00000f"
          "20ffff00000002000001061f0000030b121920272e353c434a51585f660000391abd5d",
          "a:02000000000b02000000000a08004502004800004000401126a10a0000010a000002c86e12b70034000013"
          "00ffff00000002800001070000000010006200rkey____0123456789abcdef0000000000000000icrc____",
          "b:02000000000a02000000000b08004502003800004000401126b10a0000020a000001c86e12b70024000012"
          "00ffff00000002000001071f0000040000000000000000c3fc3d9c",
      });
}

TEST(WireGolden, RcIpv6) {
  expect_frames(
      rc_exchange(true),
      {
          "a:02000000000b02000000000a86dd6020000000301140fd000000000000000000000000000001fd00000000"
          "0000000000000000000002c86e12b700303f9e0430ffff0000000280000102030a11181f262d343b42495057"
          "5e656c737a81888f000000bdd681dd",
          "b:02000000000a02000000000b86dd60200000001c1140fd000000000000000000000000000002fd00000000"
          "0000000000000000000001c86e12b7001c7dfb1100ffff00000002000001021f0000016a2e115d",
          "a:02000000000b02000000000a86dd6020000001281140fd000000000000000000000000000001fd00000000"
          "0000000000000000000002c86e12b70128udpc0600ffff0000000200000103000000001000a000rkey____00"
          "00012c030a11181f262d343b424950575e656c737a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b"
          "222930373e454c535a61686f767d848b9299a0a7aeb5bcc3cad1d8dfe6edf4fb020910171e252c333a41484f"
          "565d646b727980878e959ca3aab1b8bfc6cdd4dbe2e9f0f7fe050c131a21282f363d444b525960676e757c83"
          "8a91989fa6adb4bbc2c9d0d7dee5ecf3fa01080f161d242b323940474e555c636a71787f868d949ba2a9b0b7"
          "bec5ccd3dae1e8eff6fd040b121920272e353c434a51585f666d747b828990979ea5acb3bac1c8cfd6dde4eb"
          "f2f900070e151c232a31383f464d545b626970777e858c939aa1a8afb6bdc4cbd2d9e0e7eef5fcicrc____",
          "a:02000000000b02000000000a86dd6020000000441140fd000000000000000000000000000001fd00000000"
          "0000000000000000000002c86e12b70044c6450800ffff0000000280000104030a11181f262d343b42495057"
          "5e656c737a81888f969da4abb2b9c0c7ced5dce3eaf1f8ff060d141b2229300f4fde18",
          "b:02000000000a02000000000b86dd60200000001c1140fd000000000000000000000000000002fd00000000"
          "0000000000000000000001c86e12b7001c30ae1100ffff00000002000001041f000002708a584b",
          "a:02000000000b02000000000a86dd6020000000281140fd000000000000000000000000000001fd00000000"
          "0000000000000000000002c86e12b70028udpc0c00ffff00000002800001050000000010007000rkey____00"
          "00010eicrc____",
          "b:02000000000a02000000000b86dd60200000011c1140fd000000000000000000000000000002fd00000000"
          "0000000000000000000001c86e12b7011c0a0e0d00ffff00000002000001051f0000030b121920272e353c43"
          "4a51585f666d747b828990979ea5acb3bac1c8cfd6dde4ebf2f900070e151c232a31383f464d545b62697077"
          "7e858c939aa1a8afb6bdc4cbd2d9e0e7eef5fc030a11181f262d343b424950575e656c737a81888f969da4ab"
          "b2b9c0c7ced5dce3eaf1f8ff060d141b222930373e454c535a61686f767d848b9299a0a7aeb5bcc3cad1d8df"
          "e6edf4fb020910171e252c333a41484f565d646b727980878e959ca3aab1b8bfc6cdd4dbe2e9f0f7fe050c13"
          "1a21282f363d444b525960676e757c838a91989fa6adb4bbc2c9d0d7dee5ecf3fa01080f161d242b32394047"
          "4e555c636a71787f868d949ba2a9b0b7bec5ccd3dae1e8eff6fd043f727241",
          "b:02000000000a02000000000b86dd60200000002c1140fd000000000000000000000000000002fd00000000"
          "0000000000000000000001c86e12b7002c42840f20ffff00000002000001061f0000030b121920272e353c43"
          "4a51585f66000009703aa7",
          "a:02000000000b02000000000a86dd6020000000341140fd000000000000000000000000000001fd00000000"
          "0000000000000000000002c86e12b70034udpc1300ffff00000002800001070000000010006200rkey____01"
          "23456789abcdef0000000000000000icrc____",
          "b:02000000000a02000000000b86dd6020000000241140fd000000000000000000000000000002fd00000000"
          "0000000000000000000001c86e12b70024242a1200ffff00000002000001071f0000040000000000000000ce"
          "07063d",
      });
}

// A UD SEND with immediate through an AH, and the 40 bytes of GRH the receiver gets in
// front of the data.
void ud_exchange(bool ipv6, std::vector<std::string>& frames, std::string& grh, uint8_t& flags) {
  RdmaPair pair(ipv6);
  Capture capture(pair);
  Qp ua = pair.create_qp(pair.a, ORNIC_QPT_UD);
  Qp ub = pair.create_qp(pair.b, ORNIC_QPT_UD);
  pair.bring_up_ud(ua, 0x11);
  pair.bring_up_ud(ub, 0x22);
  fill(pair.a, 0, 64, 5);
  std::memset(pair.b.at(0), 0xee, 256); // what the GRH does not cover must come back zero
  ub.post_recv(7, {sge(pair.b.buffer, 40 + 64, pair.b.key)});
  auto w = send_wqe(ORNIC_WQE_OP_SEND_IMM, 1);
  w.ud.ah = to_le(pair.create_ah(pair.a, pair.b));
  w.ud.remote_qpn = to_le(ub.qpn);
  w.ud.qkey = to_le(0x22u);
  w.imm_data = 0x0d0c0b0a;
  ua.post_send(w, {sge(pair.a.buffer, 33, pair.a.key)});
  EXPECT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
  const auto got = pair.wait_cqes(pair.b, 1);
  EXPECT_EQ(got.size(), 1u);
  frames = capture.frames;
  grh = to_hex(pair.b.at(0), 40);
  flags = got.empty() ? 0 : got[0].flags;
}

TEST(WireGolden, UdIpv4WithGrh) {
  std::vector<std::string> frames;
  std::string grh;
  uint8_t flags = 0;
  ud_exchange(false, frames, grh, flags);
  expect_frames(
      frames,
      {
          "a:02000000000b02000000000a08004502005c000040004011268d0a0000010a000002c86e12b70048000065"
          "30ffff000000020000000000000022000000020a0b0c0d050c131a21282f363d444b525960676e757c838a91"
          "989fa6adb4bbc2c9d0d7dee50000005068c314",
      });
  EXPECT_EQ(grh,
            "00000000000000000000000000000000000000004502005c000040004011268d0a0000010a000002");
  EXPECT_EQ(flags, ORNIC_CQE_FLAG_GRH | ORNIC_CQE_FLAG_IPV4 | ORNIC_CQE_FLAG_IMM);
}

TEST(WireGolden, UdIpv6WithGrh) {
  std::vector<std::string> frames;
  std::string grh;
  uint8_t flags = 0;
  ud_exchange(true, frames, grh, flags);
  expect_frames(
      frames,
      {
          "a:02000000000b02000000000a86dd6020000000481140fd000000000000000000000000000001fd00000000"
          "0000000000000000000002c86e12b7004864856530ffff000000020000000000000022000000020a0b0c0d05"
          "0c131a21282f363d444b525960676e757c838a91989fa6adb4bbc2c9d0d7dee5000000668b175d",
      });
  EXPECT_EQ(grh,
            "6020000000481140fd000000000000000000000000000001fd000000000000000000000000000002");
  EXPECT_EQ(flags, ORNIC_CQE_FLAG_GRH | ORNIC_CQE_FLAG_IMM);
}

// A WRITE whose packets a switch marks CE: B acknowledges and sends one CNP back.
TEST(WireGolden, CnpForCeMarkedWrite) {
  RdmaPair pair;
  Capture capture(pair, /*mark_a=*/true);
  auto [qa, qb] = pair.rc_pair(ORNIC_MTU_256);
  fill(pair.a, 0, 40, 1);
  qa.post_send(rdma_wqe(ORNIC_WQE_OP_RDMA_WRITE, 1, pair.b.buffer, pair.b.key),
               {sge(pair.a.buffer, 40, pair.a.key)});
  EXPECT_EQ(pair.wait_cqes(pair.a, 1).size(), 1u);
  EXPECT_EQ(pair.b.counter(ORNIC_CNT_CC_CNPS_SENT), 1u);
  expect_frames(
      capture.frames,
      {
          "a:02000000000b02000000000a08004502006400004000401126850a0000010a000002c86e12b7005000000a"
          "00ffff00000002800001020000000010006000rkey____0000002801080f161d242b323940474e555c636a71"
          "787f868d949ba2a9b0b7bec5ccd3dae1e8eff6fd040b12icrc____",
          "b:02000000000a02000000000b080045c0003c00004000401125ef0a0000020a000001c86e12b70028000081"
          "00ffff000000020000000000000000000000000000000000000000f7004ba2",
          "b:02000000000a02000000000b08004502003000004000401126b90a0000020a000001c86e12b7001c000011"
          "00ffff00000002000001021f00000193373bbc",
      });
}

} // namespace
} // namespace ornic::test
