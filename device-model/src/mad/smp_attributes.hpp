// The layouts of the subnet management attributes the SMA answers (IBA 14.2.5): NodeInfo,
// PortInfo (all 64 bytes, with the extended speed fields), GUIDInfo, P_KeyTable,
// SLtoVLMappingTable and VLArbitrationTable blocks, and the PortInfo bits and encodings the
// device uses. Fields that share a byte are named after both and split with the nibble
// helpers of big_endian.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "mad/big_endian.hpp"
#include "mad/mad_layout.hpp"

namespace ornic::mad {

// IBA 14.2.5.3.
struct NodeInfo {
  uint8_t base_version;
  uint8_t class_version;
  uint8_t node_type;
  uint8_t num_ports;
  Be64 system_image_guid;
  Be64 node_guid;
  Be64 port_guid;
  Be16 partition_cap;
  Be16 device_id;
  Be32 revision;
  uint8_t local_port_num;
  std::array<uint8_t, 3> vendor_id;
};
inline constexpr uint8_t kNodeTypeChannelAdapter = 1;

// IBA 14.2.5.6, with the fields of later releases (CapabilityMask2, extended speeds).
struct PortInfo {
  Be64 m_key;
  Be64 gid_prefix;
  Be16 lid;
  Be16 master_sm_lid;
  Be32 capability_mask;
  Be16 diag_code;
  Be16 m_key_lease_period;
  uint8_t local_port_num;
  uint8_t link_width_enabled;
  uint8_t link_width_supported;
  uint8_t link_width_active;
  uint8_t link_speed_supported_port_state; // 4 | 4
  uint8_t phys_state_link_down_default;    // 4 | 4
  uint8_t m_key_protect_lmc;               // 2 | reserved 3 | 3
  uint8_t link_speed_active_enabled;       // 4 | 4
  uint8_t neighbor_mtu_master_sm_sl;       // 4 | 4
  uint8_t vl_cap_init_type;                // 4 | 4
  uint8_t vl_high_limit;
  uint8_t vl_arbitration_high_cap;
  uint8_t vl_arbitration_low_cap;
  uint8_t init_type_reply_mtu_cap;     // 4 | 4
  uint8_t vl_stall_count_hoq_life;     // 3 | 5
  uint8_t operational_vls_enforcement; // 4 | 1 1 1 1
  Be16 m_key_violations;
  Be16 p_key_violations;
  Be16 q_key_violations;
  uint8_t guid_cap;
  uint8_t client_reregister_subnet_timeout; // 1 | 2 | 5
  uint8_t resp_time_value;                  // reserved 3 | 5
  uint8_t local_phy_errors_overrun_errors;  // 4 | 4
  Be16 max_credit_hint;
  uint8_t reserved;
  std::array<uint8_t, 3> link_round_trip_latency;
  Be16 capability_mask2;
  uint8_t link_speed_ext_active_supported; // 4 | 4
  uint8_t link_speed_ext_enabled;          // reserved 3 | 5
};

inline constexpr uint8_t kPortInfoClientReregister = 0x80;
inline constexpr uint8_t kPortInfoSubnetTimeoutMask = 0x1f;
inline constexpr uint8_t kPortInfoLmcMask = 0x07;
inline constexpr unsigned kPortInfoMKeyProtectShift = 6;
// PortInfo's attribute modifier: the port number, and bit 31 when the SM handles the
// extended speed fields (SMSupportsExtendedSpeeds).
inline constexpr uint32_t kPortInfoModPortMask = 0xff;
inline constexpr uint32_t kPortInfoModSmSupportsExtendedSpeeds = 0x8000'0000u;

// PortInfo.CapabilityMask bits (IBA 14.2.5.6) the device itself sets.
inline constexpr uint32_t kCapIsSlMappingSupported = 1u << 6;
inline constexpr uint32_t kCapIsSystemImageGuidSupported = 1u << 11;
inline constexpr uint32_t kCapIsExtendedSpeedsSupported = 1u << 14;
inline constexpr uint32_t kCapIsClientReregistrationSupported = 1u << 25;

// PortState values a Set may carry besides the states themselves.
inline constexpr uint8_t kPortStateNoChange = 0;
// PortPhysicalState and LinkDownDefaultState values of a Set.
inline constexpr uint8_t kPhysStateNoChange = 0;
// "Set to the supported value" in the enabled-width and enabled-speed fields.
inline constexpr uint8_t kLinkWidthSetSupported = 0xff;
inline constexpr uint8_t kLinkSpeedSetSupported = 0x0f;
inline constexpr uint8_t kLinkSpeedExtSetSupported = 0x1f;

// Width and speed encodings (IBA 14.2.5.6).
inline constexpr uint8_t kLinkWidth4x = 0x02;
inline constexpr uint8_t kLinkSpeedSdr = 0x01;
inline constexpr uint8_t kLinkSpeedExtEdr = 0x02;

// VLCap / OperationalVLs encodings: 1 = VL0 only.
inline constexpr uint8_t kVlsVl0 = 1;

// IBA 14.2.5.5: 8 GUIDs per block.
inline constexpr size_t kGuidsPerBlock = 8;
using GuidInfoBlock = std::array<Be64, kGuidsPerBlock>;

// IBA 14.2.5.7: 32 P_Keys per block; the modifier's low 16 bits are the block number (the
// high 16 bits name a switch port).
inline constexpr size_t kPkeysPerBlock = 32;
using PkeyTableBlock = std::array<Be16, kPkeysPerBlock>;

// IBA 14.2.5.8: a VL (4 bits) for each of the 16 SLs, two per byte, SL 0 in the high
// nibble of byte 0.
inline constexpr size_t kSlCount = 16;
using SlToVlTable = std::array<uint8_t, kSlCount / 2>;

// IBA 14.2.5.9: 32 entries of (reserved 4 | VL 4, weight 8) per block. The modifier's high
// 16 bits pick the block: 1 and 2 = low priority entries 0-31 and 32-63, 3 and 4 = high
// priority entries 0-31 and 32-63.
struct VlArbitrationEntry {
  uint8_t vl;
  uint8_t weight;
};
inline constexpr size_t kVlArbEntriesPerBlock = 32;
using VlArbitrationBlock = std::array<VlArbitrationEntry, kVlArbEntriesPerBlock>;
inline constexpr uint32_t kVlArbBlockLow = 1;
inline constexpr uint32_t kVlArbBlockHigh = 3;

static_assert(sizeof(NodeInfo) == 40);
static_assert(offsetof(NodeInfo, node_guid) == 12);
static_assert(offsetof(NodeInfo, port_guid) == 20);
static_assert(offsetof(NodeInfo, partition_cap) == 28);
static_assert(offsetof(NodeInfo, revision) == 32);
static_assert(offsetof(NodeInfo, vendor_id) == 37);
static_assert(sizeof(PortInfo) == kSmpDataSize);
static_assert(offsetof(PortInfo, lid) == 16);
static_assert(offsetof(PortInfo, capability_mask) == 20);
static_assert(offsetof(PortInfo, local_port_num) == 28);
static_assert(offsetof(PortInfo, link_speed_supported_port_state) == 32);
static_assert(offsetof(PortInfo, neighbor_mtu_master_sm_sl) == 36);
static_assert(offsetof(PortInfo, init_type_reply_mtu_cap) == 41);
static_assert(offsetof(PortInfo, operational_vls_enforcement) == 43);
static_assert(offsetof(PortInfo, m_key_violations) == 44);
static_assert(offsetof(PortInfo, guid_cap) == 50);
static_assert(offsetof(PortInfo, client_reregister_subnet_timeout) == 51);
static_assert(offsetof(PortInfo, max_credit_hint) == 54);
static_assert(offsetof(PortInfo, capability_mask2) == 60);
static_assert(offsetof(PortInfo, link_speed_ext_enabled) == 63);
static_assert(sizeof(GuidInfoBlock) == kSmpDataSize);
static_assert(sizeof(PkeyTableBlock) == kSmpDataSize);
static_assert(sizeof(VlArbitrationBlock) == kSmpDataSize);

} // namespace ornic::mad
