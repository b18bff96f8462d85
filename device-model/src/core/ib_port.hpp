// The state of an InfiniBand port (infiniband.rst): what its subnet manager sets through
// PortInfo, P_KeyTable and the node description, the logical state machine of IBA 7.2,
// and the port counters that PortInfo's violation fields and the PMA report. It lives in
// the core because every part reads it: the framing (LIDs, LMC, VL, P_Keys), the transport
// (P_Key and Q_Key checks), the management agents (Get and Set), the admin commands
// (QUERY_PORT, MODIFY_PORT) and the device when its link comes and goes. On an Ethernet
// port it exists but `enabled` is false and nothing reads it.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/hw.hpp"

namespace ornic {

// IBA 14.2.5.6 PortInfo.PortPhysicalState values the model reports.
enum class IbPhysState : uint8_t { sleep = 1, polling = 2, disabled = 3, link_up = 5 };

// The port counters of IBA 16.1.3.5 PortCounters and 16.1.4.x PortCountersExtended, kept at
// 64 bits; the PMA saturates the narrow PortCounters fields when it reports them.
struct IbPortCounters {
  uint64_t symbol_errors = 0;
  uint64_t link_error_recovery = 0;
  uint64_t link_downed = 0;
  uint64_t rcv_errors = 0; // bad VCRC, ICRC, LRH or length
  uint64_t rcv_remote_physical_errors = 0;
  uint64_t rcv_switch_relay_errors = 0; // a packet the port does not own (DLID)
  uint64_t xmit_discards = 0;           // not sent: port not Active, bad route
  uint64_t xmit_constraint_errors = 0;
  uint64_t rcv_constraint_errors = 0; // P_Key mismatches on receive
  uint64_t local_link_integrity_errors = 0;
  uint64_t excessive_buffer_overrun_errors = 0;
  uint64_t vl15_dropped = 0;
  uint64_t xmit_data_words = 0; // 4-byte words, LRH through VCRC
  uint64_t rcv_data_words = 0;
  uint64_t xmit_packets = 0;
  uint64_t rcv_packets = 0;
  uint64_t xmit_wait = 0;
  uint64_t unicast_xmit_packets = 0;
  uint64_t unicast_rcv_packets = 0;
  uint64_t multicast_xmit_packets = 0;
  uint64_t multicast_rcv_packets = 0;
};

inline constexpr uint64_t kDefaultGidPrefix = 0xfe80'0000'0000'0000ull;
inline constexpr uint16_t kPermissiveLid = 0xffff;
inline constexpr uint16_t kMulticastLidFirst = 0xc000;
inline constexpr uint16_t kMulticastLidLast = 0xfffe;
inline constexpr uint16_t kDefaultPkey = 0xffff;
inline constexpr uint32_t kIbPkeyTableSize = ORNIC_IB_PKEY_TABLE_LEN;
inline constexpr uint32_t kGsiQkey = 0x80010000u;
inline constexpr uint8_t kSmiVirtualLane = 15;
// Entries of each VLArbitrationTable (PortInfo.VLArbitrationLowCap and HighCap).
inline constexpr uint32_t kIbVlArbitrationCap = 8;

constexpr bool is_multicast_lid(uint16_t lid) {
  return lid >= kMulticastLidFirst && lid <= kMulticastLidLast;
}
constexpr bool is_unicast_lid(uint16_t lid) {
  return lid != 0 && lid < kMulticastLidFirst;
}

// Two P_Keys match (IBA 10.9.3) when their low 15 bits agree, neither is invalid and at
// least one is a full member.
constexpr bool pkeys_match(uint16_t a, uint16_t b) {
  if ((a & 0x7fff) == 0 || (b & 0x7fff) == 0)
    return false;
  return (a & 0x7fff) == (b & 0x7fff) && ((a | b) & 0x8000) != 0;
}

struct IbPort {
  bool enabled = false; // the link layer is InfiniBand

  // Identity (infiniband.rst, "Identity"); fixed when the device starts.
  uint64_t node_guid = 0;
  uint64_t port_guid = 0;
  std::string node_description; // at most 64 bytes

  // PortInfo, as the subnet manager set it (infiniband.rst, "PortInfo").
  uint64_t m_key = 0;
  uint64_t gid_prefix = kDefaultGidPrefix;
  uint16_t lid = 0;
  uint8_t lmc = 0;
  uint16_t sm_lid = 0;
  uint8_t sm_sl = 0;
  uint16_t m_key_lease_period = 0; // seconds; 0 = the lease never ends
  uint8_t m_key_protect_bits = 0;
  // Device clock (ns) at which an M_Key violation's lease ends and the protection bits
  // clear; 0 = no lease running.
  int64_t m_key_lease_deadline_ns = 0;
  uint8_t logical_state = ORNIC_PORT_DOWN; // enum ornic_port_state
  IbPhysState phys_state = IbPhysState::polling;
  uint8_t link_down_default_state = 2; // Polling
  uint8_t neighbor_mtu = ORNIC_MTU_4096;
  uint8_t vl_high_limit = 0;
  uint8_t subnet_timeout = 0;
  uint8_t resp_time_value = 8;
  uint8_t local_phy_errors_threshold = 8;
  uint8_t overrun_errors_threshold = 8;
  uint8_t operational_vls = 1;       // VL0 (and VL15, which is never counted)
  uint8_t link_width_enabled = 0x02; // 4X
  uint8_t link_speed_enabled = 0x01; // SDR; the extended speed (EDR) is what runs
  uint8_t init_type_reply = 0;
  bool client_reregister = false;
  uint32_t sw_capability_mask = 0; // ORNIC_PORT_CAP_SW_MASK bits set by MODIFY_PORT
  uint16_t m_key_violations = 0;
  uint16_t p_key_violations = 0;
  uint16_t q_key_violations = 0;
  std::array<uint16_t, kIbPkeyTableSize> pkeys{kDefaultPkey};
  // VLArbitrationTable (IBA 14.2.5.9), as the subnet manager set it. With one data VL
  // there is nothing to arbitrate: the tables are kept and reported, never applied.
  struct VlArbitrationEntry {
    uint8_t vl = 0;
    uint8_t weight = 0;
  };
  std::array<VlArbitrationEntry, kIbVlArbitrationCap> vl_arbitration_low{};
  std::array<VlArbitrationEntry, kIbVlArbitrationCap> vl_arbitration_high{};

  IbPortCounters counters;

  // Back to what the port holds when the device starts (a device reset): the subnet
  // manager configures it again. Identity stays.
  void reset_config() {
    IbPort fresh;
    fresh.enabled = enabled;
    fresh.node_guid = node_guid;
    fresh.port_guid = port_guid;
    fresh.node_description = node_description;
    *this = fresh;
  }

  // The port owns DLID `lid`: one of the 2^LMC LIDs from its base LID.
  bool owns_lid(uint16_t dlid) const {
    if (!is_unicast_lid(lid) || !is_unicast_lid(dlid))
      return false;
    const uint16_t mask = static_cast<uint16_t>(~((1u << lmc) - 1));
    return (dlid & mask) == (lid & mask);
  }
  bool active() const { return logical_state == ORNIC_PORT_ACTIVE; }
  // GID 0, the port's only one: the subnet prefix the SM set, then the port GUID.
  std::array<uint8_t, 16> port_gid() const {
    std::array<uint8_t, 16> gid{};
    for (int i = 0; i < 8; ++i) {
      gid[static_cast<size_t>(i)] = static_cast<uint8_t>(gid_prefix >> (56 - 8 * i));
      gid[static_cast<size_t>(8 + i)] = static_cast<uint8_t>(port_guid >> (56 - 8 * i));
    }
    return gid;
  }
  // The SLID of a packet sent with `path_bits` (IBA 7.11.1): the base LID with the path
  // bits below the LMC; the permissive LID while the port has none.
  uint16_t source_lid(uint8_t path_bits) const {
    if (!is_unicast_lid(lid))
      return kPermissiveLid;
    const uint16_t below = static_cast<uint16_t>((1u << lmc) - 1);
    return static_cast<uint16_t>((lid & ~below) | (path_bits & below));
  }
};

} // namespace ornic
