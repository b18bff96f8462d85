// The shm: port's rings on their own: wrap-around, a full ring, the sleep/kick protocol
// (also under two threads that really sleep), and a peer that corrupts every field.
#include <atomic>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "port/shm_ring.hpp"
#include "port_test_support.hpp"

namespace ornic::test {
namespace {

using shm::RingConsumer;
using shm::RingProducer;
using Push = RingProducer::Push;
using Pop = RingConsumer::Pop;

std::atomic_ref<uint32_t> field(std::byte* ring, size_t offset) {
  return std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(ring + offset));
}

std::byte* slot_of(std::byte* ring, uint32_t n) {
  return ring + shm::kControlBytes + size_t{n % shm::kSlotCount} * shm::kSlotBytes;
}

class ShmRingTest : public ::testing::Test {
protected:
  shm::Region region = shm::Region::create();
  std::byte* ring = region.ring(0);
  std::vector<std::byte> buffer = std::vector<std::byte>(kMaxFrameBytes);

  Frame pop_frame(RingConsumer& consumer) {
    uint32_t length = 0;
    EXPECT_EQ(consumer.pop(buffer, length), Pop::frame);
    return Frame(buffer.begin(), buffer.begin() + length);
  }
};

TEST_F(ShmRingTest, FramesWrapAroundTheRingAndTheIndicesWrapAround32Bits) {
  // Start just below 2^32 so the free-running indices wrap during the test.
  const uint32_t start = 0xffffffffu - 700;
  field(ring, shm::kHeadOffset).store(start);
  field(ring, shm::kTailOffset).store(start);
  RingProducer producer(ring);
  RingConsumer consumer(ring);
  size_t sent = 0, received = 0;
  const size_t total = 3 * shm::kSlotCount + 77;
  const std::vector<size_t> sizes = {kMinFrameBytes, 60, 1514, 4096, kMaxFrameBytes};
  // Keep the ring part full: five in, three out, so every slot is reused at many offsets.
  while (received < total) {
    for (int i = 0; i < 5 && sent < total; ++i, ++sent) {
      const Push pushed =
          producer.push(make_frame(sizes[sent % sizes.size()], static_cast<uint8_t>(sent)));
      ASSERT_TRUE(pushed == Push::sent || pushed == Push::sent_kick) << sent;
    }
    // Three out, or more when the ring is nearly full, or all at the end.
    for (int i = 0; received < sent && (i < 3 || sent == total || sent - received > 500);
         ++i, ++received)
      ASSERT_EQ(pop_frame(consumer),
                make_frame(sizes[received % sizes.size()], static_cast<uint8_t>(received)))
          << received;
  }
  uint32_t length;
  EXPECT_EQ(consumer.pop(buffer, length), Pop::empty);
  EXPECT_LT(field(ring, shm::kHeadOffset).load(), start); // wrapped
}

TEST_F(ShmRingTest, AFullRingRefusesTheNextFrameAndKicksTheProducerWhenASlotFrees) {
  RingProducer producer(ring);
  RingConsumer consumer(ring);
  for (uint32_t i = 0; i < shm::kSlotCount; ++i)
    ASSERT_NE(producer.push(make_frame(60, static_cast<uint8_t>(i))), Push::full) << i;
  EXPECT_EQ(producer.push(make_frame(60, 99)), Push::full);
  EXPECT_TRUE(producer.reserve().empty());
  EXPECT_FALSE(consumer.take_room_request()); // nobody asked yet
  EXPECT_FALSE(producer.request_room());      // still full: wait for the kick
  EXPECT_EQ(field(ring, shm::kProducerWaitingOffset).load(), 1u);
  EXPECT_EQ(pop_frame(consumer), make_frame(60, 0));
  EXPECT_TRUE(consumer.take_room_request());  // the producer sleeps: kick it
  EXPECT_FALSE(consumer.take_room_request()); // once
  EXPECT_NE(producer.push(make_frame(60, 100)), Push::full);
  EXPECT_EQ(producer.push(make_frame(60, 101)), Push::full);
  // Room appeared between the failed push and the request: no sleep, no kick needed.
  EXPECT_EQ(pop_frame(consumer), make_frame(60, 1));
  EXPECT_TRUE(producer.request_room());
  EXPECT_FALSE(consumer.take_room_request());
  for (uint32_t i = 2; i < shm::kSlotCount; ++i)
    EXPECT_EQ(pop_frame(consumer), make_frame(60, static_cast<uint8_t>(i)));
  EXPECT_EQ(pop_frame(consumer), make_frame(60, 100));
}

TEST_F(ShmRingTest, TheProducerKicksOnlyAConsumerThatSaidItSleeps) {
  RingProducer producer(ring);
  RingConsumer consumer(ring);
  // A fresh region: the consumer has not looked yet, so the first frame kicks.
  EXPECT_EQ(producer.push(make_frame(60, 1)), Push::sent_kick);
  EXPECT_EQ(producer.push(make_frame(60, 2)), Push::sent); // awake now: no system call
  EXPECT_EQ(pop_frame(consumer), make_frame(60, 1));
  // A frame between the last pop and the sleep: the consumer does not sleep.
  EXPECT_FALSE(consumer.prepare_sleep());
  EXPECT_EQ(field(ring, shm::kConsumerWaitingOffset).load(), 0u);
  EXPECT_EQ(producer.push(make_frame(60, 3)), Push::sent);
  EXPECT_EQ(pop_frame(consumer), make_frame(60, 2));
  EXPECT_EQ(pop_frame(consumer), make_frame(60, 3));
  EXPECT_TRUE(consumer.prepare_sleep()); // empty: sleeps
  EXPECT_EQ(producer.push(make_frame(60, 4)), Push::sent_kick);
  EXPECT_EQ(producer.push(make_frame(60, 5)), Push::sent); // one kick per sleep
}

// Two threads that really sleep in poll() on their eventfds. A lost wakeup leaves one of
// them asleep with work pending: the poll timeout catches it and the test fails.
TEST_F(ShmRingTest, NoWakeupIsLostBetweenTwoThreadsThatSleep) {
  constexpr uint32_t kFrames = 200000;
  const int consumer_kick = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  const int producer_kick = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  ASSERT_GE(consumer_kick, 0);
  ASSERT_GE(producer_kick, 0);
  auto kick = [](int fd) {
    const uint64_t one = 1;
    ASSERT_EQ(::write(fd, &one, sizeof(one)), 8);
  };
  // False if the poll timed out: the other side never kicked.
  auto sleep_on = [](int fd) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) != 1)
      return false;
    uint64_t count;
    return ::read(fd, &count, sizeof(count)) == 8;
  };
  std::atomic<bool> producer_stuck{false};
  std::atomic<uint64_t> producer_sleeps{0};
  std::thread producer_thread([&] {
    RingProducer producer(ring);
    Frame frame = make_frame(64, 0);
    for (uint32_t n = 0; n < kFrames;) {
      std::memcpy(frame.data() + 14, &n, sizeof(n));
      const Push pushed = producer.push(frame);
      if (pushed == Push::full) {
        if (!producer.request_room()) {
          ++producer_sleeps;
          if (!sleep_on(producer_kick)) {
            producer_stuck = true;
            return;
          }
        }
        continue;
      }
      if (pushed == Push::sent_kick)
        kick(consumer_kick);
      ++n;
    }
  });
  RingConsumer consumer(ring);
  uint32_t expected = 0;
  uint64_t consumer_sleeps = 0;
  bool consumer_stuck = false;
  bool in_order = true;
  while (expected < kFrames && !producer_stuck) {
    uint32_t length = 0;
    const Pop popped = consumer.pop(buffer, length);
    if (popped == Pop::frame) {
      uint32_t n;
      std::memcpy(&n, buffer.data() + 14, sizeof(n));
      in_order = in_order && n == expected && length == 64;
      ++expected;
      if (consumer.take_room_request())
        kick(producer_kick);
      continue;
    }
    ASSERT_EQ(popped, Pop::empty);
    if (consumer.prepare_sleep()) {
      ++consumer_sleeps;
      if (!sleep_on(consumer_kick)) {
        consumer_stuck = true;
        break;
      }
    }
  }
  if (consumer_stuck)
    kick(producer_kick); // let the producer thread finish
  producer_thread.join();
  EXPECT_FALSE(consumer_stuck) << "the consumer slept through a published frame";
  EXPECT_FALSE(producer_stuck) << "the producer slept through a freed slot";
  EXPECT_TRUE(in_order);
  EXPECT_EQ(expected, kFrames);
  std::printf("[ info ] %u frames: the consumer slept %lu times, the producer %lu times\n", kFrames,
              static_cast<unsigned long>(consumer_sleeps),
              static_cast<unsigned long>(producer_sleeps.load()));
  ::close(consumer_kick);
  ::close(producer_kick);
}

TEST_F(ShmRingTest, AHeadTooFarAheadOrBehindIsCorruptAndNothingIsRead) {
  RingConsumer consumer(ring);
  uint32_t length = 0;
  for (const uint32_t head : {shm::kSlotCount + 1, 0xffffffffu, 0x80000000u}) {
    field(ring, shm::kHeadOffset).store(head);
    EXPECT_EQ(consumer.pop(buffer, length), Pop::corrupt) << head;
    EXPECT_EQ(field(ring, shm::kTailOffset).load(), 0u); // nothing consumed
  }
  field(ring, shm::kHeadOffset).store(shm::kSlotCount); // exactly full is fine
  for (uint32_t n = 0; n < shm::kSlotCount; ++n)
    field(slot_of(ring, n), 0).store(60);
  EXPECT_EQ(consumer.pop(buffer, length), Pop::frame);
}

TEST_F(ShmRingTest, ASlotLengthOutsideTheLengthRuleDropsThatFrameOnly) {
  RingProducer producer(ring);
  RingConsumer consumer(ring);
  const std::vector<uint32_t> bad = {0, kMinFrameBytes - 1, kMaxFrameBytes + 1, 0xffffffffu,
                                     static_cast<uint32_t>(shm::kSlotBytes)};
  for (size_t i = 0; i < bad.size(); ++i) {
    ASSERT_NE(producer.push(make_frame(60, static_cast<uint8_t>(i))), Push::full);
    ASSERT_NE(producer.push(make_frame(100, static_cast<uint8_t>(i))), Push::full);
    // The peer rewrites the first frame's length after publishing it.
    field(slot_of(ring, static_cast<uint32_t>(2 * i)), 0).store(bad[i]);
    uint32_t length = 0;
    EXPECT_EQ(consumer.pop(buffer, length), Pop::bad_length) << bad[i];
    EXPECT_EQ(length, bad[i]);
    EXPECT_EQ(pop_frame(consumer), make_frame(100, static_cast<uint8_t>(i)));
  }
}

TEST_F(ShmRingTest, ATailBeyondTheHeadOrTooFarBehindIsCorrupt) {
  for (const uint32_t tail : {1u, 0xffffffffu - shm::kSlotCount, 0x80000000u}) {
    shm::Region fresh = shm::Region::create();
    std::byte* r = fresh.ring(1);
    RingProducer producer(r);
    field(r, shm::kTailOffset).store(tail);
    EXPECT_EQ(producer.push(make_frame(60, 1)), Push::corrupt) << tail;
    EXPECT_TRUE(producer.corrupt());
    EXPECT_TRUE(producer.reserve().empty());
    EXPECT_TRUE(producer.request_room()); // "push again", which reports the corruption
    EXPECT_EQ(producer.push(make_frame(60, 1)), Push::corrupt);
    EXPECT_EQ(field(r, shm::kHeadOffset).load(), 0u); // nothing published
  }
}

TEST_F(ShmRingTest, GarbageInTheWaitingFlagsCostsAtMostOneKick) {
  RingProducer producer(ring);
  RingConsumer consumer(ring);
  field(ring, shm::kConsumerWaitingOffset).store(0xdeadbeef);
  field(ring, shm::kProducerWaitingOffset).store(0x12345678);
  EXPECT_EQ(producer.push(make_frame(60, 1)), Push::sent_kick);
  EXPECT_EQ(producer.push(make_frame(60, 2)), Push::sent);
  EXPECT_TRUE(consumer.take_room_request());
  EXPECT_FALSE(consumer.take_room_request());
  EXPECT_EQ(pop_frame(consumer), make_frame(60, 1));
  EXPECT_EQ(pop_frame(consumer), make_frame(60, 2));
}

TEST_F(ShmRingTest, ReserveAndCommitBuildAFrameInPlace) {
  RingProducer producer(ring);
  RingConsumer consumer(ring);
  const Frame frame = make_frame(1514, 7);
  const std::span<std::byte> area = producer.reserve();
  ASSERT_EQ(area.size(), kMaxFrameBytes);
  std::memcpy(area.data(), frame.data(), frame.size());
  EXPECT_NE(producer.commit(frame.size()), Push::full);
  EXPECT_EQ(pop_frame(consumer), frame);
}

// The memfd a peer hands over is checked before it is mapped.
UniqueFd memfd_of(size_t bytes, unsigned seals) {
  UniqueFd fd(::memfd_create("test", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  EXPECT_TRUE(fd);
  EXPECT_EQ(::ftruncate(fd.get(), static_cast<off_t>(bytes)), 0);
  if (seals) {
    EXPECT_EQ(::fcntl(fd.get(), F_ADD_SEALS, seals), 0);
  }
  return fd;
}

TEST(ShmRegionTest, OnlyASealedMemfdOfTheRightSizeWithOurHeaderIsMapped) {
  shm::Region good = shm::Region::create();
  EXPECT_NO_THROW(shm::Region::map(UniqueFd(::dup(good.fd()))));
  EXPECT_THROW(shm::Region::map(memfd_of(shm::kRegionBytes, 0)), std::runtime_error); // unsealed
  EXPECT_THROW(shm::Region::map(memfd_of(shm::kRegionBytes - 4096, F_SEAL_SHRINK)),
               std::runtime_error);
  EXPECT_THROW(shm::Region::map(memfd_of(shm::kRegionBytes + 4096, F_SEAL_SHRINK)),
               std::runtime_error);
  // Right size and seals, but no header (all zero).
  EXPECT_THROW(shm::Region::map(memfd_of(shm::kRegionBytes, F_SEAL_SHRINK)), std::runtime_error);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  ::close(pipe_fds[1]);
  EXPECT_THROW(shm::Region::map(UniqueFd(pipe_fds[0])), std::runtime_error);
  // Another header field wrong.
  std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t*>(good.bytes().data() + 8)).store(7);
  EXPECT_THROW(shm::Region::map(UniqueFd(::dup(good.fd()))), std::runtime_error);
}

} // namespace
} // namespace ornic::test
