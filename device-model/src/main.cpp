// ornic-model: the ornic RNIC behavioural model, served to QEMU over vfio-user.
//
//   ornic-model --socket /run/ornic0.sock --port unix:/run/a.eth,/run/b.eth
//               --mac 02:00:00:00:00:01 --pcap /tmp/a.pcap
//   --port udp:192.0.2.1:4800,192.0.2.2:4800   (to a model or QEMU on another host)
//   --port tap:ornictap0                        (bridged to the host's network)
//   --port shm:/run/o/a.shm,/run/o/b.shm       (to another model on this host)
//   --inject-faults qp-state,eq-storm           (TEST ONLY: a broken device, registers.rst)
//   --state-file /run/ornic0.json               (counters and state as JSON on SIGUSR1 and at
//                                                exit; without it they go to the log)
//   --link-rate 200 --ecn-threshold 65536       (a bottleneck link that marks ECN CE,
//                                                roce.rst "Congestion control")
//   --port-rx-rate 10000 --port-pfc 0x08        (a receiver slower than the wire, priority 3
//                                                lossless by PFC; operations.rst "Priority
//                                                flow control"; --port-rx-ecn 16384 marks
//                                                ECN CE before PFC pauses)
//   --link-layer ib                             (an InfiniBand port: LRH/VCRC packets on the
//                                                link, subnet management by an SM such as
//                                                OpenSM; infiniband.rst)
//   --link-layer iwarp                          (an iWARP port: Ethernet whose RDMA
//                                                connections run over TCP in the device;
//                                                no RoCE; iwarp.rst)
//   --sandbox off                               (no seccomp allow-list, for debugging;
//                                                operations.rst "Confinement")
//
// Start it before QEMU: QEMU does not retry the connection. It serves one QEMU at a
// time; when QEMU goes away the device is reset and the next QEMU can attach.
// SIGINT/SIGTERM stop it cleanly and remove the socket.
#include <array>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>

#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/event_loop.hpp"
#include "common/logging.hpp"
#include "common/release_version.hpp"
#include "common/unique_fd.hpp"
#include "core/object_limits_spec.hpp"
#include "nic/nic_device.hpp"
#include "port/port.hpp"
#include "sandbox/syscall_filter.hpp"
#include "vfio_user/server.hpp"

namespace {

ornic::EventLoop* g_loop = nullptr;

extern "C" void on_stop_signal(int) {
  if (g_loop != nullptr)
    g_loop->stop(); // async-signal-safe: an eventfd write
}

void install_signal_handlers() {
  struct sigaction sa{};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN); // a vanished peer is an error return, not a dead model
}

// "02:00:5e:10:00:01" -> bytes; nullopt if malformed.
std::optional<std::array<uint8_t, 6>> parse_mac(const std::string& text) {
  std::array<uint8_t, 6> mac{};
  if (text.size() != 17)
    return std::nullopt;
  for (size_t i = 0; i < 6; ++i) {
    const char* first = text.data() + 3 * i;
    if (i < 5 && first[2] != ':')
      return std::nullopt;
    auto [end, ec] = std::from_chars(first, first + 2, mac[i], 16);
    if (ec != std::errc() || end != first + 2)
      return std::nullopt;
  }
  return mac;
}

// The device's counters and state (nic/state_dump.hpp) as one JSON document: into `path`
// through a temporary file and a rename, so a reader never sees half of it, or to the log.
void dump_state(const ornic::NicDevice& nic, const std::string& path, const char* why) {
  nlohmann::json state = nic.state();
  state["model_version"] = ornic::release::kVersion;
  state["reason"] = why;
  const std::string text = state.dump(2);
  if (path.empty()) {
    spdlog::info("ornic-model state ({}): {}", why, state.dump());
    return;
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text << '\n';
    if (!out.flush()) {
      spdlog::error("ornic-model: cannot write the state to {}: {}", tmp, std::strerror(errno));
      return;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    spdlog::error("ornic-model: cannot rename {} to {}: {}", tmp, path, std::strerror(errno));
  else
    spdlog::info("ornic-model: state ({}) written to {}", why, path);
}

// SIGUSR1 as a readable fd on the event loop (blocked first, so it never kills the model).
ornic::UniqueFd usr1_signalfd() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  if (sigprocmask(SIG_BLOCK, &set, nullptr) != 0)
    return ornic::UniqueFd{};
  return ornic::UniqueFd{signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)};
}

// ORNIC_SANDBOX_SELFTEST=forbidden-call: a test makes the confined model try a call the
// list does not allow, to see it die of SIGSYS with the report line.
void sandbox_selftest() {
  const char* what = std::getenv("ORNIC_SANDBOX_SELFTEST");
  if (what == nullptr || std::strcmp(what, "forbidden-call") != 0)
    return;
  spdlog::warn("ornic-model: ORNIC_SANDBOX_SELFTEST: calling mount(2), which is not allowed");
  // No target: where the call is let through (--sandbox log) it fails and changes nothing.
  const long rc = syscall(SYS_mount, nullptr, nullptr, nullptr, 0L, nullptr);
  spdlog::error("ornic-model: ORNIC_SANDBOX_SELFTEST: mount returned {} ({}): not confined", rc,
                std::strerror(errno));
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"ornic-model: behavioural model of the ornic RDMA NIC (RoCEv2 or InfiniBand), "
               "served over vfio-user\n"
               "(attach with QEMU: -device '{\"driver\":\"vfio-user-pci\",\"socket\":{\"path\":"
               "\"PATH\",\"type\":\"unix\"}}')"};
  std::string socket_path;
  std::string port_spec = "none";
  std::string mac_text = "02:00:00:00:00:01";
  std::string pcap_path;
  std::string wire_faults_text;
  std::string log_level = "info";
  std::string fault_list = "none";
  std::string state_file;
  std::string link_layer_text = "eth";
  std::string node_description;
  std::string sandbox_text = "on";
  std::string max_text;
  ornic::LinkShaping shaping;
  ornic::PfcOptions pfc;
  unsigned pfc_mask = 0;
  app.set_version_flag("--version", std::string("ornic-model ") + ornic::release::kVersion);
  app.add_option("--socket", socket_path, "vfio-user unix socket to listen on")->required();
  app.add_option("--port", port_spec,
                 "Ethernet port, one frame per datagram as QEMU's -netdev dgram/tap: "
                 "unix:LOCAL_PATH,PEER_PATH (AF_UNIX datagram link), "
                 "shm:LOCAL_PATH,PEER_PATH (another model on this host over shared memory "
                 "rings; rendezvous at AF_UNIX sockets: the end whose LOCAL_PATH sorts first "
                 "connects to PEER_PATH, the other listens at LOCAL_PATH), "
                 "udp:LHOST:LPORT,RHOST:RPORT (UDP link, IPv6 as [::1]:5000), "
                 "tap:IFNAME (existing persistent tap), loopback, or none")
      ->capture_default_str();
  app.add_option("--mac", mac_text, "port MAC address, XX:XX:XX:XX:XX:XX (unicast)")
      ->capture_default_str();
  app.add_option("--pcap", pcap_path, "record every frame sent and received to this pcap file");
  app.add_option("--wire-faults", wire_faults_text,
                 "inject faults into sent frames, for tests: "
                 "loss=1%,reorder=1%,dup=0.5%,corrupt=0.1%,seed=N (each key optional)");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error, critical or off")
      ->capture_default_str();
  app.add_option("--inject-faults", fault_list,
                 "TEST ONLY: misbehave as a broken device (registers.rst, \"Fault injection\"): "
                 "comma-separated qp-state, cqe, eq-storm, admin-stall, or none")
      ->capture_default_str();
  app.add_option("--state-file", state_file,
                 "write the counters and state as JSON to this file on SIGUSR1 and at exit "
                 "(default: to the log)");
  app.add_option("--link-layer", link_layer_text,
                 "the port's link layer: eth (Ethernet, RoCEv2), ib (InfiniBand: the port is "
                 "managed by a subnet manager and carries LRH/VCRC packets on a unix:, udp:, "
                 "shm: or loopback link) or iwarp (Ethernet, iWARP: TCP and MPA in the "
                 "device, no RoCE)")
      ->check(CLI::IsMember({"eth", "ib", "iwarp"}))
      ->capture_default_str();
  app.add_option("--node-description", node_description,
                 "InfiniBand: the NodeDescription the port's SMA reports (at most 64 bytes; "
                 "default \"ornic <MAC>\")")
      ->check([](const std::string& text) {
        return text.size() <= 64 ? std::string() : std::string("longer than 64 bytes");
      });
  app.add_option("--link-rate", shaping.rate_mbps,
                 "make the port a bottleneck: its transmit queue drains at this many Mbit/s "
                 "(0: as fast as the backend takes frames)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{400'000}))
      ->capture_default_str();
  app.add_option("--link-queue", shaping.queue_bytes,
                 "with --link-rate: the transmit queue drops frames beyond this many bytes")
      ->check(CLI::Range(size_t{9216}, size_t{1} << 30))
      ->capture_default_str();
  app.add_option("--ecn-threshold", shaping.ecn_threshold_bytes,
                 "with --link-rate: mark ECN-capable frames CE while the transmit queue holds "
                 "more than this many bytes (0: never)")
      ->check(CLI::Range(size_t{0}, size_t{1} << 30))
      ->capture_default_str();
  app.add_option("--port-pfc", pfc_mask,
                 "priority flow control (802.1Qbb) on these priorities, a bitmap (bit n: "
                 "priority n lossless) until the driver's DCB configuration sets one; nonzero "
                 "puts the PFC engine on the port")
      ->check(CLI::Range(0u, 255u))
      ->capture_default_str();
  app.add_option("--port-speed", pfc.speed_mbps,
                 "the port speed in Mbit/s that PFC pause quanta (512 bit times) are counted at")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1'600'000}))
      ->capture_default_str();
  app.add_option("--port-rx-rate", pfc.rx_rate_mbps,
                 "make the port's receiver slower than the wire: received frames wait in a "
                 "buffer per priority that drains at this many Mbit/s (0: no buffer, frames go "
                 "straight to the NIC); puts the PFC engine on the port")
      ->check(CLI::Range(uint64_t{0}, uint64_t{1'600'000}))
      ->capture_default_str();
  app.add_option("--port-rx-buffer", pfc.rx_buffer_bytes,
                 "with --port-rx-rate: each priority's receive buffer, in bytes")
      ->check(CLI::Range(size_t{9216}, size_t{1} << 30))
      ->capture_default_str();
  app.add_option("--port-xoff", pfc.xoff_bytes,
                 "with --port-rx-rate: a PFC priority whose receive buffer holds more than this "
                 "many bytes asks the peer to pause it")
      ->check(CLI::Range(size_t{1}, size_t{1} << 30))
      ->capture_default_str();
  app.add_option("--port-xon", pfc.xon_bytes,
                 "with --port-rx-rate: a paused PFC priority is resumed once its receive buffer "
                 "has drained to this many bytes")
      ->check(CLI::Range(size_t{0}, size_t{1} << 30))
      ->capture_default_str();
  app.add_option("--port-rx-ecn", pfc.rx_ecn_bytes,
                 "with --port-rx-rate: mark ECN-capable frames CE as they arrive while their "
                 "priority's receive buffer holds more than this many bytes, as a switch in "
                 "front of a slow port does (0: never); below --port-xoff, congestion control "
                 "acts before PFC")
      ->check(CLI::Range(size_t{0}, size_t{1} << 30))
      ->capture_default_str();
  app.add_option("--port-tx-buffer", pfc.tx_buffer_bytes,
                 "bytes each priority may queue while the peer pauses it; beyond, frames drop")
      ->check(CLI::Range(size_t{9216}, size_t{1} << 30))
      ->capture_default_str();
  app.add_option("--pfc-watchdog", pfc.watchdog_ms,
                 "a priority paused this many ms without a break stops honouring pause until "
                 "the peer's pause frames stop (PFC storm prevention; 0: never)")
      ->check(CLI::Range(0u, 60'000u))
      ->capture_default_str();
  app.add_option("--sandbox", sandbox_text,
                 "after setup, allow only the system calls the model needs (seccomp; "
                 "operations.rst \"Confinement\"): on, off (for debugging), or log (allow "
                 "every call, the kernel logs those outside the list)")
      ->check(CLI::IsMember({"on", "off", "log"}))
      ->capture_default_str();
  app.add_option("--max", max_text,
                 "offer fewer objects than the device's maxima (identity.rst, \"Object "
                 "limits\"): comma-separated qp=N, cq=N, mr=N, pd=N, srq=N, ah=N, mcast-grp=N, "
                 "mcast-attach=N");
  CLI11_PARSE(app, argc, argv);
  ornic::limits::ObjectLimits object_limits;
  if (!max_text.empty()) {
    try {
      object_limits = ornic::parse_object_limits(max_text);
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "--max: %s\n", e.what());
      return 2;
    }
  }
  if (shaping.ecn_threshold_bytes != 0 && shaping.rate_mbps == 0) {
    std::fprintf(stderr, "--ecn-threshold: needs --link-rate (only a queue can be congested)\n");
    return 2;
  }
  const bool infiniband = link_layer_text == "ib";
  const bool iwarp = link_layer_text == "iwarp";
  if (infiniband && shaping.ecn_threshold_bytes != 0) {
    std::fprintf(stderr, "--ecn-threshold: an InfiniBand port has no ECN (infiniband.rst)\n");
    return 2;
  }
  if (!infiniband && !node_description.empty()) {
    std::fprintf(stderr, "--node-description: only an InfiniBand port has one\n");
    return 2;
  }

  ornic::FaultInjection faults;
  try {
    faults = ornic::parse_fault_list(fault_list);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "--inject-faults: %s\n", e.what());
    return 2;
  }

  const auto level = ornic::parse_log_level(log_level);
  if (!level) {
    std::fprintf(stderr,
                 "--log-level: '%s' is not one of trace, debug, info, warn, error, "
                 "critical, off\n",
                 log_level.c_str());
    return 2;
  }
  const auto mac = parse_mac(mac_text);
  if (!mac) {
    std::fprintf(stderr, "--mac: '%s' is not a MAC address like 02:00:00:00:00:01\n",
                 mac_text.c_str());
    return 2;
  }
  if ((*mac)[0] & 1) {
    std::fprintf(stderr, "--mac: %s is a multicast address; a port needs a unicast one\n",
                 mac_text.c_str());
    return 2;
  }
  pfc.enabled = static_cast<uint8_t>(pfc_mask);
  pfc.source_mac = *mac;
  if (infiniband && pfc.any()) {
    std::fprintf(stderr, "--port-pfc, --port-rx-rate: an InfiniBand port has no priority flow "
                         "control (infiniband.rst)\n");
    return 2;
  }
  if (const std::string why = ornic::check_pfc_options(pfc); !why.empty()) {
    std::fprintf(stderr, "--port-rx-buffer, --port-xoff, --port-xon, --port-rx-ecn: %s\n",
                 why.c_str());
    return 2;
  }
  ornic::WireFaults wire_faults;
  if (!wire_faults_text.empty()) {
    try {
      wire_faults = ornic::parse_wire_faults(wire_faults_text);
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "--wire-faults: %s\n", e.what());
      return 2;
    }
  }
  ornic::setup_logging(*level);

  try {
    ornic::EventLoop loop;
    std::unique_ptr<ornic::Port> port;
    ornic::PfcPort* pfc_port = nullptr;
    // Every Ethernet port has the PFC engine, so that the driver's DCB settings can turn
    // priorities lossless at run time; with none lossless it only counts and passes.
    pfc.insert = !infiniband;
    try {
      port = ornic::make_port(
          loop, port_spec, pcap_path, wire_faults, shaping,
          infiniband ? ornic::PortFrames::infiniband : ornic::PortFrames::ethernet, pfc, &pfc_port);
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "--port: %s\n", e.what());
      return 2;
    }
    ornic::NicConfig config;
    config.mac = *mac;
    config.port = port.get();
    config.pfc = pfc_port;
    config.link_layer = infiniband ? ORNIC_LINK_LAYER_IB
                        : iwarp    ? ORNIC_LINK_LAYER_IWARP
                                   : ORNIC_LINK_LAYER_ETH;
    config.node_description = node_description;
    config.faults = faults;
    config.limits = object_limits;
    ornic::NicDevice nic(loop, config);
    ornic::vfio_user::Server server(loop, nic);
    server.listen(socket_path);

    g_loop = &loop;
    install_signal_handlers();
    ornic::UniqueFd usr1 = usr1_signalfd();
    if (!usr1.valid())
      spdlog::warn("ornic-model: no SIGUSR1 state dumps: {}", std::strerror(errno));
    else
      loop.add_fd(usr1.get(), EPOLLIN, [&](uint32_t) {
        signalfd_siginfo info;
        while (read(usr1.get(), &info, sizeof(info)) == sizeof(info))
          dump_state(nic, state_file, "SIGUSR1");
      });
    const auto sandbox_mode = sandbox_text == "off"   ? ornic::sandbox::Mode::off
                              : sandbox_text == "log" ? ornic::sandbox::Mode::log
                                                      : ornic::sandbox::Mode::enforce;
    const size_t allowed = ornic::sandbox::confine(sandbox_mode);
    if (sandbox_mode == ornic::sandbox::Mode::off)
      spdlog::warn("ornic-model: sandbox off: every system call is allowed");
    else
      spdlog::info("ornic-model: sandbox {}: {} system calls allowed",
                   sandbox_mode == ornic::sandbox::Mode::log ? "log" : "on", allowed);
    sandbox_selftest();
    spdlog::info("ornic-model ready: socket {}, port {} ({}), mac {}{}", socket_path, port_spec,
                 infiniband ? "InfiniBand"
                 : iwarp    ? "Ethernet, iWARP"
                            : "Ethernet",
                 mac_text, pcap_path.empty() ? "" : fmt::format(", pcap {}", pcap_path));
    if (faults.any())
      spdlog::warn("ornic-model: injecting faults {} (test only)",
                   ornic::fault_list_string(faults));
    loop.run();
    g_loop = nullptr;
    if (usr1.valid())
      loop.remove_fd(usr1.get());
    dump_state(nic, state_file, "exit");
    spdlog::info("ornic-model stopping");
  } catch (const std::exception& e) {
    spdlog::critical("ornic-model: {}", e.what());
    return 1;
  }
  return 0;
}
