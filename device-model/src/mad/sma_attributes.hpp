// The SMA's attribute handlers, one per attribute (sma.cpp dispatches to them). Each takes
// the request's method, modifier and 64 attribute bytes and returns the MAD status; on
// success it has written the whole attribute to `out`, and on a Set whose values are
// refused it leaves the port unchanged and writes the attribute as it stands.
#pragma once

#include <array>
#include <cstdint>

#include "core/nic_core.hpp"
#include "mad/mad_layout.hpp"

namespace ornic::mad {

using SmpData = std::array<uint8_t, kSmpDataSize>;

struct SmpRequest {
  bool set = false; // Set, else Get
  uint32_t modifier = 0;
  SmpData data{};
  bool hide_m_key = false; // PortInfo.M_Key reads 0 (M_Key protection level 1)
};

// sma_node.cpp
uint16_t node_description(NicCore& core, const SmpRequest& request, SmpData& out);
uint16_t node_info(NicCore& core, const SmpRequest& request, SmpData& out);
uint16_t guid_info(NicCore& core, const SmpRequest& request, SmpData& out);
// sma_port_info.cpp
uint16_t port_info(NicCore& core, const SmpRequest& request, SmpData& out);
// sma_tables.cpp
uint16_t pkey_table(NicCore& core, const SmpRequest& request, SmpData& out);
uint16_t sl_to_vl_table(NicCore& core, const SmpRequest& request, SmpData& out);
uint16_t vl_arbitration_table(NicCore& core, const SmpRequest& request, SmpData& out);

} // namespace ornic::mad
