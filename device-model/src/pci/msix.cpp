#include "pci/msix.hpp"

#include <cerrno>
#include <cstring>

#include <unistd.h>

namespace ornic {
namespace {

constexpr uint64_t kVectorControlOffset = 12;
constexpr uint8_t kVectorMasked = 1;

} // namespace

Msix::Msix(unsigned vectors)
    : table_(uint64_t{vectors} * kEntrySize), pba_((uint64_t{vectors} + 63) / 64),
      triggers_(vectors) {
  reset();
}

void Msix::reset() {
  std::fill(table_.begin(), table_.end(), 0);
  for (unsigned v = 0; v < vectors(); ++v)
    table_[v * kEntrySize + kVectorControlOffset] = kVectorMasked;
  std::fill(pba_.begin(), pba_.end(), 0);
  enabled_ = false;
  function_masked_ = false;
  table_written_ = false;
}

uint64_t Msix::table_read(uint64_t offset, unsigned size) const {
  uint64_t value = 0;
  std::memcpy(&value, table_.data() + offset, size); // little-endian host
  return value;
}

void Msix::table_write(uint64_t offset, unsigned size, uint64_t value) {
  std::memcpy(table_.data() + offset, &value, size);
  table_written_ = true;
  deliver_pending(); // an unmask may have made pending vectors deliverable
}

uint64_t Msix::pba_read(uint64_t offset, unsigned size) const {
  uint64_t value = 0;
  std::memcpy(&value, reinterpret_cast<const uint8_t*>(pba_.data()) + offset, size);
  return value;
}

void Msix::set_control(bool enabled, bool function_masked) {
  enabled_ = enabled;
  function_masked_ = function_masked;
  deliver_pending();
}

void Msix::set_trigger(unsigned vector, UniqueFd eventfd) {
  triggers_.at(vector) = std::move(eventfd);
  if (pending(vector) && deliverable(vector)) {
    pba_[vector / 64] &= ~(uint64_t{1} << (vector % 64));
    signal(vector);
  }
}

void Msix::clear_triggers() {
  for (auto& fd : triggers_)
    fd.reset();
}

bool Msix::vector_masked(unsigned vector) const {
  return table_written_ && (table_[vector * kEntrySize + kVectorControlOffset] & kVectorMasked);
}

bool Msix::deliverable(unsigned vector) const {
  return enabled_ && !function_masked_ && !vector_masked(vector) && triggers_[vector].valid();
}

bool Msix::pending(unsigned vector) const {
  return vector < vectors() && (pba_[vector / 64] >> (vector % 64)) & 1;
}

void Msix::raise(unsigned vector) {
  if (vector >= vectors()) {
    ++counters_.out_of_range;
    bad_vector_log_.warn("MSI-X vector {} raised but the function has only {}", vector, vectors());
    return;
  }
  ++counters_.raised;
  if (!deliverable(vector)) {
    ++counters_.made_pending;
    pba_[vector / 64] |= uint64_t{1} << (vector % 64);
    return;
  }
  signal(vector);
}

void Msix::signal(unsigned vector) {
  const uint64_t one = 1;
  // eventfd writes never block for long: they only fail (EAGAIN) if the counter would
  // overflow, which means the reader is long gone; counting the loss is all we can do.
  if (write(triggers_[vector].get(), &one, sizeof(one)) != static_cast<ssize_t>(sizeof(one))) {
    ++counters_.eventfd_failures;
    eventfd_log_.warn("MSI-X vector {}: eventfd write failed: {}", vector, std::strerror(errno));
    return;
  }
  ++counters_.signalled;
}

void Msix::deliver_pending() {
  for (unsigned word = 0; word < pba_.size(); ++word) {
    uint64_t bits = pba_[word];
    while (bits != 0) {
      const unsigned bit = static_cast<unsigned>(__builtin_ctzll(bits));
      bits &= bits - 1;
      const unsigned vector = word * 64 + bit;
      if (deliverable(vector)) {
        pba_[word] &= ~(uint64_t{1} << bit);
        signal(vector);
      }
    }
  }
}

} // namespace ornic
