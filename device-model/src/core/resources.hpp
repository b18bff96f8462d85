// The device's object tables (admin.rst): everything the admin queue creates and the
// data path looks up. Plain data; the rules live in the admin command handlers.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/completion_queue.hpp"
#include "core/device_limits.hpp"
#include "core/event_queue.hpp"
#include "core/handle_table.hpp"
#include "core/hw.hpp"
#include "core/multicast_groups.hpp"
#include "core/qp_transport.hpp"
#include "core/queue_memory.hpp"
#include "core/ring_state.hpp"

namespace ornic {

struct ProtectionDomain {};

// An XRC domain (xrc.rst): XRC SRQs and XRC_TGT QPs name it; it has no state of its own.
struct XrcDomain {};

// A memory window (memory.rst "Memory windows"): remote access to part of an MR with rights
// of its own. FREE (bound == false) gives no access at all.
struct MemoryWindow {
  uint8_t type = ORNIC_MW_TYPE_1; // ornic_mw_type
  bool bound = false;             // VALID
  uint32_t mr_index = 0;          // key-table index of the MR it is bound to
  uint32_t qpn = 0;               // type 2: the QP it was bound through
  bool xrc = false;               // type 2 bound through an XRC_INI QP (xrc.rst)
  uint64_t addr = 0;
  uint64_t length = 0;
  uint32_t access = 0; // ORNIC_ACCESS_REMOTE_*
};

// An entry of the key table: a memory region, or (window set) a memory window, which shares
// the key space, the PD and the key variant with MRs.
struct MemoryRegion {
  uint8_t key_variant = 0;
  uint32_t pd = 0;
  uint64_t iova = 0;
  uint64_t length = 0;
  uint32_t access = 0;
  bool physical = false;
  uint32_t first_page_offset = 0;
  QueueMemory pages; // empty for physical MRs
  // Fast registration (memory.rst): REG_MR/LOCAL_INV WQEs and SEND_WITH_INV move the MR
  // between FREE (no key works) and VALID. Other MRs are always valid.
  bool fast_reg = false;
  bool valid = true;
  uint32_t capacity = 0; // fast_reg: most pages a REG_MR WQE may give it
  // Windows bound to this MR: DEREG_MR is BUSY while there are any.
  uint32_t bound_windows = 0;
  std::optional<MemoryWindow> window;
  // On-demand paging (memory.rst): `pages` is empty; the driver's page table is read at
  // every access, never copied.
  bool odp = false;
  QueueMemory odp_table;
  unsigned odp_page_shift = 12;
  uint32_t odp_pages = 0; // entries in the table
};

// Per-QP counters, in host byte order (ornic_qp_counters on the wire).
struct QpCounters {
  uint64_t send_wqes = 0, recv_wqes = 0, send_bytes = 0, recv_bytes = 0, wqe_errors = 0;
  uint64_t db_foreign_page = 0, db_bad_index = 0;
  uint64_t packets_sent = 0, packets_received = 0, retransmits = 0, naks_received = 0;
  uint64_t naks_sent = 0, rnr_naks = 0, timeouts = 0;
};

struct QueuePair {
  ornic_qp_type type = ORNIC_QPT_RC;
  ornic_qp_state state = ORNIC_QPS_RESET;
  uint32_t pd = 0;
  uint32_t send_cqn = 0;
  uint32_t recv_cqn = 0;
  std::optional<uint32_t> srqn;
  uint32_t xrcd = 0; // XRC_TGT: the domain whose SRQs its requests may name
  uint32_t db_page = 0;
  QueueMemory sq_memory;
  QueueMemory rq_memory;
  // Page-list entries charged at CREATE_QP and given back at DESTROY_QP: only the rings the
  // QP has (an empty QueueMemory still counts one page).
  uint64_t page_list_charge = 0;
  RingState sq;
  RingState rq;
  ornic_qp_attr attr{}; // as last set by MODIFY_QP (little-endian fields)
  QpCounters counters;
  QpTransport transport;
};

struct SharedReceiveQueue {
  uint32_t pd = 0;
  uint32_t db_page = 0;
  QueueMemory memory;
  RingState ring;
  uint32_t limit = 0;
  // An XRC SRQ (xrc.rst) belongs to a domain and completes on its own CQ; 0 for a basic one.
  uint32_t xrcd = 0;
  uint32_t cqn = 0;
  bool is_xrc() const { return xrcd != 0; }
};

struct AddressHandle {
  uint32_t pd = 0;
  ornic_admin_create_ah attr{};
};

struct GidEntry {
  ornic_gid_type type = ORNIC_GID_TYPE_ROCE_V2_IPV4;
  std::array<uint8_t, 16> gid{};
  std::optional<uint16_t> vlan_id = std::nullopt; // the entry's 802.1Q VLAN (roce.rst, "VLANs")
};

struct EthRing {
  bool is_tx = false;
  uint32_t cqn = 0;
  QueueMemory memory;
  RingState ring;
};

class DoorbellPages {
public:
  DoorbellPages() { reset(); }
  void reset() {
    allocated_.reset();
    allocated_.set(ORNIC_DB_PAGE_KERNEL);
  }
  bool allocated(uint32_t page) const { return page < ORNIC_DB_PAGES && allocated_.test(page); }
  std::optional<uint32_t> allocate() {
    for (uint32_t page = 1; page < ORNIC_DB_PAGES; ++page)
      if (!allocated_.test(page)) {
        allocated_.set(page);
        return page;
      }
    return std::nullopt;
  }
  void free(uint32_t page) {
    if (page != ORNIC_DB_PAGE_KERNEL && page < ORNIC_DB_PAGES)
      allocated_.reset(page);
  }

private:
  std::bitset<ORNIC_DB_PAGES> allocated_;
};

struct Resources {
  HandleTable<EventQueue> eqs{1, limits::kMaxEq - 1};
  HandleTable<CompletionQueue> cqs{1, limits::kMaxCq};
  HandleTable<ProtectionDomain> pds{1, limits::kMaxPd};
  HandleTable<MemoryRegion> mrs{1, limits::kMaxMr}; // key index
  HandleTable<QueuePair> qps{2, limits::kMaxQp};
  HandleTable<SharedReceiveQueue> srqs{1, limits::kMaxSrq};
  HandleTable<XrcDomain> xrcds{1, limits::kMaxXrcd};
  HandleTable<AddressHandle> ahs{1, limits::kMaxAh};
  HandleTable<EthRing> eth_rings{1, limits::kMaxEthRings};
  std::array<std::optional<GidEntry>, limits::kGidTableSize> gids;
  DoorbellPages db_pages;
  MulticastGroups mcast{limits::kMaxMcastGroups, limits::kMaxMcastQpAttach,
                        limits::kMaxTotalMcastQpAttach};
  uint64_t page_list_entries = 0; // against limits::kPageListBudget

  // Lowers (or restores) the object counts the tables take; reported by QUERY_DEVICE.
  void set_limits(const limits::ObjectLimits& l) {
    qps.set_capacity(l.qp);
    cqs.set_capacity(l.cq);
    mrs.set_capacity(l.mr);
    pds.set_capacity(l.pd);
    srqs.set_capacity(l.srq);
    ahs.set_capacity(l.ah);
    mcast.set_limits(l.mcast_grp, l.mcast_attach);
  }

  // Key indexes of the type-2 windows bound through each QP, so destroying a QP frees its
  // windows without a walk over every key. An entry may be stale (the window was
  // invalidated, or its index now holds another object): users check the window.
  std::unordered_map<uint32_t, std::vector<uint32_t>> type2_windows_by_qp;

  void note_type2_binding(uint32_t qpn, uint32_t index) {
    auto& list = type2_windows_by_qp[qpn];
    // Drop the stale entries whenever the list doubles: a QP that binds and invalidates
    // for ever keeps a list as long as its live windows, at O(1) amortised per bind.
    if (list.size() >= 16 && (list.size() & (list.size() - 1)) == 0)
      std::erase_if(list, [&](uint32_t i) { return bound_type2(i, qpn) == nullptr; });
    list.push_back(index);
  }
  // The window at key index `index` if it is a type-2 window bound through `qpn`.
  MemoryWindow* bound_type2(uint32_t index, uint32_t qpn) {
    MemoryRegion* entry = mrs.find(index);
    if (entry == nullptr || !entry->window)
      return nullptr;
    MemoryWindow& w = *entry->window;
    return w.bound && w.type == ORNIC_MW_TYPE_2 && w.qpn == qpn ? &w : nullptr;
  }
  // The QP is destroyed: the type-2 windows bound through it become FREE.
  void unbind_windows_of(uint32_t qpn) {
    auto it = type2_windows_by_qp.find(qpn);
    if (it == type2_windows_by_qp.end())
      return;
    for (uint32_t index : it->second)
      if (MemoryWindow* w = bound_type2(index, qpn); w != nullptr)
        unbind_window(*w);
    type2_windows_by_qp.erase(it);
  }

  // Makes a window FREE; the MR it was bound to no longer counts it.
  void unbind_window(MemoryWindow& window) {
    if (window.bound)
      if (MemoryRegion* mr = mrs.find(window.mr_index); mr != nullptr && mr->bound_windows > 0)
        --mr->bound_windows;
    window = MemoryWindow{window.type};
  }

  // Whether a request received on QP `qpn` may use a bound type-2 window (type 2B): it was
  // bound through that QP, or through an XRC initiator and `qpn` is an XRC target (whose
  // request names an XRC SRQ, of whose PD the window must be: checked with the PD).
  bool reaches_window(const MemoryWindow& window, uint32_t qpn) const {
    if (!window.xrc)
      return window.qpn == qpn;
    const QueuePair* qp = qps.find(qpn);
    return qp != nullptr && qp->type == ORNIC_QPT_XRC_TGT;
  }

  void clear() {
    eqs.clear();
    cqs.clear();
    pds.clear();
    mrs.clear();
    qps.clear();
    srqs.clear();
    xrcds.clear();
    ahs.clear();
    eth_rings.clear();
    gids.fill(std::nullopt);
    db_pages.reset();
    mcast.clear();
    type2_windows_by_qp.clear();
    page_list_entries = 0;
  }
};

} // namespace ornic
