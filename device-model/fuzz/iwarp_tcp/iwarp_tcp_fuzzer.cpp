// libFuzzer target for the iWARP TCP engine's receive path (iwarp/tcp/tcp_engine.hpp): an
// engine B with a listener and a connection established from engine A gets frames from the
// wire, which it must claim or pass on without crashing, and its answers go to A.
//
// Input: records of an operation byte and a 16-bit big-endian length. Operation (low 2
// bits): 0 = the next `length` bytes go to B as a whole frame; 1 = they are a TCP segment
// (header and payload) of A's connection, sent to B inside correct Ethernet and IPv4
// headers with a correct TCP checksum, so lwIP's sequence and state logic sees them;
// 2 = the same to B's listening port from a new source port; 3 = the clock advances by
// `length` ticks (at most 64). At most kMaxRecords records count.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "iwarp/tcp/tcp_engine.hpp"

namespace {

using namespace ornic::iwarp::tcp;
using Bytes = std::vector<std::byte>;

constexpr size_t kMaxRecords = 64;
const MacAddress kMacA{0x02, 0, 0, 0, 0, 0x0a};
const MacAddress kMacB{0x02, 0, 0, 0, 0, 0x0b};
const Ipv4Address kIpA{10, 0, 0, 1};
const Ipv4Address kIpB{10, 0, 0, 2};
constexpr uint16_t kPortA = 5000;
constexpr uint16_t kPortB = 6000;

std::chrono::steady_clock::time_point g_now{std::chrono::hours(1)};

uint16_t fold(uint32_t sum) {
  while (sum >> 16)
    sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

uint32_t sum16(std::span<const std::byte> b) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < b.size(); i += 2)
    sum += (std::to_integer<uint32_t>(b[i]) << 8) | std::to_integer<uint32_t>(b[i + 1]);
  if (b.size() % 2 != 0)
    sum += std::to_integer<uint32_t>(b.back()) << 8;
  return sum;
}

// A frame from A to B around a TCP segment, with the ports set and checksums right.
Bytes wrap(std::span<const uint8_t> segment, uint16_t sport, uint16_t dport) {
  Bytes tcp(segment.size() < 20 ? 20 : segment.size());
  for (size_t i = 0; i < segment.size(); ++i)
    tcp[i] = std::byte{segment[i]};
  tcp[0] = std::byte(sport >> 8);
  tcp[1] = std::byte(sport & 0xff);
  tcp[2] = std::byte(dport >> 8);
  tcp[3] = std::byte(dport & 0xff);
  tcp[16] = tcp[17] = std::byte{0};
  uint32_t pseudo = (10 << 8) + 1 + (10 << 8) + 2 + 6 + static_cast<uint32_t>(tcp.size());
  uint16_t csum = fold(pseudo + sum16(tcp));
  tcp[16] = std::byte(csum >> 8);
  tcp[17] = std::byte(csum & 0xff);
  Bytes f(14 + 20);
  for (size_t i = 0; i < 6; ++i) {
    f[i] = std::byte{kMacB[i]};
    f[6 + i] = std::byte{kMacA[i]};
  }
  f[12] = std::byte{0x08};
  size_t total = 20 + tcp.size();
  const uint8_t ip[20] = {
      0x45, 0, uint8_t(total >> 8), uint8_t(total), 0, 0, 0x40, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0,
      0,    2};
  for (size_t i = 0; i < 20; ++i)
    f[14 + i] = std::byte{ip[i]};
  uint16_t ipsum = fold(sum16(std::span<const std::byte>(f).subspan(14, 20)));
  f[24] = std::byte(ipsum >> 8);
  f[25] = std::byte(ipsum & 0xff);
  f.insert(f.end(), tcp.begin(), tcp.end());
  return f;
}

struct Rig {
  std::deque<std::pair<int, Bytes>> wire;
  std::unique_ptr<TcpEngine> a;
  std::unique_ptr<TcpEngine> b;

  Rig() {
    a = std::make_unique<TcpEngine>([this](unsigned, std::span<const std::byte> f) {
      wire.emplace_back(1, Bytes(f.begin(), f.end()));
    });
    b = std::make_unique<TcpEngine>([this](unsigned, std::span<const std::byte> f) {
      wire.emplace_back(0, Bytes(f.begin(), f.end()));
    });
    a->add_port(0, kMacA, kIpA);
    b->add_port(0, kMacB, kIpB);
    a->set_neighbor(0, kIpB, kMacB);
    b->set_neighbor(0, kIpA, kMacA);
    b->listen(0, kPortB, [this](ConnectionId id, const Endpoint&, ConnectionCallbacks& cb) {
      cb.on_receive = [this](ConnectionId c, std::span<const std::byte> bytes) {
        // Echo, so B's send path runs on what arrives.
        b->send(c, bytes);
      };
      (void)id;
      return true;
    });
    a->connect(0, kPortA, {kIpB, kPortB}, {}, [](ConnectionId, bool) {});
    pump();
  }

  ~Rig() {
    // Destroying B sends RSTs to A, destroying A to nobody.
    b.reset();
    a.reset();
  }

  void pump() {
    for (int n = 0; n < 1000 && !wire.empty(); ++n) {
      auto [to, frame] = std::move(wire.front());
      wire.pop_front();
      TcpEngine* e = to == 0 ? a.get() : b.get();
      if (e != nullptr)
        e->receive(0, frame);
    }
    wire.clear();
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Rig rig;
  size_t at = 0;
  uint16_t next_port = 20000;
  for (size_t records = 0; records < kMaxRecords && at + 3 <= size; ++records) {
    uint8_t op = data[at] & 3;
    size_t len = (size_t{data[at + 1]} << 8) | data[at + 2];
    at += 3;
    if (op == 3) {
      for (size_t t = 0; t < (len & 63); ++t) {
        g_now += TcpEngine::kTickPeriod;
        rig.a->advance(g_now);
        rig.b->advance(g_now);
      }
      rig.pump();
      continue;
    }
    len = std::min(len, size - at);
    std::span<const uint8_t> body(data + at, len);
    at += len;
    Bytes frame;
    if (op == 0) {
      for (uint8_t x : body)
        frame.push_back(std::byte{x});
    } else {
      frame = wrap(body, op == 1 ? kPortA : next_port++, kPortB);
    }
    rig.b->receive(0, frame);
    rig.pump();
  }
  return 0;
}
