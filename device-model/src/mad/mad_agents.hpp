// The device's management agents (infiniband.rst, "Management agents (MAD_IFC)"): one
// entry that takes a 256-byte MAD software hands over and says what became of it. The SMA
// (sma.hpp) takes the subnet management classes, the PMA (pma.hpp) PerfMgt; everything
// else is not theirs.
#pragma once

#include <cstdint>

#include "core/hw.hpp"
#include "core/nic_core.hpp"
#include "mad/mad_layout.hpp"

namespace ornic::mad {

enum class Outcome : uint32_t {
  not_handled = ORNIC_MAD_IFC_NOT_HANDLED, // for software's other consumers
  reply = ORNIC_MAD_IFC_REPLY,             // the response is in `out`
  consumed = ORNIC_MAD_IFC_CONSUMED,       // taken; no response is due
};

// How software hands the MAD over (MAD_IFC's flags).
struct MadContext {
  bool ignore_m_key = false; // the driver's own query: no M_Key check
};

// Runs `in` through the agent of its class. `out` is written whole when the outcome is
// reply and is otherwise unspecified. Any 256 bytes are accepted.
Outcome process(NicCore& core, const MadBytes& in, MadBytes& out, const MadContext& context);

} // namespace ornic::mad
