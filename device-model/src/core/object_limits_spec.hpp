// The object counts a model is started with, `--max qp=64,mr=100,...`: each key optional,
// each value from 1 to the device's maximum for it (device_limits.hpp). Lower limits let a
// test see what a guest gets past one without creating a million objects first.
#pragma once

#include <string_view>

#include "core/device_limits.hpp"

namespace ornic {

// Keys: qp, cq, mr, pd, srq, ah, mcast-grp, mcast-attach. Throws std::invalid_argument naming the
// bad key or value.
limits::ObjectLimits parse_object_limits(std::string_view spec);

} // namespace ornic
