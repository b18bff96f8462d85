// A table of device objects keyed by the handle the device hands out (QPN, CQN, ...).
// Handles come from [first, first + capacity); allocation continues after the last
// handle given out, so a just-destroyed handle is not reused at once and a stale handle
// from the guest is far more likely to be refused than to hit a new object.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace ornic {

template <typename T>
class HandleTable {
public:
  HandleTable(uint32_t first, uint32_t capacity) : first_(first), capacity_(capacity) {}

  std::optional<uint32_t> insert(T object) {
    if (objects_.size() >= capacity_)
      return std::nullopt;
    for (uint32_t tried = 0; tried < capacity_; ++tried) {
      const uint32_t handle = first_ + (cursor_ + tried) % capacity_;
      if (!objects_.contains(handle)) {
        objects_.emplace(handle, std::move(object));
        cursor_ = (handle - first_ + 1) % capacity_;
        return handle;
      }
    }
    return std::nullopt;
  }

  // Puts an object at a fixed handle (the GSI QP's QPN 1); false if taken.
  bool insert_at(uint32_t handle, T object) {
    return objects_.emplace(handle, std::move(object)).second;
  }

  T* find(uint32_t handle) {
    auto it = objects_.find(handle);
    return it == objects_.end() ? nullptr : &it->second;
  }
  const T* find(uint32_t handle) const {
    auto it = objects_.find(handle);
    return it == objects_.end() ? nullptr : &it->second;
  }
  bool erase(uint32_t handle) { return objects_.erase(handle) != 0; }
  void clear() {
    objects_.clear();
    cursor_ = 0;
  }
  size_t size() const { return objects_.size(); }

  template <typename Predicate>
  bool any_of(Predicate&& predicate) const {
    for (const auto& [handle, object] : objects_)
      if (predicate(object))
        return true;
    return false;
  }

  auto begin() { return objects_.begin(); }
  auto end() { return objects_.end(); }
  auto begin() const { return objects_.begin(); }
  auto end() const { return objects_.end(); }

private:
  uint32_t first_;
  uint32_t capacity_;
  uint32_t cursor_ = 0;
  std::map<uint32_t, T> objects_;
};

} // namespace ornic
