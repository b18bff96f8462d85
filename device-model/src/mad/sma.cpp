#include "mad/sma.hpp"

#include "mad/m_key.hpp"
#include "mad/sma_attributes.hpp"

namespace ornic::mad {
namespace {

using Handler = uint16_t (*)(NicCore&, const SmpRequest&, SmpData&);

struct AttributeEntry {
  uint16_t id;
  Handler handler;
  bool settable;
};

// infiniband.rst's table of SMA attributes. GUIDInfo takes a Set, which changes nothing
// (its one GUID is read-only).
constexpr AttributeEntry kAttributes[] = {
    {kAttrNodeDescription, node_description, false},
    {kAttrNodeInfo, node_info, false},
    {kAttrGuidInfo, guid_info, true},
    {kAttrPortInfo, port_info, true},
    {kAttrPkeyTable, pkey_table, true},
    {kAttrSlToVlTable, sl_to_vl_table, true},
    {kAttrVlArbitrationTable, vl_arbitration_table, true},
};

const AttributeEntry* find_attribute(uint16_t id) {
  for (const AttributeEntry& entry : kAttributes)
    if (entry.id == id)
      return &entry;
  return nullptr;
}

uint16_t answer(NicCore& core, const Smp& request, bool hide_m_key, Smp& response) {
  const MadHeader& header = request.header;
  if (header.base_version != kBaseVersion || header.class_version != kSmpClassVersion)
    return kStatusBadVersion;
  const AttributeEntry* attribute = find_attribute(header.attribute_id.get());
  const bool set = header.method == kMethodSet;
  if (attribute == nullptr || (set && !attribute->settable))
    return kStatusUnsupportedMethodAttr;
  SmpRequest call;
  call.set = set;
  call.modifier = header.attribute_modifier.get();
  call.data = request.data;
  call.hide_m_key = hide_m_key;
  return attribute->handler(core, call, response.data);
}

} // namespace

Outcome sma_process(NicCore& core, const MadBytes& in, MadBytes& out, const MadContext& context) {
  const auto request = load_as<Smp>(in);
  const uint8_t method = request.header.method;
  if (method != kMethodGet && method != kMethodSet && method != kMethodTrapRepress)
    return Outcome::not_handled;
  // SMInfo is the subnet manager's own attribute, answered by its software.
  if (request.header.attribute_id.get() == kAttrSmInfo)
    return Outcome::not_handled;

  const MKeyVerdict verdict = check_m_key(core.ib, static_cast<int64_t>(core.clock_ns()), method,
                                          request.m_key.get(), context.ignore_m_key);
  // The device sends no traps, so a TrapRepress has nothing to stop.
  if (verdict == MKeyVerdict::violation || method == kMethodTrapRepress)
    return Outcome::consumed;

  Smp response = request;
  const uint16_t status = answer(core, request, verdict == MKeyVerdict::pass_hiding_key, response);
  response.header.method = kMethodGetResp;
  response.header.status.set(static_cast<uint16_t>(
      status | (request.header.mgmt_class == kClassSubnDirected ? kSmpDirection : 0)));
  store_as(out, response);
  return Outcome::reply;
}

} // namespace ornic::mad
