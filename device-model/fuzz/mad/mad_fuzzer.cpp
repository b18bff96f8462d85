// libFuzzer target for the management agents (src/mad): arbitrary MADs to the SMA and PMA
// of an InfiniBand port, directly and through the MAD_IFC admin command, interleaved with
// the device clock moving (M_Key leases) and the link going down and up. After every step
// the port's state must still be one the spec allows, and an answered request must carry
// a GetResp with the request's transaction ID.
//
// Input: one setup byte (bit 0: the link starts up), then records of 2 + 256 bytes: an
// operation byte, an argument byte and a MAD. Operation (low 2 bits): 0 = mad::process
// (argument bit 0: IGNORE_MKEY), 1 = MAD_IFC (argument: its flags; bit 2 points out_addr
// outside guest memory, bit 3 in_addr), 2 = the clock advances by the argument in seconds,
// 3 = the physical link goes to argument bit 0.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <spdlog/spdlog.h>

#include "core/nic_core.hpp"
#include "dma/fake_guest_memory.hpp"
#include "mad/mad_agents.hpp"
#include "nic/admin_commands.hpp"
#include "pci/recording_interrupt_sink.hpp"

namespace {

constexpr uint64_t kMemoryBase = 0x10000;
constexpr size_t kMemorySize = 0x3000;
constexpr uint64_t kInAddr = kMemoryBase;
constexpr uint64_t kOutAddr = kMemoryBase + 0x1000;
constexpr uint64_t kEqAddr = kMemoryBase + 0x2000;
constexpr uint64_t kOutside = 0x100;
constexpr size_t kRecordSize = 2 + ornic::mad::kMadSize;
constexpr int64_t kNsPerSecond = 1'000'000'000;

class FuzzClock final : public ornic::TransportTimer {
public:
  int64_t now_ns() override { return now; }
  void arm(int64_t, std::function<void()>) override {}
  void disarm() override {}
  int64_t now = 1;
};

struct Device {
  Device() {
    core.attach(memory, irqs);
    core.clock = &clock;
    core.ib.enabled = true;
    core.ib.node_guid = 0x020000fffe000001ull;
    core.ib.port_guid = 0x000000fffe000001ull;
    core.ib.node_description = "ornic 02:00:00:00:00:01";
  }
  ornic::FakeGuestMemory memory{kMemoryBase, kMemorySize};
  ornic::RecordingInterruptSink irqs;
  FuzzClock clock;
  ornic::NicCore core{ornic::MacAddress{0x02, 0, 0, 0, 0, 1}};
  ornic::AdminCommands commands{core};
};

void check(bool condition) {
  if (!condition)
    __builtin_trap();
}

// The PortInfo values a Set may leave behind (infiniband.rst, "PortInfo").
void check_port(const ornic::IbPort& port) {
  check(port.logical_state >= ORNIC_PORT_DOWN && port.logical_state <= ORNIC_PORT_ACTIVE);
  check(port.lmc <= 7 && port.m_key_protect_bits <= 3 && port.sm_sl <= 15);
  check(port.neighbor_mtu >= ORNIC_MTU_256 && port.neighbor_mtu <= ORNIC_MTU_4096);
  check(port.operational_vls == 1 && port.link_width_enabled == 0x02);
  check(port.link_speed_enabled == 0x01 && port.subnet_timeout <= 31);
  check(port.lid < ornic::kMulticastLidFirst && port.sm_lid < ornic::kMulticastLidFirst);
  check((port.sw_capability_mask & ~ORNIC_PORT_CAP_SW_MASK) == 0);
  // Without a link the port is Down; with one it is never Down for long (it retrains).
  check((port.phys_state == ornic::IbPhysState::link_up) ==
        (port.logical_state != ORNIC_PORT_DOWN));
}

void check_reply(const ornic::mad::MadBytes& in, const ornic::mad::MadBytes& out) {
  check(out[3] == ornic::mad::kMethodGetResp);
  check(std::memcmp(&in[8], &out[8], 8) == 0);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1)
    return 0;
  const bool link_up = (data[0] & 1) != 0;
  ++data;
  --size;

  // One device for the whole run, reset before each input: building a NicCore (its object
  // tables) costs far more than the MADs it then answers.
  static Device device;
  ornic::FakeGuestMemory& memory = device.memory;
  FuzzClock& clock = device.clock;
  ornic::NicCore& core = device.core;
  ornic::AdminCommands& commands = device.commands;
  std::fill(memory.bytes().begin(), memory.bytes().end(), std::byte{0});
  clock.now = 1;
  device.irqs.clear();
  core.link_up = link_up;
  core.reset();
  core.async_eq.emplace(ornic::QueueMemory::contiguous(kEqAddr, 4096), 8, 0);
  core.ib_physical_link(link_up);

  for (; size >= kRecordSize; data += kRecordSize, size -= kRecordSize) {
    const uint8_t operation = data[0] & 3;
    const uint8_t argument = data[1];
    ornic::mad::MadBytes in;
    std::memcpy(in.data(), data + 2, in.size());
    ornic::mad::MadBytes out{};
    switch (operation) {
    case 0: {
      ornic::mad::MadContext context;
      context.ignore_m_key = (argument & 1) != 0;
      if (ornic::mad::process(core, in, out, context) == ornic::mad::Outcome::reply)
        check_reply(in, out);
      break;
    }
    case 1: {
      std::memcpy(memory.at(kInAddr), in.data(), in.size());
      ornic_admin_mad_ifc command{};
      command.hdr.opcode = ORNIC_ADMIN_MAD_IFC;
      command.in_addr = ornic::to_le((argument & 8) != 0 ? kOutside : kInAddr);
      command.out_addr = ornic::to_le((argument & 4) != 0 ? kOutside : kOutAddr);
      command.flags = ornic::to_le<uint32_t>(argument & 3);
      command.port = 1;
      ornic_admin_sqe sqe;
      std::memcpy(&sqe, &command, sizeof(sqe));
      const ornic::AdminResult result = commands.execute(sqe);
      if (result.status == ORNIC_ADMIN_STATUS_SUCCESS && result.result0 == ORNIC_MAD_IFC_REPLY) {
        std::memcpy(out.data(), memory.at(kOutAddr), out.size());
        check_reply(in, out);
      }
      check(result.status == ORNIC_ADMIN_STATUS_SUCCESS || (argument & 0x0c) != 0);
      break;
    }
    case 2:
      clock.now += int64_t{argument} * kNsPerSecond;
      break;
    default:
      core.link_up = (argument & 1) != 0;
      core.ib_physical_link(core.link_up);
      break;
    }
    check_port(core.ib);
  }
  return 0;
}
