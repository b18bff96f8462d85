// A FIFO in one growable ring of slots: push at the back, pop at the front, index from the
// front. Unlike std::deque, which allocates a node per few elements (per element for one
// as large as a SendOp) and frees it again, the ring only allocates when it grows past the
// most it ever held, so a steady stream of push/pop allocates nothing. Its memory is
// returned when the queue is destroyed or replaced (a QP reset), not on clear().
#pragma once

#include <cassert>
#include <cstddef>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

namespace ornic {

template <typename T>
class RingQueue {
public:
  template <bool Const>
  class Iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using Queue = std::conditional_t<Const, const RingQueue, RingQueue>;
    using reference = std::conditional_t<Const, const T&, T&>;
    using pointer = std::conditional_t<Const, const T*, T*>;

    Iterator() = default;
    Iterator(Queue* queue, size_t index) : queue_(queue), index_(index) {}
    reference operator*() const { return (*queue_)[index_]; }
    pointer operator->() const { return &(*queue_)[index_]; }
    Iterator& operator++() {
      ++index_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++index_;
      return before;
    }
    bool operator==(const Iterator& other) const { return index_ == other.index_; }

  private:
    Queue* queue_ = nullptr;
    size_t index_ = 0;
  };
  using iterator = Iterator<false>;
  using const_iterator = Iterator<true>;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T& operator[](size_t index) { return slots_[(head_ + index) & (slots_.size() - 1)]; }
  const T& operator[](size_t index) const { return slots_[(head_ + index) & (slots_.size() - 1)]; }
  T& front() { return (*this)[0]; }
  const T& front() const { return (*this)[0]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }

  void push_back(T&& value) {
    if (size_ == slots_.size())
      grow();
    slots_[(head_ + size_) & (slots_.size() - 1)] = std::move(value);
    ++size_;
  }
  // The slot keeps the popped element's moved-from remains until it is reused.
  void pop_front() {
    assert(size_ > 0);
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
  }
  void clear() {
    for (size_t i = 0; i < size_; ++i)
      (*this)[i] = T{};
    head_ = size_ = 0;
  }

  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

private:
  // Twice the slots (a power of two, so an index wraps with a mask), the elements moved to
  // the front of the new ring in order.
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 8 : 2 * slots_.size());
    for (size_t i = 0; i < size_; ++i)
      bigger[i] = std::move((*this)[i]);
    slots_ = std::move(bigger);
    head_ = 0;
  }

  std::vector<T> slots_; // empty or a power of two
  size_t head_ = 0;
  size_t size_ = 0;
};

} // namespace ornic
