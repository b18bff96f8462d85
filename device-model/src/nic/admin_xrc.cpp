// XRC domains (xrc.rst, admin.rst ALLOC_XRCD / DEALLOC_XRCD). XRC SRQs and target QPs name a
// domain; the domain outlives them all.
#include "nic/admin_commands.hpp"

namespace ornic {

AdminResult AdminCommands::alloc_xrcd() {
  const auto xrcd = core_.resources.xrcds.insert(XrcDomain{});
  if (!xrcd)
    return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  return admin_ok(*xrcd);
}

AdminResult AdminCommands::dealloc_xrcd(const ornic_admin_destroy& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const uint32_t xrcd = le(c.handle);
  auto& r = core_.resources;
  if (r.xrcds.find(xrcd) == nullptr)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  const bool in_use =
      r.srqs.any_of([&](const SharedReceiveQueue& srq) { return srq.xrcd == xrcd; }) ||
      r.qps.any_of([&](const QueuePair& qp) { return qp.xrcd == xrcd; });
  if (in_use)
    return admin_status(ORNIC_ADMIN_STATUS_BUSY);
  r.xrcds.erase(xrcd);
  return admin_ok();
}

} // namespace ornic
