// The device's TCP engine for iWARP: the NIC, not the host, terminates the TCP connections
// that carry MPA/DDP/RDMAP, because it must own retransmission, acknowledgement, the windows
// and congestion control of the byte stream anyway. The protocol machine is lwIP's (raw API,
// driven from the model's single event-loop thread); this wrapper gives it one netif per
// Ethernet port, owns the decision of which received frames are the engine's (the listen and
// connection tables) and hands every other frame back to the port's normal receive path.
//
// Link-layer next hops come from the driver (set_neighbor), as on real iWARP NICs: the host
// resolves routes and neighbours, the device does not run ARP. A segment to a peer without a
// neighbour entry is dropped and left to TCP's retransmission.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <tuple>

namespace ornic::iwarp::tcp {

using MacAddress = std::array<uint8_t, 6>;
using Ipv4Address = std::array<uint8_t, 4>;

struct Endpoint {
  Ipv4Address ip{};
  uint16_t port = 0;
  auto operator<=>(const Endpoint&) const = default;
};

// Why a connection ended without a clean close on both sides.
enum class TcpError {
  Reset,    // the peer sent RST (also: connection refused)
  TimedOut, // retransmissions or the handshake ran out
  Aborted,  // the engine gave up (out of memory, port removed)
};

const char* tcp_error_name(TcpError error);

using ConnectionId = uint32_t;
inline constexpr ConnectionId kNoConnection = 0;

// Called from inside the engine; they may call send/close/abort on the engine again. One that
// throws gets its connection reset.
struct ConnectionCallbacks {
  // Bytes in order. The engine reopens the window at once: the consumer must take them.
  std::function<void(ConnectionId, std::span<const std::byte>)> on_receive;
  // The peer acknowledged this many bytes: send() has room again.
  std::function<void(ConnectionId, size_t)> on_sent;
  // The peer sent FIN: no more bytes will arrive (sending may go on until close()).
  std::function<void(ConnectionId)> on_peer_closed;
  // The connection is gone (the id is dead when this returns).
  std::function<void(ConnectionId, TcpError)> on_error;
};

struct EngineLimits {
  size_t max_connections = 4096; // established plus connecting, per engine
  size_t max_half_open = 256;    // SYN_RCVD on all listeners of the engine
};

struct EngineCounters {
  uint64_t frames_consumed = 0;
  uint64_t frames_sent = 0;
  uint64_t frames_no_neighbor = 0;
  uint64_t syns_refused = 0;        // over max_half_open or max_connections
  uint64_t frames_bad_source = 0;   // not taken: source own, 0/8, 127/8 or 224/3 and up
  uint64_t callback_exceptions = 0; // a consumer threw: its connection was reset
};

class TcpEngine {
public:
  using Transmit = std::function<void(unsigned port, std::span<const std::byte> frame)>;
  // Fill in the callbacks and return true, or return false to refuse (the engine sends RST).
  using AcceptHandler =
      std::function<bool(ConnectionId, const Endpoint& remote, ConnectionCallbacks& callbacks)>;
  using ConnectHandler = std::function<void(ConnectionId, bool connected)>;

  // lwIP's TCP timer period (TCP_TMR_INTERVAL): its RTO, delayed-ACK and TIME_WAIT clocks
  // count in these steps.
  static constexpr std::chrono::milliseconds kTickPeriod{250};

  TcpEngine(Transmit transmit, EngineLimits limits = {});
  ~TcpEngine();
  TcpEngine(const TcpEngine&) = delete;
  TcpEngine& operator=(const TcpEngine&) = delete;

  // The port's addresses. IPv4 only for now; mtu is the IP MTU.
  void add_port(unsigned port, const MacAddress& mac, const Ipv4Address& ip, uint16_t mtu = 1500);
  void set_neighbor(unsigned port, const Ipv4Address& ip, const MacAddress& mac);
  void remove_neighbor(unsigned port, const Ipv4Address& ip);

  // A received frame. True when it belonged to the engine (consumed, whether or not it was
  // valid); false when the port must hand it to the host's netdev.
  bool receive(unsigned port, std::span<const std::byte> frame);

  // Ports the driver reserved for the device: segments to them are the engine's even without
  // a listener or connection, so lwIP answers them (a SYN gets RST).
  void reserve_port(unsigned port, uint16_t tcp_port);
  void release_port(unsigned port, uint16_t tcp_port);

  bool listen(unsigned port, uint16_t tcp_port, AcceptHandler on_accept);
  void stop_listening(unsigned port, uint16_t tcp_port);

  // The result comes through on_connect (refused, timed out: false, then the id is dead).
  ConnectionId connect(unsigned port, uint16_t local_port, const Endpoint& remote,
                       ConnectionCallbacks callbacks, ConnectHandler on_connect);

  // How many bytes the engine took (0 when the send buffer is full: wait for on_sent).
  size_t send(ConnectionId id, std::span<const std::byte> bytes);
  // `bytes` as one record in a segment of its own, all or nothing: written only when it fits
  // whole and the last unsent segment, if any, is full (lwIP would top it up with the record's
  // start).  Keeps MPA's FPDUs aligned with TCP segments (RFC 5044, "MPA-aware TCP"), which
  // some receivers rely on.
  size_t send_record(ConnectionId id, std::span<const std::byte> bytes);
  size_t send_space(ConnectionId id) const;
  // The connection's MSS: TCP payload bytes per segment (0 when it is not connected).
  size_t mss(ConnectionId id) const;
  // The IPv4 TOS byte and TTL of the connection's segments (lwIP's defaults until set).
  void set_ip_options(ConnectionId id, uint8_t tos, uint8_t ttl);
  void close(ConnectionId id); // FIN; the connection lingers in the engine until it is done
  // FIN once the peer has acknowledged every byte sent (at once when it has).  The id is the
  // engine's from here: no callback reaches the caller again.  A last message then reaches
  // the peer's TCP before the FIN does, so a receiver that stops reading at FIN still reads
  // it; lwIP's retransmission limit ends a peer that never acknowledges.
  void close_when_acknowledged(ConnectionId id);
  void abort(ConnectionId id); // RST

  // Runs lwIP's timers for every full period elapsed up to now (the model's clock).
  void advance(std::chrono::steady_clock::time_point now);

  bool connected(ConnectionId id) const;
  size_t connection_count() const { return conns_.size(); }
  // Connections closed here that lwIP still finishes (FIN_WAIT, LAST_ACK, TIME_WAIT).
  size_t lingering() const { return closing_.size(); }
  const EngineCounters& counters() const { return counters_; }

  struct Impl;

private:
  using Tuple = std::tuple<unsigned, uint16_t, Ipv4Address, uint16_t>; // port, local, remote
  struct PortState;
  struct Conn;
  struct Listener;

  friend struct Impl;

  PortState* port_state(unsigned port) const;
  Conn* conn(ConnectionId id) const;
  bool owns(unsigned port, uint16_t local_port, const Ipv4Address& remote_ip, uint16_t remote_port,
            bool syn);
  bool admit_syn();
  void feed(unsigned port, std::span<const std::byte> ip_packet);
  void release_conn(ConnectionId id);
  void prune_closing();

  Transmit transmit_;
  EngineLimits limits_;
  EngineCounters counters_;
  std::map<unsigned, std::unique_ptr<PortState>> ports_;
  std::map<ConnectionId, std::unique_ptr<Conn>> conns_;
  std::map<std::pair<unsigned, uint16_t>, std::unique_ptr<Listener>> listeners_;
  std::set<std::pair<unsigned, uint16_t>> reserved_;
  std::map<Tuple, ConnectionId> by_tuple_;
  std::set<Tuple> closing_; // closed by us, still in lwIP's lists (FIN_WAIT, TIME_WAIT)
  ConnectionId next_id_ = 1;
};

} // namespace ornic::iwarp::tcp
