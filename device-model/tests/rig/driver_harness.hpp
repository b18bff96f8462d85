// Plays the kernel driver against a NicDevice in fake guest memory: allocates rings,
// brings the device up through BAR0, builds admin commands with the shared header and
// reads completions and EQEs by their phase bits, exactly as a driver would.
#pragma once

#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "common/event_loop.hpp"
#include "dma/fake_guest_memory.hpp"
#include "fake_port.hpp"
#include "memfd_ram.hpp"
#include "nic/nic_device.hpp"
#include "pci/recording_interrupt_sink.hpp"
#include "port/pfc_port.hpp"

namespace ornic::test {

inline constexpr MacAddress kTestMac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};

// What the device's DMA goes through: FakeGuestMemory itself (fault injection, counts), or
// a memfd behind a real DMA map (MemfdRam), as QEMU's guest RAM is.
enum class GuestRam : uint8_t { fake, memfd };

class DriverHarness {
public:
  static constexpr uint64_t kMemoryBase = 0x10000000;
  static constexpr size_t kMemorySize = 8 << 20;

  // With a port (and clock) of the test's own instead of the built-in FakePort.
  // `memory_size`: more guest memory than the default, for rigs with thousands of queues
  // (a memfd's pages cost nothing until written).
  explicit DriverHarness(Port* wire = nullptr, TransportTimer* timer = nullptr,
                         const MacAddress& mac = kTestMac, const FaultInjection& faults = {},
                         GuestRam ram = GuestRam::fake,
                         ornic_link_layer link_layer = ORNIC_LINK_LAYER_ETH,
                         size_t memory_size = kMemorySize,
                         std::optional<PfcOptions> pfc = std::nullopt);

  // Registers.
  uint32_t reg(uint32_t offset) { return static_cast<uint32_t>(device.bar_read(0, offset, 4)); }
  void write_reg(uint32_t offset, uint32_t value) { device.bar_write(0, offset, 4, value); }
  void doorbell(uint32_t page, uint32_t kind_offset, uint64_t value) {
    device.bar_write(ORNIC_BAR_DOORBELL, uint64_t{page} * ORNIC_DB_PAGE_SIZE + kind_offset, 8,
                     value);
  }
  uint64_t counter(ornic_counter_id id) const { return device.counters().get(id); }

  // Bump allocator over guest memory (zeroed); returns IOVAs.
  uint64_t alloc(size_t size, size_t align = 4096);
  // Where the next allocation starts; rewind(mark) gives back everything allocated since, for
  // loops that create and destroy objects far more often than guest memory could hold. The
  // caller must know the device no longer uses that memory (its objects are destroyed).
  uint64_t mark() const { return next_free_; }
  void rewind(uint64_t mark) { next_free_ = mark; }
  template <typename T>
  T read(uint64_t iova) {
    T value;
    std::memcpy(&value, memory.at(iova), sizeof(T));
    return value;
  }
  template <typename T>
  void write(uint64_t iova, const T& value) {
    std::memcpy(memory.at(iova), &value, sizeof(T));
  }

  // Programs AQ/AEQ registers and sets ENABLE; true when READY.
  bool bring_up(uint32_t aq_depth = 16, uint32_t aeq_depth = 16);

  // Admin queue.
  uint16_t submit(ornic_admin_sqe command); // writes the next SQ slot, no doorbell
  void ring_admin() { write_reg(ORNIC_REG_AQ_SQ_TAIL, aq_tail_); }
  void run_loop();                             // until the EventLoop has nothing left to do
  std::optional<ornic_admin_cqe> poll_admin(); // next completion if its phase is ours
  ornic_admin_cqe execute(const ornic_admin_sqe& command); // submit, ring, run, poll

  // Async EQ.
  std::optional<ornic_eqe> poll_async_event();

  // Convenience builders and one-call object creation (expect success).
  template <typename T>
  static ornic_admin_sqe as_sqe(const T& command) {
    static_assert(sizeof(T) == sizeof(ornic_admin_sqe));
    ornic_admin_sqe sqe;
    std::memcpy(&sqe, &command, sizeof(sqe));
    return sqe;
  }
  static ornic_admin_sqe simple(uint8_t opcode, uint32_t handle = 0);
  ornic_mem_desc contiguous_ring(size_t bytes);
  uint32_t create_eq(unsigned log_depth = 6, unsigned vector = 1, uint64_t* ring = nullptr);
  // `flags`: ORNIC_CQ_FLAG_* (TIMESTAMP: 64-byte entries, as an InfiniBand port needs).
  uint32_t create_cq(uint32_t eqn, unsigned log_depth = 6, uint32_t db_page = 0,
                     uint64_t* ring = nullptr, uint8_t flags = 0);
  // MAD_IFC of one 256-byte MAD (InfiniBand ports): the command's completion, and the
  // response in `out` when the agents answered.
  ornic_admin_cqe mad_ifc(const std::array<uint8_t, ORNIC_MAD_SIZE>& in,
                          std::array<uint8_t, ORNIC_MAD_SIZE>& out, uint32_t flags = 0);
  uint32_t alloc_pd();
  uint32_t create_qp(uint32_t pd, uint32_t cqn, ornic_qp_type type = ORNIC_QPT_RC,
                     uint32_t db_page = 0, uint64_t* sq = nullptr, uint64_t* rq = nullptr,
                     unsigned log_depth = 6);
  // ORNIC_QP_FLAG_DB_RECORD here makes create_qp's rings one block longer, for the record.
  uint8_t qp_flags = 0;
  ornic_admin_cqe modify_qp(uint32_t qpn, const ornic_qp_attr& attr, uint32_t mask);
  ornic_admin_cqe add_gid(uint32_t index, const std::array<uint8_t, 16>& gid,
                          uint8_t type = ORNIC_GID_TYPE_ROCE_V2_IPV4,
                          std::optional<uint16_t> vlan_id = std::nullopt);
  ornic_device_counters query_counters();

  EventLoop loop;
  std::unique_ptr<MemfdRam> memfd_ram; // GuestRam::memfd only
  // The test's view of guest memory (over memfd_ram's file with GuestRam::memfd).
  FakeGuestMemory memory;
  RecordingInterruptSink irqs;
  FakePort port;
  // With `pfc`: the PFC engine between the device and `port`, as every Ethernet port of
  // ornic-model has, on the clock pfc_now (nanoseconds) that the test moves.
  int64_t pfc_now = 1;
  std::unique_ptr<PfcPort> pfc;
  NicDevice device;

  uint64_t aq_sq = 0, aq_cq = 0, aeq = 0;
  uint32_t aq_depth = 0, aeq_depth = 0;

private:
  size_t memory_size_;
  uint64_t next_free_ = kMemoryBase;
  uint32_t aq_tail_ = 0;
  uint32_t aq_cq_head_ = 0;
  uint32_t aeq_head_ = 0;
  uint16_t next_command_id_ = 1;
};

// The phase a consumer expects at free-running index i of a ring of `depth` entries.
inline uint8_t expected_phase(uint32_t index, uint32_t depth) {
  return static_cast<uint8_t>(((index / depth) & 1) ^ 1);
}

} // namespace ornic::test
