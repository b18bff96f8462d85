#include "iwarp/tcp/tcp_engine.hpp"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

extern "C" {
#include "lwip/init.h"
#include "lwip/ip.h"
#include "lwip/netif.h"
#include "lwip/pbuf.h"
#include "lwip/priv/tcp_priv.h"
#include "lwip/tcp.h"
}

namespace ornic::iwarp::tcp {

namespace {

constexpr size_t kEthHeader = 14;
constexpr size_t kIpv4MinHeader = 20;
constexpr uint16_t kEtherTypeIpv4 = 0x0800;
constexpr uint8_t kProtoTcp = 6;
constexpr uint8_t kTcpFlagSyn = 0x02;
constexpr uint8_t kTcpFlagAck = 0x10;
static_assert(TcpEngine::kTickPeriod.count() == TCP_TMR_INTERVAL);
// After a long stall (a stopped guest, a debugger) the timers jump ahead instead of
// replaying every missed period in one go.
constexpr int kMaxCatchUpTicks = 64;

uint16_t be16(std::span<const std::byte> b, size_t at) {
  return static_cast<uint16_t>((std::to_integer<unsigned>(b[at]) << 8) |
                               std::to_integer<unsigned>(b[at + 1]));
}

// A peer must be some other host's unicast address. lwIP hands a segment bound for the
// port's own address or 127/8 to its loopback queue, which needs the tcpip thread the engine
// does not run (lwIP aborts), and the other classes are never a TCP peer (RFC 1122 3.2.1.3).
bool is_peer_address(const Ipv4Address& peer, const Ipv4Address& own) {
  return peer != own && peer[0] != 0 && peer[0] != 127 && peer[0] < 224;
}

ip4_addr_t to_lwip(const Ipv4Address& a) {
  ip4_addr_t r;
  std::memcpy(&r.addr, a.data(), 4); // both in network order
  return r;
}

ip_addr_t to_lwip_any(const Ipv4Address& a) {
  ip_addr_t r;
  ip_addr_copy_from_ip4(r, to_lwip(a));
  return r;
}

Ipv4Address from_lwip(const ip_addr_t& a) {
  Ipv4Address r;
  std::memcpy(r.data(), &ip_2_ip4(&a)->addr, 4);
  return r;
}

// lwIP is one stack per process, so its timers and its re-entrancy guard are too.
struct GlobalState {
  bool initialised = false;
  std::chrono::steady_clock::time_point next_tick{};
  bool ticking = false;
  int depth = 0;
};

GlobalState& global() {
  static GlobalState g;
  if (!g.initialised) {
    lwip_init();
    g.initialised = true;
  }
  return g;
}

} // namespace

const char* tcp_error_name(TcpError error) {
  switch (error) {
  case TcpError::Reset:
    return "reset";
  case TcpError::TimedOut:
    return "timed out";
  case TcpError::Aborted:
    return "aborted";
  }
  return "?";
}

struct TcpEngine::PortState {
  TcpEngine* engine = nullptr;
  unsigned index = 0;
  MacAddress mac{};
  Ipv4Address ip{};
  netif nif{};
  std::map<Ipv4Address, MacAddress> neighbors;
};

struct TcpEngine::Conn {
  TcpEngine* engine = nullptr;
  ConnectionId id = kNoConnection;
  tcp_pcb* pcb = nullptr;
  Tuple tuple;
  ConnectionCallbacks callbacks;
  ConnectHandler on_connect;
  bool connecting = false;
  bool fin_when_acknowledged = false; // handed back by close_when_acknowledged()
};

struct TcpEngine::Listener {
  TcpEngine* engine = nullptr;
  unsigned port = 0;
  tcp_pcb* pcb = nullptr;
  AcceptHandler on_accept;
};

// The lwIP callbacks, and the state shared by every engine of the process.
struct TcpEngine::Impl {
  struct Pending {
    TcpEngine* engine;
    unsigned port;
    std::vector<std::byte> packet;
  };
  // Frames that arrived while lwIP was running (fed when it returns).
  static inline std::vector<Pending> pending;
  static inline bool draining = false;
  // Connections dropped inside a callback die when lwIP has returned, not under its feet.
  static inline std::vector<std::unique_ptr<Conn>> graveyard;
  // The pcb whose callback is running, and whether the user aborted it meanwhile: lwIP
  // must then hear ERR_ABRT.
  static inline tcp_pcb* current_pcb = nullptr;
  static inline bool current_aborted = false;

  class Entry {
  public:
    Entry() { ++global().depth; }
    // The outermost exit feeds what waited, in a loop rather than by recursion: a wire
    // that answers synchronously would otherwise nest one level per exchange.
    ~Entry() {
      if (--global().depth != 0 || draining)
        return;
      draining = true;
      while (!pending.empty()) {
        auto batch = std::move(pending);
        pending.clear();
        for (auto& p : batch)
          p.engine->feed(p.port, p.packet);
      }
      draining = false;
      graveyard.clear();
    }
    Entry(const Entry&) = delete;
    Entry& operator=(const Entry&) = delete;
  };

  struct CallbackScope {
    tcp_pcb* saved_pcb;
    bool saved_aborted;
    explicit CallbackScope(tcp_pcb* pcb) : saved_pcb(current_pcb), saved_aborted(current_aborted) {
      current_pcb = pcb;
      current_aborted = false;
    }
    ~CallbackScope() {
      current_pcb = saved_pcb;
      current_aborted = saved_aborted;
    }
    bool aborted() const { return current_aborted; }
    CallbackScope(const CallbackScope&) = delete;
    CallbackScope& operator=(const CallbackScope&) = delete;
  };

  // A consumer's exception must not unwind through lwIP's C frames: it ends the connection
  // (RST) instead.
  template <typename F>
  static void call_user(TcpEngine& e, ConnectionId id, F&& f) {
    try {
      f();
    } catch (...) {
      ++e.counters_.callback_exceptions;
      e.abort(id);
    }
  }

  static void detach(tcp_pcb* pcb) {
    tcp_arg(pcb, nullptr);
    if (pcb->state != LISTEN) {
      tcp_recv(pcb, nullptr);
      tcp_sent(pcb, nullptr);
      tcp_err(pcb, nullptr);
    }
  }

  static void attach(Conn& c) {
    // Records go out as they are written: Nagle would hold a short one back until the
    // peer's ACK, and records are never merged (send_record).
    tcp_nagle_disable(c.pcb);
    tcp_arg(c.pcb, &c);
    tcp_recv(c.pcb, on_recv);
    tcp_sent(c.pcb, on_sent);
    tcp_err(c.pcb, on_err);
  }

  static err_t netif_init(netif* nif) {
    auto* ps = static_cast<PortState*>(nif->state);
    nif->name[0] = 'i';
    nif->name[1] = 'w';
    nif->output = output;
    nif->linkoutput = [](netif*, pbuf*) -> err_t { return ERR_IF; };
    nif->hwaddr_len = 6;
    std::memcpy(nif->hwaddr, ps->mac.data(), 6);
    nif->flags = 0; // no ARP, no broadcast: the driver supplies next hops
    return ERR_OK;
  }

  static err_t output(netif* nif, pbuf* p, const ip4_addr_t* dest) {
    auto* ps = static_cast<PortState*>(nif->state);
    TcpEngine& e = *ps->engine;
    Ipv4Address ip;
    std::memcpy(ip.data(), &dest->addr, 4);
    auto n = ps->neighbors.find(ip);
    if (n == ps->neighbors.end()) {
      ++e.counters_.frames_no_neighbor;
      return ERR_OK; // TCP retransmits once the driver knows the next hop
    }
    std::vector<std::byte> frame(kEthHeader + p->tot_len);
    std::memcpy(frame.data(), n->second.data(), 6);
    std::memcpy(frame.data() + 6, ps->mac.data(), 6);
    frame[12] = std::byte{kEtherTypeIpv4 >> 8};
    frame[13] = std::byte{kEtherTypeIpv4 & 0xff};
    pbuf_copy_partial(p, frame.data() + kEthHeader, p->tot_len, 0);
    ++e.counters_.frames_sent;
    e.transmit_(ps->index, frame);
    return ERR_OK;
  }

  static err_t on_accept(void* arg, tcp_pcb* pcb, err_t err) {
    auto* l = static_cast<Listener*>(arg);
    if (l == nullptr || pcb == nullptr || err != ERR_OK)
      return ERR_VAL;
    TcpEngine& e = *l->engine;
    if (e.conns_.size() >= e.limits_.max_connections) {
      ++e.counters_.syns_refused;
      tcp_abort(pcb);
      return ERR_ABRT;
    }
    auto c = std::make_unique<Conn>();
    c->engine = &e;
    c->id = e.next_id_++;
    c->pcb = pcb;
    c->tuple = Tuple{l->port, pcb->local_port, from_lwip(pcb->remote_ip), pcb->remote_port};
    Endpoint remote{std::get<2>(c->tuple), pcb->remote_port};
    ConnectionCallbacks callbacks;
    bool accepted = false;
    try {
      accepted = l->on_accept(c->id, remote, callbacks);
    } catch (...) {
      ++e.counters_.callback_exceptions;
    }
    if (!accepted) {
      tcp_abort(pcb);
      return ERR_ABRT;
    }
    c->callbacks = std::move(callbacks);
    Conn& ref = *c;
    e.by_tuple_[c->tuple] = c->id;
    e.conns_[c->id] = std::move(c);
    attach(ref);
    return ERR_OK;
  }

  static err_t on_connected(void* arg, tcp_pcb* pcb, err_t) {
    auto* c = static_cast<Conn*>(arg);
    if (c == nullptr)
      return ERR_OK;
    c->connecting = false;
    CallbackScope scope(pcb);
    ConnectionId id = c->id;
    if (auto handler = std::move(c->on_connect))
      call_user(*c->engine, id, [&] { handler(id, true); });
    return scope.aborted() ? ERR_ABRT : ERR_OK;
  }

  // A handed-back connection sends its FIN when nothing it sent is unacknowledged and nothing
  // received is unread: lwIP answers a close with unread data by RST, and inside tcp_input an
  // ACK reaches on_sent before the same segment's data reaches on_recv.
  static void close_if_done(Conn& c, tcp_pcb* pcb) {
    if (c.fin_when_acknowledged && pcb->unsent == nullptr && pcb->unacked == nullptr &&
        pcb->rcv_wnd == TCP_WND_MAX(pcb))
      c.engine->close(c.id);
  }

  static err_t on_recv(void* arg, tcp_pcb* pcb, pbuf* p, err_t) {
    auto* c = static_cast<Conn*>(arg);
    if (c == nullptr || c->fin_when_acknowledged) {
      if (p != nullptr) {
        tcp_recved(pcb, p->tot_len);
        pbuf_free(p);
      }
      if (c == nullptr)
        return ERR_OK;
      CallbackScope scope(pcb);
      close_if_done(*c, pcb);
      return scope.aborted() ? ERR_ABRT : ERR_OK;
    }
    CallbackScope scope(pcb);
    TcpEngine& e = *c->engine;
    ConnectionId id = c->id;
    if (p == nullptr) {
      if (c->callbacks.on_peer_closed)
        call_user(e, id, [&] { c->callbacks.on_peer_closed(id); });
      return scope.aborted() ? ERR_ABRT : ERR_OK;
    }
    // The window reopens before the consumer runs: a close() from inside on_receive then
    // finds nothing unread and sends FIN, where lwIP would answer unread data with RST.
    tcp_recved(pcb, p->tot_len);
    for (pbuf* q = p; q != nullptr && !scope.aborted(); q = q->next) {
      // The connection may have been closed by the previous chunk's consumer.
      Conn* live = e.conn(id);
      if (live == nullptr || live->fin_when_acknowledged || !live->callbacks.on_receive)
        break;
      std::span<const std::byte> bytes{static_cast<const std::byte*>(q->payload), q->len};
      call_user(e, id, [&] { live->callbacks.on_receive(id, bytes); });
    }
    pbuf_free(p);
    return scope.aborted() ? ERR_ABRT : ERR_OK;
  }

  static err_t on_sent(void* arg, tcp_pcb* pcb, u16_t len) {
    auto* c = static_cast<Conn*>(arg);
    if (c != nullptr && c->fin_when_acknowledged) {
      CallbackScope scope(pcb);
      close_if_done(*c, pcb);
      return scope.aborted() ? ERR_ABRT : ERR_OK;
    }
    if (c == nullptr || !c->callbacks.on_sent)
      return ERR_OK;
    CallbackScope scope(pcb);
    ConnectionId id = c->id;
    call_user(*c->engine, id, [&] { c->callbacks.on_sent(id, len); });
    return scope.aborted() ? ERR_ABRT : ERR_OK;
  }

  // lwIP has freed the pcb already.
  static void on_err(void* arg, err_t err) {
    auto* c = static_cast<Conn*>(arg);
    if (c == nullptr)
      return;
    TcpEngine& e = *c->engine;
    ConnectionId id = c->id;
    c->pcb = nullptr;
    TcpError why = err == ERR_RST || err == ERR_CLSD ? TcpError::Reset
                   : err == ERR_ABRT                 ? TcpError::TimedOut
                                                     : TcpError::Aborted;
    bool connecting = c->connecting;
    auto on_connect = std::move(c->on_connect);
    auto on_error = c->fin_when_acknowledged ? nullptr : c->callbacks.on_error;
    e.release_conn(id);
    // The pcb is gone: an exception here has nothing left to abort.
    call_user(e, id, [&] {
      if (connecting) {
        if (on_connect)
          on_connect(id, false);
      } else if (on_error) {
        on_error(id, why);
      }
    });
  }
};

TcpEngine::TcpEngine(Transmit transmit, EngineLimits limits)
    : transmit_(std::move(transmit)), limits_(limits) {
  global();
}

TcpEngine::~TcpEngine() {
  Impl::Entry entry;
  for (auto& [id, c] : conns_) {
    if (c->pcb != nullptr) {
      Impl::detach(c->pcb);
      tcp_abort(c->pcb);
      c->pcb = nullptr;
    }
  }
  conns_.clear();
  for (auto& [key, l] : listeners_) {
    Impl::detach(l->pcb);
    tcp_close(l->pcb);
  }
  listeners_.clear();
  // Connections closed earlier still sit in lwIP's lists (FIN_WAIT, TIME_WAIT) bound to the
  // netifs that are about to go.
  for (auto& [index, ps] : ports_) {
    u8_t idx = netif_get_index(&ps->nif);
    for (tcp_pcb** list : {&tcp_active_pcbs, &tcp_tw_pcbs}) {
      for (bool again = true; again;) {
        again = false;
        for (tcp_pcb* pcb = *list; pcb != nullptr; pcb = pcb->next) {
          if (pcb->netif_idx == idx) {
            Impl::detach(pcb);
            tcp_abort(pcb);
            again = true;
            break;
          }
        }
      }
    }
    netif_remove(&ps->nif);
  }
  std::erase_if(Impl::pending, [this](const Impl::Pending& p) { return p.engine == this; });
}

void TcpEngine::add_port(unsigned port, const MacAddress& mac, const Ipv4Address& ip,
                         uint16_t mtu) {
  Impl::Entry entry;
  if (ports_.count(port) != 0)
    return;
  auto ps = std::make_unique<PortState>();
  ps->engine = this;
  ps->index = port;
  ps->mac = mac;
  ps->ip = ip;
  ip4_addr_t addr = to_lwip(ip);
  ip4_addr_t mask;
  ip4_addr_t gw;
  IP4_ADDR(&mask, 255, 255, 255, 255);
  ip4_addr_set_zero(&gw);
  if (netif_add(&ps->nif, &addr, &mask, &gw, ps.get(), Impl::netif_init, ip_input) == nullptr)
    return;
  ps->nif.mtu = mtu;
  netif_set_up(&ps->nif);
  netif_set_link_up(&ps->nif);
  ports_[port] = std::move(ps);
}

void TcpEngine::set_neighbor(unsigned port, const Ipv4Address& ip, const MacAddress& mac) {
  if (PortState* ps = port_state(port))
    ps->neighbors[ip] = mac;
}

void TcpEngine::remove_neighbor(unsigned port, const Ipv4Address& ip) {
  if (PortState* ps = port_state(port))
    ps->neighbors.erase(ip);
}

TcpEngine::PortState* TcpEngine::port_state(unsigned port) const {
  auto it = ports_.find(port);
  return it == ports_.end() ? nullptr : it->second.get();
}

TcpEngine::Conn* TcpEngine::conn(ConnectionId id) const {
  auto it = conns_.find(id);
  return it == conns_.end() ? nullptr : it->second.get();
}

void TcpEngine::reserve_port(unsigned port, uint16_t tcp_port) {
  reserved_.insert({port, tcp_port});
}

void TcpEngine::release_port(unsigned port, uint16_t tcp_port) {
  reserved_.erase({port, tcp_port});
}

bool TcpEngine::admit_syn() {
  size_t half_open = 0;
  for (tcp_pcb* pcb = tcp_active_pcbs; pcb != nullptr; pcb = pcb->next) {
    if (pcb->state != SYN_RCVD)
      continue;
    for (auto& [index, ps] : ports_)
      if (pcb->netif_idx == netif_get_index(&ps->nif))
        ++half_open;
  }
  return half_open < limits_.max_half_open && conns_.size() + half_open < limits_.max_connections;
}

bool TcpEngine::owns(unsigned port, uint16_t local_port, const Ipv4Address& remote_ip,
                     uint16_t remote_port, bool syn) {
  Tuple t{port, local_port, remote_ip, remote_port};
  if (by_tuple_.count(t) != 0 || closing_.count(t) != 0)
    return true;
  if (listeners_.count({port, local_port}) != 0) {
    if (syn && !admit_syn()) {
      ++counters_.syns_refused;
      return false; // consumed but not fed: see receive()
    }
    return true;
  }
  return reserved_.count({port, local_port}) != 0;
}

bool TcpEngine::receive(unsigned port, std::span<const std::byte> frame) {
  PortState* ps = port_state(port);
  if (ps == nullptr || frame.size() < kEthHeader + kIpv4MinHeader)
    return false;
  if (!std::equal(ps->mac.begin(), ps->mac.end(), frame.begin(),
                  [](uint8_t m, std::byte b) { return std::byte{m} == b; }))
    return false;
  if (be16(frame, 12) != kEtherTypeIpv4)
    return false;
  auto ip = frame.subspan(kEthHeader);
  unsigned version = std::to_integer<unsigned>(ip[0]) >> 4;
  size_t ihl = (std::to_integer<size_t>(ip[0]) & 0xf) * 4;
  size_t total = be16(ip, 2);
  if (version != 4 || ihl < kIpv4MinHeader || total < ihl || total > ip.size())
    return false;
  if (std::to_integer<uint8_t>(ip[9]) != kProtoTcp)
    return false;
  if (!std::equal(ps->ip.begin(), ps->ip.end(), ip.begin() + 16,
                  [](uint8_t a, std::byte b) { return std::byte{a} == b; }))
    return false;
  // Fragments are the host's: iWARP sends with DF, and only a first fragment names ports.
  if ((be16(ip, 6) & 0x3fff) != 0)
    return false;
  if (total < ihl + 14)
    return false;
  Ipv4Address src;
  for (size_t i = 0; i < 4; ++i)
    src[i] = std::to_integer<uint8_t>(ip[12 + i]);
  if (!is_peer_address(src, ps->ip)) {
    ++counters_.frames_bad_source; // the host's stack judges its martians
    return false;
  }
  uint16_t sport = be16(ip, ihl);
  uint16_t dport = be16(ip, ihl + 2);
  uint8_t flags = std::to_integer<uint8_t>(ip[ihl + 13]);
  bool syn = (flags & (kTcpFlagSyn | kTcpFlagAck)) == kTcpFlagSyn;
  uint64_t refused = counters_.syns_refused;
  if (!owns(port, dport, src, sport, syn)) {
    // A SYN over the limits is still the engine's (the port is), just not answered.
    if (counters_.syns_refused != refused) {
      ++counters_.frames_consumed;
      return true;
    }
    return false;
  }
  ++counters_.frames_consumed;
  auto packet = ip.first(total);
  if (global().depth != 0) {
    Impl::pending.push_back({this, port, {packet.begin(), packet.end()}});
    return true;
  }
  feed(port, packet);
  return true;
}

void TcpEngine::feed(unsigned port, std::span<const std::byte> ip_packet) {
  PortState* ps = port_state(port);
  if (ps == nullptr || ip_packet.size() > 0xffff)
    return;
  Impl::Entry entry;
  pbuf* p = pbuf_alloc(PBUF_RAW, static_cast<u16_t>(ip_packet.size()), PBUF_RAM);
  if (p == nullptr)
    return;
  if (pbuf_take(p, ip_packet.data(), static_cast<u16_t>(ip_packet.size())) != ERR_OK) {
    pbuf_free(p);
    return;
  }
  // lwIP checks the rest (checksums, lengths, sequence numbers) and drops what fails.
  if (ps->nif.input(p, &ps->nif) != ERR_OK)
    pbuf_free(p);
}

bool TcpEngine::listen(unsigned port, uint16_t tcp_port, AcceptHandler on_accept) {
  PortState* ps = port_state(port);
  if (ps == nullptr || tcp_port == 0 || listeners_.count({port, tcp_port}) != 0)
    return false;
  Impl::Entry entry;
  tcp_pcb* pcb = tcp_new_ip_type(IPADDR_TYPE_V4);
  if (pcb == nullptr)
    return false;
  tcp_bind_netif(pcb, &ps->nif);
  // Connections accepted on the port inherit the flag, so a new listener may take the port
  // while they run, as a socket with SO_REUSEADDR does; listeners_ keeps it to one listener.
  ip_set_option(pcb, SOF_REUSEADDR);
  ip_addr_t local = to_lwip_any(ps->ip);
  if (tcp_bind(pcb, &local, tcp_port) != ERR_OK) {
    tcp_abort(pcb);
    return false;
  }
  err_t err = ERR_OK;
  tcp_pcb* lpcb = tcp_listen_with_backlog_and_err(pcb, TCP_DEFAULT_LISTEN_BACKLOG, &err);
  if (lpcb == nullptr) {
    tcp_abort(pcb);
    return false;
  }
  auto l = std::make_unique<Listener>();
  l->engine = this;
  l->port = port;
  l->pcb = lpcb;
  l->on_accept = std::move(on_accept);
  tcp_arg(lpcb, l.get());
  tcp_accept(lpcb, Impl::on_accept);
  listeners_[{port, tcp_port}] = std::move(l);
  return true;
}

void TcpEngine::stop_listening(unsigned port, uint16_t tcp_port) {
  auto it = listeners_.find({port, tcp_port});
  if (it == listeners_.end())
    return;
  Impl::Entry entry;
  Impl::detach(it->second->pcb);
  tcp_close(it->second->pcb);
  listeners_.erase(it);
}

ConnectionId TcpEngine::connect(unsigned port, uint16_t local_port, const Endpoint& remote,
                                ConnectionCallbacks callbacks, ConnectHandler on_connect) {
  PortState* ps = port_state(port);
  if (ps == nullptr || remote.port == 0 || conns_.size() >= limits_.max_connections ||
      !is_peer_address(remote.ip, ps->ip))
    return kNoConnection;
  Impl::Entry entry;
  tcp_pcb* pcb = tcp_new_ip_type(IPADDR_TYPE_V4);
  if (pcb == nullptr)
    return kNoConnection;
  tcp_bind_netif(pcb, &ps->nif);
  ip_addr_t local = to_lwip_any(ps->ip);
  if (tcp_bind(pcb, &local, local_port) != ERR_OK) {
    tcp_abort(pcb);
    return kNoConnection;
  }
  auto c = std::make_unique<Conn>();
  c->engine = this;
  c->id = next_id_++;
  c->pcb = pcb;
  c->tuple = Tuple{port, pcb->local_port, remote.ip, remote.port};
  c->callbacks = std::move(callbacks);
  c->on_connect = std::move(on_connect);
  c->connecting = true;
  ConnectionId id = c->id;
  if (by_tuple_.count(c->tuple) != 0 || closing_.count(c->tuple) != 0) {
    tcp_abort(pcb);
    return kNoConnection;
  }
  Conn& ref = *c;
  by_tuple_[c->tuple] = id;
  conns_[id] = std::move(c);
  Impl::attach(ref);
  ip_addr_t peer = to_lwip_any(remote.ip);
  if (tcp_connect(pcb, &peer, remote.port, Impl::on_connected) != ERR_OK) {
    Impl::detach(pcb);
    tcp_abort(pcb);
    ref.pcb = nullptr;
    release_conn(id);
    return kNoConnection;
  }
  return id;
}

size_t TcpEngine::send_space(ConnectionId id) const {
  Conn* c = conn(id);
  if (c == nullptr || c->pcb == nullptr || c->connecting)
    return 0;
  return tcp_sndbuf(c->pcb);
}

size_t TcpEngine::mss(ConnectionId id) const {
  Conn* c = conn(id);
  if (c == nullptr || c->pcb == nullptr || c->connecting)
    return 0;
  return tcp_mss(c->pcb);
}

size_t TcpEngine::send(ConnectionId id, std::span<const std::byte> bytes) {
  Conn* c = conn(id);
  if (c == nullptr || c->pcb == nullptr || c->connecting)
    return 0;
  Impl::Entry entry;
  size_t done = 0;
  while (done < bytes.size()) {
    size_t room = tcp_sndbuf(c->pcb);
    size_t chunk = std::min({bytes.size() - done, room, size_t{0xffff}});
    if (chunk == 0)
      break;
    if (tcp_write(c->pcb, bytes.data() + done, static_cast<u16_t>(chunk), TCP_WRITE_FLAG_COPY) !=
        ERR_OK)
      break; // the segment queue is full: on_sent will say when there is room
    done += chunk;
  }
  if (done != 0)
    tcp_output(c->pcb);
  return done;
}

size_t TcpEngine::send_record(ConnectionId id, std::span<const std::byte> bytes) {
  Conn* c = conn(id);
  if (c == nullptr || c->pcb == nullptr || c->connecting || bytes.empty() || bytes.size() > 0xffff)
    return 0;
  if (tcp_sndbuf(c->pcb) < bytes.size())
    return 0;
  // lwIP tops the last unsent segment up to the MSS with what is written next: wait while it
  // has room (a short record), until it is sent.  Full ones may queue behind each other.
  const tcp_seg* last = c->pcb->unsent;
  while (last != nullptr && last->next != nullptr)
    last = last->next;
  if (last != nullptr && last->len < tcp_mss(c->pcb))
    return 0;
  Impl::Entry entry;
  if (tcp_write(c->pcb, bytes.data(), static_cast<u16_t>(bytes.size()), TCP_WRITE_FLAG_COPY) !=
      ERR_OK)
    return 0;
  tcp_output(c->pcb);
  return bytes.size();
}

void TcpEngine::set_ip_options(ConnectionId id, uint8_t tos, uint8_t ttl) {
  Conn* c = conn(id);
  if (c == nullptr || c->pcb == nullptr)
    return;
  c->pcb->tos = tos;
  c->pcb->ttl = ttl;
}

void TcpEngine::close(ConnectionId id) {
  Conn* c = conn(id);
  if (c == nullptr)
    return;
  Impl::Entry entry;
  if (tcp_pcb* pcb = c->pcb) {
    Impl::detach(pcb);
    if (tcp_close(pcb) == ERR_OK) {
      closing_.insert(c->tuple);
    } else {
      tcp_abort(pcb); // out of memory for the FIN
      if (pcb == Impl::current_pcb)
        Impl::current_aborted = true;
    }
    c->pcb = nullptr;
  }
  release_conn(id);
}

void TcpEngine::close_when_acknowledged(ConnectionId id) {
  Conn* c = conn(id);
  if (c == nullptr)
    return;
  if (c->pcb == nullptr || c->connecting) {
    close(id);
    return;
  }
  Impl::Entry entry;
  // The callbacks stay (one may be running now) but are no longer called.
  c->fin_when_acknowledged = true;
  Impl::close_if_done(*c, c->pcb);
}

void TcpEngine::abort(ConnectionId id) {
  Conn* c = conn(id);
  if (c == nullptr)
    return;
  Impl::Entry entry;
  if (tcp_pcb* pcb = c->pcb) {
    Impl::detach(pcb);
    tcp_abort(pcb);
    if (pcb == Impl::current_pcb)
      Impl::current_aborted = true;
    c->pcb = nullptr;
  }
  release_conn(id);
}

bool TcpEngine::connected(ConnectionId id) const {
  Conn* c = conn(id);
  return c != nullptr && c->pcb != nullptr && !c->connecting;
}

void TcpEngine::release_conn(ConnectionId id) {
  auto it = conns_.find(id);
  if (it == conns_.end())
    return;
  by_tuple_.erase(it->second->tuple);
  Impl::graveyard.push_back(std::move(it->second));
  conns_.erase(it);
  if (global().depth == 0)
    Impl::graveyard.clear();
}

void TcpEngine::prune_closing() {
  std::erase_if(closing_, [this](const Tuple& t) {
    PortState* ps = port_state(std::get<0>(t));
    if (ps == nullptr)
      return true;
    u8_t idx = netif_get_index(&ps->nif);
    for (tcp_pcb* list : {tcp_active_pcbs, tcp_tw_pcbs})
      for (tcp_pcb* pcb = list; pcb != nullptr; pcb = pcb->next)
        if (pcb->netif_idx == idx && pcb->local_port == std::get<1>(t) &&
            pcb->remote_port == std::get<3>(t) && from_lwip(pcb->remote_ip) == std::get<2>(t))
          return false;
    return true;
  });
}

void TcpEngine::advance(std::chrono::steady_clock::time_point now) {
  GlobalState& g = global();
  {
    Impl::Entry entry;
    if (!g.ticking) {
      g.ticking = true;
      g.next_tick = now + kTickPeriod;
    }
    int ticks = 0;
    while (now >= g.next_tick && ticks < kMaxCatchUpTicks) {
      tcp_tmr();
      g.next_tick += kTickPeriod;
      ++ticks;
    }
    if (now >= g.next_tick)
      g.next_tick = now + kTickPeriod;
  }
  prune_closing();
}

} // namespace ornic::iwarp::tcp
