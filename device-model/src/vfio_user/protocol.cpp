#include "vfio_user/protocol.hpp"

namespace ornic::vfio_user {

const char* command_name(uint16_t command) {
  switch (static_cast<Command>(command)) {
  case Command::kVersion:
    return "VERSION";
  case Command::kDmaMap:
    return "DMA_MAP";
  case Command::kDmaUnmap:
    return "DMA_UNMAP";
  case Command::kDeviceGetInfo:
    return "DEVICE_GET_INFO";
  case Command::kDeviceGetRegionInfo:
    return "DEVICE_GET_REGION_INFO";
  case Command::kDeviceGetRegionIoFds:
    return "DEVICE_GET_REGION_IO_FDS";
  case Command::kDeviceGetIrqInfo:
    return "DEVICE_GET_IRQ_INFO";
  case Command::kDeviceSetIrqs:
    return "DEVICE_SET_IRQS";
  case Command::kRegionRead:
    return "REGION_READ";
  case Command::kRegionWrite:
    return "REGION_WRITE";
  case Command::kDmaRead:
    return "DMA_READ";
  case Command::kDmaWrite:
    return "DMA_WRITE";
  case Command::kDeviceReset:
    return "DEVICE_RESET";
  case Command::kDirtyPages:
    return "DIRTY_PAGES";
  case Command::kRegionWriteMulti:
    return "REGION_WRITE_MULTI";
  }
  return "unknown";
}

} // namespace ornic::vfio_user
