// MSI-X state of the function: table and PBA storage (served from the BAR named by
// MsixLayout) and delivery of vectors to the eventfds the vfio-user client assigned.
//
// Delivery rule: a raised vector is signalled (u64 1 written to its eventfd) when
// MSI-X is enabled and the function is not masked (both from config space, which QEMU
// forwards), the vector is not masked in our table and an eventfd is assigned.
// Otherwise its PBA bit is set and it fires as soon as all of that holds again, so no
// interrupt is lost while QEMU wires up vectors one by one.
//
// QEMU emulates the MSI-X table itself (and does its own per-vector masking and PBA
// behind the eventfd), so it never writes our table: our per-vector mask bits, which
// power on masked as the spec says, are only honoured once a client has written the
// table. Clients that do use our table (the in-process tests) get exact semantics.
#pragma once

#include <cstdint>
#include <vector>

#include "common/rate_limited_log.hpp"
#include "common/unique_fd.hpp"
#include "pci/function.hpp"

namespace ornic {

struct MsixCounters {
  uint64_t raised = 0;           // raise() calls for valid vectors
  uint64_t signalled = 0;        // eventfd writes
  uint64_t made_pending = 0;     // could not be delivered at once
  uint64_t out_of_range = 0;     // raise() of a vector the function does not have
  uint64_t eventfd_failures = 0; // write to the eventfd failed (counter full, bad fd)
};

class Msix : public InterruptSink {
public:
  static constexpr uint64_t kEntrySize = 16;

  explicit Msix(unsigned vectors);

  unsigned vectors() const { return static_cast<unsigned>(triggers_.size()); }
  uint64_t table_size() const { return uint64_t{vectors()} * kEntrySize; }
  uint64_t pba_size() const { return (uint64_t{vectors()} + 63) / 64 * 8; }

  // offset relative to the table/PBA start; offset + size within it; size 1..8.
  uint64_t table_read(uint64_t offset, unsigned size) const;
  void table_write(uint64_t offset, unsigned size, uint64_t value);
  uint64_t pba_read(uint64_t offset, unsigned size) const;

  // From config space Message Control.
  void set_control(bool enabled, bool function_masked);
  // An invalid fd de-assigns. vector < vectors() (checked by the caller).
  void set_trigger(unsigned vector, UniqueFd eventfd);
  void clear_triggers();
  bool has_trigger(unsigned vector) const { return triggers_.at(vector).valid(); }

  // Power-on state: table masked, nothing pending, MSI-X disabled. Eventfds stay
  // assigned: they belong to the vfio-user client, which removes them itself.
  void reset();

  void raise(unsigned vector) override;
  bool pending(unsigned vector) const;
  const MsixCounters& counters() const { return counters_; }

private:
  bool deliverable(unsigned vector) const;
  bool vector_masked(unsigned vector) const;
  void signal(unsigned vector);
  void deliver_pending();

  std::vector<uint8_t> table_;
  std::vector<uint64_t> pba_;
  std::vector<UniqueFd> triggers_;
  bool enabled_ = false;
  bool function_masked_ = false;
  bool table_written_ = false;
  MsixCounters counters_;
  RateLimitedLog bad_vector_log_;
  RateLimitedLog eventfd_log_;
};

} // namespace ornic
