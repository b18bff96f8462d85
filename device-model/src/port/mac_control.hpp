// MAC Control frames on the port's wire: IEEE 802.1Qbb priority-based flow control (PFC,
// IEEE 802.3 Annex 31D) and the 802.3x PAUSE it replaces (Annex 31B), plus the 802.1Q tag
// that tells which priority a data frame belongs to. Pure functions over untrusted bytes:
// nothing here keeps state, so the port (pfc_port.hpp) and the fuzz target share them.
//
// A MAC Control frame (EtherType 0x8808) is consumed by the MAC and never reaches the NIC's
// receive path, whatever its opcode or length. Choices where the standards leave room:
//  - Reserved bits of the class-enable vector (its upper octet, which 31D.2 reserves and a
//    sender sets to zero) are ignored on receipt, as 802.3 treats reserved fields; the
//    frame is acted on for its eight defined bits and the parse reports that reserved bits
//    were set so the port can count it.
//  - The destination address is not checked: Annex 31B lets a PAUSE go to the station's
//    own address as well as 01:80:C2:00:00:01, and the link is point to point.
//  - Opcodes other than PAUSE and PFC (e.g. 802.3ah MPCP, 802.3 EXTENSION) are not
//    supported by this MAC and are discarded, as Annex 31A requires.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ornic::mac_control {

inline constexpr uint16_t kEtherType = 0x8808;
inline constexpr uint16_t kEtherTypeVlan = 0x8100;
inline constexpr uint16_t kEtherTypeQinQ = 0x88a8;
inline constexpr uint16_t kOpcodePause = 0x0001;
inline constexpr uint16_t kOpcodePfc = 0x0101;
inline constexpr std::array<uint8_t, 6> kDestination = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
inline constexpr size_t kPriorities = 8;
// The 64-byte minimum frame less the 4-byte FCS, which the port's frames do not carry.
inline constexpr size_t kMinFrameBytes = 60;
// A pause time counts quanta of 512 bit times at the link's speed.
inline constexpr uint64_t kBitsPerQuantum = 512;

// Header (14) + opcode (2) + class-enable vector (2) + eight times (16).
inline constexpr size_t kPfcPayloadEnd = 34;
// Header (14) + opcode (2) + pause_time (2).
inline constexpr size_t kPausePayloadEnd = 18;

struct PfcRequest {
  uint8_t class_enable = 0;       // bit n: priority n's time is meant
  std::array<uint16_t, 8> time{}; // quanta; 0 resumes the priority at once
};

enum class Kind {
  not_mac_control, // an ordinary frame (any EtherType but 0x8808)
  pfc,             // a valid PFC frame: `pfc` holds it
  pause,           // an 802.3x PAUSE: `pause_time` holds its quanta
  unknown_opcode,  // a MAC Control opcode this MAC does not support: discard
  short_frame,     // EtherType 0x8808 but too short for its opcode's fields: discard
};

struct Parsed {
  Kind kind = Kind::not_mac_control;
  uint16_t opcode = 0;
  PfcRequest pfc;
  uint16_t pause_time = 0;
  bool reserved_bits = false; // a PFC frame's reserved vector bits were set (ignored)
};

// Classifies a frame as the port's MAC sees it (no FCS). A MAC Control frame is one with
// EtherType 0x8808 right after the addresses; a tagged one is not (802.3 MAC Control frames
// are never VLAN-tagged), so it is an ordinary frame.
Parsed parse(std::span<const std::byte> frame);

// A PFC frame from `source`, padded to kMinFrameBytes.
std::vector<std::byte> build_pfc(const std::array<uint8_t, 6>& source, const PfcRequest& request);
// An 802.3x PAUSE frame from `source`, padded to kMinFrameBytes.
std::vector<std::byte> build_pause(const std::array<uint8_t, 6>& source, uint16_t pause_time);

// The priority of IPv4 and IPv6 frames by DSCP (bit n of `valid`: DSCP n is mapped); an
// unmapped DSCP is priority 0.
struct DscpMap {
  uint64_t valid = 0;
  std::array<uint8_t, 64> priority{}; // each below kPriorities
};

// A frame's priority, the one rule of the device (ethernet.rst, "Priorities and lossless
// Ethernet"): the PCP of the VLAN tag right after the addresses (TPID 0x8100, or 0x88a8 for
// an 802.1ad S-tag), else the DSCP of an IPv4/IPv6 packet through `dscp`, else 0. A frame
// too short for the field it needs is priority 0.
uint8_t frame_priority(std::span<const std::byte> frame, const DscpMap& dscp);
// With no DSCP mapped: the PCP, else 0.
uint8_t frame_priority(std::span<const std::byte> frame);

// How long `quanta` pause quanta last at `speed_mbps`, in nanoseconds (rounded up, so a
// nonzero time never becomes zero).
int64_t quanta_ns(uint32_t quanta, uint64_t speed_mbps);

} // namespace ornic::mac_control
