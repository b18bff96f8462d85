#include "driver_harness.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

namespace ornic::test {

namespace {

std::unique_ptr<MemfdRam> make_ram(GuestRam ram, size_t size) {
  if (ram == GuestRam::fake)
    return nullptr;
  return std::make_unique<MemfdRam>(DriverHarness::kMemoryBase, size);
}

} // namespace

namespace {

NicConfig config_of(const MacAddress& mac, Port* port, TransportTimer* timer,
                    const FaultInjection& faults, ornic_link_layer link_layer, PfcPort* pfc) {
  NicConfig config{mac, port, timer, faults};
  config.link_layer = link_layer;
  if (pfc != nullptr)
    config.port = config.pfc = pfc;
  return config;
}

// A port the harness keeps, lent to the PfcPort that owns its inner port.
class LentPort final : public Port {
public:
  explicit LentPort(Port& port) : port_(port) {}
  void send(std::span<const std::byte> frame) override { port_.send(frame); }
  void set_receiver(Receiver rx) override { port_.set_receiver(std::move(rx)); }
  bool link_up() const override { return port_.link_up(); }
  PortCounters counters() const override { return port_.counters(); }
  size_t tx_backlog() const override { return port_.tx_backlog(); }
  std::span<std::byte> reserve_tx(size_t bytes) override { return port_.reserve_tx(bytes); }
  void commit_tx(size_t length) override { port_.commit_tx(length); }
  void set_link_listener(LinkListener listener) override {
    port_.set_link_listener(std::move(listener));
  }

private:
  Port& port_;
};

std::unique_ptr<PfcPort> make_pfc(EventLoop& loop, Port& wire, const int64_t& now,
                                  const std::optional<PfcOptions>& options) {
  if (!options)
    return nullptr;
  return std::make_unique<PfcPort>(loop, std::make_unique<LentPort>(wire), *options,
                                   [&now] { return now; });
}

} // namespace

DriverHarness::DriverHarness(Port* wire, TransportTimer* timer, const MacAddress& mac,
                             const FaultInjection& faults, GuestRam ram,
                             ornic_link_layer link_layer, size_t memory_size,
                             std::optional<PfcOptions> pfc_options)
    : memfd_ram(make_ram(ram, memory_size)),
      memory(memfd_ram ? FakeGuestMemory(kMemoryBase, memfd_ram->bytes())
                       : FakeGuestMemory(kMemoryBase, memory_size)),
      pfc(make_pfc(loop, wire != nullptr ? *wire : port, pfc_now, pfc_options)),
      device(loop,
             config_of(mac, wire != nullptr ? wire : &port, timer, faults, link_layer, pfc.get())),
      memory_size_(memory_size) {
  if (memfd_ram)
    device.attach(memfd_ram->dma(), irqs);
  else
    device.attach(memory, irqs);
}

uint64_t DriverHarness::alloc(size_t size, size_t align) {
  const uint64_t at = (next_free_ + align - 1) & ~(uint64_t{align} - 1);
  if (at + size > kMemoryBase + memory_size_)
    throw std::runtime_error("test guest memory exhausted");
  next_free_ = at + size;
  std::memset(memory.at(at), 0, size);
  return at;
}

bool DriverHarness::bring_up(uint32_t depth, uint32_t eq_depth) {
  aq_depth = depth;
  aeq_depth = eq_depth;
  aq_sq = alloc(size_t{depth} * ORNIC_AQ_SQE_SIZE);
  aq_cq = alloc(size_t{depth} * ORNIC_AQ_CQE_SIZE);
  aeq = alloc(size_t{eq_depth} * ORNIC_EQE_SIZE);
  aq_tail_ = aq_cq_head_ = aeq_head_ = 0;
  write_reg(ORNIC_REG_AQ_SQ_BASE_LO, static_cast<uint32_t>(aq_sq));
  write_reg(ORNIC_REG_AQ_SQ_BASE_HI, static_cast<uint32_t>(aq_sq >> 32));
  write_reg(ORNIC_REG_AQ_CQ_BASE_LO, static_cast<uint32_t>(aq_cq));
  write_reg(ORNIC_REG_AQ_CQ_BASE_HI, static_cast<uint32_t>(aq_cq >> 32));
  write_reg(ORNIC_REG_AQ_DEPTH, depth);
  write_reg(ORNIC_REG_AEQ_BASE_LO, static_cast<uint32_t>(aeq));
  write_reg(ORNIC_REG_AEQ_BASE_HI, static_cast<uint32_t>(aeq >> 32));
  write_reg(ORNIC_REG_AEQ_DEPTH, eq_depth);
  write_reg(ORNIC_REG_DEV_CTRL, ORNIC_DEV_CTRL_ENABLE);
  const bool ready = (reg(ORNIC_REG_DEV_STATUS) & ORNIC_DEV_STATUS_READY) != 0;
  if (ready)
    write_reg(ORNIC_REG_AEQ_DB, ORNIC_AEQ_DB_ARM);
  return ready;
}

uint16_t DriverHarness::submit(ornic_admin_sqe command) {
  const uint16_t id = next_command_id_++;
  command.hdr.command_id = to_le(id);
  write(aq_sq + uint64_t{aq_tail_ % aq_depth} * ORNIC_AQ_SQE_SIZE, command);
  ++aq_tail_;
  return id;
}

void DriverHarness::run_loop() {
  for (int i = 0; i < 10000 && loop.run_once(std::chrono::milliseconds(0)); ++i) {
  }
}

std::optional<ornic_admin_cqe> DriverHarness::poll_admin() {
  const auto cqe =
      read<ornic_admin_cqe>(aq_cq + uint64_t{aq_cq_head_ % aq_depth} * ORNIC_AQ_CQE_SIZE);
  if ((cqe.flags & ORNIC_AQ_CQE_FLAG_PHASE) != expected_phase(aq_cq_head_, aq_depth))
    return std::nullopt;
  ++aq_cq_head_;
  return cqe;
}

ornic_admin_cqe DriverHarness::execute(const ornic_admin_sqe& command) {
  const uint16_t id = submit(command);
  ring_admin();
  run_loop();
  const auto cqe = poll_admin();
  if (!cqe)
    throw std::runtime_error("admin command did not complete");
  EXPECT_EQ(le(cqe->command_id), id);
  return *cqe;
}

std::optional<ornic_eqe> DriverHarness::poll_async_event() {
  const auto eqe = read<ornic_eqe>(aeq + uint64_t{aeq_head_ % aeq_depth} * ORNIC_EQE_SIZE);
  if ((eqe.owner & ORNIC_EQE_OWNER_PHASE) != expected_phase(aeq_head_, aeq_depth))
    return std::nullopt;
  ++aeq_head_;
  return eqe;
}

ornic_admin_sqe DriverHarness::simple(uint8_t opcode, uint32_t handle) {
  ornic_admin_destroy command{};
  command.hdr.opcode = opcode;
  command.handle = to_le(handle);
  return as_sqe(command);
}

ornic_mem_desc DriverHarness::contiguous_ring(size_t bytes) {
  ornic_mem_desc mem{};
  const size_t pages = (bytes + 4095) / 4096;
  mem.addr = to_le(alloc(pages * 4096));
  mem.num_pages = to_le(static_cast<uint32_t>(pages));
  mem.page_shift = 12;
  mem.mode = ORNIC_MEM_MODE_CONTIG;
  return mem;
}

uint32_t DriverHarness::create_eq(unsigned log_depth, unsigned vector, uint64_t* ring) {
  ornic_admin_create_eq command{};
  command.hdr.opcode = ORNIC_ADMIN_CREATE_EQ;
  command.mem = contiguous_ring(size_t{ORNIC_EQE_SIZE} << log_depth);
  command.log_depth = static_cast<uint8_t>(log_depth);
  command.msix_vector = to_le(static_cast<uint16_t>(vector));
  if (ring)
    *ring = le(command.mem.addr);
  const auto cqe = execute(as_sqe(command));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  return le(cqe.result0);
}

uint32_t DriverHarness::create_cq(uint32_t eqn, unsigned log_depth, uint32_t db_page,
                                  uint64_t* ring, uint8_t flags) {
  ornic_admin_create_cq command{};
  command.hdr.opcode = ORNIC_ADMIN_CREATE_CQ;
  const size_t entry = (flags & ORNIC_CQ_FLAG_TIMESTAMP) ? ORNIC_CQE_TS_SIZE : ORNIC_CQE_SIZE;
  command.mem = contiguous_ring(entry << log_depth);
  command.flags = flags;
  command.log_depth = static_cast<uint8_t>(log_depth);
  command.eqn = to_le(eqn);
  command.db_page = to_le(static_cast<uint16_t>(db_page));
  if (ring)
    *ring = le(command.mem.addr);
  const auto cqe = execute(as_sqe(command));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  return le(cqe.result0);
}

ornic_admin_cqe DriverHarness::mad_ifc(const std::array<uint8_t, ORNIC_MAD_SIZE>& in,
                                       std::array<uint8_t, ORNIC_MAD_SIZE>& out, uint32_t flags) {
  const uint64_t in_addr = alloc(ORNIC_MAD_SIZE);
  const uint64_t out_addr = alloc(ORNIC_MAD_SIZE);
  std::memcpy(memory.at(in_addr), in.data(), in.size());
  ornic_admin_mad_ifc command{};
  command.hdr.opcode = ORNIC_ADMIN_MAD_IFC;
  command.in_addr = to_le(in_addr);
  command.out_addr = to_le(out_addr);
  command.flags = to_le(flags);
  command.port = 1;
  const auto cqe = execute(as_sqe(command));
  std::memcpy(out.data(), memory.at(out_addr), out.size());
  return cqe;
}

uint32_t DriverHarness::alloc_pd() {
  const auto cqe = execute(simple(ORNIC_ADMIN_ALLOC_PD));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  return le(cqe.result0);
}

uint32_t DriverHarness::create_qp(uint32_t pd, uint32_t cqn, ornic_qp_type type, uint32_t db_page,
                                  uint64_t* sq, uint64_t* rq, unsigned log_depth) {
  ornic_admin_create_qp command{};
  command.hdr.opcode = ORNIC_ADMIN_CREATE_QP;
  const size_t record = (qp_flags & ORNIC_QP_FLAG_DB_RECORD) ? sizeof(ornic_db_record) : 0;
  command.sq_mem = contiguous_ring((size_t{ORNIC_WQE_BLOCK_SIZE} << log_depth) + record);
  command.rq_mem = contiguous_ring((size_t{ORNIC_WQE_BLOCK_SIZE} << log_depth) + record);
  command.flags = qp_flags;
  command.pd = to_le(pd);
  command.send_cqn = to_le(cqn);
  command.recv_cqn = to_le(cqn);
  command.db_page = to_le(static_cast<uint16_t>(db_page));
  command.qp_type = static_cast<uint8_t>(type);
  command.sq_log_depth = static_cast<uint8_t>(log_depth);
  command.rq_log_depth = static_cast<uint8_t>(log_depth);
  if (sq)
    *sq = le(command.sq_mem.addr);
  if (rq)
    *rq = le(command.rq_mem.addr);
  const auto cqe = execute(as_sqe(command));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  return le(cqe.result0);
}

ornic_admin_cqe DriverHarness::modify_qp(uint32_t qpn, const ornic_qp_attr& attr, uint32_t mask) {
  const uint64_t buffer = alloc(sizeof(attr), 64);
  write(buffer, attr);
  ornic_admin_modify_qp command{};
  command.hdr.opcode = ORNIC_ADMIN_MODIFY_QP;
  command.attr_addr = to_le(buffer);
  command.attr_len = to_le<uint32_t>(sizeof(attr));
  command.qpn = to_le(qpn);
  command.attr_mask = to_le(mask);
  return execute(as_sqe(command));
}

ornic_admin_cqe DriverHarness::add_gid(uint32_t index, const std::array<uint8_t, 16>& gid,
                                       uint8_t type, std::optional<uint16_t> vlan_id) {
  ornic_admin_gid command{};
  command.hdr.opcode = ORNIC_ADMIN_ADD_GID;
  command.index = to_le(index);
  command.type = type;
  if (vlan_id) {
    command.flags = ORNIC_GID_FLAG_VLAN;
    command.vlan_id = to_le(*vlan_id);
  }
  std::copy(gid.begin(), gid.end(), command.gid);
  return execute(as_sqe(command));
}

ornic_device_counters DriverHarness::query_counters() {
  const uint64_t buffer = alloc(sizeof(ornic_device_counters), 64);
  ornic_admin_query_counters command{};
  command.hdr.opcode = ORNIC_ADMIN_QUERY_COUNTERS;
  command.resp_addr = to_le(buffer);
  command.resp_len = to_le<uint32_t>(sizeof(ornic_device_counters));
  command.scope = ORNIC_COUNTER_SCOPE_DEVICE;
  const auto cqe = execute(as_sqe(command));
  EXPECT_EQ(cqe.status, ORNIC_ADMIN_STATUS_SUCCESS);
  return read<ornic_device_counters>(buffer);
}

} // namespace ornic::test
