#pragma once

#include <cstring>
#include <vector>

#include "pci/pci_device.hpp"

namespace ornic::testing {

inline uint64_t read_le(PciDevice& dev, unsigned region, uint64_t offset, unsigned size) {
  std::vector<std::byte> buf(size);
  if (dev.region_read(region, offset, buf) != 0)
    return ~uint64_t{0};
  uint64_t value = 0;
  std::memcpy(&value, buf.data(), size);
  return value;
}

inline int write_le(PciDevice& dev, unsigned region, uint64_t offset, unsigned size,
                    uint64_t value) {
  std::vector<std::byte> buf(size);
  std::memcpy(buf.data(), &value, size);
  return dev.region_write(region, offset, buf);
}

} // namespace ornic::testing
