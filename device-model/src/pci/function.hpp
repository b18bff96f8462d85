// The contract between the NIC core (which implements PciFunctionModel) and the
// pci + vfio_user layers (which own config space, MSI-X and the vfio-user protocol).
#pragma once

#include <array>
#include <cstdint>

#include "dma/guest_memory.hpp"

namespace ornic {

struct PciIdentity {
  uint16_t vendor_id, device_id, subsystem_vendor_id, subsystem_id;
  uint8_t revision;
  uint32_t class_code; // 24-bit: base class << 16 | sub class << 8 | prog-if
};

struct BarDescriptor {
  uint64_t size = 0;    // 0 = absent, else a power of two >= 4096
  bool is_64bit = true; // a 64-bit BAR n uses slot n+1 too, which must then be absent
  bool prefetchable = false;
};

struct MsixLayout {
  unsigned vectors;      // 1..2048
  unsigned bar;          // BAR that holds table and PBA (must be present)
  uint64_t table_offset; // 8-byte aligned, table is vectors * 16 bytes
  uint64_t pba_offset;   // 8-byte aligned, PBA is ceil(vectors / 64) * 8 bytes
};

class InterruptSink {
public:
  virtual ~InterruptSink() = default;
  // Signals MSI-X vector `vector`. Out-of-range vectors are ignored (and counted).
  // Never blocks; a masked vector becomes pending and fires when unmasked.
  virtual void raise(unsigned vector) = 0;
};

class PciFunctionModel { // implemented by the NIC core
public:
  virtual ~PciFunctionModel() = default;
  virtual PciIdentity identity() const = 0;
  virtual std::array<BarDescriptor, 6> bars() const = 0;
  virtual MsixLayout msix() const = 0; // table/PBA are served by the pci layer, not the model
  // size is 1, 2, 4 or 8; offset is inside the BAR and the access does not cross its end
  // (already checked). Accesses to the MSI-X table/PBA never reach the model.
  // Reads of unimplemented registers return 0.
  virtual uint64_t bar_read(unsigned bar, uint64_t offset, unsigned size) = 0;
  virtual void bar_write(unsigned bar, uint64_t offset, unsigned size, uint64_t value) = 0;
  // Back to power-on state. Called on vfio-user DEVICE_RESET, on FLR (PCIe Device
  // Control bit 15) and when the vfio-user client disconnects. NOT called when bus
  // mastering is turned off: like real hardware the function keeps its state, but the
  // pci layer makes every DMA fail (GuestMemory returns false) while Command.BME is 0.
  // After reset() the GuestMemory and InterruptSink from attach() stay valid.
  virtual void reset() = 0;
  // Called once, before any BAR access. Both references outlive the model's use of them.
  virtual void attach(GuestMemory& memory, InterruptSink& irqs) = 0;
};

} // namespace ornic
