#include "mad/m_key.hpp"

#include "mad/mad_layout.hpp"

namespace ornic::mad {
namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;

void record_violation(IbPort& port, int64_t now_ns) {
  if (port.m_key_violations != UINT16_MAX)
    ++port.m_key_violations;
  // The lease runs from the first violation; later ones do not extend it. A period of 0
  // means the protection never lapses.
  if (port.m_key_lease_period != 0 && port.m_key_lease_deadline_ns == 0)
    port.m_key_lease_deadline_ns = now_ns + int64_t{port.m_key_lease_period} * kNsPerSecond;
}

} // namespace

MKeyVerdict check_m_key(IbPort& port, int64_t now_ns, uint8_t method, uint64_t request_key,
                        bool ignore) {
  if (port.m_key_lease_deadline_ns != 0 && now_ns >= port.m_key_lease_deadline_ns) {
    // The subnet manager that owned the port is gone: another may take it over.
    port.m_key_protect_bits = 0;
    port.m_key_lease_deadline_ns = 0;
  }
  if (ignore || port.m_key == 0)
    return MKeyVerdict::pass;
  if (request_key == port.m_key) {
    port.m_key_lease_deadline_ns = 0;
    return MKeyVerdict::pass;
  }
  switch (port.m_key_protect_bits) {
  case 0:
    return MKeyVerdict::pass;
  case 1:
    if (method == kMethodGet)
      return MKeyVerdict::pass_hiding_key;
    break;
  default: // 2 and 3: Get, Set and TrapRepress all need the key
    break;
  }
  record_violation(port, now_ns);
  return MKeyVerdict::violation;
}

} // namespace ornic::mad
