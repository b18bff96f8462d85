#include "common/key_value_list.hpp"

#include <stdexcept>
#include <string>

namespace ornic {

std::vector<KeyValue> split_key_value_list(std::string_view spec) {
  if (spec.empty())
    throw std::invalid_argument("empty list");
  std::vector<KeyValue> pairs;
  while (!spec.empty()) {
    const size_t comma = spec.find(',');
    const std::string_view item = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      throw std::invalid_argument("'" + std::string(item) + "' has no '='");
    pairs.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return pairs;
}

} // namespace ornic
