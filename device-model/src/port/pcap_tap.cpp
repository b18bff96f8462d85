#include "port/pcap_tap.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <sys/time.h>

#include "port/frame_length.hpp"

namespace ornic {
namespace {

// Every frame fits: kMaxFrameBytes is far below this, so captures are never truncated.
constexpr int kSnapLength = 65535;
static_assert(kMaxFrameBytes <= kSnapLength);

// Holds a few hundred full-size frames between flushes.
constexpr size_t kBufferBytes = size_t{1} << 20;

} // namespace

PcapTap::PcapTap(EventLoop& loop, std::unique_ptr<Port> inner, const std::string& pcap_path)
    : loop_(loop), pcap_(pcap_open_dead(DLT_EN10MB, kSnapLength)), inner_(std::move(inner)) {
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

void PcapTap::record(std::span<const std::byte> frame) {
  pcap_pkthdr header{};
  ::gettimeofday(&header.ts, nullptr);
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
