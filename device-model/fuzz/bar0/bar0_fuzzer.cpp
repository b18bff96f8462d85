// libFuzzer target for the NIC as the guest drives it: register reads and writes on every
// region of the PCI function (config space, BAR0 registers, BAR2 doorbells, the MSI-X table
// on BAR4), guest memory the device reads (admin SQ entries, rings, page lists) and the
// passing of time, in any order, against a whole NicDevice behind the same PciDevice the
// vfio-user server uses (region routing, bus-master gate, FLR). Bring-up, the admin queue
// and every queue behind a doorbell are exercised the way a driver (or a hostile guest)
// would, including disable, reset and FLR in the middle of work. Any input must leave the
// model alive: no crash, no hang, no leak, and BAR0 still identifies the device.
//
// Input: u16 (LE) length of a guest-memory image, the image (placed at kMemoryBase), then
// 16-byte records {u8 op, u8 arg, u16 reserved, u32 offset, u64 value}; op (mod 6):
//   0 region write: vfio region arg >> 4 (0-5 BARs, 7 config space), 1 << (arg & 3) bytes
//   1 region read: the same addressing
//   2 run the event loop (value turns, at most 1000)
//   3 let value ns pass (at most 10 s) on the transport clock, then run
//   4 guest memory: store the u64 value at offset (mod memory size, 8-byte aligned)
//   5 device reset (vfio-user DEVICE_RESET)
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <spdlog/spdlog.h>

#include "nic_rig.hpp"
#include "pci/pci_device.hpp"

namespace {

using ornic::le;
using ornic::to_le;
constexpr uint64_t kMemoryBase = 0x10000;
constexpr size_t kMemorySize = 64 * 1024;
constexpr size_t kMaxImage = 32 * 1024;
constexpr size_t kMaxRecords = 512;
constexpr int64_t kMaxAdvanceNs = 10'000'000'000;

struct Record {
  uint8_t op;
  uint8_t arg;
  uint16_t reserved;
  uint32_t offset;
  uint64_t value;
};
static_assert(sizeof(Record) == 16);

// One per process, as building a NicDevice (its object tables) costs more than most inputs
// do. finish() resets the function as an FLR does, clears guest memory and the clock: no
// input sees what an earlier one did, and what an input made is freed by its own run
// (libFuzzer runs an input that allocates more than it frees twice, looking for a leak).
struct Bar0Rig {
  ornic::EventLoop loop;
  ornic::FakeGuestMemory memory{kMemoryBase, kMemorySize};
  ornic::fuzz::CountingPort port;
  ornic::fuzz::StepTimer timer;
  ornic::NicDevice device{loop, ornic::NicConfig{ornic::fuzz::NicRig::kMac, &port, &timer}};
  ornic::PciDevice pci{device, memory};

  Bar0Rig() { std::memset(memory.at(kMemoryBase), 0, kMemorySize); }
  void run(uint64_t turns) {
    for (uint64_t i = 0; i < turns && loop.run_ready(); ++i) {
    }
  }
  void finish() {
    pci.reset();
    run(10000);
    timer.reset();
    port.sent = 0;
    std::memset(memory.at(kMemoryBase), 0, kMemorySize);
  }
};

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ornic::fuzz::quiet_logs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2)
    return 0;
  size_t image = std::min<size_t>(data[0] | size_t{data[1]} << 8, kMaxImage);
  data += 2;
  size -= 2;
  image = std::min(image, size);

  static Bar0Rig rig;
  std::memcpy(rig.memory.at(kMemoryBase), data, image);
  data += image;
  size -= image;

  for (size_t n = 0; n < kMaxRecords && size >= sizeof(Record); ++n) {
    Record r;
    std::memcpy(&r, data, sizeof(r));
    data += sizeof(r);
    size -= sizeof(r);
    const uint64_t value = le(r.value);
    const unsigned region = r.arg >> 4;
    const size_t width = size_t{1} << (r.arg & 3);
    switch (r.op % 6) {
    case 0: {
      const uint64_t bytes = to_le(value);
      (void)rig.pci.region_write(region, le(r.offset),
                                 std::as_bytes(std::span(&bytes, 1)).first(width));
      break;
    }
    case 1: {
      uint64_t bytes = 0;
      (void)rig.pci.region_read(region, le(r.offset),
                                std::as_writable_bytes(std::span(&bytes, 1)).first(width));
      break;
    }
    case 2:
      rig.run(std::min<uint64_t>(value, 1000));
      break;
    case 3:
      rig.timer.advance(static_cast<int64_t>(value % kMaxAdvanceNs));
      rig.run(10000);
      break;
    case 4: {
      const uint64_t at = kMemoryBase + (le(r.offset) % kMemorySize & ~uint64_t{7});
      const uint64_t stored = to_le(value);
      std::memcpy(rig.memory.at(at), &stored, sizeof(stored));
      break;
    }
    case 5:
      rig.pci.reset();
      break;
    }
  }
  // Whatever the doorbells scheduled runs while the device still exists.
  rig.run(10000);
  if (std::getenv("ORNIC_FUZZ_LOG") != nullptr) { // for checking seeds by hand
    const ornic::DeviceCounters& c = rig.device.counters();
    std::fprintf(stderr, "bar0 fuzzer: admin %llu (errors %llu), doorbells %llu, bad %llu\n",
                 static_cast<unsigned long long>(c.get(ORNIC_CNT_ADMIN_COMMANDS)),
                 static_cast<unsigned long long>(c.get(ORNIC_CNT_ADMIN_ERRORS)),
                 static_cast<unsigned long long>(c.get(ORNIC_CNT_DB_WRITES)),
                 static_cast<unsigned long long>(c.get(ORNIC_CNT_DB_BAD_QUEUE)));
  }
  if (rig.device.bar_read(ORNIC_BAR_REGS, ORNIC_REG_MAGIC, 4) != ORNIC_MAGIC) {
    std::fprintf(stderr, "bar0 fuzzer: BAR0 lost its magic\n");
    std::abort();
  }
  rig.finish();
  return 0;
}
