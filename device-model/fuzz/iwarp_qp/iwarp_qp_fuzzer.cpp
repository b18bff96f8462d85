// libFuzzer target for the iWARP QP data path (iwarp/qp/): an iWARP device whose RC QP a
// driver connected through IW_LISTEN and IW_ACCEPT to a peer -- a bare TCP engine of the
// harness that sent a valid MPA request -- and then receives what the input says on that
// connection: DDP/RDMAP segments framed into FPDUs here (with a right CRC when CRCs were
// negotiated), or raw stream bytes, while the QP posts RDMA READs and SENDs of its own.
// The receiver places WRITEs and Read Responses into guest memory, answers Read Requests,
// consumes receive WQEs and sends TERMINATEs: whatever the peer sends, the device must not
// crash or go FATAL.
//
// Input: a mode byte (bit 0: CRCs negotiated; bit 1: no receive WQE posted), then records of
// an operation byte and a 16-bit big-endian length. Operation (the byte modulo 5): 0 = the
// next `length` bytes are one ULPDU, sent as an FPDU; 1 = the next `length` bytes go onto
// the stream as they are; 2 = the clock advances by `length` milliseconds (at most 2000);
// 3 = the QP posts an RDMA READ of `length` bytes (at most 8 KiB) into its MR from STag
// 0x1234; 4 = the QP posts a SEND of `length` bytes (at most 8 KiB) from its MR. The four
// bytes 6b 65 79 00 anywhere in a ULPDU become the QP's MR key (big-endian, as STags are
// sent), so that seeds name a valid STag.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "iwarp/fpdu.hpp"
#include "iwarp/tcp/tcp_engine.hpp"
#include "nic_rig.hpp"

namespace {

using namespace ornic;
using ornic::fuzz::NicRig;
using ornic::fuzz::RigQp;
using Bytes = std::vector<std::byte>;

// Frames in flight one way. Not a std::deque: its blocks come and go as it fills and
// drains, so an input would end with one allocation more or less than it began, and
// libFuzzer runs every such input a second time looking for a leak. A vector keeps its
// capacity.
class FrameQueue {
public:
  bool empty() const { return head_ == frames_.size(); }
  void push(std::span<const std::byte> f) { frames_.emplace_back(f.begin(), f.end()); }
  Bytes pop() {
    Bytes f = std::move(frames_[head_++]);
    if (empty())
      clear();
    return f;
  }
  void clear() {
    frames_.clear();
    head_ = 0;
  }

private:
  std::vector<Bytes> frames_;
  size_t head_ = 0;
};

const iwarp::tcp::MacAddress kPeerMac{0x02, 0, 0, 0, 0, 0x0a};
const iwarp::tcp::Ipv4Address kPeerIp{10, 0, 0, 1};
const iwarp::tcp::Ipv4Address kDeviceIp{10, 0, 0, 2};
constexpr uint16_t kListenPort = 6000;
constexpr uint16_t kPeerPort = 5000;
constexpr size_t kMaxRecords = 32;
constexpr uint32_t kRecvWqes = 8;
constexpr uint32_t kRecvBytes = 4096;
constexpr uint32_t kMaxWqeBytes = 8 << 10;
constexpr uint64_t kReadSink = NicRig::kData + NicRig::kDataBytes / 2;

struct Rig {
  NicRig nic{ORNIC_LINK_LAYER_IWARP};
  iwarp::tcp::TcpEngine peer{[this](unsigned, std::span<const std::byte> f) { to_device.push(f); }};
  FrameQueue to_device, to_peer;
  iwarp::tcp::ConnectionId conn = iwarp::tcp::kNoConnection;
  RigQp qp;
  uint32_t key = 0;
  uint32_t sq_producer = 0;

  Rig() {
    nic.port.tap = [this](std::span<const std::byte> f) { to_peer.push(f); };
    peer.add_port(0, kPeerMac, kPeerIp);
    peer.set_neighbor(0, kDeviceIp, iwarp::tcp::MacAddress{NicRig::kMac});
  }

  // Both directions until the wire is quiet (bounded: a peer and a device that keep talking
  // forever would be a bug of their own, not a reason to hang).
  void pump() {
    for (int n = 0; n < 10000 && (!to_device.empty() || !to_peer.empty()); ++n) {
      if (!to_device.empty()) {
        Bytes f = to_device.pop();
        if (nic.port.receiver)
          nic.port.receiver(f);
        nic.run();
      } else {
        Bytes f = to_peer.pop();
        peer.receive(0, f);
      }
    }
  }

  void advance(int64_t ns) {
    nic.advance(ns);
    pump();
  }

  void post(uint8_t opcode, uint32_t length, uint64_t local) {
    ornic_send_wqe w{};
    w.opcode = opcode;
    w.flags = ORNIC_WQE_FLAG_SIGNALED;
    w.num_blocks = 2;
    w.num_sge = 1;
    w.wr_id = to_le(uint64_t{sq_producer});
    if (opcode == ORNIC_WQE_OP_RDMA_READ) {
      w.rdma.remote_addr = to_le(uint64_t{0x1000});
      w.rdma.rkey = to_le(0x1234u);
    }
    ornic_sge s{};
    s.addr = to_le(local);
    s.length = to_le(std::min(length, kMaxWqeBytes));
    s.lkey = to_le(key);
    std::vector<uint8_t> blocks(2 * ORNIC_WQE_BLOCK_SIZE);
    std::memcpy(blocks.data(), &w, sizeof(w));
    std::memcpy(blocks.data() + ORNIC_WQE_BLOCK_SIZE, &s, sizeof(s));
    for (uint32_t b = 0; b < 2; ++b)
      nic.write(qp.sq + uint64_t{(sq_producer + b) % NicRig::kRingBlocks} * ORNIC_WQE_BLOCK_SIZE,
                std::span(blocks).subspan(b * ORNIC_WQE_BLOCK_SIZE, ORNIC_WQE_BLOCK_SIZE));
    sq_producer += 2;
    nic.doorbell(ORNIC_DB_SQ, qp.qpn, sq_producer);
    nic.run();
    pump();
  }
};

std::vector<uint8_t> mpa_request(bool crc) {
  std::vector<uint8_t> f = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R',
                            'e', 'q', ' ', 'F', 'r', 'a', 'm', 'e'};
  // Enhanced connection setup (RFC 6581): IRD and ORD 4 in the private data.
  f.insert(f.end(), {static_cast<uint8_t>(0x10 | (crc ? 0x40 : 0)), 2, 0, 4, 0, 4, 0, 4});
  return f;
}

// Brings the device up with its QP connected to the peer; false if the setup failed.
bool connect(Rig& rig, bool crc, bool receive_wqes) {
  NicRig& nic = rig.nic;
  nic.start();
  rig.key = nic.reg_mr(NicRig::kData, NicRig::kDataBytes, ORNIC_ACCESS_ALL);
  rig.qp = nic.create_qp(ORNIC_QPT_RC);
  rig.sq_producer = 0;
  nic.init_qp(rig.qp, ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_REMOTE_READ);
  if (receive_wqes) {
    for (uint32_t i = 0; i < kRecvWqes; ++i)
      nic.write_recv(rig.qp, i, NicRig::kData + uint64_t{i} * kRecvBytes, kRecvBytes, rig.key);
    nic.doorbell(ORNIC_DB_RQ, rig.qp.qpn, kRecvWqes); // one doorbell for all, as a driver would
  }
  ornic_admin_iw_listen listen{};
  listen.hdr.opcode = ORNIC_ADMIN_IW_LISTEN;
  std::copy(kDeviceIp.begin(), kDeviceIp.end(), listen.ip);
  listen.port = to_le(kListenPort);
  listen.backlog = to_le<uint16_t>(1);
  nic.must(&listen);

  iwarp::tcp::ConnectionCallbacks cb;
  cb.on_receive = [](iwarp::tcp::ConnectionId, std::span<const std::byte>) {};
  rig.conn = rig.peer.connect(0, kPeerPort, {kDeviceIp, kListenPort}, cb,
                              [](iwarp::tcp::ConnectionId, bool) {});
  rig.pump();
  const auto request = mpa_request(crc);
  rig.peer.send(rig.conn, std::as_bytes(std::span(request)));
  rig.pump();
  // The first connection a listener announces after a reset has the device's id 1.
  ornic_admin_iw_accept accept{};
  accept.hdr.opcode = ORNIC_ADMIN_IW_ACCEPT;
  accept.conn_id = to_le(ORNIC_IW_CONN_ID_DEVICE | 1u);
  accept.qpn = to_le(rig.qp.qpn);
  accept.ird = to_le<uint16_t>(4);
  accept.ord = to_le<uint16_t>(4);
  accept.flags = crc ? ORNIC_IW_ACCEPT_CRC : 0;
  if (nic.admin(&accept).status != ORNIC_ADMIN_STATUS_SUCCESS)
    return false;
  rig.pump();
  return rig.peer.connected(rig.conn);
}

// The placeholder "key\0" wherever it appears, as the MR key in network order.
void patch_key(std::vector<uint8_t>& ulpdu, uint32_t key) {
  for (size_t at = 0; at + 4 <= ulpdu.size(); ++at)
    if (ulpdu[at] == 0x6b && ulpdu[at + 1] == 0x65 && ulpdu[at + 2] == 0x79 && ulpdu[at + 3] == 0)
      for (size_t i = 0; i < 4; ++i)
        ulpdu[at + i] = static_cast<uint8_t>(key >> (24 - 8 * i));
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ornic::fuzz::quiet_logs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1)
    return 0;
  static Rig rig;
  const bool crc = (data[0] & 1) != 0;
  const bool receive_wqes = (data[0] & 2) == 0;
  if (!connect(rig, crc, receive_wqes))
    ornic::fuzz::die("the peer's valid MPA request did not connect the QP");
  size_t at = 1;
  for (size_t record = 0; record < kMaxRecords && at + 3 <= size; ++record) {
    const unsigned op = data[at] % 5;
    const size_t length = size_t{data[at + 1]} << 8 | data[at + 2];
    at += 3;
    const size_t n = std::min(length, size - at);
    if (op == 0) {
      std::vector<uint8_t> ulpdu(data + at, data + at + n);
      patch_key(ulpdu, rig.key);
      std::vector<uint8_t> fpdu;
      iwarp::append_fpdu(fpdu, ulpdu, crc);
      rig.peer.send(rig.conn, std::as_bytes(std::span(fpdu)));
      at += n;
    } else if (op == 1) {
      rig.peer.send(rig.conn, std::as_bytes(std::span(data + at, n)));
      at += n;
    } else if (op == 2) {
      rig.advance(static_cast<int64_t>(std::min<size_t>(length, 2000)) * 1'000'000);
    } else {
      rig.post(op == 3 ? ORNIC_WQE_OP_RDMA_READ : ORNIC_WQE_OP_SEND, static_cast<uint32_t>(length),
               op == 3 ? kReadSink : NicRig::kData);
    }
    rig.pump();
  }
  rig.advance(1'000'000); // what waits for a timer (an ACK, a retransmission) goes out
  // What the peer sends may fail the QP, never the device.
  if (!rig.nic.device.ready())
    ornic::fuzz::die("the peer's stream made the device FATAL");
  rig.peer.abort(rig.conn);
  rig.to_device.clear();
  rig.to_peer.clear();
  rig.nic.finish();
  // The resets the device's TCP engine sends as finish() destroys it go nowhere; left
  // queued, the next input would free them.
  rig.to_peer.clear();
  return 0;
}
