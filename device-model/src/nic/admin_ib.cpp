// The InfiniBand port's admin commands (admin.rst; infiniband.rst, "Management agents"):
// MAD_IFC, which hands one MAD to the device's SMA or PMA, and MODIFY_PORT, software's part
// of PortInfo. Both exist only on an InfiniBand port.
#include "mad/mad_agents.hpp"
#include "nic/admin_commands.hpp"

namespace ornic {
namespace {

constexpr uint32_t kMaxSourceQp = (1u << 24) - 1;
constexpr uint8_t kMaxServiceLevel = 15;

// The completion fields describe a real receive with HAS_WC and are reserved without it.
bool completion_fields_valid(const ornic_admin_mad_ifc& c, uint32_t flags) {
  if ((flags & ORNIC_MAD_IFC_FLAG_HAS_WC) == 0)
    return c.src_qp == 0 && c.slid == 0 && c.pkey_index == 0 && c.sl == 0 && c.dlid_path_bits == 0;
  return le(c.src_qp) <= kMaxSourceQp && c.sl <= kMaxServiceLevel &&
         le(c.pkey_index) < kIbPkeyTableSize;
}

} // namespace

AdminResult AdminCommands::mad_ifc(const ornic_admin_mad_ifc& c) {
  if (!core_.is_ib())
    return admin_status(ORNIC_ADMIN_STATUS_BAD_OPCODE);
  const uint32_t flags = le(c.flags);
  if ((flags & ~ORNIC_MAD_IFC_FLAGS_ALL) != 0 || c.port != 1 || c.reserved0 != 0 ||
      !field_is_zero(c.reserved1) || !completion_fields_valid(c, flags))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);

  mad::MadBytes in{};
  mad::MadBytes out{};
  // The response buffer is written before the agents run, so that a buffer the device
  // cannot write fails the command before a Set has changed anything.
  if (!core_.memory().read(le(c.in_addr), std::as_writable_bytes(std::span(in))) ||
      !core_.memory().write(le(c.out_addr), std::as_bytes(std::span(in)))) {
    core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
    return admin_status(ORNIC_ADMIN_STATUS_BAD_DMA);
  }
  mad::MadContext context;
  context.ignore_m_key = (flags & ORNIC_MAD_IFC_FLAG_IGNORE_MKEY) != 0;
  const mad::Outcome outcome = mad::process(core_, in, out, context);
  if (outcome == mad::Outcome::reply &&
      !core_.memory().write(le(c.out_addr), std::as_bytes(std::span(out)))) {
    core_.counters.inc(ORNIC_CNT_DMA_ERRORS);
    return admin_status(ORNIC_ADMIN_STATUS_BAD_DMA);
  }
  return admin_ok(static_cast<uint32_t>(outcome));
}

AdminResult AdminCommands::modify_port(const ornic_admin_modify_port& c) {
  if (!core_.is_ib())
    return admin_status(ORNIC_ADMIN_STATUS_BAD_OPCODE);
  const uint32_t set = le(c.set_cap_mask);
  const uint32_t clear = le(c.clr_cap_mask);
  const uint32_t flags = le(c.flags);
  if (((set | clear) & ~ORNIC_PORT_CAP_SW_MASK) != 0 || (set & clear) != 0 ||
      (flags & ~ORNIC_MODIFY_PORT_RESET_QKEY_CNTR) != 0 || c.port != 1 ||
      !field_is_zero(c.reserved0) || !field_is_zero(c.reserved1))
    return admin_status(ORNIC_ADMIN_STATUS_BAD_FIELD);
  // PortInfo Gets read the mask from here: the subnet manager sees the change at its next
  // look (the device sends no trap about it).
  core_.ib.sw_capability_mask = (core_.ib.sw_capability_mask | set) & ~clear;
  if ((flags & ORNIC_MODIFY_PORT_RESET_QKEY_CNTR) != 0)
    core_.ib.q_key_violations = 0;
  return admin_ok();
}

} // namespace ornic
