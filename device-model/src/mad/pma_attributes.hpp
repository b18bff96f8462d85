// The layouts of the performance management attributes the PMA answers: ClassPortInfo
// (IBA 13.4.8.1), PortCounters (16.1.3.5) and PortCountersExtended (16.1.4.11), with the
// CapabilityMask and CounterSelect bits.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "mad/big_endian.hpp"
#include "mad/mad_layout.hpp"

namespace ornic::mad {

struct ClassPortInfo {
  uint8_t base_version;
  uint8_t class_version;
  Be16 capability_mask;
  Be32 capability_mask2_resp_time_value; // 27 | 5
  std::array<uint8_t, 16> redirect_gid;
  Be32 redirect_tc_sl_fl;
  Be16 redirect_lid;
  Be16 redirect_pkey;
  Be32 redirect_qp;
  Be32 redirect_qkey;
  std::array<uint8_t, 16> trap_gid;
  Be32 trap_tc_sl_fl;
  Be16 trap_lid;
  Be16 trap_pkey;
  Be32 trap_hl_qp;
  Be32 trap_qkey;
};

// PerfMgt ClassPortInfo.CapabilityMask (IBA 16.1.2, as ib_pma.h numbers them).
inline constexpr uint16_t kPmaCapAllPortSelect = 1u << 8;
inline constexpr uint16_t kPmaCapExtendedWidth = 1u << 9;

// PortSelect 0xff addresses every port (AllPortSelect).
inline constexpr uint8_t kAllPortSelect = 0xff;

struct PortCounters {
  uint8_t reserved0;
  uint8_t port_select;
  Be16 counter_select;
  Be16 symbol_error_counter;
  uint8_t link_error_recovery_counter;
  uint8_t link_downed_counter;
  Be16 port_rcv_errors;
  Be16 port_rcv_remote_physical_errors;
  Be16 port_rcv_switch_relay_errors;
  Be16 port_xmit_discards;
  uint8_t port_xmit_constraint_errors;
  uint8_t port_rcv_constraint_errors;
  uint8_t counter_select2;
  uint8_t local_link_integrity_excessive_buffer_overrun; // 4 | 4
  Be16 reserved1;
  Be16 vl15_dropped;
  Be32 port_xmit_data;
  Be32 port_rcv_data;
  Be32 port_xmit_packets;
  Be32 port_rcv_packets;
  Be32 port_xmit_wait;
};

// PortCounters.CounterSelect: bit n selects the n-th counter of the layout above.
inline constexpr uint16_t kSelSymbolError = 1u << 0;
inline constexpr uint16_t kSelLinkErrorRecovery = 1u << 1;
inline constexpr uint16_t kSelLinkDowned = 1u << 2;
inline constexpr uint16_t kSelRcvErrors = 1u << 3;
inline constexpr uint16_t kSelRcvRemotePhysicalErrors = 1u << 4;
inline constexpr uint16_t kSelRcvSwitchRelayErrors = 1u << 5;
inline constexpr uint16_t kSelXmitDiscards = 1u << 6;
inline constexpr uint16_t kSelXmitConstraintErrors = 1u << 7;
inline constexpr uint16_t kSelRcvConstraintErrors = 1u << 8;
inline constexpr uint16_t kSelLocalLinkIntegrityErrors = 1u << 9;
inline constexpr uint16_t kSelExcessiveBufferOverruns = 1u << 10;
inline constexpr uint16_t kSelVl15Dropped = 1u << 11;
inline constexpr uint16_t kSelXmitData = 1u << 12;
inline constexpr uint16_t kSelRcvData = 1u << 13;
inline constexpr uint16_t kSelXmitPackets = 1u << 14;
inline constexpr uint16_t kSelRcvPackets = 1u << 15;

struct PortCountersExtended {
  uint8_t reserved0;
  uint8_t port_select;
  Be16 counter_select;
  Be32 reserved1;
  Be64 port_xmit_data;
  Be64 port_rcv_data;
  Be64 port_xmit_packets;
  Be64 port_rcv_packets;
  Be64 port_unicast_xmit_packets;
  Be64 port_unicast_rcv_packets;
  Be64 port_multicast_xmit_packets;
  Be64 port_multicast_rcv_packets;
};

// PortCountersExtended.CounterSelect.
inline constexpr uint16_t kSelxXmitData = 1u << 0;
inline constexpr uint16_t kSelxRcvData = 1u << 1;
inline constexpr uint16_t kSelxXmitPackets = 1u << 2;
inline constexpr uint16_t kSelxRcvPackets = 1u << 3;
inline constexpr uint16_t kSelxUnicastXmitPackets = 1u << 4;
inline constexpr uint16_t kSelxUnicastRcvPackets = 1u << 5;
inline constexpr uint16_t kSelxMulticastXmitPackets = 1u << 6;
inline constexpr uint16_t kSelxMulticastRcvPackets = 1u << 7;

static_assert(sizeof(ClassPortInfo) == 72);
static_assert(offsetof(ClassPortInfo, capability_mask) == 2);
static_assert(offsetof(ClassPortInfo, redirect_gid) == 8);
static_assert(offsetof(ClassPortInfo, trap_gid) == 40);
static_assert(offsetof(ClassPortInfo, trap_qkey) == 68);
static_assert(sizeof(PortCounters) == 44);
static_assert(offsetof(PortCounters, port_xmit_discards) == 14);
static_assert(offsetof(PortCounters, counter_select2) == 18);
static_assert(offsetof(PortCounters, vl15_dropped) == 22);
static_assert(offsetof(PortCounters, port_xmit_data) == 24);
static_assert(offsetof(PortCounters, port_xmit_wait) == 40);
static_assert(sizeof(PortCountersExtended) == 72);
static_assert(offsetof(PortCountersExtended, port_xmit_data) == 8);
static_assert(offsetof(PortCountersExtended, port_multicast_rcv_packets) == 64);
static_assert(sizeof(ClassPortInfo) <= kPmaDataSize);

} // namespace ornic::mad
