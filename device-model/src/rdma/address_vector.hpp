// Every address the device sends to (roce.rst, "Encapsulation") — a connected QP's
// attributes, an AH, a kernel UD WQE's inline vector — takes one shape, ornic_wqe_av, and
// one function (the framing's route(), iba/framing.hpp) turns it into a packet's
// addressing, so the three cannot drift apart.
#pragma once

#include "core/nic_core.hpp"

namespace ornic {

ornic_wqe_av address_vector_of(const ornic_qp_attr& attr);
ornic_wqe_av address_vector_of(const ornic_admin_create_ah& ah);

} // namespace ornic
