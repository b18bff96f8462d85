#include "pci/pci_device.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "pci/layout_check.hpp"

namespace ornic {
namespace {

MsixLayout validated_msix(const PciFunctionModel& model) {
  const MsixLayout msix = model.msix();
  if (auto problem = check_function_layout(model.bars(), msix))
    throw std::invalid_argument("PCI function layout: " + *problem);
  return msix;
}

bool inside(uint64_t offset, unsigned size, uint64_t start, uint64_t length) {
  return offset >= start && offset - start < length && size <= length - (offset - start);
}

// Largest naturally aligned access (8, 4, 2 or 1 bytes) at offset within remaining.
unsigned chunk_size(uint64_t offset, size_t remaining) {
  for (unsigned size = 8; size > 1; size /= 2)
    if (offset % size == 0 && remaining >= size)
      return size;
  return 1;
}

} // namespace

PciDevice::PciDevice(PciFunctionModel& model, GuestMemory& dma)
    : model_(model), bars_(model.bars()), msix_layout_(validated_msix(model)),
      config_(model.identity(), bars_, msix_layout_), msix_(msix_layout_.vectors), gate_(dma) {
  model_.attach(gate_, msix_);
}

uint64_t PciDevice::region_size(unsigned region) const {
  if (region < bars_.size())
    return bars_[region].size;
  if (region == kConfigRegion)
    return ConfigSpace::kSize;
  return 0;
}

int PciDevice::check_range(unsigned region, uint64_t offset, uint64_t size) const {
  const uint64_t region_bytes = region_size(region);
  if (region_bytes == 0 || offset >= region_bytes || size > region_bytes - offset)
    return EINVAL;
  if (region != kConfigRegion && size > kMaxBarAccess)
    return E2BIG;
  return 0;
}

int PciDevice::region_read(unsigned region, uint64_t offset, std::span<std::byte> out) {
  if (int error = check_range(region, offset, out.size()))
    return error;
  if (region == kConfigRegion) {
    config_.read(offset, out);
    return 0;
  }
  for (size_t done = 0; done < out.size();) {
    const unsigned size = chunk_size(offset + done, out.size() - done);
    const uint64_t value = bar_read_chunk(region, offset + done, size);
    std::memcpy(out.data() + done, &value, size); // little-endian host
    done += size;
  }
  return 0;
}

int PciDevice::region_write(unsigned region, uint64_t offset, std::span<const std::byte> in) {
  if (int error = check_range(region, offset, in.size()))
    return error;
  if (region == kConfigRegion) {
    apply_config_effects(config_.write(offset, in));
    return 0;
  }
  for (size_t done = 0; done < in.size();) {
    const unsigned size = chunk_size(offset + done, in.size() - done);
    uint64_t value = 0;
    std::memcpy(&value, in.data() + done, size);
    bar_write_chunk(region, offset + done, size, value);
    done += size;
  }
  return 0;
}

uint64_t PciDevice::bar_read_chunk(unsigned bar, uint64_t offset, unsigned size) {
  if (bar == msix_layout_.bar) {
    if (inside(offset, size, msix_layout_.table_offset, msix_.table_size()))
      return msix_.table_read(offset - msix_layout_.table_offset, size);
    if (inside(offset, size, msix_layout_.pba_offset, msix_.pba_size()))
      return msix_.pba_read(offset - msix_layout_.pba_offset, size);
  }
  return model_.bar_read(bar, offset, size);
}

void PciDevice::bar_write_chunk(unsigned bar, uint64_t offset, unsigned size, uint64_t value) {
  if (bar == msix_layout_.bar) {
    if (inside(offset, size, msix_layout_.table_offset, msix_.table_size())) {
      msix_.table_write(offset - msix_layout_.table_offset, size, value);
      return;
    }
    if (inside(offset, size, msix_layout_.pba_offset, msix_.pba_size()))
      return; // the PBA is read-only
  }
  model_.bar_write(bar, offset, size, value);
}

void PciDevice::apply_config_effects(const ConfigWriteEffects& effects) {
  if (effects.function_level_reset) {
    ++flr_count_;
    spdlog::info("function level reset requested by the guest");
    reset();
    return;
  }
  if (effects.command_changed)
    gate_.set_open(config_.bus_master_enabled());
  if (effects.msix_control_changed)
    msix_.set_control(config_.msix_enabled(), config_.msix_function_masked());
}

void PciDevice::reset() {
  config_.reset();
  msix_.reset();
  gate_.set_open(config_.bus_master_enabled());
  model_.reset();
}

} // namespace ornic
