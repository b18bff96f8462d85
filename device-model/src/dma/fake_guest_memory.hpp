// GuestMemory over a std::vector (or memory the caller owns) at a base IOVA, for unit tests
// of device logic. Same contract as the real implementation: whole access or nothing, no wrap.
#pragma once

#include <cstring>
#include <span>
#include <vector>

#include "dma/guest_memory.hpp"

namespace ornic {

class FakeGuestMemory : public GuestMemory {
public:
  FakeGuestMemory(uint64_t base_iova, size_t size) : base_(base_iova), owned_(size) {
    bytes_ = owned_;
  }
  // Over `external` (e.g. a memfd mapping the device reaches through MappedGuestMemory),
  // which must outlive this object.
  FakeGuestMemory(uint64_t base_iova, std::span<std::byte> external)
      : base_(base_iova), bytes_(external) {}
  FakeGuestMemory(const FakeGuestMemory&) = delete;
  FakeGuestMemory& operator=(const FakeGuestMemory&) = delete;

  [[nodiscard]] bool read(uint64_t iova, std::span<std::byte> out) override {
    ++reads_;
    if (!covers(iova, out.size()) || fail_reads_)
      return false;
    if (!out.empty())
      std::memcpy(out.data(), bytes_.data() + (iova - base_), out.size());
    return true;
  }

  [[nodiscard]] bool write(uint64_t iova, std::span<const std::byte> in) override {
    ++writes_;
    if (!covers(iova, in.size()) || fail_writes_)
      return false;
    if (!in.empty())
      std::memcpy(bytes_.data() + (iova - base_), in.data(), in.size());
    return true;
  }

  [[nodiscard]] bool write_atomic64(uint64_t iova, std::span<const std::byte, 8> in) override {
    ++atomic_writes_;
    return write(iova, in);
  }

  // Records what was made durable, for tests of FLUSH to persistence.
  [[nodiscard]] bool persist(uint64_t iova, uint64_t size) override {
    if (!covers(iova, size) || fail_persist_)
      return false;
    if (size != 0)
      persisted_.push_back({iova, size});
    return true;
  }

  // Direct access for test setup and checks (offsets are IOVAs).
  std::byte* at(uint64_t iova) { return bytes_.data() + (iova - base_); }
  std::span<std::byte> bytes() { return bytes_; }
  uint64_t base() const { return base_; }

  // Fault injection: make every read/write fail.
  void set_fail_reads(bool fail) { fail_reads_ = fail; }
  void set_fail_writes(bool fail) { fail_writes_ = fail; }
  void set_fail_persist(bool fail) { fail_persist_ = fail; }
  uint64_t read_count() const { return reads_; }
  uint64_t write_count() const { return writes_; }
  uint64_t atomic_write_count() const { return atomic_writes_; }
  struct Range {
    uint64_t iova;
    uint64_t size;
    bool operator==(const Range&) const = default;
  };
  std::vector<Range>& persisted() { return persisted_; }

private:
  bool covers(uint64_t iova, size_t size) const {
    if (size == 0)
      return true;
    if (iova < base_)
      return false;
    const uint64_t offset = iova - base_;
    return offset <= bytes_.size() && size <= bytes_.size() - offset;
  }

  uint64_t base_;
  std::vector<std::byte> owned_; // empty over external memory
  std::span<std::byte> bytes_;
  bool fail_reads_ = false;
  bool fail_writes_ = false;
  bool fail_persist_ = false;
  uint64_t reads_ = 0;
  uint64_t writes_ = 0;
  uint64_t atomic_writes_ = 0;
  std::vector<Range> persisted_;
};

} // namespace ornic
