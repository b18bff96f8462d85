#include "common/logging.hpp"

#include <array>
#include <utility>

#include <spdlog/sinks/stdout_sinks.h>

namespace ornic {

std::optional<spdlog::level::level_enum> parse_log_level(std::string_view name) {
  using spdlog::level::level_enum;
  static constexpr std::array<std::pair<std::string_view, level_enum>, 8> kLevels{{
      {"trace", level_enum::trace},
      {"debug", level_enum::debug},
      {"info", level_enum::info},
      {"warn", level_enum::warn},
      {"warning", level_enum::warn},
      {"error", level_enum::err},
      {"critical", level_enum::critical},
      {"off", level_enum::off},
  }};
  for (const auto& [text, level] : kLevels)
    if (text == name)
      return level;
  return std::nullopt;
}

void setup_logging(spdlog::level::level_enum level) {
  // Plain (uncoloured) stderr: QEMU test harnesses capture it into log files.
  auto logger = spdlog::stderr_logger_st("ornic");
  logger->set_pattern("[%H:%M:%S.%f] [%n] %^%l%$ %v");
  logger->set_level(level);
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
}

} // namespace ornic
