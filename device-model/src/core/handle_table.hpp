// A table of device objects keyed by the handle the device hands out (QPN, CQN, ...).
// Handles come from [first, first + capacity); allocation continues after the last
// handle given out, so a just-destroyed handle is not reused at once and a stale handle
// from the guest is far more likely to be refused than to hit a new object.
//
// Flat: one slot per possible handle, allocated with the table, so the data path's lookup
// of a QP, MR or CQ for every packet and WQE is an index, not a tree walk. Objects never
// move: a pointer to one stays valid until that object is erased.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace ornic {

template <typename T>
class HandleTable {
public:
  using Entry = std::pair<const uint32_t, T>; // what iteration yields: handle, object

  HandleTable(uint32_t first, uint32_t capacity)
      : first_(first), capacity_(capacity), slots_(size_t{first} + capacity) {}

  std::optional<uint32_t> insert(T object) {
    if (count_ >= capacity_)
      return std::nullopt;
    for (uint32_t tried = 0; tried < capacity_; ++tried) {
      const uint32_t handle = first_ + (cursor_ + tried) % capacity_;
      if (!slots_[handle]) {
        slots_[handle].emplace(handle, std::move(object));
        ++count_;
        cursor_ = (handle - first_ + 1) % capacity_;
        return handle;
      }
    }
    return std::nullopt;
  }

  // Puts an object at a fixed handle below first + capacity (the GSI QP's QPN 1); false if
  // taken or out of range.
  bool insert_at(uint32_t handle, T object) {
    if (handle >= slots_.size() || slots_[handle])
      return false;
    slots_[handle].emplace(handle, std::move(object));
    ++count_;
    return true;
  }

  T* find(uint32_t handle) {
    return handle < slots_.size() && slots_[handle] ? &slots_[handle]->second : nullptr;
  }
  const T* find(uint32_t handle) const {
    return handle < slots_.size() && slots_[handle] ? &slots_[handle]->second : nullptr;
  }
  bool erase(uint32_t handle) {
    if (handle >= slots_.size() || !slots_[handle])
      return false;
    slots_[handle].reset();
    --count_;
    return true;
  }
  // Stops at the last object: a device reset of a table that held a few low handles does
  // not walk its thousands of empty slots.
  void clear() {
    for (size_t handle = 0; count_ != 0 && handle < slots_.size(); ++handle)
      if (slots_[handle]) {
        slots_[handle].reset();
        --count_;
      }
    cursor_ = 0;
  }
  size_t size() const { return count_; }

  template <typename Predicate>
  bool any_of(Predicate&& predicate) const {
    for (const auto& slot : slots_)
      if (slot && predicate(slot->second))
        return true;
    return false;
  }

  // In handle order, over the objects only.
  template <typename Slot, typename Value>
  class Iterator {
  public:
    Iterator(Slot* at, Slot* end) : at_(at), end_(end) { skip_empty(); }
    Value& operator*() const { return **at_; }
    Value* operator->() const { return &**at_; }
    Iterator& operator++() {
      ++at_;
      skip_empty();
      return *this;
    }
    bool operator==(const Iterator& other) const { return at_ == other.at_; }

  private:
    void skip_empty() {
      while (at_ != end_ && !*at_)
        ++at_;
    }
    Slot* at_;
    Slot* end_;
  };
  using Slot = std::optional<Entry>;

  auto begin() { return Iterator<Slot, Entry>(slots_.data(), slots_.data() + slots_.size()); }
  auto end() {
    return Iterator<Slot, Entry>(slots_.data() + slots_.size(), slots_.data() + slots_.size());
  }
  auto begin() const {
    return Iterator<const Slot, const Entry>(slots_.data(), slots_.data() + slots_.size());
  }
  auto end() const {
    return Iterator<const Slot, const Entry>(slots_.data() + slots_.size(),
                                             slots_.data() + slots_.size());
  }

private:
  uint32_t first_;
  uint32_t capacity_;
  uint32_t cursor_ = 0;
  size_t count_ = 0;
  std::vector<Slot> slots_; // indexed by handle
};

} // namespace ornic
