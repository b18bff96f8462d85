// What the admin queue needs of an iWARP port's connection manager (iwarp-cm.rst): it runs
// the IW_* commands itself, since their fields and states are the connection manager's. The
// implementation lives above core (iwarp/cm/); NicDevice plugs it in.
#pragma once

#include <cstdint>

#include "core/hw.hpp"

namespace ornic {

struct IwarpCmResult {
  uint8_t status = ORNIC_ADMIN_STATUS_SUCCESS; // enum ornic_admin_status
  uint32_t result0 = 0;
};

class IwarpCmHooks {
public:
  virtual ~IwarpCmHooks() = default;
  // One IW_* admin command (opcode ORNIC_ADMIN_IW_LISTEN..IW_QUERY_CONN).
  virtual IwarpCmResult admin(const ornic_admin_sqe& command) = 0;
  // Device reset: every listener and connection goes, without events.
  virtual void reset() = 0;
};

} // namespace ornic
