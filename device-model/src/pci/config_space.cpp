#include "pci/config_space.hpp"

#include <cstring>

namespace ornic {
namespace {

// Type 0 header offsets.
constexpr size_t kVendorId = 0x00;
constexpr size_t kDeviceId = 0x02;
constexpr size_t kCommand = 0x04;
constexpr size_t kStatus = 0x06;
constexpr size_t kRevision = 0x08;
constexpr size_t kClassCode = 0x09;
constexpr size_t kCacheLineSize = 0x0c;
constexpr size_t kLatencyTimer = 0x0d;
constexpr size_t kHeaderType = 0x0e;
constexpr size_t kBar0 = 0x10;
constexpr size_t kSubsystemVendorId = 0x2c;
constexpr size_t kSubsystemId = 0x2e;
constexpr size_t kCapabilitiesPointer = 0x34;
constexpr size_t kInterruptLine = 0x3c;
constexpr size_t kInterruptPin = 0x3d;

constexpr uint16_t kStatusCapList = 1u << 4;
constexpr uint16_t kCommandWritable = ConfigSpace::kCommandMemory | ConfigSpace::kCommandBusMaster |
                                      (1u << 6) /* parity */ | (1u << 8) /* SERR# */ |
                                      ConfigSpace::kCommandIntxDisable;

constexpr uint8_t kCapIdPcie = 0x10;
constexpr uint8_t kCapIdMsix = 0x11;

// PCI Express capability fields (offsets from the capability start).
constexpr size_t kPcieCaps = 0x02;
constexpr size_t kDevCap = 0x04;
constexpr size_t kDevCtl = 0x08;
constexpr size_t kLinkCap = 0x0c;
constexpr size_t kLinkStatus = 0x12;
constexpr size_t kDevCap2 = 0x24;
constexpr size_t kDevCtl2 = 0x28;
constexpr size_t kLinkCap2 = 0x2c;
constexpr size_t kLinkCtl2 = 0x30;

constexpr uint16_t kPcieCapVersion2Endpoint = 0x0002; // version 2, device/port type 0
// Max payload 512 bytes, role-based error reporting, FLR capable.
constexpr uint32_t kDevCapValue = 0x2u | (1u << 15) | (1u << 28);
// Correctable/non-fatal/fatal/UR reporting, relaxed ordering, max payload, extended tag,
// phantom, aux power, no snoop, max read request: everything but bridge retry / FLR.
constexpr uint16_t kDevCtlWritable = 0x7fff;
constexpr uint16_t kDevCtlInitiateFlr = 1u << 15;
// Power-on: relaxed ordering + no snoop enabled, 128-byte payload, 512-byte read request.
constexpr uint16_t kDevCtlPowerOn = (1u << 4) | (1u << 11) | (2u << 12);
// 8 GT/s x8 link, ASPM not supported, port number 0.
constexpr uint32_t kLinkCapValue = 0x3u | (8u << 4);
constexpr uint16_t kLinkStatusValue = 0x3u | (8u << 4);
constexpr uint32_t kDevCap2Value = 0x1fu; // completion timeout ranges A-D + disable supported
constexpr uint16_t kDevCtl2Writable = 0x001f;
constexpr uint32_t kLinkCap2Value = 0x0eu; // 2.5, 5 and 8 GT/s supported
constexpr uint16_t kLinkCtl2Value = 0x3u;  // target link speed 8 GT/s

// MSI-X capability fields.
constexpr uint16_t kMsixControlWritable = (1u << 15) | (1u << 14); // enable, function mask

} // namespace

ConfigSpace::ConfigSpace(const PciIdentity& identity, const std::array<BarDescriptor, 6>& bars,
                         const MsixLayout& msix) {
  put16(kVendorId, identity.vendor_id);
  put16(kDeviceId, identity.device_id);
  put16(kCommand, 0, kCommandWritable);
  put16(kStatus, kStatusCapList);
  put8(kRevision, identity.revision);
  put8(kClassCode, static_cast<uint8_t>(identity.class_code));
  put8(kClassCode + 1, static_cast<uint8_t>(identity.class_code >> 8));
  put8(kClassCode + 2, static_cast<uint8_t>(identity.class_code >> 16));
  put8(kCacheLineSize, 0, 0xff);
  put8(kLatencyTimer, 0, 0xff);
  put8(kHeaderType, 0); // type 0, single function
  put16(kSubsystemVendorId, identity.subsystem_vendor_id);
  put16(kSubsystemId, identity.subsystem_id);
  put8(kCapabilitiesPointer, kPcieCapOffset);
  put8(kInterruptLine, 0, 0xff);
  put8(kInterruptPin, 0); // MSI-X only

  // BARs: type bits read-only, address bits above the size writable (sizing protocol).
  for (size_t i = 0; i < bars.size(); ++i) {
    const BarDescriptor& bar = bars[i];
    const size_t reg = kBar0 + 4 * i;
    if (bar.size == 0)
      continue;
    const uint64_t address_mask = ~(bar.size - 1);
    uint32_t type = bar.prefetchable ? 0x8u : 0u;
    if (bar.is_64bit)
      type |= 0x4u;
    put32(reg, type, static_cast<uint32_t>(address_mask) & ~0xfu);
    if (bar.is_64bit && i + 1 < bars.size()) {
      put32(reg + 4, 0, static_cast<uint32_t>(address_mask >> 32));
      ++i;
    }
  }
  // 0x30 expansion ROM BAR: absent, reads 0, not writable.

  const size_t p = kPcieCapOffset;
  put8(p, kCapIdPcie);
  put8(p + 1, kMsixCapOffset);
  put16(p + kPcieCaps, kPcieCapVersion2Endpoint);
  put32(p + kDevCap, kDevCapValue);
  put16(p + kDevCtl, kDevCtlPowerOn, kDevCtlWritable | kDevCtlInitiateFlr);
  put32(p + kLinkCap, kLinkCapValue);
  put16(p + kLinkStatus, kLinkStatusValue);
  put32(p + kDevCap2, kDevCap2Value);
  put16(p + kDevCtl2, 0, kDevCtl2Writable);
  put32(p + kLinkCap2, kLinkCap2Value);
  put16(p + kLinkCtl2, kLinkCtl2Value);

  const size_t m = kMsixCapOffset;
  put8(m, kCapIdMsix);
  put8(m + 1, 0); // end of list
  put16(m + 2, static_cast<uint16_t>(msix.vectors - 1), kMsixControlWritable);
  put32(m + 4, static_cast<uint32_t>(msix.table_offset) | msix.bar);
  put32(m + 8, static_cast<uint32_t>(msix.pba_offset) | msix.bar);

  // 0x100: extended capability header 0 = no extended capabilities.
  power_on_ = bytes_;
}

void ConfigSpace::read(uint64_t offset, std::span<std::byte> out) const {
  std::memcpy(out.data(), bytes_.data() + offset, out.size());
}

ConfigWriteEffects ConfigSpace::write(uint64_t offset, std::span<const std::byte> in) {
  const uint16_t old_command = command();
  const uint16_t old_msix_control = msix_control();
  for (size_t i = 0; i < in.size(); ++i) {
    const size_t at = offset + i;
    const uint8_t mask = write_mask_[at];
    bytes_[at] =
        static_cast<uint8_t>((bytes_[at] & ~mask) | (std::to_integer<uint8_t>(in[i]) & mask));
  }
  ConfigWriteEffects effects;
  effects.command_changed = command() != old_command;
  effects.msix_control_changed = msix_control() != old_msix_control;
  if (device_control() & kDevCtlInitiateFlr) {
    // The bit always reads 0; the function resets itself (the owner calls reset()).
    const uint16_t cleared = device_control() & ~kDevCtlInitiateFlr;
    bytes_[kPcieCapOffset + kDevCtl] = static_cast<uint8_t>(cleared);
    bytes_[kPcieCapOffset + kDevCtl + 1] = static_cast<uint8_t>(cleared >> 8);
    effects.function_level_reset = true;
  }
  return effects;
}

void ConfigSpace::reset() {
  bytes_ = power_on_;
}

uint16_t ConfigSpace::read16(size_t offset) const {
  return static_cast<uint16_t>(bytes_[offset] | (bytes_[offset + 1] << 8));
}

void ConfigSpace::put8(size_t offset, uint8_t value, uint8_t write_mask) {
  bytes_[offset] = value;
  write_mask_[offset] = write_mask;
}

void ConfigSpace::put16(size_t offset, uint16_t value, uint16_t write_mask) {
  put8(offset, static_cast<uint8_t>(value), static_cast<uint8_t>(write_mask));
  put8(offset + 1, static_cast<uint8_t>(value >> 8), static_cast<uint8_t>(write_mask >> 8));
}

void ConfigSpace::put32(size_t offset, uint32_t value, uint32_t write_mask) {
  put16(offset, static_cast<uint16_t>(value), static_cast<uint16_t>(write_mask));
  put16(offset + 2, static_cast<uint16_t>(value >> 16), static_cast<uint16_t>(write_mask >> 16));
}

} // namespace ornic
