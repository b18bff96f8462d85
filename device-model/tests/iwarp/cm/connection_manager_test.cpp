// Two connection managers (and, for the peer that misbehaves, a bare TCP engine) on an
// in-memory Ethernet, driven through IW_* admin commands; timers on a simulated clock.
#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "iwarp/cm/connection_manager.hpp"
#include "iwarp/mpa_setup.hpp"

namespace ornic::iwarp::cm {
namespace {

using tcp::Ipv4Address;
using tcp::MacAddress;
using Bytes = std::vector<std::byte>;

const MacAddress kMacA{0x02, 0, 0, 0, 0, 0x0a};
const MacAddress kMacB{0x02, 0, 0, 0, 0, 0x0b};
const MacAddress kMacPeer{0x02, 0, 0, 0, 0, 0x0c};
const Ipv4Address kIpA{10, 0, 0, 1};
const Ipv4Address kIpB{10, 0, 0, 2};
const Ipv4Address kIpPeer{10, 0, 0, 3};
constexpr uint16_t kListenPort = 6000;
constexpr uint64_t kPdataAddr = 0x1000;
constexpr uint64_t kAttrAddr = 0x2000;

// lwIP's timers are one per process: the simulated clock only moves forward, across tests.
Clock::time_point g_now = Clock::time_point{} + std::chrono::hours(2);

// One device: its connection manager, its host memory and the events it posted.
struct Device {
  std::unique_ptr<ConnectionManager> cm;
  std::map<uint64_t, std::vector<std::byte>> memory; // addr -> bytes
  std::deque<ornic_eqe_iw> events;
  std::vector<Bytes> to_netdev;
  std::map<ornic_counter_id, uint64_t> counted; // the device counters it was given
  bool dma_fails = false;

  std::optional<ornic_eqe_iw> event() {
    if (events.empty())
      return std::nullopt;
    const auto e = events.front();
    events.pop_front();
    return e;
  }
};

class ConnectionManagerTest : public ::testing::Test {
protected:
  void SetUp() override {
    make(a_, kMacA);
    make(b_, kMacB);
    // B's host stack, for ports the device does not own: it answers a SYN with RST.
    host_b_ = std::make_unique<tcp::TcpEngine>(
        [this](unsigned, std::span<const std::byte> f) { put(f); });
    host_b_->add_port(0, kMacB, kIpB);
    host_b_->set_neighbor(0, kIpA, kMacA);
    host_b_->reserve_port(0, 7000);
    peer_ = std::make_unique<tcp::TcpEngine>(
        [this](unsigned, std::span<const std::byte> f) { put(f); });
    peer_->add_port(0, kMacPeer, kIpPeer);
    peer_->set_neighbor(0, kIpA, kMacA);
    peer_->set_neighbor(0, kIpB, kMacB);
  }

  void TearDown() override {
    a_.cm.reset();
    b_.cm.reset();
    host_b_.reset();
    peer_.reset();
  }

  void make(Device& d, const MacAddress& mac) {
    CmEnvironment env;
    env.transmit = [this](std::span<const std::byte> f) { put(f); };
    env.post_event = [&d](const ornic_eqe_iw& e) { d.events.push_back(e); };
    env.count = [&d](ornic_counter_id id, uint64_t by) { d.counted[id] += by; };
    env.dma_read = [&d](uint64_t addr, std::span<std::byte> out) {
      const auto it = d.memory.find(addr);
      if (d.dma_fails || it == d.memory.end() || it->second.size() < out.size())
        return false;
      std::memcpy(out.data(), it->second.data(), out.size());
      return true;
    };
    env.dma_write = [&d](uint64_t addr, std::span<const std::byte> in) {
      if (d.dma_fails)
        return false;
      d.memory[addr].assign(in.begin(), in.end());
      return true;
    };
    d.cm = std::make_unique<ConnectionManager>(std::move(env), mac);
  }

  void put(std::span<const std::byte> f) {
    if (f.size() >= 54 && std::equal(kMacB.begin(), kMacB.end(), f.begin() + 6,
                                     [](uint8_t m, std::byte b) { return std::byte{m} == b; })) {
      const size_t tcp = 14 + (std::to_integer<size_t>(f[14]) & 0xf) * 4;
      if (std::to_integer<uint8_t>(f[23]) == 6 && tcp + 14 <= f.size() &&
          (std::to_integer<uint8_t>(f[tcp + 13]) & 0x01) != 0)
        ++fins_from_b_;
      if (cut_from_b_)
        return;
    }
    wire_.emplace_back(f.begin(), f.end());
  }

  void deliver(const Bytes& f) {
    const MacAddress dst{std::to_integer<uint8_t>(f[0]), std::to_integer<uint8_t>(f[1]),
                         std::to_integer<uint8_t>(f[2]), std::to_integer<uint8_t>(f[3]),
                         std::to_integer<uint8_t>(f[4]), std::to_integer<uint8_t>(f[5])};
    if (dst == kMacA && a_.cm && !a_.cm->receive(f))
      a_.to_netdev.push_back(f);
    if (dst == kMacB && b_.cm && !b_.cm->receive(f)) {
      b_.to_netdev.push_back(f);
      if (host_b_)
        host_b_->receive(0, f);
    }
    if (dst == kMacPeer && peer_)
      peer_->receive(0, f);
  }

  void pump() {
    while (!wire_.empty()) {
      Bytes f = std::move(wire_.front());
      wire_.pop_front();
      deliver(f);
    }
  }

  void tick() {
    g_now += tcp::TcpEngine::kTickPeriod;
    a_.cm->advance(g_now);
    b_.cm->advance(g_now);
    host_b_->advance(g_now);
    peer_->advance(g_now);
  }

  template <typename Pred>
  bool run_until(Pred done, int max_ticks = 400) {
    for (int t = 0; t <= max_ticks; ++t) {
      pump();
      if (done())
        return true;
      tick();
    }
    return false;
  }

  template <typename T>
  static ornic_admin_sqe sqe(const T& c) {
    static_assert(sizeof(T) == sizeof(ornic_admin_sqe));
    ornic_admin_sqe s;
    std::memcpy(&s, &c, sizeof(s));
    return s;
  }

  static void put_pdata(Device& d, const std::string& text) {
    d.memory[kPdataAddr].assign(reinterpret_cast<const std::byte*>(text.data()),
                                reinterpret_cast<const std::byte*>(text.data() + text.size()));
  }

  IwarpCmResult listen(Device& d, const Ipv4Address& ip, uint16_t port, uint16_t backlog = 8) {
    ornic_admin_iw_listen c{};
    c.hdr.opcode = ORNIC_ADMIN_IW_LISTEN;
    std::memcpy(c.ip, ip.data(), 4);
    c.port = to_le(port);
    c.backlog = to_le(backlog);
    return d.cm->admin(sqe(c));
  }

  ornic_admin_iw_connect connect_cmd(uint32_t id, uint16_t remote_port = kListenPort,
                                     const std::string& pdata = "") {
    ornic_admin_iw_connect c{};
    c.hdr.opcode = ORNIC_ADMIN_IW_CONNECT;
    c.conn_id = to_le(id);
    c.qpn = to_le(17u);
    std::memcpy(c.tuple.local_ip, kIpA.data(), 4);
    std::memcpy(c.tuple.remote_ip, kIpB.data(), 4);
    c.tuple.local_port = to_le<uint16_t>(static_cast<uint16_t>(5000 + id));
    c.tuple.remote_port = to_le(remote_port);
    std::copy(kMacB.begin(), kMacB.end(), c.next_hop_mac);
    c.mpa_rev = 2;
    c.ird = to_le<uint16_t>(4);
    c.ord = to_le<uint16_t>(8);
    c.pdata_len = to_le(static_cast<uint16_t>(pdata.size()));
    c.pdata_addr = to_le(kPdataAddr);
    put_pdata(a_, pdata);
    return c;
  }

  IwarpCmResult conn_cmd(Device& d, uint8_t opcode, uint32_t id, uint32_t flags = 0,
                         uint64_t addr = 0, uint32_t len = 0) {
    ornic_admin_iw_conn_cmd c{};
    c.hdr.opcode = opcode;
    c.id = to_le(id);
    c.flags = to_le(flags);
    c.addr = to_le(addr);
    c.len = to_le(len);
    return d.cm->admin(sqe(c));
  }

  std::optional<ornic_iw_conn_attr> query(Device& d, uint32_t id) {
    const auto r =
        conn_cmd(d, ORNIC_ADMIN_IW_QUERY_CONN, id, 0, kAttrAddr, sizeof(ornic_iw_conn_attr));
    if (r.status != ORNIC_ADMIN_STATUS_SUCCESS)
      return std::nullopt;
    EXPECT_EQ(r.result0, sizeof(ornic_iw_conn_attr));
    ornic_iw_conn_attr attr;
    std::memcpy(&attr, d.memory[kAttrAddr].data(), sizeof(attr));
    return attr;
  }

  static std::string pdata_of(const ornic_iw_conn_attr& attr) {
    return std::string(reinterpret_cast<const char*>(attr.pdata), le(attr.pdata_len));
  }

  IwarpCmResult accept(uint32_t id, const std::string& pdata = "", uint8_t flags = 0) {
    ornic_admin_iw_accept c{};
    c.hdr.opcode = ORNIC_ADMIN_IW_ACCEPT;
    c.conn_id = to_le(id);
    c.qpn = to_le(33u);
    c.ird = to_le<uint16_t>(8);
    c.ord = to_le<uint16_t>(16); // more than A's IRD: the device offers A's 4
    c.flags = flags;
    c.pdata_len = to_le(static_cast<uint16_t>(pdata.size()));
    c.pdata_addr = to_le(kPdataAddr);
    put_pdata(b_, pdata);
    return b_.cm->admin(sqe(c));
  }

  // B listens, A connects with "hello", B sees the CONN_REQUEST: its connection id.
  uint32_t request(uint32_t a_id = 1) {
    EXPECT_EQ(listen(b_, kIpB, kListenPort).status, ORNIC_ADMIN_STATUS_SUCCESS);
    EXPECT_EQ(a_.cm->admin(sqe(connect_cmd(a_id, kListenPort, "hello"))).status,
              ORNIC_ADMIN_STATUS_SUCCESS);
    EXPECT_TRUE(run_until([&] { return !b_.events.empty(); }));
    const auto e = b_.event();
    if (!e)
      return 0;
    EXPECT_EQ(e->type, ORNIC_EQE_IW_CONN_REQUEST);
    EXPECT_EQ(le(e->listener_id), 1u);
    EXPECT_EQ(le(e->pdata_len), 5u);
    return le(e->conn_id);
  }

  // A connection accepted by B: A's id 1, B's returned.
  uint32_t establish() {
    const uint32_t b_id = request();
    EXPECT_EQ(accept(b_id, "world").status, ORNIC_ADMIN_STATUS_SUCCESS);
    EXPECT_TRUE(run_until([&] { return !a_.events.empty(); }));
    const auto ea = a_.event();
    EXPECT_TRUE(ea && ea->type == ORNIC_EQE_IW_CONNECT_REPLY && ea->status == ORNIC_IW_STATUS_OK);
    const auto eb = b_.event();
    EXPECT_TRUE(eb && eb->type == ORNIC_EQE_IW_ESTABLISHED);
    return b_id;
  }

  Device a_, b_;
  std::unique_ptr<tcp::TcpEngine> host_b_, peer_;
  std::deque<Bytes> wire_;
  size_t fins_from_b_ = 0;  // B's TCP segments with FIN set, sent or retransmitted
  bool cut_from_b_ = false; // every frame B sends is lost
};

TEST_F(ConnectionManagerTest, ListenConnectAcceptEstablishesBothSides) {
  const uint32_t b_id = request();
  EXPECT_NE(b_id & ORNIC_IW_CONN_ID_DEVICE, 0u);
  const auto req = query(b_, b_id);
  ASSERT_TRUE(req);
  EXPECT_EQ(req->state, ORNIC_IW_CONN_MPA_REQ_RCVD);
  EXPECT_EQ(pdata_of(*req), "hello");
  EXPECT_EQ(le(req->peer_ird), 4u);
  EXPECT_EQ(le(req->peer_ord), 8u);
  EXPECT_EQ(le(req->listener_id), 1u);
  EXPECT_EQ(std::memcmp(req->tuple.remote_ip, kIpA.data(), 4), 0);
  EXPECT_EQ(le(req->tuple.remote_port), 5001u);
  EXPECT_EQ(le(req->tuple.local_port), kListenPort);

  ASSERT_EQ(accept(b_id, "world", ORNIC_IW_ACCEPT_CRC).status, ORNIC_ADMIN_STATUS_SUCCESS);
  const auto eb = b_.event();
  ASSERT_TRUE(eb);
  EXPECT_EQ(eb->type, ORNIC_EQE_IW_ESTABLISHED);
  EXPECT_EQ(le(eb->conn_id), b_id);
  ASSERT_TRUE(run_until([&] { return !a_.events.empty(); }));
  const auto ea = a_.event();
  EXPECT_EQ(ea->type, ORNIC_EQE_IW_CONNECT_REPLY);
  EXPECT_EQ(ea->status, ORNIC_IW_STATUS_OK);
  EXPECT_EQ(le(ea->conn_id), 1u);
  EXPECT_EQ(le(ea->pdata_len), 5u);

  const auto qa = query(a_, 1);
  ASSERT_TRUE(qa);
  EXPECT_EQ(qa->state, ORNIC_IW_CONN_ESTABLISHED);
  EXPECT_EQ(qa->mpa_rev, 2);
  // A did not ask for CRCs, B did: both use them.
  EXPECT_EQ(qa->flags, ORNIC_IW_CONN_FLAG_CRC | ORNIC_IW_CONN_FLAG_ACTIVE);
  EXPECT_EQ(pdata_of(*qa), "world");
  EXPECT_EQ(le(qa->peer_ird), 8u);
  EXPECT_EQ(le(qa->peer_ord), 4u); // capped at A's IRD
  EXPECT_EQ(le(qa->qpn), 17u);
  const auto qb = query(b_, b_id);
  ASSERT_TRUE(qb);
  EXPECT_EQ(qb->state, ORNIC_IW_CONN_ESTABLISHED);
  EXPECT_EQ(qb->flags, ORNIC_IW_CONN_FLAG_CRC);
  EXPECT_EQ(le(qb->ord), 4u);
  EXPECT_EQ(le(qb->qpn), 33u);
  EXPECT_TRUE(a_.to_netdev.empty());
  EXPECT_TRUE(b_.to_netdev.empty());
}

TEST_F(ConnectionManagerTest, RevisionOneWithoutCrc) {
  EXPECT_EQ(listen(b_, kIpB, kListenPort).status, ORNIC_ADMIN_STATUS_SUCCESS);
  auto c = connect_cmd(1, kListenPort, "v1");
  c.mpa_rev = 1;
  ASSERT_EQ(a_.cm->admin(sqe(c)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  ASSERT_TRUE(run_until([&] { return !b_.events.empty(); }));
  const uint32_t b_id = le(b_.event()->conn_id);
  ASSERT_EQ(accept(b_id).status, ORNIC_ADMIN_STATUS_SUCCESS);
  ASSERT_TRUE(run_until([&] { return !a_.events.empty(); }));
  EXPECT_EQ(a_.event()->status, ORNIC_IW_STATUS_OK);
  const auto qa = query(a_, 1);
  EXPECT_EQ(qa->mpa_rev, 1);
  EXPECT_EQ(qa->flags, ORNIC_IW_CONN_FLAG_ACTIVE);
  EXPECT_EQ(le(qa->peer_ird), 0u);
}

TEST_F(ConnectionManagerTest, RejectReachesTheInitiatorWithPrivateData) {
  const uint32_t b_id = request();
  put_pdata(b_, "busy");
  ASSERT_EQ(conn_cmd(b_, ORNIC_ADMIN_IW_REJECT, b_id, 0, kPdataAddr, 4).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  // REJECT frees B's id at once.
  EXPECT_FALSE(query(b_, b_id));
  ASSERT_TRUE(run_until([&] { return !a_.events.empty(); }));
  const auto ea = a_.event();
  EXPECT_EQ(ea->type, ORNIC_EQE_IW_CONNECT_REPLY);
  EXPECT_EQ(ea->status, ORNIC_IW_STATUS_REJECTED);
  EXPECT_EQ(le(ea->pdata_len), 4u);
  const auto qa = query(a_, 1);
  ASSERT_TRUE(qa);
  EXPECT_EQ(qa->state, ORNIC_IW_CONN_CLOSED);
  EXPECT_EQ(pdata_of(*qa), "busy");
  // Software frees the id; then it can be used again.
  EXPECT_EQ(conn_cmd(a_, ORNIC_ADMIN_IW_DISCONNECT, 1).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_FALSE(query(a_, 1));
  EXPECT_EQ(a_.cm->connection_count(), 0u);
}

TEST_F(ConnectionManagerTest, ConnectToAClosedPortIsReset) {
  ASSERT_EQ(a_.cm->admin(sqe(connect_cmd(1, 7000))).status, ORNIC_ADMIN_STATUS_SUCCESS);
  ASSERT_TRUE(run_until([&] { return !a_.events.empty(); }));
  const auto ea = a_.event();
  EXPECT_EQ(ea->type, ORNIC_EQE_IW_CONNECT_REPLY);
  EXPECT_EQ(ea->status, ORNIC_IW_STATUS_RESET);
  EXPECT_EQ(query(a_, 1)->state, ORNIC_IW_CONN_CLOSED);
  // B's device did not claim the SYN: its host stack answered.
  EXPECT_FALSE(b_.to_netdev.empty());
}

TEST_F(ConnectionManagerTest, PeerResetClosesTheConnection) {
  const uint32_t b_id = establish();
  ASSERT_EQ(conn_cmd(b_, ORNIC_ADMIN_IW_DISCONNECT, b_id, ORNIC_IW_DISCONNECT_ABRUPT).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_TRUE(b_.events.empty()); // software's own disconnect has no event
  ASSERT_TRUE(run_until([&] { return !a_.events.empty(); }));
  const auto ea = a_.event();
  EXPECT_EQ(ea->type, ORNIC_EQE_IW_CLOSE);
  EXPECT_EQ(ea->status, ORNIC_IW_STATUS_RESET);
  EXPECT_EQ(query(a_, 1)->state, ORNIC_IW_CONN_CLOSED);
}

TEST_F(ConnectionManagerTest, PeerFinIsADisconnect) {
  const uint32_t b_id = establish();
  ASSERT_EQ(conn_cmd(b_, ORNIC_ADMIN_IW_DISCONNECT, b_id).status, ORNIC_ADMIN_STATUS_SUCCESS);
  ASSERT_TRUE(run_until([&] { return !a_.events.empty(); }));
  const auto ea = a_.event();
  EXPECT_EQ(ea->type, ORNIC_EQE_IW_DISCONNECT);
  EXPECT_EQ(query(a_, 1)->state, ORNIC_IW_CONN_PEER_CLOSED);
  EXPECT_EQ(conn_cmd(a_, ORNIC_ADMIN_IW_DISCONNECT, 1).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_TRUE(run_until([&] { return a_.cm->connection_count() == 0; }));
}

// What the QP engine of a device would see: the connection manager's QP checks, the
// binding, the stream and its end.
struct FakeQps : QpStreams {
  uint8_t answer = ORNIC_ADMIN_STATUS_SUCCESS;
  std::vector<StreamParams> bound;
  std::vector<std::byte> bytes;
  size_t acked = 0;
  std::vector<StreamEnd> ends;

  uint8_t check_qp(uint32_t) const override { return answer; }
  void established(const StreamParams& p) override { bound.push_back(p); }
  void received(uint32_t, std::span<const std::byte> b) override {
    bytes.insert(bytes.end(), b.begin(), b.end());
  }
  void acknowledged(uint32_t, size_t n) override { acked += n; }
  void ended(uint32_t, StreamEnd why) override { ends.push_back(why); }
};

TEST_F(ConnectionManagerTest, EstablishedConnectionsCarryTheQpStream) {
  FakeQps qa, qb;
  a_.cm->set_qp_streams(&qa);
  b_.cm->set_qp_streams(&qb);
  qa.answer = ORNIC_ADMIN_STATUS_BAD_STATE;
  EXPECT_EQ(a_.cm->admin(sqe(connect_cmd(1))).status, ORNIC_ADMIN_STATUS_BAD_STATE);
  EXPECT_EQ(a_.cm->connection_count(), 0u);
  qa.answer = ORNIC_ADMIN_STATUS_SUCCESS;
  const uint32_t b_id = establish();
  // The QP of an IW_CONNECT still in use cannot be named again.
  auto again = connect_cmd(2);
  EXPECT_EQ(a_.cm->admin(sqe(again)).status, ORNIC_ADMIN_STATUS_BUSY);
  ASSERT_EQ(qa.bound.size(), 1u);
  ASSERT_EQ(qb.bound.size(), 1u);
  EXPECT_EQ(qa.bound[0].qpn, 17u);
  EXPECT_EQ(qb.bound[0].qpn, 33u);
  EXPECT_EQ(qa.bound[0].conn_id, 1u);
  EXPECT_EQ(qb.bound[0].conn_id, b_id);
  EXPECT_EQ(qa.bound[0].mss, 1460u);
  // A's stream reaches B's QP, and A hears every byte acknowledged (its setup frame's not).
  const std::vector<std::byte> data(3000, std::byte{0x5a});
  EXPECT_EQ(a_.cm->stream_send(1, data), data.size());
  ASSERT_TRUE(run_until([&] { return qa.acked == data.size(); }));
  EXPECT_EQ(qb.bytes, data);
  EXPECT_EQ(a_.cm->counters().fpdu_bytes_dropped, 0u);
  // B's QP gives the stream up: A sees FIN, B reports IW_CLOSE.
  b_.cm->stream_close(b_id);
  const auto eb = b_.event();
  ASSERT_TRUE(eb);
  EXPECT_EQ(eb->type, ORNIC_EQE_IW_CLOSE);
  EXPECT_EQ(eb->status, ORNIC_IW_STATUS_OK);
  ASSERT_TRUE(run_until([&] { return !qa.ends.empty(); }));
  EXPECT_EQ(qa.ends[0], StreamEnd::peer_closed);
  EXPECT_TRUE(qb.ends.empty());
  a_.cm->set_qp_streams(nullptr);
  b_.cm->set_qp_streams(nullptr);
}

// A raw TCP peer sends `request` to B's listener; what it gets back.
struct RawPeer {
  tcp::ConnectionId id = tcp::kNoConnection;
  bool connected = false;
  std::vector<uint8_t> received;
  bool peer_closed = false;
  std::optional<tcp::TcpError> error;
};

class ConnectionManagerWire : public ConnectionManagerTest {
protected:
  void raw_connect(RawPeer& p, std::vector<uint8_t> request) {
    tcp::ConnectionCallbacks cb;
    cb.on_receive = [&p](tcp::ConnectionId, std::span<const std::byte> bytes) {
      for (const std::byte b : bytes)
        p.received.push_back(std::to_integer<uint8_t>(b));
    };
    cb.on_peer_closed = [&p](tcp::ConnectionId) { p.peer_closed = true; };
    cb.on_error = [&p](tcp::ConnectionId, tcp::TcpError e) { p.error = e; };
    p.id = peer_->connect(0, 4000, {kIpB, kListenPort}, cb,
                          [&p, this, request](tcp::ConnectionId id, bool ok) {
                            p.connected = ok;
                            if (ok)
                              peer_->send(id, std::as_bytes(std::span<const uint8_t>(request)));
                          });
    ASSERT_NE(p.id, tcp::kNoConnection);
  }

  static std::vector<uint8_t> request_frame(bool markers = false) {
    MpaSetupFrame f;
    f.kind = MpaFrameKind::request;
    f.revision = 1;
    f.markers = markers;
    return *build_mpa_setup(f);
  }

  void SetUp() override {
    ConnectionManagerTest::SetUp();
    ASSERT_EQ(listen(b_, kIpB, kListenPort).status, ORNIC_ADMIN_STATUS_SUCCESS);
  }
};

TEST_F(ConnectionManagerWire, BadKeyIsReset) {
  RawPeer p;
  auto frame = request_frame();
  frame[3] ^= 0x20;
  raw_connect(p, frame);
  ASSERT_TRUE(run_until([&] { return p.error.has_value(); }));
  EXPECT_EQ(*p.error, tcp::TcpError::Reset);
  EXPECT_TRUE(p.received.empty());
  EXPECT_EQ(b_.cm->counters().mpa_requests_refused, 1u);
  EXPECT_TRUE(b_.events.empty());
  EXPECT_EQ(b_.cm->connection_count(), 0u);
  // The device counters: the refused request, and the TCP frames of SYN to RST (the
  // handshake's last ACK may carry the request).
  EXPECT_EQ(b_.counted[ORNIC_CNT_IW_MPA_ERRORS], 1u);
  EXPECT_GE(b_.counted[ORNIC_CNT_IW_TCP_RX_FRAMES], 2u);
  EXPECT_GE(b_.counted[ORNIC_CNT_IW_TCP_TX_FRAMES], 2u);
  EXPECT_EQ(b_.counted[ORNIC_CNT_IW_CONN_REFUSED], 0u);
}

TEST_F(ConnectionManagerWire, PrivateDataOver512IsReset) {
  RawPeer p;
  auto frame = request_frame();
  frame[18] = 0x02; // 600 bytes
  frame[19] = 0x58;
  raw_connect(p, frame);
  ASSERT_TRUE(run_until([&] { return p.error.has_value(); }));
  EXPECT_EQ(b_.cm->counters().mpa_requests_refused, 1u);
  EXPECT_TRUE(b_.events.empty());
}

TEST_F(ConnectionManagerWire, MarkersAreRefusedWithAReject) {
  RawPeer p;
  raw_connect(p, request_frame(true));
  ASSERT_TRUE(run_until([&] { return p.peer_closed; }));
  const MpaSetupParse reply = parse_mpa_setup(p.received, MpaFrameKind::reply);
  ASSERT_EQ(reply.status, MpaSetupParse::Status::complete);
  EXPECT_TRUE(reply.frame.reject);
  EXPECT_FALSE(reply.frame.markers);
  EXPECT_EQ(reply.frame.revision, 1);
  EXPECT_EQ(b_.cm->counters().mpa_markers_refused, 1u);
  EXPECT_TRUE(b_.events.empty());
}

// What siw does with a reject: the first four bytes of an enhanced request's reply are the
// enhanced parameters, a rejecting reply's included.
TEST_F(ConnectionManagerWire, RejectOfAnEnhancedRequestCarriesTheParameters) {
  RawPeer p;
  MpaSetupFrame request;
  request.kind = MpaFrameKind::request;
  request.revision = kMpaRevision2;
  request.enhanced = MpaEnhancedParams{.peer_to_peer = true, .write_rtr = true, .ird = 4, .ord = 4};
  raw_connect(p, *build_mpa_setup(request));
  ASSERT_TRUE(run_until([&] { return !b_.events.empty(); }));
  const uint32_t b_id = le(b_.event()->conn_id);
  put_pdata(b_, "busy");
  ASSERT_EQ(conn_cmd(b_, ORNIC_ADMIN_IW_REJECT, b_id, 0, kPdataAddr, 4).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  ASSERT_TRUE(run_until([&] { return p.peer_closed; }));
  const MpaSetupParse reply = parse_mpa_setup(p.received, MpaFrameKind::reply);
  ASSERT_EQ(reply.status, MpaSetupParse::Status::complete);
  EXPECT_TRUE(reply.frame.reject);
  EXPECT_EQ(reply.frame.revision, kMpaRevision2);
  ASSERT_TRUE(reply.frame.enhanced);
  EXPECT_EQ(std::string(reply.frame.private_data.begin(), reply.frame.private_data.end()), "busy");
}

// The reject's FIN waits for the reply's acknowledgement, through its retransmissions: a
// peer never meets the two together (siw, when its TCP hands it both at once, reports the
// reject without the private data).
TEST_F(ConnectionManagerWire, RejectHoldsItsFinUntilTheReplyIsAcknowledged) {
  RawPeer p;
  raw_connect(p, request_frame());
  ASSERT_TRUE(run_until([&] { return !b_.events.empty(); }));
  const uint32_t b_id = le(b_.event()->conn_id);
  put_pdata(b_, "not now");
  cut_from_b_ = true;
  ASSERT_EQ(conn_cmd(b_, ORNIC_ADMIN_IW_REJECT, b_id, 0, kPdataAddr, 7).status,
            ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(b_.cm->connection_count(), 0u); // the id is free at once
  run_until([] { return false; }, 16);      // the reply is lost and sent again
  EXPECT_TRUE(p.received.empty());
  EXPECT_EQ(fins_from_b_, 0u);
  cut_from_b_ = false;
  ASSERT_TRUE(run_until([&] { return p.peer_closed || p.error.has_value(); }));
  EXPECT_TRUE(p.peer_closed);
  EXPECT_FALSE(p.error.has_value());
  EXPECT_GT(fins_from_b_, 0u);
  const MpaSetupParse reply = parse_mpa_setup(p.received, MpaFrameKind::reply);
  ASSERT_EQ(reply.status, MpaSetupParse::Status::complete);
  EXPECT_TRUE(reply.frame.reject);
  EXPECT_EQ(std::string(reply.frame.private_data.begin(), reply.frame.private_data.end()),
            "not now");
  EXPECT_TRUE(b_.events.empty());
}

TEST_F(ConnectionManagerWire, SilentPeerTimesOut) {
  RawPeer p;
  raw_connect(p, {});
  const auto ticks = ConnectionManager::kMpaTimeout / tcp::TcpEngine::kTickPeriod + 4;
  ASSERT_TRUE(run_until([&] { return p.error.has_value(); }, static_cast<int>(ticks)));
  EXPECT_EQ(b_.cm->counters().mpa_timeouts, 1u);
  EXPECT_EQ(b_.cm->connection_count(), 0u);
}

TEST_F(ConnectionManagerWire, ReplyTimeoutOnTheInitiator) {
  // The peer accepts TCP and never answers the MPA request.
  std::optional<tcp::ConnectionId> accepted;
  ASSERT_TRUE(peer_->listen(
      0, 9000, [&](tcp::ConnectionId id, const tcp::Endpoint&, tcp::ConnectionCallbacks& cb) {
        accepted = id;
        cb.on_receive = [](tcp::ConnectionId, std::span<const std::byte>) {};
        return true;
      }));
  auto c = connect_cmd(2, 9000);
  std::memcpy(c.tuple.remote_ip, kIpPeer.data(), 4);
  std::copy(kMacPeer.begin(), kMacPeer.end(), c.next_hop_mac);
  ASSERT_EQ(a_.cm->admin(sqe(c)).status, ORNIC_ADMIN_STATUS_SUCCESS);
  const auto ticks = ConnectionManager::kMpaTimeout / tcp::TcpEngine::kTickPeriod + 8;
  ASSERT_TRUE(run_until([&] { return !a_.events.empty(); }, static_cast<int>(ticks)));
  EXPECT_TRUE(accepted);
  const auto ea = a_.event();
  EXPECT_EQ(ea->type, ORNIC_EQE_IW_CONNECT_REPLY);
  EXPECT_EQ(ea->status, ORNIC_IW_STATUS_TIMEOUT);
  EXPECT_EQ(a_.cm->counters().mpa_timeouts, 1u);
}

TEST_F(ConnectionManagerWire, BacklogFullRefusesTheSyn) {
  ASSERT_EQ(listen(b_, kIpB, 6001, 1).status, ORNIC_ADMIN_STATUS_SUCCESS);
  ASSERT_EQ(a_.cm->admin(sqe(connect_cmd(1, 6001))).status, ORNIC_ADMIN_STATUS_SUCCESS);
  ASSERT_TRUE(run_until([&] { return !b_.events.empty(); }));
  ASSERT_EQ(a_.cm->admin(sqe(connect_cmd(2, 6001))).status, ORNIC_ADMIN_STATUS_SUCCESS);
  ASSERT_TRUE(run_until([&] { return !a_.events.empty(); }));
  const auto ea = a_.event();
  EXPECT_EQ(le(ea->conn_id), 2u);
  EXPECT_EQ(ea->status, ORNIC_IW_STATUS_RESET);
  EXPECT_EQ(b_.cm->counters().backlog_refused, 1u);
}

TEST_F(ConnectionManagerTest, BadAdminFields) {
  // LISTEN: reserved bytes, address, port, backlog.
  {
    ornic_admin_iw_listen c{};
    c.hdr.opcode = ORNIC_ADMIN_IW_LISTEN;
    std::memcpy(c.ip, kIpB.data(), 4);
    c.port = to_le<uint16_t>(1);
    c.backlog = to_le<uint16_t>(1);
    c.reserved[3] = to_le(1u);
    EXPECT_EQ(b_.cm->admin(sqe(c)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  }
  EXPECT_EQ(listen(b_, {0, 0, 0, 0}, 1).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(listen(b_, {224, 0, 0, 1}, 1).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(listen(b_, {127, 0, 0, 1}, 1).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(listen(b_, kIpB, 0).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(listen(b_, kIpB, 1, 0).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(listen(b_, kIpB, 1, ORNIC_IW_MAX_BACKLOG + 1).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(listen(b_, kIpB, 1).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(listen(b_, kIpB, 1).status, ORNIC_ADMIN_STATUS_BUSY);
  for (uint16_t port = 2; port <= ORNIC_IW_MAX_LISTENERS; ++port)
    ASSERT_EQ(listen(b_, kIpB, port).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(listen(b_, kIpB, 9999).status, ORNIC_ADMIN_STATUS_NO_RESOURCES);
  // UNLISTEN.
  EXPECT_EQ(conn_cmd(b_, ORNIC_ADMIN_IW_UNLISTEN, 999).status, ORNIC_ADMIN_STATUS_BAD_HANDLE);
  EXPECT_EQ(conn_cmd(b_, ORNIC_ADMIN_IW_UNLISTEN, 1, 1).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(conn_cmd(b_, ORNIC_ADMIN_IW_UNLISTEN, 1).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(conn_cmd(b_, ORNIC_ADMIN_IW_UNLISTEN, 1).status, ORNIC_ADMIN_STATUS_BAD_HANDLE);

  // CONNECT.
  const auto bad = [&](auto mutate) {
    auto c = connect_cmd(1);
    mutate(c);
    return a_.cm->admin(sqe(c)).status;
  };
  EXPECT_EQ(bad([](auto& c) { c.conn_id = 0; }), ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(bad([](auto& c) { c.conn_id = to_le(ORNIC_IW_CONN_ID_DEVICE | 1); }),
            ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(bad([](auto& c) { c.mpa_rev = 3; }), ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(bad([](auto& c) { c.flags = 0x02; }), ORNIC_ADMIN_STATUS_BAD_FIELD); // markers
  EXPECT_EQ(bad([](auto& c) { c.pdata_len = to_le<uint16_t>(509); }),
            ORNIC_ADMIN_STATUS_BAD_FIELD); // 508 + the enhanced parameters
  EXPECT_EQ(bad([](auto& c) { c.ird = to_le<uint16_t>(ORNIC_IW_MAX_IRD_ORD + 1); }),
            ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(bad([](auto& c) { c.next_hop_mac[0] = 1; }), ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(bad([](auto& c) { c.tuple.remote_port = 0; }), ORNIC_ADMIN_STATUS_BAD_FIELD);
  // No loopback path in the device's TCP: to itself, or to 127/8.
  EXPECT_EQ(bad([](auto& c) { std::memcpy(c.tuple.remote_ip, c.tuple.local_ip, 4); }),
            ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(bad([](auto& c) {
              const uint8_t lo[4] = {127, 0, 0, 1};
              std::memcpy(c.tuple.remote_ip, lo, 4);
            }),
            ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(bad([](auto& c) { c.reserved1 = 1; }), ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(bad([](auto& c) { c.hdr.flags = 1; }), ORNIC_ADMIN_STATUS_BAD_FIELD);
  a_.dma_fails = true;
  EXPECT_EQ(a_.cm->admin(sqe(connect_cmd(1, kListenPort, "x"))).status, ORNIC_ADMIN_STATUS_BAD_DMA);
  a_.dma_fails = false;
  EXPECT_EQ(a_.cm->admin(sqe(connect_cmd(1))).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(a_.cm->admin(sqe(connect_cmd(1))).status, ORNIC_ADMIN_STATUS_BUSY);

  // ACCEPT / REJECT of an active connection, of unknown ids.
  EXPECT_EQ(accept(1).status, ORNIC_ADMIN_STATUS_BAD_HANDLE);
  ornic_admin_iw_accept acc{};
  acc.hdr.opcode = ORNIC_ADMIN_IW_ACCEPT;
  acc.conn_id = to_le(1u);
  EXPECT_EQ(a_.cm->admin(sqe(acc)).status, ORNIC_ADMIN_STATUS_BAD_STATE);
  acc.reserved1[0] = 1;
  EXPECT_EQ(a_.cm->admin(sqe(acc)).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(conn_cmd(a_, ORNIC_ADMIN_IW_REJECT, 1).status, ORNIC_ADMIN_STATUS_BAD_STATE);
  EXPECT_EQ(conn_cmd(a_, ORNIC_ADMIN_IW_REJECT, 1, 0, kPdataAddr, 513).status,
            ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(conn_cmd(a_, ORNIC_ADMIN_IW_REJECT, 77).status, ORNIC_ADMIN_STATUS_BAD_HANDLE);

  // DISCONNECT and QUERY_CONN.
  EXPECT_EQ(conn_cmd(a_, ORNIC_ADMIN_IW_DISCONNECT, 1, 2).status, ORNIC_ADMIN_STATUS_BAD_FIELD);
  EXPECT_EQ(conn_cmd(a_, ORNIC_ADMIN_IW_DISCONNECT, 77).status, ORNIC_ADMIN_STATUS_BAD_HANDLE);
  EXPECT_EQ(conn_cmd(a_, ORNIC_ADMIN_IW_QUERY_CONN, 1, 0, kAttrAddr, 100).status,
            ORNIC_ADMIN_STATUS_BAD_FIELD);
  a_.dma_fails = true;
  EXPECT_EQ(conn_cmd(a_, ORNIC_ADMIN_IW_QUERY_CONN, 1, 0, kAttrAddr, 4096).status,
            ORNIC_ADMIN_STATUS_BAD_DMA);
  a_.dma_fails = false;
  EXPECT_EQ(query(a_, 1)->state, ORNIC_IW_CONN_CONNECTING);
  ornic_admin_sqe other{};
  other.hdr.opcode = ORNIC_ADMIN_QUERY_DEVICE;
  EXPECT_EQ(a_.cm->admin(other).status, ORNIC_ADMIN_STATUS_BAD_OPCODE);
}

TEST_F(ConnectionManagerTest, ResetForgetsEverythingWithoutEvents) {
  establish();
  a_.cm->reset();
  EXPECT_EQ(a_.cm->connection_count(), 0u);
  EXPECT_FALSE(query(a_, 1));
  EXPECT_TRUE(a_.events.empty());
  // A is gone without a word; B's connection lives until TCP notices.
  EXPECT_EQ(listen(a_, kIpA, kListenPort).status, ORNIC_ADMIN_STATUS_SUCCESS);
}

} // namespace
} // namespace ornic::iwarp::cm
