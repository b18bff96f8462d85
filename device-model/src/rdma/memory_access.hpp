// Every data access of the engine goes through the MR table (memory.rst): the key (index
// and variant), the PD, the bounds and the access rights are checked before any DMA, for
// local SGEs and for remote (rkey) requests alike. An rkey may also name a memory window,
// whose own checks come first ("Memory windows").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/nic_core.hpp"
#include "core/qp_transport.hpp"
#include "rdma/odp.hpp"

namespace ornic {

// Result of a check: ORNIC_VERR_NONE or why not.
using VendorErr = uint8_t;

// The valid MR a key names (index and variant); never a window, never a FREE fast-reg MR.
const MemoryRegion* find_mr(const Resources& resources, uint32_t key);

// Local use of [addr, addr+length) under lkey by a QP of PD `pd`. `access` holds the
// rights needed (LOCAL_WRITE to place data); reading local memory is always allowed.
VendorErr check_local(const Resources& resources, uint32_t pd, uint32_t lkey, uint64_t addr,
                      uint64_t length, uint32_t access);
// Remote use under rkey by responder QP `qpn` of PD `pd`. An MR key: PD, bounds, REMOTE_*
// rights on the MR; physical MRs are never reachable from the wire. A window's key: the
// window is bound with that variant, of `pd`, (type 2) through `qpn`, holds the range and
// has the rights; then its MR holds the range. `mr` is the MR to access on success.
struct RemoteTarget {
  VendorErr why = ORNIC_VERR_NONE;
  const MemoryRegion* mr = nullptr;
};
RemoteTarget check_remote(const Resources& resources, uint32_t qpn, uint32_t pd, uint32_t rkey,
                          uint64_t addr, uint64_t length, uint32_t access);

// DMA through a checked MR; false when the guest memory behind it is not mapped.
bool mr_read(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr, std::span<uint8_t> out);
bool mr_write(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr,
              std::span<const uint8_t> in);

// ATOMIC WRITE: the 8 bytes at an 8-byte aligned `addr` of a checked MR, as one store.
bool mr_write_atomic64(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr,
                       std::span<const uint8_t, 8> in);
// FLUSH to persistence: has the memory behind [addr, addr+length) of a checked MR made
// durable; false when the backing store refuses.
bool mr_persist(GuestMemory& memory, const MemoryRegion& mr, uint64_t addr, uint64_t length);

// page_fault: an ODP page is not resident (`fault` says which); nothing failed, the
// access is to be retried once the driver has made it resident.
enum class SgeResult : uint8_t { ok, protection, dma, too_small, page_fault };

struct SgeOutcome {
  SgeResult result = SgeResult::ok;
  VendorErr vendor_err = ORNIC_VERR_NONE;
  OdpFault fault;
};

// Copies bytes [offset, offset + out.size()) of the message described by `sges` out of
// guest memory (gather) or into it (scatter, which needs LOCAL_WRITE). Zero-length SGEs
// are skipped. Every SGE touched is checked again: an MR may be gone since the WQE began.
SgeOutcome gather(NicCore& core, uint32_t pd, std::span<const WqeSge> sges, uint64_t offset,
                  std::span<uint8_t> out);
SgeOutcome scatter(NicCore& core, uint32_t pd, std::span<const WqeSge> sges, uint64_t offset,
                   std::span<const uint8_t> in);
// Only looks: page_fault when an ODP page of the first `length` bytes is missing, ok
// otherwise (other errors are left to the access itself).
SgeOutcome probe_sges(NicCore& core, uint32_t pd, std::span<const WqeSge> sges, uint64_t length,
                      bool write);

// For an ODP MR (already checked): whether [addr, addr + length) may be accessed now.
// Counts ODP_ERRORS for an ERROR entry or an unreadable table.
OdpProbeResult odp_check(NicCore& core, const MemoryRegion& mr, uint32_t key, uint64_t addr,
                         uint64_t length, bool write);

} // namespace ornic
