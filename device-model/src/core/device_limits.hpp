// The limits this model reports in QUERY_DEVICE and enforces on every command
// (Documentation/hardware/ornic/identity.rst, "Capability discovery").
#pragma once

#include <cstdint>

#include "core/hw.hpp"

namespace ornic::limits {

inline constexpr uint64_t kCaps =
    ORNIC_CAP_RC | ORNIC_CAP_UD | ORNIC_CAP_SRQ | ORNIC_CAP_ATOMIC | ORNIC_CAP_INLINE |
    ORNIC_CAP_ETH | ORNIC_CAP_IPV6_GID | ORNIC_CAP_MR_INDIRECT | ORNIC_CAP_MR_PHYSICAL |
    ORNIC_CAP_DB_32BIT_PAIR | ORNIC_CAP_GSI | ORNIC_CAP_FAST_REG | ORNIC_CAP_FLUSH |
    ORNIC_CAP_ATOMIC_WRITE | ORNIC_CAP_UC | ORNIC_CAP_MW | ORNIC_CAP_RESIZE | ORNIC_CAP_MCAST |
    ORNIC_CAP_XRC | ORNIC_CAP_ODP | ORNIC_CAP_CQE_TIMESTAMP | ORNIC_CAP_DB_RECORD | ORNIC_CAP_CC |
    ORNIC_CAP_CQ_DB_RECORD | ORNIC_CAP_ROCE_V1 | ORNIC_CAP_ROCE_VLAN | ORNIC_CAP_DCB;

// Object counts: at least what rxe offers on the same kernel (QPN 2..2^20+1, plus GSI QPN 1).
// The tables grow with what the guest creates (core/handle_table.hpp), so a large limit
// costs nothing until used; a model may be started with lower ones (ObjectLimits).
inline constexpr uint32_t kMaxQp = 1u << 20;
inline constexpr uint32_t kMaxQueueLogDepth = 14; // SQ / RQ / SRQ blocks
inline constexpr uint32_t kMaxQpWr = 1u << kMaxQueueLogDepth;
inline constexpr uint32_t kMaxSendSge = 16;
inline constexpr uint32_t kMaxRecvSge = 15;
inline constexpr uint32_t kMaxCq = 1u << 20;
inline constexpr uint32_t kMaxCqLogDepth = 16;
// The largest CQ ring (timestamped entries and a consumer record) in 4 KiB pages: more than
// a DIRECT page list holds, so such a ring comes as an INDIRECT one (queues.rst).
inline constexpr uint32_t kMaxPagesPerCq = static_cast<uint32_t>(
    ((uint64_t{ORNIC_CQE_TS_SIZE} << kMaxCqLogDepth) + sizeof(ornic_cq_db_record) + 4095) / 4096);
inline constexpr uint32_t kMaxMr = (1u << 19) - 1; // key index 1..2^19-1, windows included
inline constexpr uint32_t kMaxPd = 1u << 20;
inline constexpr uint32_t kMaxSrq = 1u << 20;
// XRC domains (admin.rst ALLOC_XRCD); no QUERY_DEVICE field reports it (IB has none).
inline constexpr uint32_t kMaxXrcd = 1024;
inline constexpr uint32_t kMaxAh = 1u << 15;
inline constexpr uint32_t kMaxEq = 32; // EQ 0 (async) + 31 completion EQs
inline constexpr uint32_t kMaxEqLogDepth = 16;
inline constexpr uint32_t kMaxInlineData = 256;
inline constexpr uint32_t kMaxMsgSize = 1u << 31;
inline constexpr uint64_t kMaxMrSize = 1ull << 40;
inline constexpr uint64_t kPageSizeCap = (1ull << 12) | (1ull << 16) | (1ull << 21) | (1ull << 30);
inline constexpr uint32_t kMaxPagesPerMr = ORNIC_PBL_ENTRIES_PER_PAGE * ORNIC_PBL_ENTRIES_PER_PAGE;
// A REG_MR WQE's page list is one array the device reads per WQE: 512 addresses fill one
// 4 KiB page, enough for the kernel ULPs' 256-segment fast-reg MRs.
inline constexpr uint32_t kMaxFastRegPages = ORNIC_PBL_ENTRIES_PER_PAGE;
// perftest asks a peer for its own limit (rxe: 128); ornic must take what rxe offers.
inline constexpr uint32_t kMaxQpRdAtom = 128;
inline constexpr uint32_t kMaxEthRings = 16;
inline constexpr uint32_t kMaxEthLogDepth = 12;
inline constexpr uint32_t kGidTableSize = 16;
// Multicast (roce.rst): groups, QPs in one group, attachments of all groups.
inline constexpr uint32_t kMaxMcastGroups = 8192;
inline constexpr uint32_t kMaxMcastQpAttach = 64;
inline constexpr uint32_t kMaxTotalMcastQpAttach = 1u << 16;
inline constexpr uint32_t kLocalCaAckDelay = 15;
inline constexpr uint32_t kSpeedGbps = 100;

// Page-list entries the model keeps for all MRs and queues together: a guest must not be
// able to make the model allocate unbounded memory (4096 MRs x 256 Ki pages = 8 GiB).
inline constexpr uint64_t kPageListBudget = 16ull << 20;

// The object counts one device enforces and reports: the maxima above unless the model was
// started with lower ones (--max, for tests of what a guest sees past a limit).
struct ObjectLimits {
  uint32_t qp = kMaxQp;
  uint32_t cq = kMaxCq;
  uint32_t mr = kMaxMr;
  uint32_t pd = kMaxPd;
  uint32_t srq = kMaxSrq;
  uint32_t ah = kMaxAh;
  uint32_t mcast_grp = kMaxMcastGroups;
  uint32_t mcast_attach = kMaxTotalMcastQpAttach; // all groups together
};

inline constexpr uint32_t kAdminTimeoutMs = 2000;
inline constexpr uint32_t kResetTimeoutMs = 1000;
inline constexpr unsigned kAdminCommandsPerTurn = 16;
inline constexpr unsigned kEthFramesPerTurn = 64;
// WQEs a QP going to ERR (or SQE) flushes per EventLoop turn, all QPs together: a CQ
// overflow that moves a thousand QPs with full queues to ERR does not stall the device.
inline constexpr unsigned kFlushWqesPerTurn = 256;
inline constexpr uint32_t kDefaultEthMtu = 1500;
inline constexpr uint32_t kEthRxMinBuffer = 64;

} // namespace ornic::limits
