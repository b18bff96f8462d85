// libFuzzer target for the admin command decoder: arbitrary 64-byte commands, executed
// against the NIC's object tables with a small guest memory the input also fills, so
// page lists, parameter buffers and responses are exercised too.
//
// Input: u16 (LE) length of a guest-memory image, the image (placed at kMemoryBase),
// then 64-byte admin commands. Any input must leave the model alive and consistent.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <spdlog/spdlog.h>

#include "dma/fake_guest_memory.hpp"
#include "nic/admin_commands.hpp"
#include "nic/nic_core.hpp"
#include "pci/recording_interrupt_sink.hpp"

namespace {

constexpr uint64_t kMemoryBase = 0x10000;
constexpr size_t kMemorySize = 64 * 1024;
constexpr size_t kMaxImage = 16 * 1024;
constexpr size_t kMaxCommands = 256;

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2)
    return 0;
  size_t image = std::min<size_t>(data[0] | size_t{data[1]} << 8, kMaxImage);
  data += 2;
  size -= 2;
  image = std::min(image, size);

  ornic::FakeGuestMemory memory(kMemoryBase, kMemorySize);
  std::memcpy(memory.at(kMemoryBase), data, image);
  data += image;
  size -= image;

  ornic::RecordingInterruptSink irqs;
  ornic::NicCore core(ornic::MacAddress{0x02, 0, 0, 0, 0, 1});
  core.attach(memory, irqs);
  core.async_eq.emplace(ornic::QueueMemory::contiguous(kMemoryBase + kMemorySize - 4096, 4096), 8,
                        0);
  ornic::AdminCommands commands(core);

  for (size_t n = 0; n < kMaxCommands && size >= sizeof(ornic_admin_sqe); ++n) {
    ornic_admin_sqe command;
    std::memcpy(&command, data, sizeof(command));
    data += sizeof(command);
    size -= sizeof(command);
    const ornic::AdminResult result = commands.execute(command);
    // A failed command must not leak results (admin.rst: no effect, results 0).
    if (result.status != ORNIC_ADMIN_STATUS_SUCCESS && (result.result0 || result.result1))
      __builtin_trap();
  }
  return 0;
}
