// A small PciFunctionModel for the pci and vfio_user tests (not a NIC).
//
// BAR0 (64-bit, 64 KiB) registers:
//   0x000-0x0ff  scratch: a read returns what was last written at the same offset
//   0x100        write: raise MSI-X vector <value>
//   0x110        write: DMA address
//   0x118        write: read u64 at the DMA address, add <value>, write it back;
//                0x120 then reads 1 on success, 2 on a refused DMA
// BAR2 (64-bit, 16 KiB): MSI-X table at 0, PBA at 0x2000 (served by the pci layer).
#pragma once

#include <cstring>
#include <map>
#include <vector>

#include "pci/function.hpp"

namespace ornic::testing {

class TestFunctionModel : public PciFunctionModel {
public:
  static constexpr unsigned kVectors = 8;
  static constexpr uint64_t kRegRaise = 0x100;
  static constexpr uint64_t kRegDmaAddress = 0x110;
  static constexpr uint64_t kRegDmaAdd = 0x118;
  static constexpr uint64_t kRegDmaStatus = 0x120;

  struct Write {
    unsigned bar;
    uint64_t offset;
    unsigned size;
    uint64_t value;
  };

  PciIdentity identity() const override {
    return {.vendor_id = 0x1de5,
            .device_id = 0x0001,
            .subsystem_vendor_id = 0x1de5,
            .subsystem_id = 0x0101,
            .revision = 0x02,
            .class_code = 0x020000};
  }
  std::array<BarDescriptor, 6> bars() const override {
    std::array<BarDescriptor, 6> bars{};
    bars[0] = {.size = 64 * 1024, .is_64bit = true, .prefetchable = false};
    bars[2] = {.size = 16 * 1024, .is_64bit = true, .prefetchable = false};
    return bars;
  }
  MsixLayout msix() const override {
    return {.vectors = kVectors, .bar = 2, .table_offset = 0, .pba_offset = 0x2000};
  }

  uint64_t bar_read(unsigned bar, uint64_t offset, unsigned size) override {
    ++reads;
    if (bar == 0 && offset == kRegDmaStatus)
      return dma_status;
    auto it = scratch.find({bar, offset});
    if (it == scratch.end())
      return 0;
    return size == 8 ? it->second : it->second & ((uint64_t{1} << (8 * size)) - 1);
  }

  void bar_write(unsigned bar, uint64_t offset, unsigned size, uint64_t value) override {
    writes.push_back({bar, offset, size, value});
    if (bar != 0) {
      return;
    } else if (offset == kRegRaise) {
      irqs->raise(static_cast<unsigned>(value));
    } else if (offset == kRegDmaAddress) {
      dma_address = value;
    } else if (offset == kRegDmaAdd) {
      std::array<std::byte, 8> buf{};
      uint64_t current = 0;
      dma_status = 2;
      if (memory->read(dma_address, buf)) {
        std::memcpy(&current, buf.data(), 8);
        current += value;
        std::memcpy(buf.data(), &current, 8);
        if (memory->write(dma_address, buf))
          dma_status = 1;
      }
    } else if (offset < 0x100) {
      scratch[{bar, offset}] = value;
    }
  }

  void reset() override {
    ++resets;
    scratch.clear();
    dma_status = 0;
    dma_address = 0;
  }

  void attach(GuestMemory& m, InterruptSink& i) override {
    ++attaches;
    memory = &m;
    irqs = &i;
  }

  GuestMemory* memory = nullptr;
  InterruptSink* irqs = nullptr;
  std::map<std::pair<unsigned, uint64_t>, uint64_t> scratch;
  std::vector<Write> writes;
  uint64_t reads = 0;
  int resets = 0;
  int attaches = 0;
  uint64_t dma_address = 0;
  uint64_t dma_status = 0;
};

} // namespace ornic::testing
