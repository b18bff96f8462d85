// Every data access of the engine goes through the MR table (memory.rst): the key (index
// and variant), the PD, the bounds and the access rights are checked before any DMA, for
// local SGEs and for remote (rkey) requests alike.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "nic/nic_core.hpp"
#include "rdma/qp_transport.hpp"

namespace ornic {

// Result of a check: ORNIC_VERR_NONE or why not.
using VendorErr = uint8_t;

const MemoryRegion* find_mr(const Resources& resources, uint32_t key);

// Local use of [addr, addr+length) under lkey by a QP of PD `pd`. `access` holds the
// rights needed (LOCAL_WRITE to place data); reading local memory is always allowed.
VendorErr check_local(const Resources& resources, uint32_t pd, uint32_t lkey, uint64_t addr,
                      uint64_t length, uint32_t access);
// Remote use under rkey: PD of the responder QP, REMOTE_* rights on the MR; physical MRs
// are never reachable from the wire.
VendorErr check_remote(const Resources& resources, uint32_t pd, uint32_t rkey, uint64_t addr,
                       uint64_t length, uint32_t access);

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

enum class SgeResult : uint8_t { ok, protection, dma, too_small };

struct SgeOutcome {
  SgeResult result = SgeResult::ok;
  VendorErr vendor_err = ORNIC_VERR_NONE;
};

// Copies bytes [offset, offset + out.size()) of the message described by `sges` out of
// guest memory (gather) or into it (scatter, which needs LOCAL_WRITE). Zero-length SGEs
// are skipped. Every SGE touched is checked again: an MR may be gone since the WQE began.
SgeOutcome gather(NicCore& core, uint32_t pd, const std::vector<WqeSge>& sges, uint64_t offset,
                  std::span<uint8_t> out);
SgeOutcome scatter(NicCore& core, uint32_t pd, const std::vector<WqeSge>& sges, uint64_t offset,
                   std::span<const uint8_t> in);

} // namespace ornic
