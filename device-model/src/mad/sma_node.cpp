// NodeDescription, NodeInfo and GUIDInfo (infiniband.rst, "Identity"): what the node is,
// fixed when the device starts.
#include <algorithm>

#include "mad/sma_attributes.hpp"
#include "mad/smp_attributes.hpp"

namespace ornic::mad {

uint16_t node_description(NicCore& core, const SmpRequest& request, SmpData& out) {
  if (request.modifier != 0)
    return kStatusInvalidField;
  out.fill(0);
  const std::string& text = core.ib.node_description;
  std::copy_n(text.begin(), std::min(text.size(), out.size()), out.begin());
  return 0;
}

uint16_t node_info(NicCore& core, const SmpRequest& request, SmpData& out) {
  if (request.modifier != 0)
    return kStatusInvalidField;
  NodeInfo info{};
  info.base_version = kBaseVersion;
  info.class_version = kSmpClassVersion;
  info.node_type = kNodeTypeChannelAdapter;
  info.num_ports = 1;
  info.system_image_guid.set(core.ib.node_guid);
  info.node_guid.set(core.ib.node_guid);
  info.port_guid.set(core.ib.port_guid);
  info.partition_cap.set(kIbPkeyTableSize);
  info.device_id.set(ORNIC_PCI_DEVICE_ID);
  info.revision.set(ORNIC_PCI_REVISION);
  info.local_port_num = 1;
  Be32 vendor;
  vendor.set(ORNIC_PCI_VENDOR_ID);
  std::copy(vendor.bytes.begin() + 1, vendor.bytes.end(), info.vendor_id.begin());
  out.fill(0);
  store_as(out, info);
  return 0;
}

// One block of eight GUIDs; GUIDCap is 1, so only block 0 exists and its entry 0, the port
// GUID, is the only one. A Set cannot change it and is answered with the block as it is.
uint16_t guid_info(NicCore& core, const SmpRequest& request, SmpData& out) {
  if (request.modifier != 0)
    return kStatusInvalidField;
  GuidInfoBlock block{};
  block[0].set(core.ib.port_guid);
  store_as(out, block);
  return 0;
}

} // namespace ornic::mad
