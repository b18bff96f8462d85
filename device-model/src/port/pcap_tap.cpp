#include "port/pcap_tap.hpp"

#include <stdexcept>

#include <sys/time.h>

#include "port/frame_length.hpp"

namespace ornic {
namespace {

// Every frame fits: kMaxFrameBytes is far below this, so captures are never truncated.
constexpr int kSnapLength = 65535;
static_assert(kMaxFrameBytes <= kSnapLength);

} // namespace

PcapTap::PcapTap(std::unique_ptr<Port> inner, const std::string& pcap_path)
    : pcap_(pcap_open_dead(DLT_EN10MB, kSnapLength)), inner_(std::move(inner)) {
  if (!pcap_)
    throw std::runtime_error("pcap_open_dead failed (out of memory?)");
  dumper_.reset(pcap_dump_open(pcap_.get(), pcap_path.c_str()));
  if (!dumper_)
    throw std::runtime_error("cannot create pcap file '" + pcap_path +
                             "': " + pcap_geterr(pcap_.get()));
  pcap_dump_flush(dumper_.get()); // the file header, so an idle capture is already valid
}

void PcapTap::send(std::span<const std::byte> frame) {
  if (classify_frame_length(frame.size()) == FrameLength::ok)
    record(frame);
  inner_->send(frame);
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

void PcapTap::record(std::span<const std::byte> frame) {
  pcap_pkthdr header{};
  ::gettimeofday(&header.ts, nullptr);
  header.caplen = static_cast<bpf_u_int32>(frame.size());
  header.len = header.caplen;
  pcap_dump(reinterpret_cast<u_char*>(dumper_.get()), &header,
            reinterpret_cast<const u_char*>(frame.data()));
  // A failed write (disk full) only loses capture data; the port keeps working.
  pcap_dump_flush(dumper_.get());
}

} // namespace ornic
