// PortInfo (IBA 14.2.5.6; infiniband.rst, "PortInfo"): every field of the 64 bytes on a
// Get; on a Set, the fields the subnet manager owns, each checked before any is applied,
// the logical state machine of IBA 7.2 and the PORT_CHANGE event for what changed.
#include <optional>

#include "core/device_limits.hpp"
#include "mad/sma_attributes.hpp"
#include "mad/smp_attributes.hpp"

namespace ornic::mad {
namespace {

// 100 Gb/s is four lanes of EDR. LinkSpeedSupported names SDR, which every port has;
// the extended speed fields say what runs.
static_assert(limits::kSpeedGbps == 100);
constexpr uint8_t kWidthSupported = kLinkWidth4x;
constexpr uint8_t kSpeedSupported = kLinkSpeedSdr;
constexpr uint8_t kSpeedExtSupported = kLinkSpeedExtEdr;
constexpr uint8_t kMtuCap = ORNIC_MTU_4096;
constexpr uint8_t kVlCap = kVlsVl0;
constexpr uint8_t kGuidCap = 1;
// The device's own CapabilityMask bits; software adds ORNIC_PORT_CAP_SW_MASK bits with
// MODIFY_PORT. No IsTrapSupported or IsNoticeSupported: the device sends no traps.
constexpr uint32_t kDeviceCapabilities = kCapIsSlMappingSupported | kCapIsSystemImageGuidSupported |
                                         kCapIsExtendedSpeedsSupported |
                                         kCapIsClientReregistrationSupported;
static_assert((kDeviceCapabilities & ORNIC_PORT_CAP_SW_MASK) == 0);

constexpr uint8_t kLinkDownDefaultPolling = 2;

PortInfo encode(const IbPort& port, bool hide_m_key) {
  PortInfo info{};
  info.m_key.set(hide_m_key ? 0 : port.m_key);
  info.gid_prefix.set(port.gid_prefix);
  info.lid.set(port.lid);
  info.master_sm_lid.set(port.sm_lid);
  info.capability_mask.set(kDeviceCapabilities | port.sw_capability_mask);
  info.m_key_lease_period.set(port.m_key_lease_period);
  info.local_port_num = 1;
  info.link_width_enabled = port.link_width_enabled;
  info.link_width_supported = kWidthSupported;
  info.link_width_active = kWidthSupported;
  info.link_speed_supported_port_state = nibbles(kSpeedSupported, port.logical_state);
  info.phys_state_link_down_default =
      nibbles(static_cast<uint8_t>(port.phys_state), port.link_down_default_state);
  info.m_key_protect_lmc = static_cast<uint8_t>(
      port.m_key_protect_bits << kPortInfoMKeyProtectShift | (port.lmc & kPortInfoLmcMask));
  info.link_speed_active_enabled = nibbles(kSpeedSupported, port.link_speed_enabled);
  info.neighbor_mtu_master_sm_sl = nibbles(port.neighbor_mtu, port.sm_sl);
  info.vl_cap_init_type = nibbles(kVlCap, 0);
  info.vl_high_limit = port.vl_high_limit;
  info.vl_arbitration_high_cap = kIbVlArbitrationCap;
  info.vl_arbitration_low_cap = kIbVlArbitrationCap;
  info.init_type_reply_mtu_cap = nibbles(port.init_type_reply, kMtuCap);
  info.operational_vls_enforcement = nibbles(port.operational_vls, 0);
  info.m_key_violations.set(port.m_key_violations);
  info.p_key_violations.set(port.p_key_violations);
  info.q_key_violations.set(port.q_key_violations);
  info.guid_cap = kGuidCap;
  info.client_reregister_subnet_timeout = port.subnet_timeout & kPortInfoSubnetTimeoutMask;
  info.resp_time_value = port.resp_time_value & 0x1f;
  info.local_phy_errors_overrun_errors =
      nibbles(port.local_phy_errors_threshold, port.overrun_errors_threshold);
  info.link_speed_ext_active_supported = nibbles(kSpeedExtSupported, kSpeedExtSupported);
  info.link_speed_ext_enabled = kSpeedExtSupported;
  return info;
}

// What a Set asks for, every field checked.
struct PortInfoUpdate {
  uint64_t m_key;
  uint64_t gid_prefix;
  uint16_t lid;
  uint16_t sm_lid;
  uint16_t m_key_lease_period;
  uint8_t link_width_enabled;
  uint8_t port_state; // kPortStateNoChange or the state to enter
  bool retrain;       // PortPhysicalState = Polling
  uint8_t m_key_protect_bits;
  uint8_t lmc;
  uint8_t link_speed_enabled;
  uint8_t neighbor_mtu;
  uint8_t sm_sl;
  uint8_t vl_high_limit;
  uint8_t init_type_reply;
  uint8_t operational_vls;
  bool reset_m_key_violations;
  bool reset_p_key_violations;
  bool reset_q_key_violations;
  bool client_reregister;
  uint8_t subnet_timeout;
  uint8_t local_phy_errors_threshold;
  uint8_t overrun_errors_threshold;
};

// An "enabled" field: 0 keeps it, `set_supported` asks for everything supported, anything
// else must be a non-empty subset of what is supported.
std::optional<uint8_t> enabled_field(uint8_t requested, uint8_t current, uint8_t set_supported,
                                     uint8_t supported) {
  if (requested == 0)
    return current;
  if (requested == set_supported)
    return supported;
  if ((requested & ~supported) != 0)
    return std::nullopt;
  return requested;
}

// IBA 7.2: Armed only from Init, Active only from Armed, Down from any state; Init is
// entered only by the link coming up.
bool state_transition_allowed(uint8_t requested, uint8_t current) {
  switch (requested) {
  case kPortStateNoChange:
  case ORNIC_PORT_DOWN:
    return true;
  case ORNIC_PORT_ARMED:
    return current == ORNIC_PORT_INIT;
  case ORNIC_PORT_ACTIVE:
    return current == ORNIC_PORT_ARMED;
  default:
    return false;
  }
}

std::optional<PortInfoUpdate> decode(const PortInfo& in, const IbPort& port,
                                     bool sm_supports_extended_speeds) {
  PortInfoUpdate update{};
  update.m_key = in.m_key.get();
  update.gid_prefix = in.gid_prefix.get();
  update.lid = in.lid.get();
  update.sm_lid = in.master_sm_lid.get();
  // 0 (no LID yet) or a unicast LID; never a multicast or the permissive LID.
  if (update.lid >= kMulticastLidFirst || update.sm_lid >= kMulticastLidFirst)
    return std::nullopt;
  update.m_key_lease_period = in.m_key_lease_period.get();

  const auto width = enabled_field(in.link_width_enabled, port.link_width_enabled,
                                   kLinkWidthSetSupported, kWidthSupported);
  const auto speed =
      enabled_field(low_nibble(in.link_speed_active_enabled), port.link_speed_enabled,
                    kLinkSpeedSetSupported, kSpeedSupported);
  if (!width || !speed)
    return std::nullopt;
  update.link_width_enabled = *width;
  update.link_speed_enabled = *speed;
  // Only an SM that says it handles the extended speed fields sets them; the one speed
  // there is cannot be turned off.
  if (sm_supports_extended_speeds &&
      !enabled_field(in.link_speed_ext_enabled & 0x1f, kSpeedExtSupported,
                     kLinkSpeedExtSetSupported, kSpeedExtSupported))
    return std::nullopt;

  update.port_state = low_nibble(in.link_speed_supported_port_state);
  if (!state_transition_allowed(update.port_state, port.logical_state))
    return std::nullopt;
  // PortPhysicalState: Polling retrains the link; Disabled and the test states are not
  // offered. LinkDownDefaultState: Polling is the only one.
  const uint8_t phys_state = high_nibble(in.phys_state_link_down_default);
  const uint8_t link_down_default = low_nibble(in.phys_state_link_down_default);
  if ((phys_state != kPhysStateNoChange &&
       phys_state != static_cast<uint8_t>(IbPhysState::polling)) ||
      (link_down_default != kPhysStateNoChange && link_down_default != kLinkDownDefaultPolling))
    return std::nullopt;
  update.retrain = phys_state == static_cast<uint8_t>(IbPhysState::polling);

  update.m_key_protect_bits = in.m_key_protect_lmc >> kPortInfoMKeyProtectShift;
  update.lmc = in.m_key_protect_lmc & kPortInfoLmcMask;
  update.neighbor_mtu = high_nibble(in.neighbor_mtu_master_sm_sl);
  update.sm_sl = low_nibble(in.neighbor_mtu_master_sm_sl);
  if (update.neighbor_mtu < ORNIC_MTU_256 || update.neighbor_mtu > kMtuCap)
    return std::nullopt;
  update.vl_high_limit = in.vl_high_limit;
  update.init_type_reply = high_nibble(in.init_type_reply_mtu_cap);
  update.operational_vls = high_nibble(in.operational_vls_enforcement);
  if (update.operational_vls == 0)
    update.operational_vls = port.operational_vls;
  else if (update.operational_vls > kVlCap)
    return std::nullopt;
  // Writing 0 to a violation counter resets it; other values leave it.
  update.reset_m_key_violations = in.m_key_violations.get() == 0;
  update.reset_p_key_violations = in.p_key_violations.get() == 0;
  update.reset_q_key_violations = in.q_key_violations.get() == 0;
  update.client_reregister = (in.client_reregister_subnet_timeout & kPortInfoClientReregister) != 0;
  update.subnet_timeout = in.client_reregister_subnet_timeout & kPortInfoSubnetTimeoutMask;
  update.local_phy_errors_threshold = high_nibble(in.local_phy_errors_overrun_errors);
  update.overrun_errors_threshold = low_nibble(in.local_phy_errors_overrun_errors);
  return update;
}

// Applies a checked update; returns the ORNIC_PORT_CHANGE_* bits for software.
uint32_t apply(IbPort& port, const PortInfoUpdate& update) {
  uint32_t changes = 0;
  if (update.lid != port.lid || update.lmc != port.lmc)
    changes |= ORNIC_PORT_CHANGE_LID;
  if (update.sm_lid != port.sm_lid || update.sm_sl != port.sm_sl)
    changes |= ORNIC_PORT_CHANGE_SM;
  if (update.gid_prefix != port.gid_prefix)
    changes |= ORNIC_PORT_CHANGE_GID;
  if (update.client_reregister)
    changes |= ORNIC_PORT_CHANGE_CLIENT_REREG;
  port.m_key = update.m_key;
  port.gid_prefix = update.gid_prefix;
  port.lid = update.lid;
  port.sm_lid = update.sm_lid;
  port.m_key_lease_period = update.m_key_lease_period;
  port.link_width_enabled = update.link_width_enabled;
  port.m_key_protect_bits = update.m_key_protect_bits;
  port.lmc = update.lmc;
  port.link_speed_enabled = update.link_speed_enabled;
  port.neighbor_mtu = update.neighbor_mtu;
  port.sm_sl = update.sm_sl;
  port.vl_high_limit = update.vl_high_limit;
  port.init_type_reply = update.init_type_reply;
  port.operational_vls = update.operational_vls;
  if (update.reset_m_key_violations)
    port.m_key_violations = 0;
  if (update.reset_p_key_violations)
    port.p_key_violations = 0;
  if (update.reset_q_key_violations)
    port.q_key_violations = 0;
  port.subnet_timeout = update.subnet_timeout;
  port.local_phy_errors_threshold = update.local_phy_errors_threshold;
  port.overrun_errors_threshold = update.overrun_errors_threshold;
  return changes;
}

void change_state(NicCore& core, const PortInfoUpdate& update) {
  if (update.port_state == ORNIC_PORT_DOWN || update.retrain) {
    // The link retrains at once: a port whose link is up comes back in Init.
    core.set_ib_port_state(ORNIC_PORT_DOWN);
    if (core.ib.phys_state == IbPhysState::link_up)
      core.set_ib_port_state(ORNIC_PORT_INIT);
  } else if (update.port_state != kPortStateNoChange) {
    core.set_ib_port_state(update.port_state);
  }
}

} // namespace

uint16_t port_info(NicCore& core, const SmpRequest& request, SmpData& out) {
  const uint32_t port_number = request.modifier & kPortInfoModPortMask;
  if ((request.modifier & ~(kPortInfoModPortMask | kPortInfoModSmSupportsExtendedSpeeds)) != 0 ||
      port_number > 1)
    return kStatusInvalidField;
  if (!request.set) {
    store_as(out, encode(core.ib, request.hide_m_key));
    return 0;
  }
  const std::optional<PortInfoUpdate> update =
      decode(load_as<PortInfo>(request.data), core.ib,
             (request.modifier & kPortInfoModSmSupportsExtendedSpeeds) != 0);
  if (!update) {
    store_as(out, encode(core.ib, false));
    return kStatusInvalidField;
  }
  const uint32_t changes = apply(core.ib, *update);
  change_state(core, *update);
  if (changes != 0)
    core.post_port_change(changes);
  PortInfo answer = encode(core.ib, false);
  // The response says the reregistration was asked for; later Gets read the bit as 0.
  if (update->client_reregister)
    answer.client_reregister_subnet_timeout |= kPortInfoClientReregister;
  store_as(out, answer);
  return 0;
}

} // namespace ornic::mad
