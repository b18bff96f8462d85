#include "port/pcap_tap.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <sys/time.h>

#include "port/frame_length.hpp"

namespace ornic {
namespace {

// Every frame fits, with an ERF header: kMaxFrameBytes is far below this, so captures are
// never truncated.
constexpr int kSnapLength = 65535;
static_assert(kMaxFrameBytes + 16 <= kSnapLength);

// Holds a few hundred full-size frames between flushes.
constexpr size_t kBufferBytes = size_t{1} << 20;

} // namespace

// ERF (Endace's record format): a 16-byte header — the time as 32.32 fixed-point seconds,
// little-endian; the record type; flags; the record length, loss counter and wire length,
// big-endian — then the packet. Type 21 is an InfiniBand packet from its LRH on.
std::span<const std::byte> erf_infiniband_record(std::span<const std::byte> packet,
                                                 const timeval& when, std::vector<std::byte>& out) {
  constexpr size_t kErfHeaderBytes = 16;
  constexpr uint8_t kErfTypeInfiniband = 21;
  constexpr uint8_t kErfFlagVaryingLength = 0x04;
  out.resize(kErfHeaderBytes + packet.size());
  const uint64_t fraction = (static_cast<uint64_t>(when.tv_usec) << 32) / 1'000'000;
  const uint64_t stamp = static_cast<uint64_t>(when.tv_sec) << 32 | fraction;
  auto put = [&out](size_t at, uint64_t value) { out[at] = static_cast<std::byte>(value); };
  for (size_t i = 0; i < 8; ++i)
    put(i, stamp >> (8 * i));
  put(8, kErfTypeInfiniband);
  put(9, kErfFlagVaryingLength);
  put(10, out.size() >> 8);
  put(11, out.size());
  put(12, 0);
  put(13, 0);
  put(14, packet.size() >> 8);
  put(15, packet.size());
  std::copy(packet.begin(), packet.end(), out.begin() + kErfHeaderBytes);
  return out;
}

PcapTap::PcapTap(EventLoop& loop, std::unique_ptr<Port> inner, const std::string& pcap_path,
                 Records records)
    : loop_(loop),
      pcap_(pcap_open_dead(records == Records::ethernet ? DLT_EN10MB : DLT_ERF, kSnapLength)),
      inner_(std::move(inner)), records_(records) {
  if (!pcap_)
    throw std::runtime_error("pcap_open_dead failed (out of memory?)");
  FILE* file = std::fopen(pcap_path.c_str(), "wb");
  if (!file)
    throw std::runtime_error("cannot create pcap file '" + pcap_path +
                             "': " + std::strerror(errno));
  // Before the first write, as setvbuf requires; the dumper owns the stream from here.
  std::setvbuf(file, nullptr, _IOFBF, kBufferBytes);
  dumper_.reset(pcap_dump_fopen(pcap_.get(), file));
  if (!dumper_) {
    std::fclose(file);
    throw std::runtime_error("cannot write pcap file '" + pcap_path +
                             "': " + pcap_geterr(pcap_.get()));
  }
  pcap_dump_flush(dumper_.get()); // the file header, so an idle capture is already valid
}

PcapTap::~PcapTap() {
  if (flush_timer_)
    loop_.cancel_timer(*flush_timer_);
  // dumper_'s closer flushes what is still buffered.
}

void PcapTap::send(std::span<const std::byte> frame) {
  if (classify_frame_length(frame.size()) == FrameLength::ok)
    record(frame);
  inner_->send(frame);
}

void PcapTap::commit_tx(size_t length) {
  if (length <= reserved_.size() && classify_frame_length(length) == FrameLength::ok)
    record(reserved_.first(length));
  reserved_ = {};
  inner_->commit_tx(length);
}

void PcapTap::set_receiver(Receiver rx) {
  receiver_ = std::move(rx);
  if (!receiver_) {
    inner_->set_receiver(nullptr); // so the backend keeps counting rx_dropped_no_receiver
    return;
  }
  inner_->set_receiver([this](std::span<const std::byte> frame) {
    record(frame);
    receiver_(frame);
  });
}

void PcapTap::record(std::span<const std::byte> packet) {
  pcap_pkthdr header{};
  ::gettimeofday(&header.ts, nullptr);
  const std::span<const std::byte> frame =
      records_ == Records::ethernet ? packet
                                    : erf_infiniband_record(packet, header.ts, erf_record_);
  header.caplen = static_cast<bpf_u_int32>(frame.size());
  header.len = header.caplen;
  pcap_dump(reinterpret_cast<u_char*>(dumper_.get()), &header,
            reinterpret_cast<const u_char*>(frame.data()));
  if (!flush_timer_)
    flush_timer_ = loop_.add_timer(kFlushDelay, [this] {
      flush_timer_.reset();
      flush();
    });
}

void PcapTap::flush() {
  // A failed write (disk full) only loses capture data; the port keeps working.
  pcap_dump_flush(dumper_.get());
}

} // namespace ornic
