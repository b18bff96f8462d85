#include "port/wire_faults.hpp"

#include <charconv>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/key_value_list.hpp"

namespace ornic {
namespace {

std::invalid_argument bad(std::string_view what) {
  return std::invalid_argument(std::string(what) +
                               " (expected KEY=VALUE[,...] with keys loss, reorder, dup, "
                               "corrupt as percentages 0-100 and seed as an integer, e.g. "
                               "loss=1%,reorder=1%,dup=0.5%,corrupt=0.1%,seed=7)");
}

double parse_rate(std::string_view key, std::string_view text) {
  if (!text.empty() && text.back() == '%')
    text.remove_suffix(1);
  double percent = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), percent);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    throw bad(std::string(key) + "=" + std::string(text) + " is not a number");
  if (!(percent >= 0 && percent <= 100))
    throw bad(std::string(key) + "=" + std::string(text) + " is outside 0-100 %");
  return percent / 100;
}

} // namespace

WireFaults parse_wire_faults(std::string_view spec) {
  WireFaults faults;
  std::vector<KeyValue> pairs;
  try {
    pairs = split_key_value_list(spec);
  } catch (const std::invalid_argument& e) {
    throw bad(e.what());
  }
  for (const auto& [key, value] : pairs) {
    if (key == "loss") {
      faults.loss = parse_rate(key, value);
    } else if (key == "reorder") {
      faults.reorder = parse_rate(key, value);
    } else if (key == "dup") {
      faults.duplicate = parse_rate(key, value);
    } else if (key == "corrupt") {
      faults.corrupt = parse_rate(key, value);
    } else if (key == "seed") {
      const auto [end, ec] =
          std::from_chars(value.data(), value.data() + value.size(), faults.seed);
      if (ec != std::errc() || end != value.data() + value.size() || value.empty())
        throw bad("seed=" + std::string(value) + " is not an unsigned integer");
    } else {
      throw bad("unknown key '" + std::string(key) + "'");
    }
  }
  return faults;
}

} // namespace ornic
