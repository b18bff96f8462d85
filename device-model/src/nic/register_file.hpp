// BAR0 (registers.rst): decodes 32-bit register accesses. It holds the registers that
// are plain storage and reports writes with side effects to NicDevice as an effect.
#pragma once

#include <cstdint>
#include <optional>

#include "core/nic_core.hpp"

namespace ornic {

// What the rest of the device says when a live register is read.
struct RegisterView {
  bool ready = false;
  bool fatal = false;
  uint32_t fatal_code = 0;
  uint32_t aq_head = 0;
  bool link_up = false;
  MacAddress mac{};
  uint32_t bar2_writes = 0;
  uint64_t caps = 0; // those of the port's link layer
};

enum class RegisterEffect { kNone, kBadAccess, kEnable, kDisable, kReset, kAqTail, kAeqDoorbell };

struct RegisterWrite {
  RegisterEffect effect = RegisterEffect::kNone;
  uint32_t value = 0;
};

struct AdminQueueConfig {
  uint64_t sq_base = 0;
  uint64_t cq_base = 0;
  uint32_t depth = 0;
  uint64_t aeq_base = 0;
  uint32_t aeq_depth = 0;

  bool valid() const; // registers.rst, "Device states": what ENABLE accepts
};

class RegisterFile {
public:
  // nullopt: not a register (the caller counts the bad access and reads 0).
  std::optional<uint32_t> read(uint64_t offset, const RegisterView& live) const;
  RegisterWrite write(uint64_t offset, uint32_t value);

  void reset() { *this = RegisterFile{}; }
  const AdminQueueConfig& config() const { return config_; }
  void set_enabled(bool enabled) { enabled_ = enabled; }
  void set_enable_failed(bool failed) { enable_failed_ = failed; }
  bool enabled() const { return enabled_; }

private:
  AdminQueueConfig config_;
  uint32_t scratch_ = 0;
  uint32_t scratch_writes_ = 0;
  bool enabled_ = false;
  bool enable_failed_ = false;
};

} // namespace ornic
