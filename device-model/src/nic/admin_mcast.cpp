// ATTACH_MCAST / DETACH_MCAST (admin.rst): UD QPs join and leave the port's multicast
// groups, which the packet engine delivers multicast datagrams to (roce.rst, "Multicast").
#include <algorithm>

#include "nic/admin_commands.hpp"
#include "roce/gid.hpp"

namespace ornic {
namespace {

roce::Gid group_of(const ornic_admin_mcast& c) {
  roce::Gid gid{};
  std::copy(std::begin(c.gid), std::end(c.gid), gid.begin());
  return gid;
}

} // namespace

ornic_admin_status AdminCommands::check_mcast(const ornic_admin_mcast& c) const {
  if (c.reserved0 != 0 || !field_is_zero(c.reserved1) || !roce::is_multicast(group_of(c)))
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  const QueuePair* qp = core_.resources.qps.find(le(c.qpn));
  if (qp == nullptr)
    return ORNIC_ADMIN_STATUS_BAD_HANDLE;
  // Only UD QPs take datagrams addressed to QP 0xffffff; the GSI QP serves MADs only.
  if (qp->type != ORNIC_QPT_UD)
    return ORNIC_ADMIN_STATUS_BAD_FIELD;
  return ORNIC_ADMIN_STATUS_SUCCESS;
}

AdminResult AdminCommands::attach_mcast(const ornic_admin_mcast& c) {
  if (const ornic_admin_status status = check_mcast(c); status != ORNIC_ADMIN_STATUS_SUCCESS)
    return admin_status(status);
  switch (core_.resources.mcast.attach(group_of(c), le(c.qpn))) {
  case MulticastGroups::Attach::attached:
  case MulticastGroups::Attach::already_attached:
    return admin_ok();
  case MulticastGroups::Attach::group_full:
    return admin_status(ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED);
  case MulticastGroups::Attach::no_resources:
    break;
  }
  return admin_status(ORNIC_ADMIN_STATUS_NO_RESOURCES);
}

AdminResult AdminCommands::detach_mcast(const ornic_admin_mcast& c) {
  if (const ornic_admin_status status = check_mcast(c); status != ORNIC_ADMIN_STATUS_SUCCESS)
    return admin_status(status);
  if (!core_.resources.mcast.detach(group_of(c), le(c.qpn)))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  return admin_ok();
}

} // namespace ornic
