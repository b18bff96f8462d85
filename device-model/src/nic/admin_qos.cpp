// SET_PORT_QOS and QUERY_PORT_QOS (admin.rst; ethernet.rst, "Priorities and lossless
// Ethernet"): the port's priority settings, replaced whole, and the per-priority counters.
#include <optional>

#include "nic/admin_commands.hpp"

namespace ornic {

AdminResult AdminCommands::set_port_qos(const ornic_admin_port_qos& c) {
  if (!field_is_zero(c.reserved) || le(c.len) < sizeof(ornic_port_qos))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  ornic_port_qos wire{};
  if (!core_.memory().read(le(c.addr), bytes_of(wire))) {
    core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
    return admin_status(ORNIC_ADMIN_STATUS_BAD_DMA);
  }
  const std::optional<QosConfig> config = PortQos::from_wire(wire);
  if (!config)
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  core_.qos.set_config(*config);
  return admin_ok();
}

AdminResult AdminCommands::query_port_qos(const ornic_admin_port_qos& c) {
  if (!field_is_zero(c.reserved))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  return write_response(le(c.addr), le(c.len), bytes_of(core_.qos.query()));
}

} // namespace ornic
