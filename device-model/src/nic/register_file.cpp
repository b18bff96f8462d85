#include "nic/register_file.hpp"

#include "common/release_version.hpp"
#include "core/device_limits.hpp"

namespace ornic {
namespace {

uint32_t low(uint64_t v) {
  return static_cast<uint32_t>(v);
}
uint32_t high(uint64_t v) {
  return static_cast<uint32_t>(v >> 32);
}
void set_low(uint64_t& v, uint32_t x) {
  v = (v & 0xffffffff00000000ull) | x;
}
void set_high(uint64_t& v, uint32_t x) {
  v = (v & 0xffffffffull) | (uint64_t{x} << 32);
}

bool ring_ok(uint64_t base, uint32_t depth, uint32_t min_depth, uint32_t max_depth) {
  return base != 0 && (base & 63) == 0 && is_power_of_two(depth) && depth >= min_depth &&
         depth <= max_depth;
}

constexpr uint32_t kFwVersion = ORNIC_FW_VERSION(release::kMajor, release::kMinor, release::kPatch);
static_assert(ORNIC_FW_VERSION_MAJOR(kFwVersion) == release::kMajor &&
                  ORNIC_FW_VERSION_MINOR(kFwVersion) == release::kMinor &&
                  ORNIC_FW_VERSION_PATCH(kFwVersion) == release::kPatch,
              "the release version does not fit FW_VERSION");

} // namespace

bool AdminQueueConfig::valid() const {
  return ring_ok(sq_base, depth, ORNIC_AQ_DEPTH_MIN, ORNIC_AQ_DEPTH_MAX) &&
         ring_ok(cq_base, depth, ORNIC_AQ_DEPTH_MIN, ORNIC_AQ_DEPTH_MAX) &&
         ring_ok(aeq_base, aeq_depth, ORNIC_AEQ_DEPTH_MIN, ORNIC_AEQ_DEPTH_MAX);
}

std::optional<uint32_t> RegisterFile::read(uint64_t offset, const RegisterView& live) const {
  switch (offset) {
  case ORNIC_REG_MAGIC:
    return ORNIC_MAGIC;
  case ORNIC_REG_VERSION:
    return ORNIC_SPEC_VERSION;
  case ORNIC_REG_FW_VERSION:
    return kFwVersion;
  case ORNIC_REG_CAPS_LO:
    return low(live.caps);
  case ORNIC_REG_CAPS_HI:
    return high(live.caps);
  case ORNIC_REG_DEV_CTRL:
    return enabled_ ? ORNIC_DEV_CTRL_ENABLE : 0u;
  case ORNIC_REG_DEV_STATUS: {
    uint32_t status = 0;
    if (live.ready && !live.fatal)
      status |= ORNIC_DEV_STATUS_READY;
    if (live.fatal)
      status |= ORNIC_DEV_STATUS_FATAL;
    if (enable_failed_)
      status |= ORNIC_DEV_STATUS_ENABLE_FAILED;
    return status; // RESETTING never shows: the model resets synchronously
  }
  case ORNIC_REG_FATAL_CODE:
    return live.fatal ? live.fatal_code
                      : (enable_failed_ ? uint32_t{ORNIC_FATAL_BAD_CONFIG} : uint32_t{0});
  case ORNIC_REG_ADMIN_TIMEOUT_MS:
    return limits::kAdminTimeoutMs;
  case ORNIC_REG_RESET_TIMEOUT_MS:
    return limits::kResetTimeoutMs;
  case ORNIC_REG_DB_PAGES:
    return ORNIC_DB_PAGES;
  case ORNIC_REG_MSIX_VECTORS:
    return ORNIC_MSIX_VECTORS;
  case ORNIC_REG_SCRATCH:
    return scratch_;
  case ORNIC_REG_SCRATCH_WRITES:
    return scratch_writes_;
  case ORNIC_REG_BAR2_WRITES:
    return live.bar2_writes;
  case ORNIC_REG_AQ_SQ_BASE_LO:
    return low(config_.sq_base);
  case ORNIC_REG_AQ_SQ_BASE_HI:
    return high(config_.sq_base);
  case ORNIC_REG_AQ_CQ_BASE_LO:
    return low(config_.cq_base);
  case ORNIC_REG_AQ_CQ_BASE_HI:
    return high(config_.cq_base);
  case ORNIC_REG_AQ_DEPTH:
    return config_.depth;
  case ORNIC_REG_AQ_SQ_TAIL:
  case ORNIC_REG_AEQ_DB:
    return 0u; // write-only
  case ORNIC_REG_AQ_SQ_HEAD:
    return live.aq_head;
  case ORNIC_REG_AEQ_BASE_LO:
    return low(config_.aeq_base);
  case ORNIC_REG_AEQ_BASE_HI:
    return high(config_.aeq_base);
  case ORNIC_REG_AEQ_DEPTH:
    return config_.aeq_depth;
  case ORNIC_REG_LINK_STATUS:
    return (live.link_up ? ORNIC_LINK_STATUS_UP : 0u) |
           (limits::kSpeedGbps << ORNIC_LINK_STATUS_SPEED_SHIFT);
  case ORNIC_REG_MAC_LO:
    return uint32_t{live.mac[0]} | uint32_t{live.mac[1]} << 8 | uint32_t{live.mac[2]} << 16 |
           uint32_t{live.mac[3]} << 24;
  case ORNIC_REG_MAC_HI:
    return uint32_t{live.mac[4]} | uint32_t{live.mac[5]} << 8;
  default:
    return std::nullopt;
  }
}

RegisterWrite RegisterFile::write(uint64_t offset, uint32_t value) {
  // Ring configuration is sampled at enable; changing it under a running device would
  // let the driver move rings the device is using.
  auto config_write = [&](auto apply) {
    if (enabled_)
      return RegisterWrite{RegisterEffect::kBadAccess, 0};
    apply();
    return RegisterWrite{};
  };
  switch (offset) {
  case ORNIC_REG_DEV_CTRL:
    if (value & ORNIC_DEV_CTRL_RESET)
      return {RegisterEffect::kReset, 0};
    if ((value & ORNIC_DEV_CTRL_ENABLE) && !enabled_)
      return {RegisterEffect::kEnable, 0};
    if (!(value & ORNIC_DEV_CTRL_ENABLE) && enabled_)
      return {RegisterEffect::kDisable, 0};
    return {};
  case ORNIC_REG_SCRATCH:
    scratch_ = value;
    ++scratch_writes_;
    return {};
  case ORNIC_REG_AQ_SQ_BASE_LO:
    return config_write([&] { set_low(config_.sq_base, value); });
  case ORNIC_REG_AQ_SQ_BASE_HI:
    return config_write([&] { set_high(config_.sq_base, value); });
  case ORNIC_REG_AQ_CQ_BASE_LO:
    return config_write([&] { set_low(config_.cq_base, value); });
  case ORNIC_REG_AQ_CQ_BASE_HI:
    return config_write([&] { set_high(config_.cq_base, value); });
  case ORNIC_REG_AQ_DEPTH:
    return config_write([&] { config_.depth = value; });
  case ORNIC_REG_AEQ_BASE_LO:
    return config_write([&] { set_low(config_.aeq_base, value); });
  case ORNIC_REG_AEQ_BASE_HI:
    return config_write([&] { set_high(config_.aeq_base, value); });
  case ORNIC_REG_AEQ_DEPTH:
    return config_write([&] { config_.aeq_depth = value; });
  case ORNIC_REG_AQ_SQ_TAIL:
    return {RegisterEffect::kAqTail, value};
  case ORNIC_REG_AEQ_DB:
    return {RegisterEffect::kAeqDoorbell, value};
  default:
    return {RegisterEffect::kBadAccess, 0};
  }
}

} // namespace ornic
