#include "mad/mad_agents.hpp"

#include "mad/pma.hpp"
#include "mad/sma.hpp"

namespace ornic::mad {

Outcome process(NicCore& core, const MadBytes& in, MadBytes& out, const MadContext& context) {
  const auto header = load_as<MadHeader>(in);
  // Responses, traps and reports are for the subnet or performance manager software runs,
  // not for the agents that answer requests.
  if (is_response_method(header.method))
    return Outcome::not_handled;
  switch (header.mgmt_class) {
  case kClassSubnLid:
  case kClassSubnDirected:
    return sma_process(core, in, out, context);
  case kClassPerfMgt:
    return pma_process(core, in, out);
  default:
    return Outcome::not_handled;
  }
}

} // namespace ornic::mad
