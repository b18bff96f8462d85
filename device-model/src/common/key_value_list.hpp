// The KEY=VALUE[,KEY=VALUE...] lists the model's options take (--wire-faults, --max).
#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace ornic {

using KeyValue = std::pair<std::string_view, std::string_view>;

// The pairs of `spec` in order, viewing into it. Throws std::invalid_argument for an empty
// list or an item without '='; the caller judges keys and values.
std::vector<KeyValue> split_key_value_list(std::string_view spec);

} // namespace ornic
