// One Ethernet port of the NIC: raw Ethernet frames (no FCS) in and out.
//
// Backends (chosen by make_port's spec string); the datagram ones carry one frame per
// datagram, no FCS and no vnet header, as QEMU's `-netdev dgram` and `-netdev tap` do:
//   unix:LOCAL_PATH,PEER_PATH    point-to-point link over connected AF_UNIX SOCK_DGRAM
//                                sockets (unix_dgram_port.hpp)
//   udp:LHOST:LPORT,RHOST:RPORT  point-to-point link over a connected UDP socket, IPv4 or
//                                IPv6 ([::1]:5000) (udp_port.hpp)
//   tap:IFNAME                   an existing persistent tap interface (tap_port.hpp)
//   shm:LOCAL_PATH,PEER_PATH     another model on this host: shared-memory frame rings,
//                                eventfd kicks only to a sleeping peer (shm_port.hpp)
//   loopback                     every sent frame comes back to the same port's receiver
//   none                         link down, every sent frame dropped
// WireFaults with any() wrap the backend in a FaultyPort (faulty_port.hpp) that loses,
// reorders, duplicates and corrupts sent frames; a non-empty pcap path wraps the result in
// a tap that records both directions (sent frames as the NIC sent them, before faults).
//
// Everything runs on the caller's EventLoop; no call ever blocks.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "port/link_shaping.hpp"
#include "port/pfc_options.hpp"
#include "port/wire_faults.hpp"

namespace ornic {

class EventLoop;
class PfcPort;

// Ethernet header only (dst MAC, src MAC, EtherType): anything shorter is not a frame.
inline constexpr size_t kMinFrameBytes = 14;
// 9000-byte jumbo payload + 14-byte header + two VLAN tags, rounded up to the usual 9216
// "max jumbo frame" so a QEMU peer with a slightly larger MTU still gets through.
inline constexpr size_t kMaxFrameBytes = 9216;

struct PortCounters {
  uint64_t tx_frames = 0; // handed to the wire
  uint64_t tx_bytes = 0;
  uint64_t tx_in_place = 0; // of tx_frames: built where the peer reads them (reserve_tx)
  uint64_t rx_frames = 0;   // delivered to the receiver
  uint64_t rx_bytes = 0;

  uint64_t tx_dropped_no_peer = 0;     // link down: no peer, tap down or gone, or spec "none"
  uint64_t tx_dropped_would_block = 0; // the kernel's buffer full and our queue too
  uint64_t tx_backpressured = 0;       // frames that waited in our queue for the kernel
  uint64_t tx_dropped_oversize = 0;    // longer than kMaxFrameBytes
  uint64_t tx_dropped_runt = 0;        // shorter than kMinFrameBytes
  uint64_t tx_dropped_error = 0;       // any other send failure

  uint64_t rx_dropped_oversize = 0;
  uint64_t rx_dropped_runt = 0;        // e.g. a stray non-Ethernet datagram
  uint64_t rx_dropped_no_receiver = 0; // arrived before set_receiver()
};

class Port {
public:
  using Receiver = std::function<void(std::span<const std::byte> frame)>;
  using LinkListener = std::function<void(bool up)>;

  virtual ~Port() = default;

  // Never blocks; drops (and counts) when the peer is absent; a backend may queue a
  // bounded number of frames while the peer is slow.
  virtual void send(std::span<const std::byte> frame) = 0;
  // The receiver runs on the event loop, never from inside send(). The span is only valid
  // during the call. It must not destroy the port or call set_receiver() itself.
  virtual void set_receiver(Receiver rx) = 0;
  virtual bool link_up() const = 0;
  virtual PortCounters counters() const = 0;
  // Frames handed to send() that still wait for the wire (a backend's bounded queue), so a
  // sender with no window of its own (UC) can hold back before the port has to drop.
  virtual size_t tx_backlog() const { return 0; }

  // Optional zero-copy transmit: a buffer of `bytes` bytes (at most kMaxFrameBytes) for the
  // caller to build one frame in, then commit_tx(length) sends its first `length` bytes as
  // send() would. A frame that is not committed (its source failed) is simply not sent; the
  // buffer is valid until commit_tx() or the next reserve_tx(), and nothing else may be sent
  // in between. The default is a scratch buffer that commit_tx() hands to send(); the shm:
  // port gives the ring slot itself, so the frame is written once, where the peer reads it.
  virtual std::span<std::byte> reserve_tx(size_t bytes) {
    tx_scratch_.resize(std::min(bytes, kMaxFrameBytes + 1));
    return tx_scratch_;
  }
  virtual void commit_tx(size_t length) {
    send(std::span<const std::byte>(tx_scratch_).first(std::min(length, tx_scratch_.size())));
  }

  // Optional: called (through EventLoop::post, so never from inside send()) after every
  // change of link_up(), with the new state; not for the initial state, which the caller
  // reads with link_up(). For the NIC's PORT_STATE event. Backends whose link never
  // changes (loopback, none) keep this default.
  virtual void set_link_listener(LinkListener listener) { (void)listener; }

private:
  std::vector<std::byte> tx_scratch_;
};

// What the frames of a port are: Ethernet frames (a RoCE port) or InfiniBand packets, LRH
// through VCRC (infiniband.rst, "Framing"), which only the datagram backends carry and a
// capture records as ERF InfiniBand records.
enum class PortFrames { ethernet, infiniband };

// Throws std::invalid_argument with a helpful message on a bad spec, and
// std::system_error / std::runtime_error when a valid spec cannot be set up (socket path
// or UDP port in use, directory missing, no such tap, pcap file not writable).
// `shaping` (when any()) puts a ShapedPort between the faults and the tap, so the pcap
// records frames as the NIC sent them, before they queue and are marked.
// `pfc` (when any()) puts a PfcPort (pfc_port.hpp) outermost, above the tap, so the capture
// holds the PFC frames both ways; `pfc_port`, if given, is set to it (or to null), for the
// DCB configuration and counters.
std::unique_ptr<Port> make_port(EventLoop& loop, std::string_view spec,
                                std::string_view pcap_path = {}, const WireFaults& faults = {},
                                const LinkShaping& shaping = {},
                                PortFrames frames = PortFrames::ethernet,
                                const PfcOptions& pfc = {}, PfcPort** pfc_port = nullptr);

} // namespace ornic
