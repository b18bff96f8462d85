// The device's iWARP connection manager (Documentation/hardware/ornic/iwarp-cm.rst): the
// IW_* admin commands, the MPA connection setup of every connection on the device's own TCP
// (tcp::TcpEngine) and the IW_* events. The active side sends the MPA request once TCP is up
// and waits for the reply; the passive side announces a connection (CONN_REQUEST) only once
// its MPA request has arrived, and answers it on ACCEPT or REJECT. What software gives is
// untrusted, and so is every byte from the wire.
//
// One TcpEngine port stands for each local IPv4 address in use, all on the one Ethernet port:
// the engine has one address per port, and a host may listen on several.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "core/iwarp_cm_hooks.hpp"
#include "iwarp/cm/qp_streams.hpp"
#include "iwarp/mpa_setup.hpp"
#include "iwarp/tcp/tcp_engine.hpp"

namespace ornic::iwarp::cm {

using Clock = std::chrono::steady_clock;

// What the connection manager uses of the device, so that it runs without one in tests.
struct CmEnvironment {
  std::function<void(std::span<const std::byte> frame)> transmit;
  std::function<void(const ornic_eqe_iw& event)> post_event;
  std::function<bool(uint64_t addr, std::span<std::byte> out)> dma_read;
  std::function<bool(uint64_t addr, std::span<const std::byte> in)> dma_write;
  // The port's current MAC (ETH_SET_MAC may change it); unset: the constructor's.
  std::function<tcp::MacAddress()> mac;
  // The device counters (ORNIC_CNT_IW_*); unset: not counted.
  std::function<void(ornic_counter_id id, uint64_t by)> count;
};

struct CmCounters {
  uint64_t mpa_requests_refused = 0; // invalid MPA request: connection reset
  uint64_t mpa_markers_refused = 0;  // a request for markers, answered with R set
  uint64_t mpa_replies_refused = 0;  // invalid or unacceptable reply on our IW_CONNECT
  uint64_t mpa_timeouts = 0;         // no request or reply within kMpaTimeout
  uint64_t backlog_refused = 0;      // a SYN over a listener's backlog or the table
  uint64_t fpdu_bytes_dropped = 0;   // after setup, with no QP bound to take them
};

class ConnectionManager : public IwarpCmHooks, public StreamIo {
public:
  // How long a peer has to send its MPA request or reply once TCP is up.
  static constexpr std::chrono::seconds kMpaTimeout{10};

  ConnectionManager(CmEnvironment env, const tcp::MacAddress& mac);
  ~ConnectionManager() override;
  ConnectionManager(const ConnectionManager&) = delete;
  ConnectionManager& operator=(const ConnectionManager&) = delete;

  IwarpCmResult admin(const ornic_admin_sqe& command) override;
  void reset() override;

  // A received frame: true when it was the device's (TCP to a listener or connection).
  bool receive(std::span<const std::byte> frame);
  // TCP's timers and the MPA timeouts, on the model's clock.
  void advance(Clock::time_point now);
  void set_mac(const tcp::MacAddress& mac) { mac_ = mac; }
  // The QPs established connections are bound to; unset, no QP is checked or bound.
  void set_qp_streams(QpStreams* qps) { qps_ = qps; }

  size_t stream_send(uint32_t conn_id, std::span<const std::byte> bytes) override;
  size_t stream_send_record(uint32_t conn_id, std::span<const std::byte> bytes) override;
  void stream_close(uint32_t conn_id) override;

  const CmCounters& counters() const { return counters_; }
  size_t connection_count() const { return conns_.size(); }
  size_t listener_count() const { return listeners_.size(); }

private:
  struct Listener {
    uint32_t id = 0;
    unsigned engine_port = 0;
    uint16_t port = 0;
    uint16_t backlog = 0;
    uint16_t pending = 0; // CONN_REQUESTs not yet accepted or rejected
  };
  enum class Phase : uint8_t {
    awaiting_request, // passive, not announced yet
    connecting,
    request_sent,
    request_received,
    established,
    peer_closed,
    closed,
  };
  struct Conn {
    uint32_t id = 0;
    bool active = false;
    Phase phase = Phase::connecting;
    tcp::ConnectionId tcp = tcp::kNoConnection;
    uint32_t listener_id = 0;
    uint32_t qpn = 0;
    bool qp_bound = false;    // established, and the QP engine owns the stream
    size_t setup_unacked = 0; // our setup frame's bytes TCP has not seen acknowledged yet
    ornic_iw_tuple tuple{};
    MpaSetupFrame request; // ours (active) or the peer's (passive)
    uint8_t revision = 0;
    bool crc = false;
    uint16_t ird = 0, ord = 0, peer_ird = 0, peer_ord = 0;
    std::vector<uint8_t> setup_bytes; // the peer's setup frame as it arrives
    std::vector<uint8_t> peer_private_data;
    std::optional<Clock::time_point> deadline;
  };

  IwarpCmResult listen(const ornic_admin_iw_listen& c);
  IwarpCmResult unlisten(const ornic_admin_iw_conn_cmd& c);
  IwarpCmResult connect(const ornic_admin_iw_connect& c);
  IwarpCmResult accept(const ornic_admin_iw_accept& c);
  IwarpCmResult reject(const ornic_admin_iw_conn_cmd& c);
  IwarpCmResult disconnect(const ornic_admin_iw_conn_cmd& c);
  IwarpCmResult query(const ornic_admin_iw_conn_cmd& c);

  std::optional<unsigned> engine_port_for(const tcp::Ipv4Address& ip);
  Conn* find(uint32_t id);
  // The passive connection @id whose MPA request awaits ACCEPT or REJECT; else
  // @status says why not (BAD_HANDLE, BAD_STATE).
  Conn* find_request(uint32_t id, uint8_t& status);
  tcp::ConnectionCallbacks callbacks(uint32_t id);
  bool accept_tcp(uint32_t listener_id, tcp::ConnectionId tcp, const tcp::Endpoint& remote,
                  tcp::ConnectionCallbacks& callbacks);
  void on_connected(uint32_t id, bool connected);
  void on_bytes(uint32_t id, std::span<const std::byte> bytes);
  void on_peer_closed(uint32_t id);
  void on_tcp_error(uint32_t id, tcp::TcpError error);
  void got_request(Conn& conn);
  void got_reply(Conn& conn);
  // The TCP connection goes (RST when abort); the id stays for software to free.
  void end(Conn& conn, bool abort);
  // The connection and its id go (the passive side before CONN_REQUEST, REJECT, DISCONNECT).
  void drop(uint32_t id, bool abort);
  // IW_CONNECT's or IW_ACCEPT's QP: its own state, and no other live connection names it.
  uint8_t check_qp(uint32_t qpn, uint32_t conn_id) const;
  void bind(Conn& conn);
  void unbind(Conn& conn, StreamEnd why);
  void post(uint8_t type, const Conn& conn, uint8_t status, uint16_t pdata_len = 0);
  bool send_frame(Conn& conn, const MpaSetupFrame& frame);
  // A reply with R set, then FIN once TCP has it acknowledged, and the connection is gone.
  void send_reject(Conn& conn, const MpaSetupFrame& reply);
  std::optional<std::vector<uint8_t>> read_private_data(uint64_t addr, uint16_t len,
                                                        uint8_t& status);

  CmEnvironment env_;
  tcp::MacAddress mac_;
  std::unique_ptr<tcp::TcpEngine> engine_;
  std::map<tcp::Ipv4Address, unsigned> engine_ports_;         // local address -> engine port
  std::set<std::pair<unsigned, tcp::Ipv4Address>> neighbors_; // next hops the engine has
  std::map<uint32_t, Listener> listeners_;
  std::map<uint32_t, Conn> conns_;
  uint32_t next_device_id_ = 1;
  Clock::time_point now_{};
  CmCounters counters_;
  void tally(ornic_counter_id id, uint64_t by = 1) {
    if (env_.count)
      env_.count(id, by);
  }
  QpStreams* qps_ = nullptr;
};

} // namespace ornic::iwarp::cm
