#include "core/object_limits_spec.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <stdexcept>
#include <string>

#include "common/key_value_list.hpp"

namespace ornic {
namespace {

struct Key {
  std::string_view name;
  uint32_t limits::ObjectLimits::* field;
};
constexpr Key kKeys[] = {
    {"qp", &limits::ObjectLimits::qp},
    {"cq", &limits::ObjectLimits::cq},
    {"mr", &limits::ObjectLimits::mr},
    {"pd", &limits::ObjectLimits::pd},
    {"srq", &limits::ObjectLimits::srq},
    {"ah", &limits::ObjectLimits::ah},
    {"mcast-grp", &limits::ObjectLimits::mcast_grp},
    {"mcast-attach", &limits::ObjectLimits::mcast_attach},
};

} // namespace

limits::ObjectLimits parse_object_limits(std::string_view spec) {
  limits::ObjectLimits result;
  const limits::ObjectLimits maxima;
  for (const auto& [key, text] : split_key_value_list(spec)) {
    const auto* known = std::find_if(std::begin(kKeys), std::end(kKeys),
                                     [&](const Key& k) { return k.name == key; });
    if (known == std::end(kKeys))
      throw std::invalid_argument("unknown key '" + std::string(key) + "'");
    uint32_t* field = &(result.*known->field);
    const uint32_t maximum = maxima.*known->field;
    uint32_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty() || value < 1 ||
        value > maximum)
      throw std::invalid_argument(std::string(key) + "=" + std::string(text) +
                                  " is not a count from 1 to " + std::to_string(maximum));
    *field = value;
  }
  return result;
}

} // namespace ornic
