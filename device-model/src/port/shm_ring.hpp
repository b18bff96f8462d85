// The shared memory of an shm: port (shm_port.hpp): one memfd holding a header and two
// single-producer single-consumer frame rings, one per direction, mapped by both models.
//
// Layout (all integers little-endian u32, offsets in bytes):
//   0                  region header: magic "ORSH", version, slot count, slot size
//   kRingOffset[0]     ring 0: the dialing model produces, the listening model consumes
//   kRingOffset[1]     ring 1: the other way round
// A ring is a control block of four 64-byte lines (each written by one side only, so the
// two processes never share a written cache line):
//   +0   head              producer: frames ever published (free running, wraps at 2^32)
//   +64  tail              consumer: frames ever consumed
//   +128 consumer_waiting  consumer: 1 = "about to sleep, kick me"; the producer clears it
//   +192 producer_waiting  producer: 1 = "ring full, kick me when there is room"; the
//                          consumer clears it
// followed by kSlotCount slots of kSlotBytes: a u32 frame length at +0 and the frame at
// +kSlotDataOffset. Slot i of the ring holds frame number n where n % kSlotCount == i.
//
// Protocol: the producer writes a slot, then publishes it by storing head (sequentially
// consistent), then reads consumer_waiting and, only if it is set, clears it and kicks the
// consumer's eventfd. The consumer, before it goes back to sleep in epoll, stores
// consumer_waiting = 1 and then reads head again; if a frame arrived in between it does
// not sleep. Both orders are seq_cst, so either the consumer sees the new head or the
// producer sees the flag: a wakeup is never lost, and a busy consumer costs no system
// call. Room works the same way with producer_waiting and tail.
//
// Everything in the region is also written by the other process and is untrusted: the
// producer validates tail and the consumer validates head every time they read them
// (the distance head - tail must be within 0..kSlotCount, otherwise the ring is corrupt),
// each side keeps its own index privately and only publishes it, and a frame length
// outside the Ethernet length rule drops that frame. A frame is parsed where it lies in its
// slot (peek/release) or copied out first (pop); either way its length is read once, and
// a peer that scribbles over a slot being read can only garble that frame's bytes, never
// a length or an offset we use (the parser reads each header field once, from a copy of
// the headers: roce/parser.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "common/unique_fd.hpp"
#include "port/port.hpp"

namespace ornic::shm {

inline constexpr uint32_t kRegionMagic = 0x4853524f; // "ORSH"
inline constexpr uint32_t kRegionVersion = 1;
inline constexpr uint32_t kSlotCount = 512; // a power of two
inline constexpr size_t kSlotDataOffset = 64;
inline constexpr size_t kSlotBytes = kSlotDataOffset + kMaxFrameBytes; // 9280
inline constexpr size_t kControlBytes = 256;
inline constexpr size_t kHeadOffset = 0;
inline constexpr size_t kTailOffset = 64;
inline constexpr size_t kConsumerWaitingOffset = 128;
inline constexpr size_t kProducerWaitingOffset = 192;
inline constexpr size_t kRingBytes = kControlBytes + size_t{kSlotCount} * kSlotBytes;
inline constexpr size_t kHeaderBytes = 4096;
inline constexpr size_t kRingOffset[2] = {kHeaderBytes, kHeaderBytes + kRingBytes};
inline constexpr size_t kRegionBytes = kHeaderBytes + 2 * kRingBytes;
static_assert((kSlotCount & (kSlotCount - 1)) == 0);
static_assert(kSlotBytes % 64 == 0 && kRingBytes % 64 == 0);

// The header's fields, at offsets 0, 4, 8, 12.
struct RegionHeader {
  uint32_t magic;
  uint32_t version;
  uint32_t slot_count;
  uint32_t slot_bytes;
};
static_assert(sizeof(RegionHeader) == 16);

// A mapping of the region; owns the memfd and the mapping.
class Region {
public:
  Region() = default;
  ~Region();
  Region(Region&& other) noexcept;
  Region& operator=(Region&& other) noexcept;
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;

  // A new sealed (no shrinking, no growing) memfd of kRegionBytes with the header written
  // and both consumers marked waiting. Throws std::system_error.
  static Region create();
  // Maps a memfd received from the peer after checking that it is one we can trust not to
  // shrink under us (F_SEAL_SHRINK, so no SIGBUS), of exactly kRegionBytes, with our
  // header. Throws std::runtime_error naming what is wrong.
  static Region map(UniqueFd fd);

  int fd() const { return fd_.get(); }
  std::byte* ring(int index) const { return base_ + kRingOffset[index]; }
  std::span<std::byte> bytes() const { return {base_, base_ ? kRegionBytes : 0}; }

private:
  Region(UniqueFd fd, std::byte* base) : fd_(std::move(fd)), base_(base) {}
  UniqueFd fd_;
  std::byte* base_ = nullptr;
};

class RingProducer {
public:
  enum class Push {
    sent,      // published; the consumer is awake (or will look before sleeping)
    sent_kick, // published; the consumer sleeps: kick its eventfd
    full,      // no free slot
    corrupt,   // the consumer's tail is impossible
  };

  RingProducer() = default;
  explicit RingProducer(std::byte* ring);

  // Copies one frame (kMinFrameBytes..kMaxFrameBytes, checked by the caller) into the ring.
  Push push(std::span<const std::byte> frame);
  // Zero-copy form: the next free slot's frame area (kMaxFrameBytes), or an empty span if
  // the ring is full or corrupt (then push() or room tells which); commit() publishes it.
  std::span<std::byte> reserve();
  Push commit(size_t length);

  // The ring was full: asks the consumer for a kick when it frees a slot. True if a slot
  // is free already (the request is withdrawn): push again instead of waiting.
  bool request_room();
  bool corrupt() const { return corrupt_; }

private:
  // Free slots, or -1 if tail is impossible.
  int64_t free_slots();

  std::byte* ring_ = nullptr;
  uint32_t head_ = 0; // ours; only ever published
  bool corrupt_ = false;
};

class RingConsumer {
public:
  enum class Pop {
    frame,      // copied into the buffer; length set
    empty,      // nothing published
    bad_length, // a slot whose length breaks the length rule: dropped; length set to it
    corrupt,    // the producer's head is impossible
  };

  RingConsumer() = default;
  explicit RingConsumer(std::byte* ring);

  // Copies the next frame into `buffer` (at least kMaxFrameBytes) and frees its slot.
  Pop pop(std::span<std::byte> buffer, uint32_t& length);
  // Zero-copy form: on Pop::frame `frame` is the next frame where it lies in its slot, of
  // the length read (once) and checked here; its bytes stay the peer's to scribble on, so
  // whoever parses them reads each field once. The slot stays ours until release(), which
  // must follow every frame and bad_length result before the next peek().
  Pop peek(std::span<const std::byte>& frame, uint32_t& length);
  void release();
  // Before sleeping: sets consumer_waiting and looks again. True if the ring is still
  // empty (sleep; the producer will kick), false if a frame arrived meanwhile (or the ring
  // is corrupt): pop on.
  bool prepare_sleep();
  // After consuming: true if the producer asked for room (the request is then cleared):
  // kick its eventfd.
  bool take_room_request();

private:
  std::byte* ring_ = nullptr;
  uint32_t tail_ = 0; // ours; only ever published
};

} // namespace ornic::shm
