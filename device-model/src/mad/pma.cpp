// The counters are IbPort's 64-bit ones: PortCountersExtended shows them whole, PortCounters
// in its narrow fields, stopping at their maximum as IBA 16.1.3.5 has counters do. Both
// views read the same counters, so clearing one through either clears it in both.
#include "mad/pma.hpp"

#include <algorithm>
#include <limits>

#include "mad/pma_attributes.hpp"

namespace ornic::mad {
namespace {

using PmaData = std::array<uint8_t, kPmaDataSize>;

template <typename T>
T saturate(uint64_t value) {
  return static_cast<T>(std::min<uint64_t>(value, std::numeric_limits<T>::max()));
}
uint8_t saturate4(uint64_t value) {
  return static_cast<uint8_t>(std::min<uint64_t>(value, 0x0f));
}

// A channel adapter's one port: by its number, through AllPortSelect, or as port 0, which
// perfquery sends when it is given a LID and no port (a CA has no port 0 to mean otherwise).
bool selects_this_port(uint8_t port_select) {
  return port_select <= 1 || port_select == kAllPortSelect;
}

uint16_t class_port_info(const IbPort& port, bool set, PmaData& out) {
  if (set)
    return kStatusUnsupportedMethodAttr;
  ClassPortInfo info{};
  info.base_version = kBaseVersion;
  info.class_version = kPmaClassVersion;
  info.capability_mask.set(kPmaCapAllPortSelect | kPmaCapExtendedWidth);
  info.capability_mask2_resp_time_value.set(port.resp_time_value & 0x1f);
  out.fill(0);
  store_as(out, info);
  return 0;
}

void clear_selected(IbPortCounters& c, uint16_t select) {
  const std::pair<uint16_t, uint64_t*> counters[] = {
      {kSelSymbolError, &c.symbol_errors},
      {kSelLinkErrorRecovery, &c.link_error_recovery},
      {kSelLinkDowned, &c.link_downed},
      {kSelRcvErrors, &c.rcv_errors},
      {kSelRcvRemotePhysicalErrors, &c.rcv_remote_physical_errors},
      {kSelRcvSwitchRelayErrors, &c.rcv_switch_relay_errors},
      {kSelXmitDiscards, &c.xmit_discards},
      {kSelXmitConstraintErrors, &c.xmit_constraint_errors},
      {kSelRcvConstraintErrors, &c.rcv_constraint_errors},
      {kSelLocalLinkIntegrityErrors, &c.local_link_integrity_errors},
      {kSelExcessiveBufferOverruns, &c.excessive_buffer_overrun_errors},
      {kSelVl15Dropped, &c.vl15_dropped},
      {kSelXmitData, &c.xmit_data_words},
      {kSelRcvData, &c.rcv_data_words},
      {kSelXmitPackets, &c.xmit_packets},
      {kSelRcvPackets, &c.rcv_packets},
  };
  for (const auto& [bit, counter] : counters)
    if ((select & bit) != 0)
      *counter = 0;
}

// PortXmitWait is not offered (ClassPortInfo has no IsPortXmitWaitSupported): it reads 0
// and CounterSelect2 is ignored.
uint16_t port_counters(IbPortCounters& c, bool set, const PmaData& request, PmaData& out) {
  const auto in = load_as<PortCounters>(request);
  if (!selects_this_port(in.port_select))
    return kStatusInvalidField;
  if (set)
    clear_selected(c, in.counter_select.get());
  PortCounters counters{};
  counters.port_select = in.port_select;
  counters.counter_select = in.counter_select;
  counters.symbol_error_counter.set(saturate<uint16_t>(c.symbol_errors));
  counters.link_error_recovery_counter = saturate<uint8_t>(c.link_error_recovery);
  counters.link_downed_counter = saturate<uint8_t>(c.link_downed);
  counters.port_rcv_errors.set(saturate<uint16_t>(c.rcv_errors));
  counters.port_rcv_remote_physical_errors.set(saturate<uint16_t>(c.rcv_remote_physical_errors));
  counters.port_rcv_switch_relay_errors.set(saturate<uint16_t>(c.rcv_switch_relay_errors));
  counters.port_xmit_discards.set(saturate<uint16_t>(c.xmit_discards));
  counters.port_xmit_constraint_errors = saturate<uint8_t>(c.xmit_constraint_errors);
  counters.port_rcv_constraint_errors = saturate<uint8_t>(c.rcv_constraint_errors);
  counters.local_link_integrity_excessive_buffer_overrun = nibbles(
      saturate4(c.local_link_integrity_errors), saturate4(c.excessive_buffer_overrun_errors));
  counters.vl15_dropped.set(saturate<uint16_t>(c.vl15_dropped));
  counters.port_xmit_data.set(saturate<uint32_t>(c.xmit_data_words));
  counters.port_rcv_data.set(saturate<uint32_t>(c.rcv_data_words));
  counters.port_xmit_packets.set(saturate<uint32_t>(c.xmit_packets));
  counters.port_rcv_packets.set(saturate<uint32_t>(c.rcv_packets));
  out.fill(0);
  store_as(out, counters);
  return 0;
}

uint16_t port_counters_extended(IbPortCounters& c, bool set, const PmaData& request, PmaData& out) {
  const auto in = load_as<PortCountersExtended>(request);
  if (!selects_this_port(in.port_select))
    return kStatusInvalidField;
  const std::pair<uint16_t, uint64_t*> counters[] = {
      {kSelxXmitData, &c.xmit_data_words},
      {kSelxRcvData, &c.rcv_data_words},
      {kSelxXmitPackets, &c.xmit_packets},
      {kSelxRcvPackets, &c.rcv_packets},
      {kSelxUnicastXmitPackets, &c.unicast_xmit_packets},
      {kSelxUnicastRcvPackets, &c.unicast_rcv_packets},
      {kSelxMulticastXmitPackets, &c.multicast_xmit_packets},
      {kSelxMulticastRcvPackets, &c.multicast_rcv_packets},
  };
  if (set)
    for (const auto& [bit, counter] : counters)
      if ((in.counter_select.get() & bit) != 0)
        *counter = 0;
  PortCountersExtended extended{};
  extended.port_select = in.port_select;
  extended.counter_select = in.counter_select;
  extended.port_xmit_data.set(c.xmit_data_words);
  extended.port_rcv_data.set(c.rcv_data_words);
  extended.port_xmit_packets.set(c.xmit_packets);
  extended.port_rcv_packets.set(c.rcv_packets);
  extended.port_unicast_xmit_packets.set(c.unicast_xmit_packets);
  extended.port_unicast_rcv_packets.set(c.unicast_rcv_packets);
  extended.port_multicast_xmit_packets.set(c.multicast_xmit_packets);
  extended.port_multicast_rcv_packets.set(c.multicast_rcv_packets);
  out.fill(0);
  store_as(out, extended);
  return 0;
}

uint16_t answer(NicCore& core, const PmaMad& request, PmaData& out) {
  const MadHeader& header = request.header;
  if (header.base_version != kBaseVersion || header.class_version != kPmaClassVersion)
    return kStatusBadVersion;
  const bool set = header.method == kMethodSet;
  const uint16_t attribute = header.attribute_id.get();
  if (attribute != kAttrClassPortInfo && attribute != kAttrPortCounters &&
      attribute != kAttrPortCountersExtended)
    return kStatusUnsupportedMethodAttr;
  if (header.attribute_modifier.get() != 0)
    return kStatusInvalidField;
  switch (attribute) {
  case kAttrClassPortInfo:
    return class_port_info(core.ib, set, out);
  case kAttrPortCounters:
    return port_counters(core.ib.counters, set, request.data, out);
  default:
    return port_counters_extended(core.ib.counters, set, request.data, out);
  }
}

} // namespace

Outcome pma_process(NicCore& core, const MadBytes& in, MadBytes& out) {
  const auto request = load_as<PmaMad>(in);
  if (request.header.method != kMethodGet && request.header.method != kMethodSet)
    return Outcome::not_handled;
  PmaMad response = request;
  const uint16_t status = answer(core, request, response.data);
  response.header.method = kMethodGetResp;
  response.header.status.set(status);
  store_as(out, response);
  return Outcome::reply;
}

} // namespace ornic::mad
