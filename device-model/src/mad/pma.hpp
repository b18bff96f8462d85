// The performance management agent (infiniband.rst, "Management agents (MAD_IFC)"):
// PerfMgt ClassPortInfo, PortCounters and PortCountersExtended over the port's counters.
#pragma once

#include "core/nic_core.hpp"
#include "mad/mad_agents.hpp"

namespace ornic::mad {

// One PerfMgt MAD: Get and Set answered (reply), other methods left to software.
Outcome pma_process(NicCore& core, const MadBytes& in, MadBytes& out);

} // namespace ornic::mad
