// PCIe configuration space of the function (4096 bytes): type 0 header, a PCI Express
// capability (endpoint, FLR capable) and an MSI-X capability, no extended capabilities.
//
// Guest writes go through per-byte write masks, so read-only fields (IDs, class,
// capability structure) can never be changed and BAR registers size themselves the
// standard way. QEMU emulates the BARs, ROM BAR and MSI-X capability body itself but
// still forwards every write, which keeps Command, Device Control and MSI-X Message
// Control here in sync with the guest.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "pci/function.hpp"

namespace ornic {

// What a config write changed, for the owner of the function to act on.
struct ConfigWriteEffects {
  bool command_changed = false;
  bool msix_control_changed = false;
  bool function_level_reset = false; // Device Control "Initiate FLR" was written as 1
};

class ConfigSpace {
public:
  static constexpr size_t kSize = 4096;
  static constexpr uint8_t kPcieCapOffset = 0x40;
  static constexpr uint8_t kPcieCapSize = 0x3c; // version 2 capability, endpoint
  static constexpr uint8_t kMsixCapOffset = 0x80;
  static constexpr uint8_t kMsixCapSize = 12;

  // Command register bits the function implements.
  static constexpr uint16_t kCommandMemory = 1u << 1;
  static constexpr uint16_t kCommandBusMaster = 1u << 2;
  static constexpr uint16_t kCommandIntxDisable = 1u << 10;

  ConfigSpace(const PciIdentity& identity, const std::array<BarDescriptor, 6>& bars,
              const MsixLayout& msix);

  // offset + data.size() must be <= kSize (checked by the caller).
  void read(uint64_t offset, std::span<std::byte> out) const;
  ConfigWriteEffects write(uint64_t offset, std::span<const std::byte> in);
  void reset(); // power-on values, as after FLR

  uint16_t command() const { return read16(0x04); }
  bool bus_master_enabled() const { return (command() & kCommandBusMaster) != 0; }
  bool msix_enabled() const { return (msix_control() & (1u << 15)) != 0; }
  bool msix_function_masked() const { return (msix_control() & (1u << 14)) != 0; }
  uint16_t msix_control() const { return read16(kMsixCapOffset + 2); }
  uint16_t device_control() const { return read16(kPcieCapOffset + 8); }

private:
  uint16_t read16(size_t offset) const;
  void put8(size_t offset, uint8_t value, uint8_t write_mask = 0);
  void put16(size_t offset, uint16_t value, uint16_t write_mask = 0);
  void put32(size_t offset, uint32_t value, uint32_t write_mask = 0);

  std::array<uint8_t, kSize> bytes_{};
  std::array<uint8_t, kSize> write_mask_{};
  std::array<uint8_t, kSize> power_on_{};
};

} // namespace ornic
