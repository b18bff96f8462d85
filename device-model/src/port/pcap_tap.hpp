// Decorator that records every frame a port sends and receives to a pcap file (libpcap) that
// Wireshark/tshark can read: Ethernet frames as DLT_EN10MB; an InfiniBand port's packets as
// DLT_ERF records of the ERF InfiniBand type, the encapsulation Wireshark decodes InfiniBand
// from (its pcap reader knows no link type for bare IB packets). Timestamps come from the real-time
// clock.
//
// Frames go into a large stdio buffer, not to the file one write per frame: a flush per
// frame cost a system call on the data path. The buffer is flushed kFlushDelay after the
// first frame that follows a flush, and when the tap is destroyed, so the capture can still
// be watched while the model runs, at most kFlushDelay behind.
//
// Sent frames are recorded when the NIC hands them over, even if the backend then drops
// them (link down, queue full): the capture shows what the NIC transmitted, the counters
// show what the wire lost. Frames failing the length rule are not recorded.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pcap/pcap.h>

#include "common/event_loop.hpp"
#include "port/port.hpp"

namespace ornic {

// `packet` as one ERF record of the InfiniBand type, stamped `when`, built in `out`: what a
// DLT_ERF capture of an InfiniBand port holds per packet.
std::span<const std::byte> erf_infiniband_record(std::span<const std::byte> packet,
                                                 const timeval& when, std::vector<std::byte>& out);

class PcapTap final : public Port {
public:
  static constexpr std::chrono::milliseconds kFlushDelay{100};

  enum class Records { ethernet, infiniband_erf };

  // Throws std::runtime_error if the file cannot be created.
  PcapTap(EventLoop& loop, std::unique_ptr<Port> inner, const std::string& pcap_path,
          Records records = Records::ethernet);
  ~PcapTap() override;
  PcapTap(const PcapTap&) = delete;
  PcapTap& operator=(const PcapTap&) = delete;

  void send(std::span<const std::byte> frame) override;
  // Passed through, so the inner port's zero-copy buffer is kept; the frame is recorded
  // from it at commit.
  std::span<std::byte> reserve_tx(size_t bytes) override {
    reserved_ = inner_->reserve_tx(bytes);
    return reserved_;
  }
  void commit_tx(size_t length) override;
  void set_receiver(Receiver rx) override;
  bool link_up() const override { return inner_->link_up(); }
  PortCounters counters() const override { return inner_->counters(); }
  size_t tx_backlog() const override { return inner_->tx_backlog(); }
  void set_link_listener(LinkListener listener) override {
    inner_->set_link_listener(std::move(listener));
  }

private:
  struct PcapCloser {
    void operator()(pcap_t* p) const { pcap_close(p); }
  };
  struct DumperCloser {
    void operator()(pcap_dumper_t* d) const { pcap_dump_close(d); }
  };

  void record(std::span<const std::byte> frame);
  void flush();

  EventLoop& loop_;
  std::optional<EventLoop::TimerId> flush_timer_;
  // Declaration order matters: the dumper closes before its pcap_t, and the inner port
  // (whose receiver points back here) is destroyed first of all.
  std::unique_ptr<pcap_t, PcapCloser> pcap_;
  std::unique_ptr<pcap_dumper_t, DumperCloser> dumper_;
  Receiver receiver_;
  std::span<std::byte> reserved_;
  std::unique_ptr<Port> inner_;
  Records records_;
  std::vector<std::byte> erf_record_;
};

} // namespace ornic
