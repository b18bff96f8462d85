// ornic_port_peer: one ornic Port on the command line, for checking the wire from outside
// the model (e.g. against QEMU's `-netdev dgram`). Prints one line per received frame,
// "rx LENGTH ETHERTYPE", and the counters at the end.
//
//   ornic_port_peer SPEC [--pcap FILE] [--seconds N] [--exit-after-rx N]
//
// Exit status: 0 when --exit-after-rx frames arrived (or, without it, when time ran out),
// 1 on timeout before that many frames, 2 on bad usage.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/event_loop.hpp"
#include "port/port.hpp"

namespace {

struct Options {
  std::string spec;
  std::string pcap_path;
  int seconds = 10;
  unsigned long exit_after_rx = 0; // 0: run for the whole time
  unsigned long send = 0;
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "ornic_port_peer: %s\nusage: ornic_port_peer SPEC [--pcap FILE] [--seconds N] "
               "[--exit-after-rx N] [--send N]\n",
               why);
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--pcap" && has_value)
      options.pcap_path = argv[++i];
    else if (arg == "--seconds" && has_value)
      options.seconds = std::atoi(argv[++i]);
    else if (arg == "--exit-after-rx" && has_value)
      options.exit_after_rx = std::strtoul(argv[++i], nullptr, 10);
    else if (arg == "--send" && has_value)
      options.send = std::strtoul(argv[++i], nullptr, 10);
    else if (!arg.starts_with("--") && options.spec.empty())
      options.spec = arg;
    else
      usage("unexpected argument");
  }
  if (options.spec.empty())
    usage("missing SPEC");
  return options;
}

} // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  try {
    ornic::EventLoop loop;
    auto port = ornic::make_port(loop, options.spec, options.pcap_path);
    unsigned long received = 0;
    port->set_receiver([&](std::span<const std::byte> frame) {
      const unsigned ethertype =
          (std::to_integer<unsigned>(frame[12]) << 8) | std::to_integer<unsigned>(frame[13]);
      std::printf("rx %zu 0x%04x\n", frame.size(), ethertype);
      std::fflush(stdout);
      ++received;
      if (options.exit_after_rx != 0 && received >= options.exit_after_rx)
        loop.stop();
    });
    loop.add_timer(std::chrono::seconds(options.seconds), [&] { loop.stop(); });
    std::function<void()> send_round = [&] {
      if (received != 0)
        return;
      for (unsigned long i = 0; i < options.send; ++i) {
        std::vector<std::byte> frame(60 + 100 * i, std::byte{0});
        for (size_t j = 0; j < 6; ++j)
          frame[j] = std::byte{0xff};
        frame[6] = std::byte{0x02};
        frame[11] = std::byte(i);
        frame[12] = std::byte{0x88};
        frame[13] = std::byte{0xb5};
        for (size_t j = 14; j < frame.size(); ++j)
          frame[j] = std::byte(j * 7 + i);
        port->send(frame);
      }
      loop.add_timer(std::chrono::seconds(1), send_round);
    };
    if (options.send != 0)
      send_round();
    std::printf("ready\n");
    std::fflush(stdout);
    loop.run();

    const ornic::PortCounters c = port->counters();
    std::printf("counters rx_frames=%llu rx_dropped_runt=%llu rx_dropped_oversize=%llu "
                "tx_frames=%llu tx_dropped_no_peer=%llu link_up=%d\n",
                static_cast<unsigned long long>(c.rx_frames),
                static_cast<unsigned long long>(c.rx_dropped_runt),
                static_cast<unsigned long long>(c.rx_dropped_oversize),
                static_cast<unsigned long long>(c.tx_frames),
                static_cast<unsigned long long>(c.tx_dropped_no_peer), port->link_up() ? 1 : 0);
    return options.exit_after_rx != 0 && received < options.exit_after_rx ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ornic_port_peer: %s\n", e.what());
    return 2;
  }
}
