// Feeds arbitrary bytes to the RoCEv2 frame parser. Whatever parses must also survive a
// round trip: building the parsed description and payload again gives a frame that parses
// to the same description and payload (the builder and parser agree on every field).
//
// Then the same bytes go to a whole NIC (EngineRig) with an RC and a UD QP, addressed to
// it, so they reach the packet engine's responder and completer; sanitizers catch what
// they do wrong. The first byte (destination MAC, overwritten) steers that: bits 0-1 pick
// the QP (RC, UD, as given, RC), bit 2 forces the PSN to bits 5-7, bit 3 delivers the
// frame twice, bit 4 lets time pass (timeouts, RNR waits).
//
// Random mutations almost never keep the IPv4 header checksum and the ICRC right, which
// would hide everything the parser checks after them. So each input is parsed twice: as
// given, and with those two repaired (and the UDP checksum cleared) wherever the lengths
// in the input make that possible -- behind an 802.1Q tag too, and for RoCE v1 (a GRH in
// place of IP and UDP).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "engine_rig.hpp"
#include "iba/grh.hpp"
#include "iba/wire_bytes.hpp"
#include "roce/builder.hpp"
#include "roce/parser.hpp"

using namespace ornic::roce;
using namespace ornic::iba;

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "roce fuzzer: %s\n", what);
  std::abort();
}

// Best effort: leaves the frame alone wherever its own lengths do not fit.
void repair_checksums(std::vector<uint8_t>& frame) {
  size_t ip_offset = EthernetHeader::kSize;
  if (frame.size() < ip_offset)
    return;
  const std::span<uint8_t> bytes(frame);
  uint16_t ether_type = load_be16(bytes, 12);
  if (ether_type == kEtherTypeVlan && frame.size() >= ip_offset + kVlanTagBytes) {
    ether_type = load_be16(bytes, ip_offset + 2);
    ip_offset += kVlanTagBytes;
  }
  size_t ip_header_bytes = 0;
  size_t ip_packet_bytes = 0;
  IpFamily family{};
  const bool v1 = ether_type == kEtherTypeRoceV1;
  if (v1 && frame.size() >= ip_offset + Grh::kSize) {
    ip_header_bytes = Grh::kSize;
    ip_packet_bytes = Grh::kSize + load_be16(bytes, ip_offset + 4);
  } else if (ether_type == kEtherTypeIpv4 && frame.size() >= ip_offset + Ipv4Header::kSize) {
    family = IpFamily::ipv4;
    ip_header_bytes = Ipv4Header::kSize;
    ip_packet_bytes = load_be16(bytes, ip_offset + 2);
    Ipv4Header::fill_checksum(bytes.subspan(ip_offset).first<Ipv4Header::kSize>());
  } else if (ether_type == kEtherTypeIpv6 && frame.size() >= ip_offset + Ipv6Header::kSize) {
    family = IpFamily::ipv6;
    ip_header_bytes = Ipv6Header::kSize;
    ip_packet_bytes = Ipv6Header::kSize + load_be16(bytes, ip_offset + 4);
  } else {
    return;
  }
  const size_t least = ip_header_bytes + (v1 ? 0 : UdpHeader::kSize) + Bth::kSize + kIcrcSize;
  if (ip_packet_bytes < least || ip_packet_bytes > frame.size() - ip_offset)
    return;
  const std::span<uint8_t> ip_packet = bytes.subspan(ip_offset, ip_packet_bytes);
  if (!v1)
    store_be16(ip_packet, ip_header_bytes + 6, 0);
  const size_t icrc_offset = ip_packet_bytes - kIcrcSize;
  store_icrc(ip_packet.subspan(icrc_offset).first<kIcrcSize>(),
             v1 ? compute_icrc_v1(ip_packet.first(icrc_offset))
                : compute_icrc(family, ip_packet.first(icrc_offset)));
}

void check_round_trip(std::span<const uint8_t> frame) {
  ParsedPacket parsed;
  if (parse_frame(frame, parsed) != ParseError::ok)
    return;

  std::vector<uint8_t> rebuilt;
  const BuildError build_error = build_frame(parsed.description, parsed.payload, rebuilt);
  if (build_error != BuildError::ok)
    fail("a parsed packet does not build again");

  ParsedPacket reparsed;
  if (parse_frame(rebuilt, reparsed) != ParseError::ok)
    fail("a rebuilt frame does not parse");
  // A priority-only tag (802.1p, VLAN ID 0) is read for its priority, but the device tags
  // only frames on a VLAN (roce.rst, "VLANs"): the rebuilt frame is untagged.
  PacketDescription expected = parsed.description;
  if (!expected.vlan_id)
    expected.priority = 0;
  if (!(reparsed.description == expected))
    fail("round trip changed the description");
  if (!std::equal(reparsed.payload.begin(), reparsed.payload.end(), parsed.payload.begin(),
                  parsed.payload.end()))
    fail("round trip changed the payload");
}

// Points the frame at the rig: its MAC, its IPv4 or IPv6 GID, one of its QPs.
void address_to_rig(std::vector<uint8_t>& frame, uint8_t control,
                    const ornic::fuzz::EngineRig& rig) {
  using ornic::fuzz::EngineRig;
  if (frame.size() < EthernetHeader::kSize)
    return;
  std::copy(EngineRig::kMac.begin(), EngineRig::kMac.end(), frame.begin());
  const std::span<uint8_t> bytes(frame);
  uint16_t ether_type = load_be16(bytes, 12);
  size_t ip = EthernetHeader::kSize;
  if (ether_type == kEtherTypeVlan && frame.size() >= ip + kVlanTagBytes) {
    ether_type = load_be16(bytes, ip + 2);
    ip += kVlanTagBytes;
  }
  size_t bth = 0;
  if (ether_type == kEtherTypeIpv4 && frame.size() >= ip + 20) {
    std::copy(EngineRig::kIpv4.begin(), EngineRig::kIpv4.end(), frame.begin() + ip + 16);
    bth = ip + 28;
  } else if ((ether_type == kEtherTypeIpv6 || ether_type == kEtherTypeRoceV1) &&
             frame.size() >= ip + 40) {
    // The GRH of RoCE v1 has the IPv6 header's layout: the destination GID at the same place.
    std::copy(EngineRig::kIpv6.begin(), EngineRig::kIpv6.end(), frame.begin() + ip + 24);
    bth = ip + (ether_type == kEtherTypeIpv6 ? 48 : 40);
  } else {
    return;
  }
  if (frame.size() < bth + Bth::kSize)
    return;
  // Control bits 0..1: 0 the RC QP, 1 the UD QP, 2 the frame's own QPN, 3 the connected QP of
  // the frame's transport: the XRC target for XRC opcodes (0xa0..0xbf), else the UC QP.
  const unsigned target = control & 3;
  const bool xrc = (bytes[bth] & 0xe0) == 0xa0;
  if (target != 2)
    store_be24(bytes, bth + 5,
               target == 1   ? rig.ud_qpn
               : target == 3 ? (xrc ? rig.xrc_qpn : rig.uc_qpn)
                             : rig.rc_qpn);
  if (control & 4)
    store_be24(bytes, bth + 9, control >> 5);
  // Seeds name the rig's MR by kMrKey (index 1, variant 0); the device draws a random key
  // variant per registration, so the rig's actual key stands in for it past the BTH.
  for (size_t i = bth + Bth::kSize; i + 4 <= frame.size(); i += 4)
    if (load_be32(bytes, i) == EngineRig::kMrKey)
      store_be32(bytes, i, rig.mr_key);
}

void feed_engine(std::span<const uint8_t> input) {
  if (input.empty())
    return;
  const uint8_t control = input[0];
  static ornic::fuzz::EngineRig rig;
  rig.start();
  std::vector<uint8_t> frame(input.begin(), input.end());
  address_to_rig(frame, control, rig);
  repair_checksums(frame);
  rig.deliver(frame);
  if (control & 8)
    rig.deliver(frame);
  if (control & 0x10)
    for (int i = 0; i < 4; ++i)
      rig.advance(1'000'000'000);
  rig.finish();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> input(data, size);
  check_round_trip(input);
  std::vector<uint8_t> repaired(input.begin(), input.end());
  repair_checksums(repaired);
  check_round_trip(repaired);
  feed_engine(input);
  return 0;
}
