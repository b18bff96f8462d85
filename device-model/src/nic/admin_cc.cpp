// CC_CONFIG (roce.rst, "Congestion control"): the device-wide ECN, CNP and DCQCN settings,
// read or replaced whole. A SET with any field out of range changes nothing.
#include <optional>

#include "nic/admin_commands.hpp"

namespace ornic {
namespace {

ornic_cc_params to_wire(const cc::CcConfig& config) {
  const cc::DcqcnParams& rp = config.rp;
  ornic_cc_params out{};
  out.flags = to_le<uint32_t>((config.np_enabled ? ORNIC_CC_FLAG_NP_ENABLE : 0) |
                              (config.rp_enabled ? ORNIC_CC_FLAG_RP_ENABLE : 0));
  out.ect = config.ect;
  out.np_cnp_dscp = config.np_cnp_dscp;
  out.np_min_time_between_cnps = to_le(config.np_min_time_between_cnps_us);
  out.rp_max_rate = to_le(rp.max_rate_mbps);
  out.rp_min_rate = to_le(rp.min_rate_mbps);
  out.rp_ai_rate = to_le(rp.ai_rate_mbps);
  out.rp_hai_rate = to_le(rp.hai_rate_mbps);
  out.rp_byte_reset = to_le(rp.byte_reset);
  out.rp_time_reset = to_le(rp.time_reset_us);
  out.rp_threshold = to_le(rp.threshold);
  out.rp_gd = to_le(rp.gd_shift);
  out.rp_initial_alpha_value = to_le(rp.initial_alpha);
  out.rp_dce_tcp_g = to_le(rp.g);
  out.rp_dce_tcp_rtt = to_le(rp.alpha_period_us);
  out.rp_rate_reduce_monitor_period = to_le(rp.rate_reduce_monitor_period_us);
  return out;
}

std::optional<cc::CcConfig> from_wire(const ornic_cc_params& in) {
  cc::CcConfig config;
  cc::DcqcnParams& rp = config.rp;
  const uint32_t flags = le(in.flags);
  if ((flags & ~ORNIC_CC_FLAGS_ALL) != 0 || in.ect > ORNIC_CC_ECT_0 || in.np_cnp_dscp > 63 ||
      in.reserved0 != 0 || in.reserved1 != 0)
    return std::nullopt;
  config.np_enabled = flags & ORNIC_CC_FLAG_NP_ENABLE;
  config.rp_enabled = flags & ORNIC_CC_FLAG_RP_ENABLE;
  config.ect = in.ect;
  config.np_cnp_dscp = in.np_cnp_dscp;
  config.np_min_time_between_cnps_us = le(in.np_min_time_between_cnps);
  rp.max_rate_mbps = le(in.rp_max_rate);
  rp.min_rate_mbps = le(in.rp_min_rate);
  rp.ai_rate_mbps = le(in.rp_ai_rate);
  rp.hai_rate_mbps = le(in.rp_hai_rate);
  rp.byte_reset = le(in.rp_byte_reset);
  rp.time_reset_us = le(in.rp_time_reset);
  rp.threshold = le(in.rp_threshold);
  rp.gd_shift = le(in.rp_gd);
  rp.initial_alpha = le(in.rp_initial_alpha_value);
  rp.g = le(in.rp_dce_tcp_g);
  rp.alpha_period_us = le(in.rp_dce_tcp_rtt);
  rp.rate_reduce_monitor_period_us = le(in.rp_rate_reduce_monitor_period);
  const auto in_range = [](uint32_t value, uint32_t low, uint32_t high) {
    return value >= low && value <= high;
  };
  const bool valid =
      config.np_min_time_between_cnps_us <= ORNIC_CC_MAX_TIME_US &&
      in_range(rp.max_rate_mbps, 1, ORNIC_CC_MAX_RATE_MBPS) &&
      in_range(rp.min_rate_mbps, 1, rp.max_rate_mbps) && rp.ai_rate_mbps <= rp.max_rate_mbps &&
      rp.hai_rate_mbps <= rp.max_rate_mbps && in_range(rp.time_reset_us, 1, ORNIC_CC_MAX_TIME_US) &&
      in_range(rp.threshold, 1, ORNIC_CC_MAX_THRESHOLD) && rp.gd_shift <= ORNIC_CC_MAX_GD &&
      rp.initial_alpha <= ORNIC_CC_ALPHA_ONE && rp.g <= ORNIC_CC_ALPHA_ONE &&
      in_range(rp.alpha_period_us, 1, ORNIC_CC_MAX_TIME_US) &&
      rp.rate_reduce_monitor_period_us <= ORNIC_CC_MAX_TIME_US;
  if (!valid)
    return std::nullopt;
  return config;
}

} // namespace

AdminResult AdminCommands::cc_config(const ornic_admin_cc_config& c) {
  if (!all_zero(bytes_of(c.reserved0)) || !all_zero(bytes_of(c.reserved1)) ||
      c.op > ORNIC_CC_CONFIG_SET)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (c.op == ORNIC_CC_CONFIG_QUERY)
    return write_response(le(c.params_addr), le(c.params_len), bytes_of(to_wire(core_.cc)));
  if (le(c.params_len) < sizeof(ornic_cc_params))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  ornic_cc_params params{};
  if (!core_.memory().read(le(c.params_addr), bytes_of(params))) {
    core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
    return admin_status(ORNIC_ADMIN_STATUS_BAD_DMA);
  }
  const std::optional<cc::CcConfig> config = from_wire(params);
  if (!config)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  // QPs being limited keep the parameters of their episode; the next one takes these.
  core_.cc = *config;
  return admin_ok();
}

} // namespace ornic
