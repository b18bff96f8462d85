// A vector of at most N trivially copyable elements, stored inline. For lists whose length
// the device bounds (a WQE's SGEs): filling one costs no heap allocation, and creating,
// copying or moving one touches only the elements in use, not all N slots.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstring>
#include <new>
#include <span>
#include <type_traits>

namespace ornic {

template <typename T, size_t N>
class FixedVector {
  // Elements come into being by memcpy into the raw storage (implicit-lifetime types).
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

public:
  using value_type = T;

  FixedVector() = default;
  FixedVector(const FixedVector& other) : size_(other.size_) {
    std::memcpy(storage_, other.storage_, size_ * sizeof(T));
  }
  FixedVector& operator=(const FixedVector& other) {
    size_ = other.size_;
    std::memmove(storage_, other.storage_, size_ * sizeof(T));
    return *this;
  }

  // The caller keeps size() < N (the device's limit, checked where the list is read).
  void push_back(const T& value) {
    assert(size_ < N);
    std::memcpy(storage_ + size_ * sizeof(T), &value, sizeof(T));
    ++size_;
  }
  void clear() { size_ = 0; }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  static constexpr size_t capacity() { return N; }

  T* data() { return std::launder(reinterpret_cast<T*>(storage_)); }
  const T* data() const { return std::launder(reinterpret_cast<const T*>(storage_)); }
  T& operator[](size_t index) { return data()[index]; }
  const T& operator[](size_t index) const { return data()[index]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }

  operator std::span<const T>() const { return {data(), size_}; }

private:
  size_t size_ = 0;
  alignas(T) std::byte storage_[N * sizeof(T)]; // the first size_ elements are in use
};

} // namespace ornic
