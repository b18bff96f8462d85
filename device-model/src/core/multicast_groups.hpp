// The port's multicast groups (roce.rst, "Multicast"; admin.rst, ATTACH_MCAST): for each
// group GID, the UD QPs its datagrams are delivered to, in attachment order. Bounded by the
// limits QUERY_DEVICE reports, so a guest cannot make the model grow without end.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace ornic {

class MulticastGroups {
public:
  using Gid = std::array<uint8_t, 16>;
  enum class Attach : uint8_t { attached, already_attached, group_full, no_resources };

  MulticastGroups(size_t max_groups, size_t max_per_group, size_t max_total)
      : max_groups_(max_groups), max_per_group_(max_per_group), max_total_(max_total) {}

  void set_limits(size_t max_groups, size_t max_total) {
    max_groups_ = max_groups;
    max_total_ = max_total;
  }
  size_t max_groups() const { return max_groups_; }
  size_t max_total() const { return max_total_; }
  Attach attach(const Gid& gid, uint32_t qpn);
  // False when the pair was not attached.
  bool detach(const Gid& gid, uint32_t qpn);
  // The QP is destroyed: it leaves every group.
  void detach_all(uint32_t qpn);
  // The QPs attached to `gid` (a copy: delivering may run guest-visible work), empty if none.
  std::vector<uint32_t> members(const Gid& gid) const;
  bool has_group(const Gid& gid) const { return groups_.contains(gid); }
  size_t group_count() const { return groups_.size(); }
  size_t attachment_count() const { return attachments_; }
  void clear() {
    groups_.clear();
    attachments_ = 0;
  }

private:
  size_t max_groups_, max_per_group_, max_total_;
  std::map<Gid, std::vector<uint32_t>> groups_;
  size_t attachments_ = 0;
};

} // namespace ornic
