// libFuzzer target for the iWARP connection manager (iwarp/cm/connection_manager.hpp): device
// B listens on port 6000; a bare TCP engine A connects to it and sends what the input says as
// the MPA setup stream, and A listens on port 7000 too, so that an IW_CONNECT of B's to A
// gets an MPA reply from the input. Meanwhile the input's admin commands hit B's IW_* parser
// with host memory that is the input's too. B must refuse what is invalid without crashing.
//
// Input: records of an operation byte and a 16-bit big-endian length. Operation (low 2
// bits): 0 = the next 64 bytes are an admin command whose opcode is forced into the IW_*
// range (length unused); 1 = the next `length` bytes go from A to B on a TCP stream; 2 =
// the clock advances by `length` ticks (at most 64), or A ends a stream; 3 = the next
// `length` bytes become B's host memory (private data and QUERY_CONN buffers read and
// written there). Bit 2 of the operation byte picks A's stream: 0 the one A opened to B's
// listener, 1 the one A accepted from B's IW_CONNECT. With operation 2, bit 3 set makes A
// end that stream instead of the ticks: with FIN, or with RST when bit 4 is set too.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "iwarp/cm/connection_manager.hpp"

namespace {

using namespace ornic;
using namespace ornic::iwarp;
using Bytes = std::vector<std::byte>;

constexpr size_t kMaxRecords = 64;
const tcp::MacAddress kMacA{0x02, 0, 0, 0, 0, 0x0a};
const tcp::MacAddress kMacB{0x02, 0, 0, 0, 0, 0x0b};
const tcp::Ipv4Address kIpA{10, 0, 0, 1};
const tcp::Ipv4Address kIpB{10, 0, 0, 2};

std::chrono::steady_clock::time_point g_now{std::chrono::hours(1)};

struct Rig {
  std::deque<std::pair<int, Bytes>> wire;
  Bytes memory;
  std::unique_ptr<cm::ConnectionManager> b;
  std::unique_ptr<tcp::TcpEngine> a;
  tcp::ConnectionId a_id = tcp::kNoConnection;
  tcp::ConnectionId a_accepted = tcp::kNoConnection;

  Rig() {
    cm::CmEnvironment env;
    env.transmit = [this](std::span<const std::byte> f) {
      wire.emplace_back(0, Bytes(f.begin(), f.end()));
    };
    env.post_event = [](const ornic_eqe_iw&) {};
    env.dma_read = [this](uint64_t addr, std::span<std::byte> out) {
      if (addr > memory.size() || out.size() > memory.size() - addr)
        return false;
      std::memcpy(out.data(), memory.data() + addr, out.size());
      return true;
    };
    env.dma_write = [this](uint64_t addr, std::span<const std::byte> in) {
      return addr <= memory.size() && in.size() <= memory.size() - addr;
    };
    b = std::make_unique<cm::ConnectionManager>(std::move(env), kMacB);
    a = std::make_unique<tcp::TcpEngine>([this](unsigned, std::span<const std::byte> f) {
      wire.emplace_back(1, Bytes(f.begin(), f.end()));
    });
    a->add_port(0, kMacA, kIpA);
    a->set_neighbor(0, kIpB, kMacB);
    // Both clocks at the process's time from the start: a deadline B sets before its first
    // tick must not already lie in the past.
    a->advance(g_now);
    b->advance(g_now);
  }

  void pump() {
    for (int n = 0; n < 10000 && !wire.empty(); ++n) {
      auto [to_b, f] = std::move(wire.front());
      wire.pop_front();
      if (to_b != 0)
        b->receive(f);
      else
        a->receive(0, f);
    }
  }

  void tick(unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      g_now += tcp::TcpEngine::kTickPeriod;
      a->advance(g_now);
      b->advance(g_now);
      pump();
    }
  }
};

ornic_admin_sqe listen_command() {
  ornic_admin_iw_listen c{};
  c.hdr.opcode = ORNIC_ADMIN_IW_LISTEN;
  std::memcpy(c.ip, kIpB.data(), 4);
  c.port = to_le<uint16_t>(6000);
  c.backlog = to_le<uint16_t>(4);
  ornic_admin_sqe s;
  std::memcpy(&s, &c, sizeof(s));
  return s;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Rig rig;
  rig.b->admin(listen_command());
  tcp::ConnectionCallbacks cb;
  cb.on_receive = [](tcp::ConnectionId, std::span<const std::byte>) {};
  rig.a_id = rig.a->connect(0, 5000, {kIpB, 6000}, cb, [](tcp::ConnectionId, bool) {});
  rig.a->listen(
      0, 7000,
      [&rig, cb](tcp::ConnectionId id, const tcp::Endpoint&, tcp::ConnectionCallbacks& out) {
        rig.a_accepted = id;
        out = cb;
        return true;
      });
  rig.pump();
  size_t at = 0;
  for (size_t record = 0; record < kMaxRecords && at + 3 <= size; ++record) {
    const uint8_t op = data[at] & 3;
    const tcp::ConnectionId stream = (data[at] & 4) != 0 ? rig.a_accepted : rig.a_id;
    const bool end_stream = (data[at] & 8) != 0;
    const bool reset_stream = (data[at] & 16) != 0;
    const size_t length = size_t{data[at + 1]} << 8 | data[at + 2];
    at += 3;
    if (op == 0) {
      if (size - at < sizeof(ornic_admin_sqe))
        break;
      ornic_admin_sqe sqe;
      std::memcpy(&sqe, data + at, sizeof(sqe));
      at += sizeof(sqe);
      sqe.hdr.opcode = static_cast<uint8_t>(ORNIC_ADMIN_IW_LISTEN + sqe.hdr.opcode % 7);
      rig.b->admin(sqe);
    } else if (op == 1) {
      const size_t n = std::min(length, size - at);
      rig.a->send(stream, std::as_bytes(std::span<const uint8_t>(data + at, n)));
      at += n;
    } else if (op == 2 && end_stream) {
      if (reset_stream)
        rig.a->abort(stream);
      else
        rig.a->close(stream);
    } else if (op == 2) {
      rig.tick(static_cast<unsigned>(std::min<size_t>(length, 64)));
    } else {
      const size_t n = std::min(length, size - at);
      rig.memory.assign(reinterpret_cast<const std::byte*>(data + at),
                        reinterpret_cast<const std::byte*>(data + at + n));
      at += n;
    }
    rig.pump();
  }
  return 0;
}
