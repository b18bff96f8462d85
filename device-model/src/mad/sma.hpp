// The subnet management agent (infiniband.rst, "Management agents (MAD_IFC)"): SubnLid
// and SubnDirected Get and Set of the port's attributes, under M_Key protection.
#pragma once

#include "core/nic_core.hpp"
#include "mad/mad_agents.hpp"

namespace ornic::mad {

// One SMP: Get or Set answered (reply, with the MAD status and, for a directed-route SMP,
// the direction bit), TrapRepress or a request failing the M_Key check consumed, SMInfo
// and methods other than Get, Set and TrapRepress left to software (not_handled).
Outcome sma_process(NicCore& core, const MadBytes& in, MadBytes& out, const MadContext& context);

} // namespace ornic::mad
