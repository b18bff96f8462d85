// The device's counters and state as JSON, for operators (ornic-model writes it on SIGUSR1
// and at exit): every QUERY_COUNTERS counter by name, the object counts, and each QP's
// type, state, ring indices and counters. A snapshot; the guest's view is QUERY_COUNTERS.
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "core/nic_core.hpp"

namespace ornic {

// The name of device counter `id` as the driver shows it (ethtool -S, rdma statistic).
std::string_view counter_name(ornic_counter_id id);

nlohmann::json device_state(const NicCore& core);

} // namespace ornic
