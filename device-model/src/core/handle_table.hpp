// A table of device objects keyed by the handle the device hands out (QPN, CQN, ...).
// Handles come from [first, first + capacity); allocation continues after the last
// handle given out, so a just-destroyed handle is not reused at once and a stale handle
// from the guest is far more likely to be refused than to hit a new object.
//
// Two levels: a directory of chunks of kChunk slots, a chunk allocated when its first
// object arrives and freed with its last, each slot a pointer to its object. The data
// path's lookup of a QP, MR or CQ for every packet and WQE stays two indexes, while the
// memory follows the objects the guest created, not the capacity the device advertises
// (a million QPs of capacity cost an 8 KiB directory). Objects never move: a pointer to
// one stays valid until that object is erased.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace ornic {

template <typename T>
class HandleTable {
public:
  using Entry = std::pair<const uint32_t, T>; // what iteration yields: handle, object
  static constexpr uint32_t kChunkShift = 10;
  static constexpr uint32_t kChunk = 1u << kChunkShift;

  HandleTable(uint32_t first, uint32_t capacity)
      : first_(first), capacity_(capacity), end_(first + capacity),
        chunks_((size_t{end_} + kChunk - 1) >> kChunkShift) {}

  // The capacity may be lowered (a model started with smaller limits) or raised back, up
  // to what the table was built for; objects already beyond it stay until erased.
  void set_capacity(uint32_t capacity) {
    capacity_ = std::min(capacity, end_ - first_);
    cursor_ = 0;
  }
  uint32_t capacity() const { return capacity_; }

  std::optional<uint32_t> insert(T object) {
    if (count_ >= capacity_)
      return std::nullopt;
    for (uint32_t tried = 0; tried < capacity_; ++tried) {
      const uint32_t handle = first_ + (cursor_ + tried) % capacity_;
      if (slot(handle) == nullptr) {
        place(handle, std::move(object));
        cursor_ = (handle - first_ + 1) % capacity_;
        return handle;
      }
    }
    return std::nullopt;
  }

  // Puts an object at a fixed handle below first + capacity (the GSI QP's QPN 1); false if
  // taken or out of range.
  bool insert_at(uint32_t handle, T object) {
    if (handle >= first_ + capacity_ || slot(handle) != nullptr)
      return false;
    place(handle, std::move(object));
    return true;
  }

  T* find(uint32_t handle) {
    Entry* entry = slot(handle);
    return entry != nullptr ? &entry->second : nullptr;
  }
  const T* find(uint32_t handle) const {
    const Entry* entry = slot(handle);
    return entry != nullptr ? &entry->second : nullptr;
  }
  bool erase(uint32_t handle) {
    if (slot(handle) == nullptr)
      return false;
    auto& chunk = chunks_[handle >> kChunkShift];
    chunk->slots[handle & (kChunk - 1)].reset();
    if (--chunk->count == 0)
      chunk.reset();
    --count_;
    return true;
  }
  void clear() {
    for (auto& chunk : chunks_)
      chunk.reset();
    count_ = 0;
    cursor_ = 0;
  }
  size_t size() const { return count_; }

  template <typename Predicate>
  bool any_of(Predicate&& predicate) const {
    for (const auto& entry : *this)
      if (predicate(entry.second))
        return true;
    return false;
  }

private:
  struct Chunk {
    std::array<std::unique_ptr<Entry>, kChunk> slots;
    uint32_t count = 0;
  };

public:
  // In handle order, over the objects only.
  template <typename Table, typename Value>
  class Iterator {
  public:
    Iterator(Table* table, size_t index) : table_(table), index_(index) { skip_empty(); }
    Value& operator*() const { return *entry(); }
    Value* operator->() const { return entry(); }
    Iterator& operator++() {
      ++index_;
      skip_empty();
      return *this;
    }
    bool operator==(const Iterator& other) const { return index_ == other.index_; }

  private:
    Value* entry() const {
      return table_->chunks_[index_ >> kChunkShift]->slots[index_ & (kChunk - 1)].get();
    }
    void skip_empty() {
      const size_t end = table_->chunks_.size() << kChunkShift;
      while (index_ < end) {
        const auto& chunk = table_->chunks_[index_ >> kChunkShift];
        if (!chunk)
          index_ = ((index_ >> kChunkShift) + 1) << kChunkShift;
        else if (!chunk->slots[index_ & (kChunk - 1)])
          ++index_;
        else
          return;
      }
      index_ = end;
    }
    Table* table_;
    size_t index_;
  };

  auto begin() { return Iterator<HandleTable, Entry>(this, 0); }
  auto end() { return Iterator<HandleTable, Entry>(this, chunks_.size() << kChunkShift); }
  auto begin() const { return Iterator<const HandleTable, const Entry>(this, 0); }
  auto end() const {
    return Iterator<const HandleTable, const Entry>(this, chunks_.size() << kChunkShift);
  }

private:
  Entry* slot(uint32_t handle) const {
    if (handle >= end_)
      return nullptr;
    const auto& chunk = chunks_[handle >> kChunkShift];
    return chunk ? chunk->slots[handle & (kChunk - 1)].get() : nullptr;
  }
  void place(uint32_t handle, T&& object) {
    auto& chunk = chunks_[handle >> kChunkShift];
    if (!chunk)
      chunk = std::make_unique<Chunk>();
    chunk->slots[handle & (kChunk - 1)] = std::make_unique<Entry>(handle, std::move(object));
    ++chunk->count;
    ++count_;
  }

  uint32_t first_;
  uint32_t capacity_;
  uint32_t end_; // first + the largest capacity: the directory's span
  uint32_t cursor_ = 0;
  size_t count_ = 0;
  std::vector<std::unique_ptr<Chunk>> chunks_; // indexed by handle >> kChunkShift
};

} // namespace ornic
