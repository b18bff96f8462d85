// Two NICs (two driver harnesses) on a LossyWire, each with its own manual clock: a CQ,
// a PD, a GID and a 1 MiB MR each, plus helpers to create and connect QPs, post WQEs the
// way a provider does, poll CQEs and run everything until the wire is quiet.
#pragma once

#include <array>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "driver_harness.hpp"
#include "lossy_wire.hpp"
#include "manual_timer.hpp"

namespace ornic::test {

inline constexpr MacAddress kMacA = {0x02, 0, 0, 0, 0, 0x0a};
inline constexpr MacAddress kMacB = {0x02, 0, 0, 0, 0, 0x0b};

struct Node {
  Node(Port* port, TransportTimer* timer, const MacAddress& node_mac, GuestRam ram = GuestRam::fake,
       bool infiniband = false, size_t memory_size = DriverHarness::kMemorySize, bool iwarp = false)
      : h(port, timer, node_mac, {}, ram,
          infiniband ? ORNIC_LINK_LAYER_IB
          : iwarp    ? ORNIC_LINK_LAYER_IWARP
                     : ORNIC_LINK_LAYER_ETH,
          memory_size),
        mac(node_mac), ib(infiniband) {}
  DriverHarness h;
  MacAddress mac;
  // An InfiniBand port: its LID (set through its SMA, as a subnet manager does), 64-byte
  // CQEs, and the first half of the last CQE polled (how a receive came).
  bool ib = false;
  uint16_t lid = 0;
  ornic_cqe_ts last_origin{};
  uint32_t eqn = 0, cqn = 0, pd = 0;
  uint64_t cq_ring = 0;
  uint32_t cq_depth = 256, cq_head = 0;
  std::array<uint8_t, 16> gid{};
  uint64_t buffer = 0; // kBufferBytes, registered as `key` with every access right
  uint32_t key = 0;
  static constexpr size_t kBufferBytes = 1 << 20;

  std::byte* at(uint64_t offset) { return h.memory.at(buffer + offset); }
  uint32_t reg_mr(uint64_t iova, uint64_t length, uint32_t access, uint32_t pd_override = 0);
  std::optional<ornic_cqe> poll();
  uint64_t counter(ornic_counter_id id) const { return h.counter(id); }

  // InfiniBand: one SMP through MAD_IFC (as the local SM would send it); the response.
  using Mad = std::array<uint8_t, ORNIC_MAD_SIZE>;
  Mad smp(uint8_t method, uint16_t attribute, uint32_t modifier, const Mad* data_from = nullptr);
  // PortInfo Get, then Sets that give the port `new_lid` and take it through Armed to
  // Active (what OpenSM does to a port it brings up).
  void configure_ib_port(uint16_t new_lid);
  // P_KeyTable block 0 Set: `pkeys` from entry 0 on.
  void set_pkeys(const std::vector<uint16_t>& pkeys);
};

struct Qp {
  Node* node = nullptr;
  uint32_t qpn = 0;
  uint32_t db_page = ORNIC_DB_PAGE_KERNEL;
  uint16_t pkey_index = 0; // given at INIT by RdmaPair::connect
  uint64_t sq = 0, rq = 0;
  uint32_t sq_prod = 0, rq_prod = 0;
  static constexpr uint32_t kDepth = 64; // blocks, unless create_qp was given another depth
  uint32_t depth = kDepth;
  // Created with ORNIC_QP_FLAG_DB_RECORD: posts write the records and ring only on kick.
  bool records = false;
  uint32_t doorbells_rung = 0, doorbells_saved = 0;

  // Writes the WQE (block 0 from `wqe`, SGEs after it) and rings the SQ doorbell.
  void post_send(ornic_send_wqe wqe, const std::vector<ornic_sge>& sges, bool ring_doorbell = true);
  void post_send_inline(ornic_send_wqe wqe, const std::vector<uint8_t>& data);
  // The same with ORNIC_WQE_FLAG_AV: `av` in block 1, the data from block 2.
  void post_send_av(ornic_send_wqe wqe, const ornic_wqe_av& av, const std::vector<ornic_sge>& sges);
  void post_send_av_inline(ornic_send_wqe wqe, const ornic_wqe_av& av,
                           const std::vector<uint8_t>& data);
  // A REG_MR WQE: block 0 (num_blocks set here), `ext` in block 1.
  void post_reg_mr(ornic_send_wqe wqe, const ornic_wqe_reg_mr_ext& ext, bool ring_doorbell = true);
  void post_recv(uint64_t wr_id, const std::vector<ornic_sge>& sges);
  uint32_t state();
  ornic_qp_attr attr(); // QUERY_QP

private:
  bool record_says_ring(uint64_t ring);
  // Block 0, then `av` if any, then `data_blocks` blocks `fill` writes; rings the doorbell.
  void write_send(ornic_send_wqe wqe, const ornic_wqe_av* av, uint32_t data_blocks,
                  const std::function<void(uint32_t first_data_block)>& fill, bool ring_doorbell);
};

// The address of `to` in a QP's attributes, an AH or a WQE's vector: its GID and MAC on
// RoCE, its LID (SL 0, no GRH) on InfiniBand.
template <typename Av>
void set_address(Av& av, const Node& to) {
  if (to.ib) {
    av.dlid = to_le(to.lid);
    return;
  }
  std::copy(to.gid.begin(), to.gid.end(), av.dgid);
  std::copy(to.mac.begin(), to.mac.end(), av.dmac);
  av.hop_limit = 64;
  av.sl = 5; // the priority of a VLAN GID's frames; untagged ones carry none
}

inline ornic_sge sge(uint64_t addr, uint32_t length, uint32_t lkey) {
  ornic_sge s{};
  s.addr = to_le(addr);
  s.length = to_le(length);
  s.lkey = to_le(lkey);
  return s;
}

inline ornic_send_wqe send_wqe(uint8_t opcode, uint64_t wr_id,
                               uint8_t flags = ORNIC_WQE_FLAG_SIGNALED) {
  ornic_send_wqe w{};
  w.opcode = opcode;
  w.flags = flags;
  w.wr_id = to_le(wr_id);
  return w;
}

class RdmaPair {
public:
  struct Options {
    bool ipv6 = false;
    bool roce_v1 = false; // GID 0 a RoCE v1 entry (of the IPv4 or IPv6 address)
    std::optional<uint16_t> vlan_id = std::nullopt; // GID 0 on this VLAN; AVs with SL 5 (the PCP)
    bool infiniband = false;                        // LIDs 1 and 2, ports Active
    bool iwarp = false;                             // iWARP ports (10.0.0.1 and .2)
    GuestRam ram = GuestRam::fake;
    unsigned cq_log_depth = 8;
    size_t guest_memory = DriverHarness::kMemorySize; // each node's
  };
  explicit RdmaPair(bool ipv6 = false);
  explicit RdmaPair(const Options& options);
  // On ports of the test's own (e.g. a real AF_UNIX link) and the EventLoop's real clock;
  // `poll_ports` runs whatever drives those ports and says whether anything happened.
  RdmaPair(Port& port_a, Port& port_b, std::function<bool()> poll_ports);

  Qp create_qp(Node& node, ornic_qp_type type = ORNIC_QPT_RC,
               uint32_t db_page = ORNIC_DB_PAGE_KERNEL, unsigned log_depth = 6);
  // A doorbell page of the kind user space gets (ALLOC_DB_PAGE).
  uint32_t alloc_db_page(Node& node);
  // RESET -> INIT -> RTR -> RTS towards `peer` on `peer_node`.
  void connect(Qp& qp, const Qp& peer, uint8_t path_mtu = ORNIC_MTU_1024,
               uint32_t access = ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ |
                                 ORNIC_ACCESS_REMOTE_ATOMIC,
               uint8_t retry_cnt = 7, uint8_t rnr_retry = 7, uint8_t timeout = 14);
  std::pair<Qp, Qp> rc_pair(uint8_t path_mtu = ORNIC_MTU_1024);
  // UC: RESET -> INIT -> RTR -> RTS with IBTA's UC attributes only (qp.rst).
  void connect_uc(Qp& qp, const Qp& peer, uint8_t path_mtu = ORNIC_MTU_1024,
                  uint32_t access = ORNIC_ACCESS_REMOTE_WRITE);
  std::pair<Qp, Qp> uc_pair(uint8_t path_mtu = ORNIC_MTU_1024);
  void bring_up_ud(Qp& qp, uint32_t qkey);
  uint32_t create_ah(Node& node, const Node& to);
  // The vector an AH from `node` to `to` would hold, for ORNIC_WQE_FLAG_AV.
  static ornic_wqe_av inline_av(const Node& to);

  // Runs both event loops and the wire until nothing moves.
  void pump();
  // Moves both clocks forward (firing due timers), then pumps.
  void advance(int64_t ns);
  // Pumps, advancing time in `step`s until both CQs have produced `a` and `b` CQEs
  // more or `limit` elapsed; collects them.
  std::vector<ornic_cqe> wait_cqes(Node& node, size_t count, int64_t step = 10'000'000,
                                   int steps = 200);

  LossyWire wire;
  ManualTimer timer_a, timer_b;
  Node a, b;
  bool ipv6;
  bool roce_v1 = false;
  std::optional<uint16_t> vlan_id = std::nullopt;
  bool real_time = false;
  std::function<bool()> poll_ports;

private:
  void setup(Node& node, uint8_t last_octet, unsigned cq_log_depth = 8);
};

} // namespace ornic::test
