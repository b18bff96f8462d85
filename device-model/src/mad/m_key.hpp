// M_Key protection of the SMA (IBA 14.2.4.1, 14.2.4.2; infiniband.rst, "M_Key"): whether
// a Get, Set or TrapRepress may go on given the port's M_Key, protection bits and lease.
#pragma once

#include <cstdint>

#include "core/ib_port.hpp"

namespace ornic::mad {

enum class MKeyVerdict {
  pass,
  pass_hiding_key, // a Get at protection level 1 with the wrong key: PortInfo.M_Key reads 0
  violation,       // counted, lease started: the request is consumed without a response
};

// Checks a request of `method` carrying `request_key` at device time `now_ns`. First ends
// an expired lease (the protection bits drop to 0); a request with the port's own non-zero
// key stops a running lease. `ignore` (MAD_IFC's IGNORE_MKEY, the driver's own queries)
// passes without touching the lease.
MKeyVerdict check_m_key(IbPort& port, int64_t now_ns, uint8_t method, uint64_t request_key,
                        bool ignore);

} // namespace ornic::mad
