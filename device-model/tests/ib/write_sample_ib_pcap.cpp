// Writes every sample InfiniBand packet into a pcap file as an InfiniBand port's capture
// does (DLT_ERF, one ERF InfiniBand record each), for checks by tools that share no code
// with the model (python3-crcmod, tshark).
#include <cstdio>
#include <memory>

#include <pcap/pcap.h>

#include "port/pcap_tap.hpp"
#include "sample_ib_packets.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.pcap\n", argv[0]);
    return 2;
  }
  const std::unique_ptr<pcap_t, decltype(&pcap_close)> pcap(pcap_open_dead(DLT_ERF, 65535),
                                                            &pcap_close);
  pcap_dumper_t* dumper = pcap_dump_open(pcap.get(), argv[1]);
  if (!dumper) {
    std::fprintf(stderr, "%s: %s\n", argv[1], pcap_geterr(pcap.get()));
    return 1;
  }
  size_t count = 0;
  std::vector<std::byte> record;
  for (const std::vector<uint8_t>& packet : ornic::ib::testing::all_sample_ib_packets()) {
    pcap_pkthdr header{};
    header.ts.tv_sec = static_cast<long>(count++);
    const std::span<const std::byte> bytes =
        ornic::erf_infiniband_record(std::as_bytes(std::span(packet)), header.ts, record);
    header.caplen = static_cast<bpf_u_int32>(bytes.size());
    header.len = header.caplen;
    pcap_dump(reinterpret_cast<u_char*>(dumper), &header,
              reinterpret_cast<const u_char*>(bytes.data()));
  }
  pcap_dump_close(dumper);
  std::printf("%zu packets\n", count);
  return 0;
}
