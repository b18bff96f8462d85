// Process-wide logging setup (spdlog default logger, stderr, "[ornic] level msg").
#pragma once

#include <optional>
#include <string_view>

#include <spdlog/spdlog.h>

namespace ornic {

// "trace", "debug", "info", "warn", "error", "critical" or "off"; nullopt otherwise.
std::optional<spdlog::level::level_enum> parse_log_level(std::string_view name);

// Installs a colourless stderr logger as spdlog's default, named "ornic".
void setup_logging(spdlog::level::level_enum level);

} // namespace ornic
