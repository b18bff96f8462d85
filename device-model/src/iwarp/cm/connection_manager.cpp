#include "iwarp/cm/connection_manager.hpp"

#include <algorithm>
#include <cstring>

namespace ornic::iwarp::cm {
namespace {

constexpr size_t kEthHeader = 14;

IwarpCmResult status_of(uint8_t status) {
  return {status, 0};
}

template <typename T>
const T& as(const ornic_admin_sqe& c) {
  static_assert(sizeof(T) == sizeof(ornic_admin_sqe));
  return *reinterpret_cast<const T*>(&c);
}

tcp::Ipv4Address ip_of(const uint8_t (&bytes)[4]) {
  return {bytes[0], bytes[1], bytes[2], bytes[3]};
}

// A host address: not 0.0.0.0, not multicast, not the broadcast address.
// 127/8 never reaches a wire, so no port of the device has it or connects to it.
bool unicast_ip(const tcp::Ipv4Address& ip) {
  const bool zero = ip == tcp::Ipv4Address{};
  const bool broadcast = ip == tcp::Ipv4Address{255, 255, 255, 255};
  return !zero && !broadcast && ip[0] != 127 && (ip[0] & 0xf0) != 0xe0;
}

uint8_t status_of_error(tcp::TcpError error) {
  return error == tcp::TcpError::TimedOut ? ORNIC_IW_STATUS_TIMEOUT
         : error == tcp::TcpError::Reset  ? ORNIC_IW_STATUS_RESET
                                          : ORNIC_IW_STATUS_UNREACHABLE;
}

uint8_t state_of(uint8_t phase_index);

} // namespace

ConnectionManager::ConnectionManager(CmEnvironment env, const tcp::MacAddress& mac)
    : env_(std::move(env)), mac_(mac) {
  reset();
}

ConnectionManager::~ConnectionManager() = default;

void ConnectionManager::reset() {
  listeners_.clear();
  conns_.clear();
  engine_ports_.clear();
  neighbors_.clear();
  engine_.reset(); // aborts what is left, without callbacks
  engine_ = std::make_unique<tcp::TcpEngine>(
      [this](unsigned, std::span<const std::byte> frame) {
        tally(ORNIC_CNT_IW_TCP_TX_FRAMES);
        if (env_.transmit)
          env_.transmit(frame);
      },
      tcp::EngineLimits{ORNIC_IW_MAX_CONNS, ORNIC_IW_MAX_BACKLOG});
  next_device_id_ = 1;
}

bool ConnectionManager::receive(std::span<const std::byte> frame) {
  // IPv4 without a VLAN tag, to one of the addresses the device's listeners or connections
  // use; the engine claims it when it is TCP to one of them.
  if (engine_ports_.empty() || frame.size() < kEthHeader + 20 || frame[12] != std::byte{0x08} ||
      frame[13] != std::byte{0x00})
    return false;
  tcp::Ipv4Address dst;
  for (size_t i = 0; i < 4; ++i)
    dst[i] = std::to_integer<uint8_t>(frame[kEthHeader + 16 + i]);
  const auto it = engine_ports_.find(dst);
  if (it == engine_ports_.end())
    return false;
  // A SYN to a listener is answered before software hears of the connection: its source MAC
  // is the next hop back, unless software named one (IW_CONNECT) for that address already.
  const size_t ihl = (std::to_integer<size_t>(frame[kEthHeader]) & 0xf) * 4;
  const bool tcp = std::to_integer<uint8_t>(frame[kEthHeader + 9]) == 6;
  const bool syn = tcp && frame.size() >= kEthHeader + ihl + 20 &&
                   (std::to_integer<uint8_t>(frame[kEthHeader + ihl + 13]) & 0x12) == 0x02;
  if (!syn) {
    const bool claimed = engine_->receive(it->second, frame);
    if (claimed)
      tally(ORNIC_CNT_IW_TCP_RX_FRAMES);
    return claimed;
  }
  tcp::Ipv4Address src;
  tcp::MacAddress src_mac;
  for (size_t i = 0; i < 4; ++i)
    src[i] = std::to_integer<uint8_t>(frame[kEthHeader + 12 + i]);
  for (size_t i = 0; i < 6; ++i)
    src_mac[i] = std::to_integer<uint8_t>(frame[6 + i]);
  const auto key = std::make_pair(it->second, src);
  const bool learn = neighbors_.count(key) == 0 && (src_mac[0] & 1) == 0;
  if (learn)
    engine_->set_neighbor(it->second, src, src_mac);
  const uint64_t refused = engine_->counters().syns_refused;
  const bool claimed = engine_->receive(it->second, frame);
  if (claimed)
    tally(ORNIC_CNT_IW_TCP_RX_FRAMES);
  tally(ORNIC_CNT_IW_CONN_REFUSED, engine_->counters().syns_refused - refused);
  if (learn && claimed)
    neighbors_.insert(key);
  else if (learn)
    engine_->remove_neighbor(it->second, src);
  return claimed;
}

void ConnectionManager::advance(Clock::time_point now) {
  now_ = now;
  engine_->advance(now);
  std::vector<uint32_t> expired;
  for (auto& [id, conn] : conns_)
    if (conn.deadline && now >= *conn.deadline)
      expired.push_back(id);
  for (const uint32_t id : expired) {
    Conn* conn = find(id);
    if (conn == nullptr)
      continue;
    ++counters_.mpa_timeouts;
    tally(ORNIC_CNT_IW_MPA_ERRORS);
    conn->deadline.reset();
    if (conn->phase == Phase::awaiting_request) {
      drop(id, true);
    } else if (conn->phase == Phase::request_sent) {
      end(*conn, true);
      post(ORNIC_EQE_IW_CONNECT_REPLY, *conn, ORNIC_IW_STATUS_TIMEOUT);
    }
  }
}

IwarpCmResult ConnectionManager::admin(const ornic_admin_sqe& c) {
  switch (c.hdr.opcode) {
  case ORNIC_ADMIN_IW_LISTEN:
    return listen(as<ornic_admin_iw_listen>(c));
  case ORNIC_ADMIN_IW_UNLISTEN:
    return unlisten(as<ornic_admin_iw_conn_cmd>(c));
  case ORNIC_ADMIN_IW_CONNECT:
    return connect(as<ornic_admin_iw_connect>(c));
  case ORNIC_ADMIN_IW_ACCEPT:
    return accept(as<ornic_admin_iw_accept>(c));
  case ORNIC_ADMIN_IW_REJECT:
    return reject(as<ornic_admin_iw_conn_cmd>(c));
  case ORNIC_ADMIN_IW_DISCONNECT:
    return disconnect(as<ornic_admin_iw_conn_cmd>(c));
  case ORNIC_ADMIN_IW_QUERY_CONN:
    return query(as<ornic_admin_iw_conn_cmd>(c));
  default:
    return status_of(ORNIC_ADMIN_STATUS_BAD_OPCODE);
  }
}

std::optional<unsigned> ConnectionManager::engine_port_for(const tcp::Ipv4Address& ip) {
  if (const auto it = engine_ports_.find(ip); it != engine_ports_.end())
    return it->second;
  if (engine_ports_.size() >= ORNIC_IW_MAX_ADDRS)
    return std::nullopt;
  const auto index = static_cast<unsigned>(engine_ports_.size());
  engine_->add_port(index, env_.mac ? env_.mac() : mac_, ip);
  engine_ports_[ip] = index;
  return index;
}

ConnectionManager::Conn* ConnectionManager::find(uint32_t id) {
  const auto it = conns_.find(id);
  return it == conns_.end() ? nullptr : &it->second;
}

ConnectionManager::Conn* ConnectionManager::find_request(uint32_t id, uint8_t& status) {
  Conn* conn = find(id);
  if (conn == nullptr || conn->phase == Phase::awaiting_request) {
    status = ORNIC_ADMIN_STATUS_BAD_HANDLE;
    return nullptr;
  }
  if (conn->active || conn->phase != Phase::request_received) {
    status = ORNIC_ADMIN_STATUS_BAD_STATE;
    return nullptr;
  }
  return conn;
}

std::optional<std::vector<uint8_t>>
ConnectionManager::read_private_data(uint64_t addr, uint16_t len, uint8_t& status) {
  std::vector<uint8_t> data(len);
  if (len != 0 &&
      (!env_.dma_read || !env_.dma_read(addr, std::as_writable_bytes(std::span<uint8_t>(data))))) {
    status = ORNIC_ADMIN_STATUS_BAD_DMA;
    return std::nullopt;
  }
  return data;
}

IwarpCmResult ConnectionManager::listen(const ornic_admin_iw_listen& c) {
  const tcp::Ipv4Address ip = ip_of(c.ip);
  const uint16_t port = le(c.port);
  const uint16_t backlog = le(c.backlog);
  if (c.hdr.flags != 0 || !field_is_zero(c.reserved) || !unicast_ip(ip) || port == 0 ||
      backlog == 0 || backlog > ORNIC_IW_MAX_BACKLOG)
    return status_of(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (listeners_.size() >= ORNIC_IW_MAX_LISTENERS)
    return status_of(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  const auto engine_port = engine_port_for(ip);
  if (!engine_port)
    return status_of(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  for (const auto& [id, l] : listeners_)
    if (l.engine_port == *engine_port && l.port == port)
      return status_of(ORNIC_ADMIN_STATUS_BUSY);
  uint32_t id = 1;
  while (listeners_.count(id) != 0)
    ++id;
  if (!engine_->listen(*engine_port, port,
                       [this, id](tcp::ConnectionId tcp, const tcp::Endpoint& remote,
                                  tcp::ConnectionCallbacks& callbacks) {
                         return accept_tcp(id, tcp, remote, callbacks);
                       }))
    return status_of(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  listeners_[id] = Listener{id, *engine_port, port, backlog, 0};
  return {ORNIC_ADMIN_STATUS_SUCCESS, id};
}

IwarpCmResult ConnectionManager::unlisten(const ornic_admin_iw_conn_cmd& c) {
  if (c.hdr.flags != 0 || c.flags != 0 || c.addr != 0 || c.len != 0 || !field_is_zero(c.reserved))
    return status_of(ORNIC_ADMIN_STATUS_BAD_FIELD);
  const auto it = listeners_.find(le(c.id));
  if (it == listeners_.end())
    return status_of(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  // Connections it already announced stay; the ones still sending their request go.
  std::vector<uint32_t> unannounced;
  for (const auto& [id, conn] : conns_)
    if (conn.listener_id == it->first && conn.phase == Phase::awaiting_request)
      unannounced.push_back(id);
  for (const uint32_t id : unannounced)
    drop(id, true);
  engine_->stop_listening(it->second.engine_port, it->second.port);
  listeners_.erase(it);
  return {};
}

bool ConnectionManager::accept_tcp(uint32_t listener_id, tcp::ConnectionId tcp,
                                   const tcp::Endpoint& remote,
                                   tcp::ConnectionCallbacks& callbacks) {
  Listener* l = nullptr;
  if (const auto it = listeners_.find(listener_id); it != listeners_.end())
    l = &it->second;
  if (l == nullptr || l->pending >= l->backlog || conns_.size() >= ORNIC_IW_MAX_CONNS) {
    ++counters_.backlog_refused;
    tally(ORNIC_CNT_IW_CONN_REFUSED);
    return false;
  }
  uint32_t id = 0;
  do {
    id = ORNIC_IW_CONN_ID_DEVICE | (next_device_id_++ & ~ORNIC_IW_CONN_ID_DEVICE);
  } while (id == ORNIC_IW_CONN_ID_DEVICE || conns_.count(id) != 0);
  Conn conn;
  conn.id = id;
  conn.phase = Phase::awaiting_request;
  conn.tcp = tcp;
  conn.listener_id = listener_id;
  for (const auto& [ip, index] : engine_ports_)
    if (index == l->engine_port)
      std::memcpy(conn.tuple.local_ip, ip.data(), 4);
  std::memcpy(conn.tuple.remote_ip, remote.ip.data(), 4);
  conn.tuple.local_port = to_le(l->port);
  conn.tuple.remote_port = to_le(remote.port);
  conn.deadline = now_ + kMpaTimeout;
  conns_[id] = std::move(conn);
  callbacks = this->callbacks(id);
  return true;
}

tcp::ConnectionCallbacks ConnectionManager::callbacks(uint32_t id) {
  tcp::ConnectionCallbacks cb;
  cb.on_receive = [this, id](tcp::ConnectionId, std::span<const std::byte> bytes) {
    on_bytes(id, bytes);
  };
  cb.on_sent = [this, id](tcp::ConnectionId, size_t bytes) {
    Conn* conn = find(id);
    if (conn == nullptr)
      return;
    // The QP counts its own bytes only: the setup frame went first.
    const size_t setup = std::min(bytes, conn->setup_unacked);
    conn->setup_unacked -= setup;
    if (bytes > setup && conn->qp_bound && qps_ != nullptr)
      qps_->acknowledged(conn->qpn, bytes - setup);
  };
  cb.on_peer_closed = [this, id](tcp::ConnectionId) { on_peer_closed(id); };
  cb.on_error = [this, id](tcp::ConnectionId, tcp::TcpError error) { on_tcp_error(id, error); };
  return cb;
}

IwarpCmResult ConnectionManager::connect(const ornic_admin_iw_connect& c) {
  const uint32_t id = le(c.conn_id);
  const tcp::Ipv4Address local = ip_of(c.tuple.local_ip);
  const tcp::Ipv4Address remote = ip_of(c.tuple.remote_ip);
  const uint16_t pdata_len = le(c.pdata_len);
  const uint16_t ird = le(c.ird);
  const uint16_t ord = le(c.ord);
  const bool enhanced = c.mpa_rev == kMpaRevision2;
  tcp::MacAddress next_hop;
  std::copy(std::begin(c.next_hop_mac), std::end(c.next_hop_mac), next_hop.begin());
  if (c.hdr.flags != 0 || c.reserved0 != 0 || c.reserved1 != 0 || id == 0 ||
      (id & ORNIC_IW_CONN_ID_DEVICE) != 0 || !unicast_ip(local) || !unicast_ip(remote) ||
      remote == local || c.tuple.local_port == 0 || c.tuple.remote_port == 0 ||
      (next_hop[0] & 1) != 0 || next_hop == tcp::MacAddress{} ||
      (c.mpa_rev != kMpaRevision1 && c.mpa_rev != kMpaRevision2) ||
      (c.flags & ~ORNIC_IW_CONNECT_CRC) != 0 ||
      pdata_len > kMpaMaxPrivateData - (enhanced ? kMpaEnhancedParamsSize : 0) ||
      ird > ORNIC_IW_MAX_IRD_ORD || ord > ORNIC_IW_MAX_IRD_ORD)
    return status_of(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (conns_.count(id) != 0)
    return status_of(ORNIC_ADMIN_STATUS_BUSY);
  if (conns_.size() >= ORNIC_IW_MAX_CONNS)
    return status_of(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  uint8_t status = check_qp(le(c.qpn), id);
  if (status != ORNIC_ADMIN_STATUS_SUCCESS)
    return status_of(status);
  auto pdata = read_private_data(le(c.pdata_addr), pdata_len, status);
  if (!pdata)
    return status_of(status);
  const auto engine_port = engine_port_for(local);
  if (!engine_port)
    return status_of(ORNIC_ADMIN_STATUS_NO_RESOURCES);
  Conn conn;
  conn.id = id;
  conn.active = true;
  conn.phase = Phase::connecting;
  conn.qpn = le(c.qpn);
  conn.tuple = c.tuple;
  conn.revision = c.mpa_rev;
  conn.ird = ird;
  conn.ord = ord;
  conn.request.kind = MpaFrameKind::request;
  conn.request.revision = c.mpa_rev;
  conn.request.crc = (c.flags & ORNIC_IW_CONNECT_CRC) != 0;
  if (enhanced) {
    MpaEnhancedParams params;
    params.ird = ird;
    params.ord = ord;
    conn.request.enhanced = params;
  }
  conn.request.private_data = std::move(*pdata);
  engine_->set_neighbor(*engine_port, remote, next_hop);
  neighbors_.insert({*engine_port, remote});
  conns_[id] = std::move(conn);
  const tcp::ConnectionId tcp =
      engine_->connect(*engine_port, le(c.tuple.local_port), {remote, le(c.tuple.remote_port)},
                       callbacks(id), [this, id](tcp::ConnectionId tcp_id, bool connected) {
                         if (Conn* live = find(id))
                           live->tcp = connected ? tcp_id : tcp::kNoConnection;
                         on_connected(id, connected);
                       });
  if (tcp == tcp::kNoConnection) {
    conns_.erase(id);
    return status_of(ORNIC_ADMIN_STATUS_BUSY); // the 4-tuple is in use
  }
  engine_->set_ip_options(tcp, c.tos, c.ttl == 0 ? 64 : c.ttl);
  if (Conn* live = find(id))
    live->tcp = tcp;
  return {};
}

void ConnectionManager::on_connected(uint32_t id, bool connected) {
  Conn* conn = find(id);
  if (conn == nullptr || conn->phase != Phase::connecting)
    return;
  if (!connected) {
    conn->tcp = tcp::kNoConnection;
    conn->phase = Phase::closed;
    post(ORNIC_EQE_IW_CONNECT_REPLY, *conn, ORNIC_IW_STATUS_RESET);
    return;
  }
  conn->phase = Phase::request_sent;
  conn->deadline = now_ + kMpaTimeout;
  if (!send_frame(*conn, conn->request)) {
    end(*conn, true);
    post(ORNIC_EQE_IW_CONNECT_REPLY, *conn, ORNIC_IW_STATUS_UNREACHABLE);
  }
}

bool ConnectionManager::send_frame(Conn& conn, const MpaSetupFrame& frame) {
  const auto bytes = build_mpa_setup(frame);
  if (!bytes)
    return false;
  // A fresh connection's send buffer holds far more than 532 bytes.
  const size_t sent = engine_->send(conn.tcp, std::as_bytes(std::span<const uint8_t>(*bytes)));
  conn.setup_unacked += sent;
  return sent == bytes->size();
}

void ConnectionManager::send_reject(Conn& conn, const MpaSetupFrame& reply) {
  send_frame(conn, reply);
  // A peer whose TCP hands it the reply and the FIN together may act on the FIN alone: siw
  // then reports the reject without its private data.  Held back until the reply is
  // acknowledged, the FIN comes after the peer has seen the reply.
  if (conn.tcp != tcp::kNoConnection) {
    engine_->close_when_acknowledged(conn.tcp);
    conn.tcp = tcp::kNoConnection;
  }
  drop(conn.id, false);
}

void ConnectionManager::on_bytes(uint32_t id, std::span<const std::byte> bytes) {
  Conn* conn = find(id);
  if (conn == nullptr)
    return;
  if (conn->phase != Phase::awaiting_request && conn->phase != Phase::request_sent) {
    if (conn->qp_bound && qps_ != nullptr) {
      qps_->received(conn->qpn, bytes);
    } else { // a peer that talks before it may, or after its QP let the stream go
      counters_.fpdu_bytes_dropped += bytes.size();
      tally(ORNIC_CNT_IW_RX_DROPPED_BYTES, bytes.size());
    }
    return;
  }
  for (const std::byte b : bytes)
    conn->setup_bytes.push_back(std::to_integer<uint8_t>(b));
  if (conn->phase == Phase::awaiting_request)
    got_request(*conn);
  else
    got_reply(*conn);
}

void ConnectionManager::got_request(Conn& conn) {
  const MpaSetupParse parse = parse_mpa_setup(conn.setup_bytes, MpaFrameKind::request);
  if (parse.status == MpaSetupParse::Status::need_more)
    return;
  if (parse.status == MpaSetupParse::Status::invalid) {
    // Not an MPA request: nothing to answer it with (RFC 5044 7.1).
    ++counters_.mpa_requests_refused;
    tally(ORNIC_CNT_IW_MPA_ERRORS);
    drop(conn.id, true);
    return;
  }
  counters_.fpdu_bytes_dropped += conn.setup_bytes.size() - parse.frame_size;
  tally(ORNIC_CNT_IW_RX_DROPPED_BYTES, conn.setup_bytes.size() - parse.frame_size);
  conn.setup_bytes.clear();
  conn.deadline.reset();
  conn.request = parse.frame;
  conn.revision = std::min(parse.frame.revision, kMpaRevision2);
  if (parse.frame.markers) {
    // iwarp.rst, "Negotiation": a reply with R set, the request's revision, then FIN.
    ++counters_.mpa_markers_refused;
    tally(ORNIC_CNT_IW_MPA_ERRORS);
    MpaSetupFrame reply;
    reply.kind = MpaFrameKind::reply;
    reply.reject = true;
    reply.revision = parse.frame.revision;
    send_reject(conn, reply);
    return;
  }
  if (parse.frame.enhanced) {
    conn.peer_ird = parse.frame.enhanced->ird;
    conn.peer_ord = parse.frame.enhanced->ord;
  }
  conn.peer_private_data = parse.frame.private_data;
  conn.phase = Phase::request_received;
  if (auto it = listeners_.find(conn.listener_id); it != listeners_.end())
    ++it->second.pending;
  post(ORNIC_EQE_IW_CONN_REQUEST, conn, ORNIC_IW_STATUS_OK,
       static_cast<uint16_t>(conn.peer_private_data.size()));
}

void ConnectionManager::got_reply(Conn& conn) {
  const MpaSetupParse parse = parse_mpa_setup(conn.setup_bytes, MpaFrameKind::reply);
  if (parse.status == MpaSetupParse::Status::need_more)
    return;
  conn.deadline.reset();
  if (parse.status == MpaSetupParse::Status::invalid) {
    ++counters_.mpa_replies_refused;
    tally(ORNIC_CNT_IW_MPA_ERRORS);
    end(conn, true);
    post(ORNIC_EQE_IW_CONNECT_REPLY, conn, ORNIC_IW_STATUS_MPA_ERROR);
    return;
  }
  // The bytes after the reply are the first FPDUs: the QP's once it is bound.
  std::vector<uint8_t> first_fpdus(
      conn.setup_bytes.begin() + static_cast<ptrdiff_t>(parse.frame_size), conn.setup_bytes.end());
  conn.setup_bytes.clear();
  conn.peer_private_data = parse.frame.private_data;
  const auto pdata_len = static_cast<uint16_t>(conn.peer_private_data.size());
  const MpaReplyCheck check = check_mpa_reply(conn.request, parse.frame);
  if (check.rejected_by_peer) {
    end(conn, false);
    post(ORNIC_EQE_IW_CONNECT_REPLY, conn, ORNIC_IW_STATUS_REJECTED, pdata_len);
    return;
  }
  if (!check.accepted) {
    ++counters_.mpa_replies_refused;
    tally(ORNIC_CNT_IW_MPA_ERRORS);
    end(conn, true);
    post(ORNIC_EQE_IW_CONNECT_REPLY, conn, ORNIC_IW_STATUS_MPA_ERROR, pdata_len);
    return;
  }
  conn.revision = parse.frame.revision;
  conn.crc = check.crc;
  if (parse.frame.enhanced) {
    conn.peer_ird = parse.frame.enhanced->ird;
    conn.peer_ord = parse.frame.enhanced->ord;
  }
  conn.phase = Phase::established;
  bind(conn);
  const uint32_t id = conn.id;
  post(ORNIC_EQE_IW_CONNECT_REPLY, conn, ORNIC_IW_STATUS_OK, pdata_len);
  if (!first_fpdus.empty())
    on_bytes(id, std::as_bytes(std::span<const uint8_t>(first_fpdus)));
}

void ConnectionManager::on_peer_closed(uint32_t id) {
  Conn* conn = find(id);
  if (conn == nullptr)
    return;
  switch (conn->phase) {
  case Phase::awaiting_request:
    drop(id, true);
    return;
  case Phase::request_sent:
    ++counters_.mpa_replies_refused;
    tally(ORNIC_CNT_IW_MPA_ERRORS);
    end(*conn, true);
    post(ORNIC_EQE_IW_CONNECT_REPLY, *conn, ORNIC_IW_STATUS_RESET);
    return;
  case Phase::request_received:
  case Phase::established:
    conn->phase = Phase::peer_closed;
    unbind(*conn, StreamEnd::peer_closed);
    post(ORNIC_EQE_IW_DISCONNECT, *conn, ORNIC_IW_STATUS_OK);
    return;
  default:
    return;
  }
}

void ConnectionManager::on_tcp_error(uint32_t id, tcp::TcpError error) {
  Conn* conn = find(id);
  if (conn == nullptr)
    return;
  conn->tcp = tcp::kNoConnection; // the engine's id is dead
  const Phase was = conn->phase;
  conn->phase = Phase::closed;
  conn->deadline.reset();
  if (was == Phase::awaiting_request) {
    drop(id, false);
  } else if (was == Phase::connecting || was == Phase::request_sent) {
    post(ORNIC_EQE_IW_CONNECT_REPLY, *conn, status_of_error(error));
  } else {
    if (was == Phase::request_received)
      if (auto it = listeners_.find(conn->listener_id); it != listeners_.end())
        --it->second.pending;
    unbind(*conn, error == tcp::TcpError::TimedOut ? StreamEnd::timed_out : StreamEnd::reset);
    post(ORNIC_EQE_IW_CLOSE, *conn, status_of_error(error));
  }
}

void ConnectionManager::end(Conn& conn, bool abort) {
  if (conn.tcp != tcp::kNoConnection) {
    const tcp::ConnectionId tcp = conn.tcp;
    conn.tcp = tcp::kNoConnection;
    if (abort)
      engine_->abort(tcp);
    else
      engine_->close(tcp);
  }
  if (conn.phase == Phase::request_received)
    if (auto it = listeners_.find(conn.listener_id); it != listeners_.end())
      --it->second.pending;
  conn.phase = Phase::closed;
  conn.deadline.reset();
}

void ConnectionManager::drop(uint32_t id, bool abort) {
  Conn* conn = find(id);
  if (conn == nullptr)
    return;
  end(*conn, abort);
  conns_.erase(id);
}

void ConnectionManager::post(uint8_t type, const Conn& conn, uint8_t status, uint16_t pdata_len) {
  if (!env_.post_event)
    return;
  ornic_eqe_iw e{};
  e.type = type;
  e.status = status;
  e.pdata_len = to_le(pdata_len);
  e.conn_id = to_le(conn.id);
  e.listener_id = to_le(type == ORNIC_EQE_IW_CONN_REQUEST ? conn.listener_id : 0);
  env_.post_event(e);
}

IwarpCmResult ConnectionManager::accept(const ornic_admin_iw_accept& c) {
  const uint16_t ird = le(c.ird);
  const uint16_t ord = le(c.ord);
  const uint16_t pdata_len = le(c.pdata_len);
  if (c.hdr.flags != 0 || c.reserved0 != 0 || !field_is_zero(c.reserved1) ||
      (c.flags & ~ORNIC_IW_ACCEPT_CRC) != 0 || ird > ORNIC_IW_MAX_IRD_ORD ||
      ord > ORNIC_IW_MAX_IRD_ORD || pdata_len > kMpaMaxPrivateData)
    return status_of(ORNIC_ADMIN_STATUS_BAD_FIELD);
  uint8_t status = ORNIC_ADMIN_STATUS_SUCCESS;
  Conn* conn = find_request(le(c.conn_id), status);
  if (conn == nullptr)
    return status_of(status);
  status = check_qp(le(c.qpn), conn->id);
  if (status != ORNIC_ADMIN_STATUS_SUCCESS)
    return status_of(status);
  MpaLocalPolicy policy;
  policy.want_crc = (c.flags & ORNIC_IW_ACCEPT_CRC) != 0;
  policy.ird = ird;
  policy.ord = ord;
  MpaAnswer answer = answer_mpa_request(conn->request, policy);
  if (answer.reply.enhanced && pdata_len > kMpaMaxPrivateData - kMpaEnhancedParamsSize)
    return status_of(ORNIC_ADMIN_STATUS_BAD_FIELD);
  auto pdata = read_private_data(le(c.pdata_addr), pdata_len, status);
  if (!pdata)
    return status_of(status);
  answer.reply.private_data = std::move(*pdata);
  conn->qpn = le(c.qpn);
  conn->revision = answer.reply.revision;
  conn->crc = answer.crc;
  conn->ird = answer.reply.enhanced ? answer.reply.enhanced->ird : ird;
  conn->ord = answer.reply.enhanced ? answer.reply.enhanced->ord : ord;
  if (auto it = listeners_.find(conn->listener_id); it != listeners_.end())
    --it->second.pending;
  conn->phase = Phase::established;
  if (!send_frame(*conn, answer.reply)) {
    end(*conn, true);
    post(ORNIC_EQE_IW_CLOSE, *conn, ORNIC_IW_STATUS_UNREACHABLE);
    return {};
  }
  bind(*conn);
  post(ORNIC_EQE_IW_ESTABLISHED, *conn, ORNIC_IW_STATUS_OK);
  return {};
}

uint8_t ConnectionManager::check_qp(uint32_t qpn, uint32_t conn_id) const {
  if (qps_ == nullptr)
    return ORNIC_ADMIN_STATUS_SUCCESS;
  const uint8_t status = qps_->check_qp(qpn);
  if (status != ORNIC_ADMIN_STATUS_SUCCESS)
    return status;
  // An IW_CONNECT still setting up holds its QP as a bound one does.
  for (const auto& [id, conn] : conns_)
    if (id != conn_id && conn.qpn == qpn && conn.phase != Phase::closed &&
        (conn.qp_bound || conn.active))
      return ORNIC_ADMIN_STATUS_BUSY;
  return ORNIC_ADMIN_STATUS_SUCCESS;
}

void ConnectionManager::bind(Conn& conn) {
  if (qps_ == nullptr || conn.tcp == tcp::kNoConnection)
    return;
  StreamParams params;
  params.conn_id = conn.id;
  params.qpn = conn.qpn;
  params.crc = conn.crc;
  params.mss = engine_->mss(conn.tcp);
  params.ird = conn.ird;
  params.ord = conn.ord;
  conn.qp_bound = true;
  qps_->established(params);
}

void ConnectionManager::unbind(Conn& conn, StreamEnd why) {
  if (!conn.qp_bound)
    return;
  conn.qp_bound = false;
  if (qps_ != nullptr)
    qps_->ended(conn.qpn, why);
}

size_t ConnectionManager::stream_send(uint32_t conn_id, std::span<const std::byte> bytes) {
  Conn* conn = find(conn_id);
  if (conn == nullptr || !conn->qp_bound || conn->tcp == tcp::kNoConnection)
    return 0;
  return engine_->send(conn->tcp, bytes);
}

size_t ConnectionManager::stream_send_record(uint32_t conn_id, std::span<const std::byte> bytes) {
  Conn* conn = find(conn_id);
  if (conn == nullptr || !conn->qp_bound || conn->tcp == tcp::kNoConnection)
    return 0;
  return engine_->send_record(conn->tcp, bytes);
}

void ConnectionManager::stream_close(uint32_t conn_id) {
  Conn* conn = find(conn_id);
  if (conn == nullptr || !conn->qp_bound)
    return;
  conn->qp_bound = false;
  end(*conn, false);
  post(ORNIC_EQE_IW_CLOSE, *conn, ORNIC_IW_STATUS_OK);
}

IwarpCmResult ConnectionManager::reject(const ornic_admin_iw_conn_cmd& c) {
  const uint32_t len = le(c.len);
  if (c.hdr.flags != 0 || c.flags != 0 || !field_is_zero(c.reserved) || len > kMpaMaxPrivateData)
    return status_of(ORNIC_ADMIN_STATUS_BAD_FIELD);
  uint8_t status = ORNIC_ADMIN_STATUS_SUCCESS;
  Conn* conn = find_request(le(c.id), status);
  if (conn == nullptr)
    return status_of(status);
  // An enhanced request's reply carries the enhanced parameters even when it rejects: the
  // peer (siw among others) takes the first four bytes of its private data as them.
  const bool enhanced = conn->request.enhanced.has_value();
  if (enhanced && len > kMpaMaxPrivateData - kMpaEnhancedParamsSize)
    return status_of(ORNIC_ADMIN_STATUS_BAD_FIELD);
  auto pdata = read_private_data(le(c.addr), static_cast<uint16_t>(len), status);
  if (!pdata)
    return status_of(status);
  MpaSetupFrame reply;
  reply.kind = MpaFrameKind::reply;
  reply.reject = true;
  reply.revision = conn->revision;
  if (enhanced)
    reply.enhanced = MpaEnhancedParams{};
  reply.private_data = std::move(*pdata);
  send_reject(*conn, reply);
  return {};
}

IwarpCmResult ConnectionManager::disconnect(const ornic_admin_iw_conn_cmd& c) {
  if (c.hdr.flags != 0 || (le(c.flags) & ~ORNIC_IW_DISCONNECT_ABRUPT) != 0 || c.addr != 0 ||
      c.len != 0 || !field_is_zero(c.reserved))
    return status_of(ORNIC_ADMIN_STATUS_BAD_FIELD);
  Conn* conn = find(le(c.id));
  if (conn == nullptr || conn->phase == Phase::awaiting_request)
    return status_of(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  unbind(*conn, StreamEnd::disconnected);
  drop(conn->id, (le(c.flags) & ORNIC_IW_DISCONNECT_ABRUPT) != 0);
  return {};
}

IwarpCmResult ConnectionManager::query(const ornic_admin_iw_conn_cmd& c) {
  if (c.hdr.flags != 0 || c.flags != 0 || !field_is_zero(c.reserved))
    return status_of(ORNIC_ADMIN_STATUS_BAD_FIELD);
  if (le(c.len) < sizeof(ornic_iw_conn_attr))
    return status_of(ORNIC_ADMIN_STATUS_BAD_FIELD);
  Conn* conn = find(le(c.id));
  if (conn == nullptr || conn->phase == Phase::awaiting_request)
    return status_of(ORNIC_ADMIN_STATUS_BAD_HANDLE);
  ornic_iw_conn_attr attr{};
  attr.tuple = conn->tuple;
  attr.state = state_of(static_cast<uint8_t>(conn->phase));
  attr.mpa_rev = conn->revision;
  attr.flags = static_cast<uint8_t>((conn->crc ? ORNIC_IW_CONN_FLAG_CRC : 0) |
                                    (conn->active ? ORNIC_IW_CONN_FLAG_ACTIVE : 0));
  attr.ird = to_le(conn->ird);
  attr.ord = to_le(conn->ord);
  attr.peer_ird = to_le(conn->peer_ird);
  attr.peer_ord = to_le(conn->peer_ord);
  attr.qpn = to_le(conn->qpn);
  attr.listener_id = to_le(conn->listener_id);
  attr.pdata_len = to_le(static_cast<uint16_t>(conn->peer_private_data.size()));
  std::copy(conn->peer_private_data.begin(), conn->peer_private_data.end(), attr.pdata);
  if (!env_.dma_write || !env_.dma_write(le(c.addr), bytes_of(attr)))
    return status_of(ORNIC_ADMIN_STATUS_BAD_DMA);
  return {ORNIC_ADMIN_STATUS_SUCCESS, static_cast<uint32_t>(sizeof(attr))};
}

namespace {

uint8_t state_of(uint8_t phase_index) {
  // In the order of ConnectionManager::Phase.
  static constexpr uint8_t kStates[] = {0,
                                        ORNIC_IW_CONN_CONNECTING,
                                        ORNIC_IW_CONN_MPA_REQ_SENT,
                                        ORNIC_IW_CONN_MPA_REQ_RCVD,
                                        ORNIC_IW_CONN_ESTABLISHED,
                                        ORNIC_IW_CONN_PEER_CLOSED,
                                        ORNIC_IW_CONN_CLOSED};
  return phase_index < std::size(kStates) ? kStates[phase_index] : 0;
}

} // namespace

} // namespace ornic::iwarp::cm
