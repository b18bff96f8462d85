// vfio-user wire protocol: message header, commands, flags and payload sizes, as in
// the vfio-user specification (QEMU docs/devel/vfio-user.rst). Everything on the wire
// is little-endian; we only build for little-endian hosts.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

namespace ornic::vfio_user {

static_assert(std::endian::native == std::endian::little, "vfio-user is little-endian");

enum class Command : uint16_t {
  kVersion = 1,
  kDmaMap = 2,
  kDmaUnmap = 3,
  kDeviceGetInfo = 4,
  kDeviceGetRegionInfo = 5,
  kDeviceGetRegionIoFds = 6,
  kDeviceGetIrqInfo = 7,
  kDeviceSetIrqs = 8,
  kRegionRead = 9,
  kRegionWrite = 10,
  kDmaRead = 11,
  kDmaWrite = 12,
  kDeviceReset = 13,
  kDirtyPages = 14,
  kRegionWriteMulti = 15,
};

struct Header {
  uint16_t msg_id = 0;
  uint16_t command = 0;
  uint32_t size = 0; // whole message, header included
  uint32_t flags = 0;
  uint32_t error = 0; // errno of an error reply
};
inline constexpr size_t kHeaderSize = 16;

inline constexpr uint32_t kFlagTypeMask = 0xf;
inline constexpr uint32_t kTypeRequest = 0x0;
inline constexpr uint32_t kTypeReply = 0x1;
inline constexpr uint32_t kFlagNoReply = 0x10;
inline constexpr uint32_t kFlagError = 0x20;

// VERSION
inline constexpr uint16_t kMajorVersion = 0;
inline constexpr uint16_t kMinorVersion = 0;
inline constexpr size_t kVersionFixedSize = 4; // u16 major, u16 minor, then JSON

// DMA_MAP / DMA_UNMAP
inline constexpr size_t kDmaMapSize = 32;   // argsz, flags, u64 offset, iova, size
inline constexpr size_t kDmaUnmapSize = 24; // argsz, flags, u64 iova, size
inline constexpr uint32_t kDmaMapFlagRead = 1u << 0;
inline constexpr uint32_t kDmaMapFlagWrite = 1u << 1;
inline constexpr uint32_t kDmaUnmapFlagGetDirtyBitmap = 1u << 0;
inline constexpr uint32_t kDmaUnmapFlagAll = 1u << 1;

// DEVICE_GET_INFO
inline constexpr size_t kDeviceInfoSize = 16; // argsz, flags, num_regions, num_irqs
inline constexpr uint32_t kDeviceFlagReset = 1u << 0;
inline constexpr uint32_t kDeviceFlagPci = 1u << 1;

// DEVICE_GET_REGION_INFO
inline constexpr size_t kRegionInfoSize = 32; // argsz, flags, index, cap_offset, size, offset
inline constexpr uint32_t kRegionFlagRead = 1u << 0;
inline constexpr uint32_t kRegionFlagWrite = 1u << 1;

// DEVICE_GET_IRQ_INFO / DEVICE_SET_IRQS
inline constexpr size_t kIrqInfoSize = 16; // argsz, flags, index, count
inline constexpr size_t kIrqSetSize = 20;  // argsz, flags, index, start, count
inline constexpr uint32_t kIrqInfoFlagEventfd = 1u << 0;
inline constexpr uint32_t kIrqSetDataNone = 1u << 0;
inline constexpr uint32_t kIrqSetDataBool = 1u << 1;
inline constexpr uint32_t kIrqSetDataEventfd = 1u << 2;
inline constexpr uint32_t kIrqSetDataMask = 0x7;
inline constexpr uint32_t kIrqSetActionMask = 1u << 3;
inline constexpr uint32_t kIrqSetActionUnmask = 1u << 4;
inline constexpr uint32_t kIrqSetActionTrigger = 1u << 5;
inline constexpr uint32_t kIrqSetActionMaskAll = 0x38;
inline constexpr uint32_t kPciIntxIrqIndex = 0;
inline constexpr uint32_t kPciMsiIrqIndex = 1;
inline constexpr uint32_t kPciMsixIrqIndex = 2;
inline constexpr uint32_t kPciErrIrqIndex = 3;
inline constexpr uint32_t kPciReqIrqIndex = 4;
inline constexpr uint32_t kPciNumIrqs = 5;

// REGION_READ / REGION_WRITE
inline constexpr size_t kRegionAccessSize = 16; // u64 offset, u32 region, u32 count

// REGION_WRITE_MULTI
inline constexpr size_t kWriteMultiCountSize = 8;  // u64 wr_cnt
inline constexpr size_t kWriteMultiEntrySize = 24; // u64 offset, u32 region, u32 count, u8[8]
inline constexpr size_t kWriteMultiDataSize = 8;
inline constexpr uint64_t kWriteMultiMaxEntries = 200;

const char* command_name(uint16_t command);

} // namespace ornic::vfio_user
