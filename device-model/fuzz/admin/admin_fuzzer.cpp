// libFuzzer target for the admin command decoder: arbitrary 64-byte commands, executed
// against the NIC's object tables with a small guest memory the input also fills, so
// page lists, parameter buffers and responses are exercised too.
//
// Input: u16 (LE) length of a guest-memory image, the image (placed at kMemoryBase),
// then 64-byte records: admin commands, except that opcode 0xff makes the record a
// doorbell write (u64 BAR2 offset at byte 8, u8 size at 16, u64 value at 24) and 0xfe an
// Ethernet frame from the wire (bytes 8..63), so commands interleave with the data path
// objects they create. Any input must leave the model alive and consistent.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <spdlog/spdlog.h>

#include "common/event_loop.hpp"
#include "core/nic_core.hpp"
#include "dma/fake_guest_memory.hpp"
#include "nic/admin_commands.hpp"
#include "nic/doorbell_decoder.hpp"
#include "nic/eth_function.hpp"
#include "nic/queue_doorbells.hpp"
#include "pci/recording_interrupt_sink.hpp"

namespace {

constexpr uint64_t kMemoryBase = 0x10000;
constexpr size_t kMemorySize = 64 * 1024;
constexpr size_t kMaxImage = 16 * 1024;
constexpr size_t kMaxCommands = 256;
constexpr uint8_t kDoorbellRecord = 0xff;
constexpr uint8_t kFrameRecord = 0xfe;

template <typename T>
T load(const ornic_admin_sqe& record, size_t offset) {
  T value;
  std::memcpy(&value, reinterpret_cast<const std::byte*>(&record) + offset, sizeof(T));
  return value;
}

// One per process, as building a NicCore (its object tables) costs more than most inputs
// do; finish() takes it back to the state of a device reset, so no input sees what an
// earlier one did, and frees what the input made (libFuzzer runs an input that allocates
// more than it frees twice, looking for a leak).
struct AdminRig {
  ornic::EventLoop loop;
  ornic::FakeGuestMemory memory{kMemoryBase, kMemorySize};
  ornic::RecordingInterruptSink irqs;
  ornic::NicCore core{ornic::MacAddress{0x02, 0, 0, 0, 0, 1}};
  ornic::AdminCommands commands{core};
  ornic::EthFunction eth{loop, core, nullptr};
  ornic::DoorbellDecoder decoder;
  ornic::QueueDoorbells doorbells{core, eth};

  AdminRig() { core.attach(memory, irqs); }
  void start() {
    core.async_eq.emplace(ornic::QueueMemory::contiguous(kMemoryBase + kMemorySize - 4096, 4096), 8,
                          0);
    eth.set_active(true);
  }
  void finish() {
    // Run what the doorbells scheduled (Ethernet TX) while the objects still exist.
    while (loop.run_ready()) {
    }
    eth.reset();
    core.reset();
    decoder.reset();
    irqs.clear();
    std::memset(memory.at(kMemoryBase), 0, kMemorySize);
  }
};

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

  static AdminRig rig;
  rig.start();
  std::memcpy(rig.memory.at(kMemoryBase), data, image);
  data += image;
  size -= image;
  ornic::NicCore& core = rig.core;

  for (size_t n = 0; n < kMaxCommands && size >= sizeof(ornic_admin_sqe); ++n) {
    ornic_admin_sqe command;
    std::memcpy(&command, data, sizeof(command));
    data += sizeof(command);
    size -= sizeof(command);
    if (command.hdr.opcode == kDoorbellRecord) {
      const uint64_t offset = load<uint64_t>(command, 8) % ORNIC_BAR_DOORBELL_SIZE;
      const unsigned access = (load<uint8_t>(command, 16) & 1) ? 8 : 4;
      const auto doorbell = rig.decoder.decode(offset, access, load<uint64_t>(command, 24),
                                               core.resources.db_pages, core.counters);
      if (doorbell)
        rig.doorbells.ring(*doorbell);
      continue;
    }
    if (command.hdr.opcode == kFrameRecord) {
      rig.eth.receive(std::as_bytes(std::span(command.body)));
      continue;
    }
    const ornic::AdminResult result = rig.commands.execute(command);
    // A failed command must not leak results (admin.rst: no effect, results 0).
    if (result.status != ORNIC_ADMIN_STATUS_SUCCESS && (result.result0 || result.result1))
      __builtin_trap();
  }
  rig.finish();
  return 0;
}
