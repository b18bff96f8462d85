#include "core/multicast_groups.hpp"

#include <algorithm>

namespace ornic {

MulticastGroups::Attach MulticastGroups::attach(const Gid& gid, uint32_t qpn) {
  const auto group = groups_.find(gid);
  if (group != groups_.end()) {
    std::vector<uint32_t>& qps = group->second;
    if (std::find(qps.begin(), qps.end(), qpn) != qps.end())
      return Attach::already_attached;
    if (qps.size() >= max_per_group_)
      return Attach::group_full;
  } else if (groups_.size() >= max_groups_) {
    return Attach::no_resources;
  }
  if (attachments_ >= max_total_)
    return Attach::no_resources;
  groups_[gid].push_back(qpn);
  ++attachments_;
  return Attach::attached;
}

bool MulticastGroups::detach(const Gid& gid, uint32_t qpn) {
  const auto group = groups_.find(gid);
  if (group == groups_.end())
    return false;
  std::vector<uint32_t>& qps = group->second;
  const auto member = std::find(qps.begin(), qps.end(), qpn);
  if (member == qps.end())
    return false;
  qps.erase(member);
  --attachments_;
  if (qps.empty())
    groups_.erase(group);
  return true;
}

void MulticastGroups::detach_all(uint32_t qpn) {
  for (auto group = groups_.begin(); group != groups_.end();) {
    std::vector<uint32_t>& qps = group->second;
    const auto removed = std::erase(qps, qpn);
    attachments_ -= removed;
    group = qps.empty() ? groups_.erase(group) : std::next(group);
  }
}

std::vector<uint32_t> MulticastGroups::members(const Gid& gid) const {
  const auto group = groups_.find(gid);
  return group == groups_.end() ? std::vector<uint32_t>{} : group->second;
}

} // namespace ornic
