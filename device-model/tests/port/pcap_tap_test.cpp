// The pcap tap, checked by reading its file back with libpcap and, if present, tshark.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <sys/time.h>

#include <gtest/gtest.h>
#include <pcap/pcap.h>

#include "common/event_loop.hpp"
#include "port/pcap_tap.hpp"
#include "port/port.hpp"
#include "port_test_support.hpp"

namespace ornic::test {
namespace {

struct CapturedFrame {
  Frame bytes;
  timeval timestamp;
};

// Reads the whole capture; fails the test if libpcap cannot open it or it is not Ethernet.
std::vector<CapturedFrame> read_capture(const std::string& path) {
  char error[PCAP_ERRBUF_SIZE] = {};
  std::unique_ptr<pcap_t, decltype(&pcap_close)> pcap(pcap_open_offline(path.c_str(), error),
                                                      &pcap_close);
  if (!pcap) {
    ADD_FAILURE() << "pcap_open_offline: " << error;
    return {};
  }
  EXPECT_EQ(pcap_datalink(pcap.get()), DLT_EN10MB);
  std::vector<CapturedFrame> frames;
  pcap_pkthdr* header = nullptr;
  const u_char* data = nullptr;
  int status;
  while ((status = pcap_next_ex(pcap.get(), &header, &data)) == 1) {
    EXPECT_EQ(header->caplen, header->len) << "frame truncated in the capture";
    const auto* first = reinterpret_cast<const std::byte*>(data);
    frames.push_back({Frame(first, first + header->caplen), header->ts});
  }
  EXPECT_EQ(status, PCAP_ERROR_BREAK) << pcap_geterr(pcap.get());
  return frames;
}

std::vector<Frame> bytes_of(const std::vector<CapturedFrame>& captured) {
  std::vector<Frame> frames;
  for (const auto& frame : captured)
    frames.push_back(frame.bytes);
  return frames;
}

bool tshark_available() {
  return std::system("command -v tshark >/dev/null 2>&1") == 0;
}

std::string run_and_capture_stdout(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe)
    return {};
  std::string output;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0)
    output.append(buffer, n);
  pclose(pipe);
  return output;
}

class PcapTapPortTest : public ::testing::Test {
protected:
  EventLoop loop;
  TempDir dir;
  std::string pcap_path = dir.file("port.pcap");

  // Runs the loop past the tap's flush delay, so what it buffered is in the file.
  void run_past_flush() {
    const auto until = std::chrono::steady_clock::now() + 2 * PcapTap::kFlushDelay;
    while (std::chrono::steady_clock::now() < until)
      loop.run_once(std::chrono::milliseconds(10));
  }
};

TEST_F(PcapTapPortTest, RecordsSentAndReceivedFramesReadableWhileRunning) {
  timeval before;
  ::gettimeofday(&before, nullptr);
  auto port = make_port(loop, "loopback", pcap_path);
  FrameSink sink;
  port->set_receiver(sink.receiver());
  EXPECT_TRUE(read_capture(pcap_path).empty()) << "a fresh capture is a valid, empty file";

  std::vector<Frame> sent;
  for (size_t size : {kMinFrameBytes, size_t{60}, size_t{1514}, kMaxFrameBytes}) {
    sent.push_back(make_frame(size, static_cast<uint8_t>(size)));
    port->send(sent.back());
  }
  ASSERT_TRUE(run_until(loop, [&] { return sink.frames.size() == sent.size(); }));

  // The port is still open: the timed flush makes the file complete already.
  run_past_flush();
  const auto captured = read_capture(pcap_path);
  std::vector<Frame> expected = sent;                        // tx, recorded in send()
  expected.insert(expected.end(), sent.begin(), sent.end()); // rx, recorded on delivery
  EXPECT_EQ(bytes_of(captured), expected);
  for (const auto& frame : captured)
    EXPECT_GE(frame.timestamp.tv_sec, before.tv_sec) << "timestamps from the real clock";
  EXPECT_EQ(sink.frames, sent) << "the tap passes frames through unchanged";
  EXPECT_EQ(port->counters().rx_frames, sent.size());
}

TEST_F(PcapTapPortTest, InvalidLengthFramesAreCountedButNotRecorded) {
  auto port = make_port(loop, "none", pcap_path);
  port->send(make_frame(3, 1));
  port->send(make_frame(kMaxFrameBytes + 1, 1));
  const Frame frame = make_frame(64, 2);
  port->send(frame); // the link is down, but the NIC did transmit it
  run_past_flush();
  EXPECT_EQ(bytes_of(read_capture(pcap_path)), std::vector<Frame>{frame});
  const PortCounters c = port->counters();
  EXPECT_EQ(c.tx_dropped_runt, 1u);
  EXPECT_EQ(c.tx_dropped_oversize, 1u);
  EXPECT_EQ(c.tx_dropped_no_peer, 1u);
  EXPECT_FALSE(port->link_up());
}

TEST_F(PcapTapPortTest, WrapsTheUnixBackend) {
  auto a = make_port(loop, "unix:" + dir.file("a") + "," + dir.file("b"), pcap_path);
  auto b = make_port(loop, "unix:" + dir.file("b") + "," + dir.file("a"), {});
  FrameSink at_a;
  a->set_receiver(at_a.receiver());
  const Frame to_b = make_frame(100, 1), to_a = make_frame(200, 2);
  a->send(to_b);
  b->send(to_a);
  ASSERT_TRUE(run_until(loop, [&] { return at_a.frames.size() == 1; }));
  run_past_flush();
  EXPECT_EQ(bytes_of(read_capture(pcap_path)), (std::vector<Frame>{to_b, to_a}));
}

// make check's model-to-model links: shm:, captured, with wire faults on top.
TEST_F(PcapTapPortTest, WrapsTheShmBackendWithWireFaults) {
  WireFaults faults;
  faults.duplicate = 1.0; // every frame twice on the wire, once in the capture
  auto a = make_port(loop, "shm:" + dir.file("a") + "," + dir.file("b"), pcap_path, faults);
  auto b = make_port(loop, "shm:" + dir.file("b") + "," + dir.file("a"), {});
  ASSERT_TRUE(run_until(loop, [&] { return a->link_up() && b->link_up(); }));
  FrameSink at_a, at_b;
  a->set_receiver(at_a.receiver());
  b->set_receiver(at_b.receiver());
  const Frame to_b = make_frame(100, 1), to_a = make_frame(200, 2);
  a->send(to_b);
  ASSERT_TRUE(run_until(loop, [&] { return at_b.frames.size() == 2; }));
  b->send(to_a);
  ASSERT_TRUE(run_until(loop, [&] { return at_a.frames.size() == 1; }));
  EXPECT_EQ(at_b.frames, (std::vector<Frame>{to_b, to_b}));
  // Built in place through the tap and the fault injector (which falls back to send()).
  const Frame built = make_frame(300, 3);
  const std::span<std::byte> area = a->reserve_tx(built.size());
  ASSERT_EQ(area.size(), built.size());
  std::memcpy(area.data(), built.data(), built.size());
  a->commit_tx(built.size());
  ASSERT_TRUE(run_until(loop, [&] { return at_b.frames.size() == 4; }));
  EXPECT_EQ(at_b.frames[3], built);
  run_past_flush();
  EXPECT_EQ(bytes_of(read_capture(pcap_path)), (std::vector<Frame>{to_b, to_a, built}));
}

TEST_F(PcapTapPortTest, ReserveAndCommitAreRecordedOverTheShmRing) {
  auto a = make_port(loop, "shm:" + dir.file("a") + "," + dir.file("b"), pcap_path);
  auto b = make_port(loop, "shm:" + dir.file("b") + "," + dir.file("a"), {});
  ASSERT_TRUE(run_until(loop, [&] { return a->link_up() && b->link_up(); }));
  FrameSink at_b;
  b->set_receiver(at_b.receiver());
  const Frame built = make_frame(1514, 4);
  const std::span<std::byte> area = a->reserve_tx(built.size());
  ASSERT_EQ(area.size(), built.size());
  std::memcpy(area.data(), built.data(), built.size());
  a->commit_tx(built.size());
  ASSERT_TRUE(run_until(loop, [&] { return at_b.frames.size() == 1; }));
  EXPECT_EQ(at_b.frames[0], built);
  run_past_flush();
  EXPECT_EQ(bytes_of(read_capture(pcap_path)), std::vector<Frame>{built});
}

TEST_F(PcapTapPortTest, FramesAreBufferedUntilTheFlushDelay) {
  auto port = make_port(loop, "none", pcap_path);
  const Frame first = make_frame(64, 1), second = make_frame(128, 2);
  port->send(first);
  port->send(second);
  EXPECT_TRUE(read_capture(pcap_path).empty()) << "no write per frame on the data path";
  run_past_flush();
  EXPECT_EQ(bytes_of(read_capture(pcap_path)), (std::vector<Frame>{first, second}));
  const Frame third = make_frame(256, 3);
  port->send(third);
  run_past_flush();
  EXPECT_EQ(bytes_of(read_capture(pcap_path)), (std::vector<Frame>{first, second, third}))
      << "a later frame arms the flush again";
}

TEST_F(PcapTapPortTest, DestroyingTheTapFlushesAndCancelsItsTimer) {
  auto port = make_port(loop, "none", pcap_path);
  const Frame frame = make_frame(64, 1);
  port->send(frame);
  port.reset();
  EXPECT_EQ(bytes_of(read_capture(pcap_path)), std::vector<Frame>{frame});
  run_past_flush(); // the cancelled timer must not fire into the destroyed tap
}

TEST_F(PcapTapPortTest, ForwardsTheLinkListener) {
  auto a = make_port(loop, "unix:" + dir.file("a") + "," + dir.file("b"), pcap_path);
  bool link_came_up = false;
  a->set_link_listener([&](bool up) { link_came_up = up; });
  auto b = make_port(loop, "unix:" + dir.file("b") + "," + dir.file("a"), {});
  EXPECT_TRUE(run_until(loop, [&] { return link_came_up; }));
}

TEST_F(PcapTapPortTest, UnwritablePcapPathThrows) {
  EXPECT_THROW(make_port(loop, "loopback", dir.file("no/such/dir/x.pcap")), std::runtime_error);
}

TEST_F(PcapTapPortTest, TsharkDecodesTheCapture) {
  if (!tshark_available())
    GTEST_SKIP() << "tshark not installed";
  auto port = make_port(loop, "none", pcap_path);
  port->send(make_frame(60, 1, 0x0800));
  port->send(make_frame(60, 2, 0x86dd));
  port->send(make_frame(60, 3, 0x88b5));
  port.reset(); // closing the capture writes it out
  const std::string output =
      run_and_capture_stdout("tshark -n -r '" + pcap_path + "' -T fields -e eth.type 2>/dev/null");
  EXPECT_EQ(output, "0x0800\n0x86dd\n0x88b5\n");
}

} // namespace
} // namespace ornic::test
