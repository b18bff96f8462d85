// Feeds arbitrary bytes to the InfiniBand packet parser: the codec (ib/packet_codec) and
// IbFraming::parse above it, which is how the packet engine receives on an InfiniBand port.
// The two must agree on what they accept, and whatever parses must survive a round trip:
// IbFraming plans, writes and seals the parsed headers, route and payload again (as the
// engine sends), and the codec parses that to the same LRH, GRH, transport headers and
// payload. Parser and builder are the two halves of one wire format (infiniband.rst,
// "Framing"); a field one of them drops, widens or misplaces is a bug the sanitizers alone
// would not see.
//
// Then the same bytes go to a whole NIC whose port is InfiniBand (EngineRig: LID 1, brought
// up through the SMA as a subnet manager does) with RC, UC, UD, GSI, SMI and XRC target QPs,
// so they reach the port's checks (DLID, VL15, port state, P_Key), the responder and the
// completer, and QP 0 for VL15 SMPs; sanitizers catch what they do wrong. The high byte of
// the BTH's destination QP, which the rig overwrites anyway, steers that:
//   bits 0-1  the QP: 0 RC, 1 UD, 2 the packet's own QPN (its low 16 bits: QP 0 for SMPs,
//             QP 1, or one that does not exist), 3 the connected QP of its transport (the
//             XRC target for XRC opcodes, 0xa0..0xbf, else the UC QP)
//   bit 2     the LRH's DLID and SLID as given (else the rig's LID and its RC peer's LID)
//   bit 3     the packet is delivered twice
//   bit 4     time passes afterwards (retransmission timeouts, RNR waits)
//   bit 5     PktLen (and a GRH's payload length) set from the input's length
//   bit 6     the port is left Armed: the first data packet must make it Active
//   bit 7     the ICRC as given (the rig's rewrites make it wrong), only the VCRC repaired:
//             a packet a link passes and the port must drop
//
// Random mutations almost never keep the VCRC and ICRC right, which would hide everything the
// parser checks after them. So each input is parsed three times: as given, with the VCRC
// repaired (a packet damaged beyond the last link, which only the ICRC catches), and with
// both repaired, wherever the PktLen in the input makes that possible.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "core/nic_core.hpp"
#include "dma/fake_guest_memory.hpp"
#include "engine_rig.hpp"
#include "ib/ib_framing.hpp"
#include "ib/icrc.hpp"
#include "ib/packet_codec.hpp"
#include "ib/vcrc.hpp"
#include "iba/transport_headers.hpp"
#include "iba/wire_bytes.hpp"
#include "nic_rig.hpp"
#include "pci/recording_interrupt_sink.hpp"

using namespace ornic::ib;
using ornic::fuzz::EngineRig;
using ornic::iba::Bth;
using ornic::iba::Grh;
using ornic::iba::kIcrcSize;
using ornic::iba::load_be16;
using ornic::iba::load_be24;
using ornic::iba::load_be32;
using ornic::iba::store_be16;
using ornic::iba::store_be24;
using ornic::iba::store_be32;

namespace {

constexpr size_t kPktLenOffset = 4;
constexpr size_t kGrhPayloadLengthOffset = Lrh::kSize + 4;
constexpr size_t kDestinationQpOffset = 5; // in the BTH

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "ib fuzzer: %s\n", what);
  std::abort();
}

bool is_global(std::span<const uint8_t> frame) {
  return frame.size() > 1 && static_cast<LinkNext>(frame[1] & 0x03) == LinkNext::iba_global;
}

size_t bth_offset(std::span<const uint8_t> frame) {
  return Lrh::kSize + (is_global(frame) ? Grh::kSize : 0);
}

// Best effort: leaves the CRCs alone wherever PktLen puts them outside the input. The ICRC
// first: the VCRC covers it.
void repair_crcs(std::vector<uint8_t>& frame, bool icrc_too) {
  if (frame.size() < Lrh::kSize)
    return;
  const std::span<uint8_t> bytes(frame);
  const size_t packet_bytes = size_t{Lrh::decode(bytes.first<Lrh::kSize>()).packet_words} * 4;
  if (packet_bytes < Lrh::kSize || packet_bytes + kVcrcSize > frame.size())
    return;
  const bool global = is_global(frame);
  if (icrc_too && packet_bytes >= bth_offset(frame) + Bth::kSize + kIcrcSize) {
    const size_t icrc_offset = packet_bytes - kIcrcSize;
    ornic::iba::store_icrc(bytes.subspan(icrc_offset).first<kIcrcSize>(),
                           compute_icrc(bytes.first(icrc_offset), global));
  }
  store_vcrc(bytes.subspan(packet_bytes).first<kVcrcSize>(),
             compute_vcrc(bytes.first(packet_bytes)));
}

// PktLen and the GRH's payload length as the input's length says, where it can (a whole
// number of words plus the VCRC, no longer than PktLen can count); the LRH's reserved bits
// stay as they are.
void fit_lengths(std::vector<uint8_t>& frame) {
  if (frame.size() < Lrh::kSize + kVcrcSize || (frame.size() - kVcrcSize) % 4 != 0)
    return;
  const size_t packet_bytes = frame.size() - kVcrcSize;
  if (packet_bytes > kMaxPacketBytes)
    return;
  const std::span<uint8_t> bytes(frame);
  const uint16_t reserved = load_be16(bytes, kPktLenOffset) & ~Lrh::kMaxPacketWords;
  store_be16(bytes, kPktLenOffset, static_cast<uint16_t>(reserved | packet_bytes / 4));
  if (is_global(frame) && packet_bytes >= Lrh::kSize + Grh::kSize)
    store_be16(bytes, kGrhPayloadLengthOffset,
               static_cast<uint16_t>(packet_bytes - Lrh::kSize - Grh::kSize));
}

// A lone IbFraming over a core whose port is Active with the rig's LID: the framing the
// engine parses and builds with, without the engine.
struct FramingRig {
  FramingRig() {
    core.attach(memory, irqs);
    core.ib.enabled = true;
    core.ib.lid = EngineRig::kLid;
    core.ib_physical_link(true);
    core.set_ib_port_state(ORNIC_PORT_ACTIVE);
  }
  ornic::FakeGuestMemory memory{0x10000, 0x1000};
  ornic::RecordingInterruptSink irqs;
  ornic::NicCore core{ornic::MacAddress{0x02, 0, 0, 0, 0, 0x01}};
  IbFraming framing{core};
};

bool same_bytes(std::span<const uint8_t> a, std::span<const uint8_t> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

void check_round_trip(std::span<const uint8_t> frame, const IbFraming& framing) {
  ParsedPacket parsed;
  const ParseError error = parse_packet(frame, parsed);
  ornic::iba::ReceivedPacket received;
  const ornic::iba::ParseStatus status = framing.parse(frame, received);
  if (error != ParseError::ok) {
    if (status == ornic::iba::ParseStatus::packet)
      fail("the framing accepts a packet the codec refuses");
    if (parse_error_name(error) == "unknown")
      fail("a parse error without a name");
    return;
  }
  // The framing may still refuse it for its addresses (bad_header), but it read it whole.
  if (status != ornic::iba::ParseStatus::packet && status != ornic::iba::ParseStatus::bad_header)
    fail("the framing finds a CRC wrong that the codec accepts");
  if (!(static_cast<const ornic::iba::TransportHeaders&>(received) == parsed.headers) ||
      received.payload.data() != parsed.payload.data() ||
      received.payload.size() != parsed.payload.size())
    fail("the framing and the codec read different headers or payload");
  const ornic::iba::LocalRoute& local = received.route.local;
  if (local.destination_lid != parsed.lrh.destination_lid ||
      local.source_lid != parsed.lrh.source_lid ||
      local.service_level != parsed.lrh.service_level ||
      local.virtual_lane != parsed.lrh.virtual_lane ||
      received.route.has_global != parsed.grh.has_value())
    fail("the framing and the codec read different routes");

  // Built again as the engine sends: the received headers and route as an outbound packet.
  ornic::iba::OutboundPacket packet;
  static_cast<ornic::iba::TransportHeaders&>(packet) = received;
  packet.route = received.route;
  ornic::iba::FramePlan plan;
  if (!framing.plan(packet, received.payload.size(), plan))
    fail("a parsed packet does not plan again");
  // Stale bytes where the frame goes, as in a reused port buffer: the framing must write
  // every byte the parser reads.
  std::vector<uint8_t> rebuilt(plan.frame_bytes, 0xa5);
  const std::span<uint8_t> area = framing.write_headers(packet, plan, rebuilt);
  if (area.size() != received.payload.size())
    fail("the payload area differs from the payload");
  std::copy(received.payload.begin(), received.payload.end(), area.begin());
  framing.seal(packet, plan, rebuilt);
  if (rebuilt.size() != frame.size())
    fail("round trip changed the packet's length");

  ParsedPacket reparsed;
  if (parse_packet(rebuilt, reparsed) != ParseError::ok)
    fail("a rebuilt packet does not parse");
  Lrh expected_lrh = parsed.lrh;
  expected_lrh.reserved_clear = true; // reserved bits are sent as zeros
  if (!(reparsed.lrh == expected_lrh))
    fail("round trip changed the LRH");
  if (reparsed.grh != parsed.grh)
    fail("round trip changed the GRH");
  if (!(reparsed.headers == parsed.headers) ||
      reparsed.opcode_info.opcode != parsed.opcode_info.opcode)
    fail("round trip changed the transport headers");
  if (!same_bytes(reparsed.payload, parsed.payload))
    fail("round trip changed the payload");
}

// Points the packet at the rig (see the control bits above).
void address_to_rig(std::vector<uint8_t>& frame, uint8_t control, const EngineRig& rig) {
  if (frame.size() < Lrh::kSize)
    return;
  const std::span<uint8_t> bytes(frame);
  if ((control & 4) == 0) {
    store_be16(bytes, 2, EngineRig::kLid);
    store_be16(bytes, 6, EngineRig::kPeerLid);
  }
  const size_t bth = bth_offset(frame);
  if (frame.size() < bth + Bth::kSize)
    return;
  const uint32_t own_qpn = load_be24(bytes, bth + kDestinationQpOffset) & 0xffff;
  const bool xrc = (bytes[bth] & 0xe0) == 0xa0;
  const unsigned target = control & 3;
  store_be24(bytes, bth + kDestinationQpOffset,
             target == 0   ? rig.rc_qpn
             : target == 1 ? rig.ud_qpn
             : target == 2 ? own_qpn
                           : (xrc ? rig.xrc_qpn : rig.uc_qpn));
  // Seeds name the rig's MR by kMrKey (index 1, variant 0); the device draws a random key
  // variant per registration, so the rig's actual key stands in for it past the BTH.
  for (size_t i = bth + Bth::kSize; i + 4 <= frame.size(); i += 4)
    if (load_be32(bytes, i) == EngineRig::kMrKey)
      store_be32(bytes, i, rig.mr_key);
}

void feed_engine(std::span<const uint8_t> input) {
  const size_t bth = bth_offset(input);
  const uint8_t control = input.size() >= bth + Bth::kSize ? input[bth + kDestinationQpOffset] : 0;
  static EngineRig rig(ORNIC_LINK_LAYER_IB);
  rig.start((control & 0x40) != 0 ? ORNIC_PORT_ARMED : ORNIC_PORT_ACTIVE);
  std::vector<uint8_t> frame(input.begin(), input.end());
  address_to_rig(frame, control, rig);
  if ((control & 0x20) != 0)
    fit_lengths(frame);
  repair_crcs(frame, (control & 0x80) == 0);
  rig.deliver(frame);
  if ((control & 8) != 0)
    rig.deliver(frame);
  if ((control & 0x10) != 0)
    for (int i = 0; i < 4; ++i)
      rig.advance(1'000'000'000);
  rig.finish();
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ornic::fuzz::quiet_logs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static FramingRig framing_rig;
  const std::span<const uint8_t> input(data, size);
  check_round_trip(input, framing_rig.framing);
  std::vector<uint8_t> repaired(input.begin(), input.end());
  repair_crcs(repaired, false);
  check_round_trip(repaired, framing_rig.framing);
  repair_crcs(repaired, true);
  check_round_trip(repaired, framing_rig.framing);
  feed_engine(input);
  return 0;
}
