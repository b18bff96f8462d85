// Writes an iWARP conversation into a pcap file, for checks by tools that share no code with
// the model (tshark, python3-crcmod): the TCP handshake, an MPA request and reply (revision 2,
// enhanced parameters, CRC on), then one FPDU per TCP segment for every sample segment --
// every RDMAP opcode, a Read Request answered by its Read Response, and a Terminate. Only the
// model's codecs build the iWARP bytes; the Ethernet, IPv4 and TCP headers are written here.
#include <cstdio>
#include <memory>
#include <vector>

#include <pcap/pcap.h>

#include "iba/wire_bytes.hpp"
#include "iwarp/fpdu.hpp"
#include "iwarp/mpa_setup.hpp"
#include "sample_segments.hpp"

namespace {

using namespace ornic::iwarp;
using ornic::iba::store_be16;
using ornic::iba::store_be32;

constexpr uint8_t kSyn = 0x02;
constexpr uint8_t kPsh = 0x08;
constexpr uint8_t kAck = 0x10;

struct Endpoint {
  uint8_t mac[6];
  uint32_t ip;
  uint16_t port;
  uint32_t next_seq;
};

uint16_t checksum(const std::vector<uint8_t>& bytes, size_t start, size_t end, uint32_t sum) {
  for (size_t i = start; i < end; i += 2)
    sum += static_cast<uint32_t>(bytes[i] << 8 | (i + 1 < end ? bytes[i + 1] : 0));
  while (sum >> 16)
    sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

std::vector<uint8_t> tcp_frame(Endpoint& from, const Endpoint& to, uint8_t flags,
                               const std::vector<uint8_t>& payload) {
  constexpr size_t kEth = 14, kIp = 20, kTcp = 20;
  std::vector<uint8_t> frame(kEth + kIp + kTcp + payload.size());
  std::copy(to.mac, to.mac + 6, frame.begin());
  std::copy(from.mac, from.mac + 6, frame.begin() + 6);
  store_be16(frame, 12, 0x0800);
  frame[kEth] = 0x45;
  store_be16(frame, kEth + 2, static_cast<uint16_t>(kIp + kTcp + payload.size()));
  store_be16(frame, kEth + 6, 0x4000); // DF
  frame[kEth + 8] = 64;
  frame[kEth + 9] = 6;
  store_be32(frame, kEth + 12, from.ip);
  store_be32(frame, kEth + 16, to.ip);
  store_be16(frame, kEth + 10, checksum(frame, kEth, kEth + kIp, 0));
  const size_t tcp = kEth + kIp;
  store_be16(frame, tcp, from.port);
  store_be16(frame, tcp + 2, to.port);
  store_be32(frame, tcp + 4, from.next_seq);
  store_be32(frame, tcp + 8, (flags & kAck) ? to.next_seq : 0);
  frame[tcp + 12] = 5 << 4;
  frame[tcp + 13] = flags;
  store_be16(frame, tcp + 14, 65535);
  std::copy(payload.begin(), payload.end(), frame.begin() + tcp + kTcp);
  const uint32_t pseudo = (from.ip >> 16) + (from.ip & 0xffff) + (to.ip >> 16) + (to.ip & 0xffff) +
                          6 + static_cast<uint32_t>(kTcp + payload.size());
  store_be16(frame, tcp + 16, checksum(frame, tcp, frame.size(), pseudo));
  from.next_seq += static_cast<uint32_t>(payload.size()) + ((flags & kSyn) ? 1 : 0);
  return frame;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT.pcap\n", argv[0]);
    return 2;
  }
  Endpoint initiator{{0x02, 0, 0, 0, 0, 0x01}, 0xc0a80001, 49152, 1000};
  Endpoint responder{{0x02, 0, 0, 0, 0, 0x02}, 0xc0a80002, 49153, 5000};
  std::vector<std::vector<uint8_t>> frames;
  frames.push_back(tcp_frame(initiator, responder, kSyn, {}));
  frames.push_back(tcp_frame(responder, initiator, kSyn | kAck, {}));
  frames.push_back(tcp_frame(initiator, responder, kAck, {}));

  MpaSetupFrame request;
  request.kind = MpaFrameKind::request;
  request.crc = true;
  request.revision = kMpaRevision2;
  request.enhanced = MpaEnhancedParams{.peer_to_peer = true,
                                       .send_rtr = false,
                                       .write_rtr = true,
                                       .read_rtr = false,
                                       .ird = 16,
                                       .ord = 16};
  request.private_data = {'o', 'r', 'n', 'i', 'c'};
  const MpaAnswer answer = answer_mpa_request(request, MpaLocalPolicy{});
  const auto request_bytes = build_mpa_setup(request);
  const auto reply_bytes = build_mpa_setup(answer.reply);
  if (!answer.accepted || !request_bytes || !reply_bytes) {
    std::fprintf(stderr, "cannot build the MPA setup frames\n");
    return 1;
  }
  frames.push_back(tcp_frame(initiator, responder, kAck | kPsh, *request_bytes));
  frames.push_back(tcp_frame(responder, initiator, kAck | kPsh, *reply_bytes));

  size_t fpdus = 0;
  for (const auto& sample : ornic::iwarp::testing::sample_segments()) {
    const auto ulpdu = build_segment(sample.segment);
    std::vector<uint8_t> fpdu;
    if (!ulpdu || !append_fpdu(fpdu, *ulpdu, answer.crc)) {
      std::fprintf(stderr, "cannot build the FPDU of opcode %u\n", sample.segment.rdmap.opcode);
      return 1;
    }
    // Read Responses and the Terminate come back from the responder.
    const bool from_responder = sample.segment.opcode == RdmapOpcode::read_response ||
                                sample.segment.opcode == RdmapOpcode::terminate;
    frames.push_back(from_responder ? tcp_frame(responder, initiator, kAck | kPsh, fpdu)
                                    : tcp_frame(initiator, responder, kAck | kPsh, fpdu));
    ++fpdus;
  }

  const std::unique_ptr<pcap_t, decltype(&pcap_close)> pcap(pcap_open_dead(DLT_EN10MB, 65535),
                                                            &pcap_close);
  pcap_dumper_t* dumper = pcap_dump_open(pcap.get(), argv[1]);
  if (!dumper) {
    std::fprintf(stderr, "%s: %s\n", argv[1], pcap_geterr(pcap.get()));
    return 1;
  }
  long usec = 0;
  for (const auto& frame : frames) {
    pcap_pkthdr header{};
    header.ts.tv_sec = 1;
    header.ts.tv_usec = usec += 10;
    header.caplen = static_cast<bpf_u_int32>(frame.size());
    header.len = header.caplen;
    pcap_dump(reinterpret_cast<u_char*>(dumper), &header, frame.data());
  }
  pcap_dump_close(dumper);
  std::printf("%zu frames, %zu FPDUs\n", frames.size(), fpdus);
  return 0;
}
