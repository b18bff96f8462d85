// Blocks all DMA while the function may not master the bus (PCI Command.BME = 0),
// as real hardware would. Failed accesses are counted and logged (rate-limited) so a
// driver that forgot pci_set_master() is easy to spot.
#pragma once

#include "common/rate_limited_log.hpp"
#include "dma/guest_memory.hpp"

namespace ornic {

class GatedGuestMemory : public GuestMemory {
public:
  explicit GatedGuestMemory(GuestMemory& inner) : inner_(inner) {}

  void set_open(bool open) { open_ = open; }
  bool is_open() const { return open_; }
  uint64_t refused_count() const { return refused_.count(); }

  [[nodiscard]] bool read(uint64_t iova, std::span<std::byte> out) override {
    if (!open_)
      return refuse("read", iova, out.size());
    return inner_.read(iova, out);
  }
  [[nodiscard]] bool write(uint64_t iova, std::span<const std::byte> in) override {
    if (!open_)
      return refuse("write", iova, in.size());
    return inner_.write(iova, in);
  }
  [[nodiscard]] bool write_atomic64(uint64_t iova, std::span<const std::byte, 8> in) override {
    if (!open_)
      return refuse("write", iova, in.size());
    return inner_.write_atomic64(iova, in);
  }
  [[nodiscard]] bool persist(uint64_t iova, uint64_t size) override {
    if (!open_)
      return refuse("write-back", iova, size);
    return inner_.persist(iova, size);
  }

private:
  bool refuse(const char* what, uint64_t iova, size_t size) {
    refused_.warn("DMA {} of {} bytes at {:#x} refused: bus mastering is disabled", what, size,
                  iova);
    return false;
  }

  GuestMemory& inner_;
  bool open_ = false;
  RateLimitedLog refused_;
};

} // namespace ornic
