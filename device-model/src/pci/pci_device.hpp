// One PCI function as the vfio-user layer sees it: config space, BARs and MSI-X around
// a PciFunctionModel. Routes region accesses (BARs to the model, except the MSI-X
// table/PBA; config space to ConfigSpace), and carries out resets and FLR.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "common/rate_limited_log.hpp"
#include "dma/gated_guest_memory.hpp"
#include "pci/config_space.hpp"
#include "pci/function.hpp"
#include "pci/msix.hpp"

namespace ornic {

class PciDevice {
public:
  static constexpr unsigned kConfigRegion = 7;    // vfio PCI region index of config space
  static constexpr unsigned kNumRegions = 9;      // BAR0-5, ROM, config, VGA
  static constexpr uint64_t kMaxBarAccess = 4096; // longest BAR read/write we split up

  // Validates the model's layout (throws std::invalid_argument with the reason) and
  // attaches it to `dma` (gated by Command.BME) and to our MSI-X.
  PciDevice(PciFunctionModel& model, GuestMemory& dma);

  // Size of a vfio region (0 = absent).
  uint64_t region_size(unsigned region) const;

  // Return 0 or an errno: EINVAL for a bad region or a range outside it (overflow-safe),
  // E2BIG for a BAR access longer than kMaxBarAccess.
  int region_read(unsigned region, uint64_t offset, std::span<std::byte> out);
  int region_write(unsigned region, uint64_t offset, std::span<const std::byte> in);

  // Device reset (vfio-user DEVICE_RESET, client gone, FLR): model, config space and
  // MSI-X state back to power-on; DMA closed until the guest sets Bus Master again.
  void reset();

  Msix& msix() { return msix_; }
  const ConfigSpace& config() const { return config_; }
  bool dma_enabled() const { return gate_.is_open(); }
  uint64_t flr_count() const { return flr_count_; }

private:
  int check_range(unsigned region, uint64_t offset, uint64_t size) const;
  uint64_t bar_read_chunk(unsigned bar, uint64_t offset, unsigned size);
  void bar_write_chunk(unsigned bar, uint64_t offset, unsigned size, uint64_t value);
  void apply_config_effects(const ConfigWriteEffects& effects);

  PciFunctionModel& model_;
  std::array<BarDescriptor, 6> bars_;
  MsixLayout msix_layout_;
  ConfigSpace config_;
  Msix msix_;
  GatedGuestMemory gate_;
  uint64_t flr_count_ = 0;
};

} // namespace ornic
