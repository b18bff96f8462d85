#include "port/shm_ring.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

namespace ornic::shm {
namespace {

// A u32 of the shared region, accessed atomically: the other process writes it.
std::atomic_ref<uint32_t> word(std::byte* base, size_t offset) {
  return std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(base + offset));
}

std::byte* slot(std::byte* ring, uint32_t index) {
  return ring + kControlBytes + size_t{index & (kSlotCount - 1)} * kSlotBytes;
}

[[noreturn]] void throw_errno(const char* what) {
  throw std::system_error(errno, std::generic_category(), what);
}

std::byte* map_region(int fd) {
  void* base = ::mmap(nullptr, kRegionBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED)
    return nullptr;
  return static_cast<std::byte*>(base);
}

} // namespace

Region::~Region() {
  if (base_)
    ::munmap(base_, kRegionBytes);
}

Region::Region(Region&& other) noexcept
    : fd_(std::move(other.fd_)), base_(std::exchange(other.base_, nullptr)) {}

Region& Region::operator=(Region&& other) noexcept {
  if (this != &other) {
    if (base_)
      ::munmap(base_, kRegionBytes);
    fd_ = std::move(other.fd_);
    base_ = std::exchange(other.base_, nullptr);
  }
  return *this;
}

Region Region::create() {
  UniqueFd fd(::memfd_create("ornic-shm-port", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd)
    throw_errno("memfd_create");
  if (::ftruncate(fd.get(), static_cast<off_t>(kRegionBytes)) != 0)
    throw_errno("ftruncate(memfd)");
  // The peer maps it too: sealed, neither of us can make the other's accesses fault.
  if (::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
    throw_errno("F_ADD_SEALS(memfd)");
  std::byte* base = map_region(fd.get());
  if (!base)
    throw_errno("mmap(memfd)");
  Region region(std::move(fd), base);
  const RegionHeader header{kRegionMagic, kRegionVersion, kSlotCount,
                            static_cast<uint32_t>(kSlotBytes)};
  std::memcpy(base, &header, sizeof(header));
  // Nobody has looked at the rings yet: the first frame in either direction kicks.
  for (const size_t ring : kRingOffset)
    word(base, ring + kConsumerWaitingOffset).store(1);
  return region;
}

Region Region::map(UniqueFd fd) {
  struct stat st;
  if (::fstat(fd.get(), &st) != 0)
    throw std::runtime_error(std::string("fstat of the shared memory: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) != kRegionBytes)
    throw std::runtime_error("the shared memory is " + std::to_string(st.st_size) +
                             " bytes, expected a memfd of " + std::to_string(kRegionBytes));
  const int seals = ::fcntl(fd.get(), F_GET_SEALS);
  if (seals < 0)
    throw std::runtime_error("the shared memory is not a sealable memfd");
  if (!(seals & F_SEAL_SHRINK))
    throw std::runtime_error("the shared memory is not sealed against shrinking");
  std::byte* base = map_region(fd.get());
  if (!base)
    throw std::runtime_error(std::string("mmap of the shared memory: ") + std::strerror(errno));
  Region region(std::move(fd), base);
  RegionHeader header;
  std::memcpy(&header, base, sizeof(header));
  if (header.magic != kRegionMagic || header.version != kRegionVersion ||
      header.slot_count != kSlotCount || header.slot_bytes != kSlotBytes)
    throw std::runtime_error("the shared memory's header is not ours (magic " +
                             std::to_string(header.magic) + ", version " +
                             std::to_string(header.version) + ")");
  return region;
}

RingProducer::RingProducer(std::byte* ring) : ring_(ring) {
  head_ = word(ring_, kHeadOffset).load();
}

int64_t RingProducer::free_slots() {
  const uint32_t tail = word(ring_, kTailOffset).load();
  const uint32_t used = head_ - tail;
  if (used > kSlotCount) {
    corrupt_ = true;
    return -1;
  }
  return kSlotCount - used;
}

std::span<std::byte> RingProducer::reserve() {
  if (corrupt_ || free_slots() <= 0)
    return {};
  return {slot(ring_, head_) + kSlotDataOffset, kMaxFrameBytes};
}

RingProducer::Push RingProducer::commit(size_t length) {
  word(slot(ring_, head_), 0).store(static_cast<uint32_t>(length), std::memory_order_relaxed);
  ++head_;
  word(ring_, kHeadOffset).store(head_); // seq_cst: paired with prepare_sleep()
  std::atomic_ref<uint32_t> waiting = word(ring_, kConsumerWaitingOffset);
  if (waiting.load() != 0 && waiting.exchange(0) != 0)
    return Push::sent_kick;
  return Push::sent;
}

RingProducer::Push RingProducer::push(std::span<const std::byte> frame) {
  const std::span<std::byte> area = reserve();
  if (area.empty())
    return corrupt_ ? Push::corrupt : Push::full;
  std::memcpy(area.data(), frame.data(), frame.size());
  return commit(frame.size());
}

bool RingProducer::request_room() {
  word(ring_, kProducerWaitingOffset).store(1); // seq_cst: paired with take_room_request()
  if (free_slots() == 0)
    return false;
  word(ring_, kProducerWaitingOffset).store(0);
  return true; // room, or corrupt (the next push says so)
}

RingConsumer::RingConsumer(std::byte* ring) : ring_(ring) {
  tail_ = word(ring_, kTailOffset).load();
}

RingConsumer::Pop RingConsumer::peek(std::span<const std::byte>& frame, uint32_t& length) {
  const uint32_t head = word(ring_, kHeadOffset).load();
  const uint32_t available = head - tail_;
  if (available == 0)
    return Pop::empty;
  if (available > kSlotCount)
    return Pop::corrupt;
  std::byte* s = slot(ring_, tail_);
  // Read once: the value checked is the value used.
  length = word(s, 0).load(std::memory_order_relaxed);
  if (length < kMinFrameBytes || length > kMaxFrameBytes)
    return Pop::bad_length;
  frame = {s + kSlotDataOffset, length};
  return Pop::frame;
}

void RingConsumer::release() {
  ++tail_;
  word(ring_, kTailOffset).store(tail_); // seq_cst: paired with request_room()
}

RingConsumer::Pop RingConsumer::pop(std::span<std::byte> buffer, uint32_t& length) {
  std::span<const std::byte> frame;
  Pop result = peek(frame, length);
  if (result == Pop::frame && length > buffer.size())
    result = Pop::bad_length;
  else if (result == Pop::frame)
    std::memcpy(buffer.data(), frame.data(), length);
  if (result == Pop::frame || result == Pop::bad_length)
    release();
  return result;
}

bool RingConsumer::prepare_sleep() {
  word(ring_, kConsumerWaitingOffset).store(1); // seq_cst: paired with commit()
  if (word(ring_, kHeadOffset).load() == tail_)
    return true;
  // Not sleeping after all; a kick the producer may send anyway is harmless.
  word(ring_, kConsumerWaitingOffset).store(0);
  return false;
}

bool RingConsumer::take_room_request() {
  std::atomic_ref<uint32_t> waiting = word(ring_, kProducerWaitingOffset);
  return waiting.load() != 0 && waiting.exchange(0) != 0;
}

} // namespace ornic::shm
