// Writes one built frame per opcode, IP family and payload length into a pcap file, for
// checks by tools that share no code with the model (scapy, tshark).
#include <cstdio>
#include <memory>

#include <pcap/pcap.h>

#include "sample_packets.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.pcap\n", argv[0]);
    return 2;
  }
  const std::unique_ptr<pcap_t, decltype(&pcap_close)> pcap(pcap_open_dead(DLT_EN10MB, 65535 + 64),
                                                            &pcap_close);
  pcap_dumper_t* dumper = pcap_dump_open(pcap.get(), argv[1]);
  if (!dumper) {
    std::fprintf(stderr, "%s: %s\n", argv[1], pcap_geterr(pcap.get()));
    return 1;
  }
  size_t count = 0;
  for (const std::vector<uint8_t>& frame : ornic::roce::testing::all_sample_frames()) {
    pcap_pkthdr header{};
    header.ts.tv_sec = static_cast<long>(count++);
    header.caplen = static_cast<bpf_u_int32>(frame.size());
    header.len = header.caplen;
    pcap_dump(reinterpret_cast<u_char*>(dumper), &header, frame.data());
  }
  pcap_dump_close(dumper);
  std::printf("%zu frames\n", count);
  return 0;
}
