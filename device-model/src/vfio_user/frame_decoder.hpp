// Cuts the byte stream of a vfio-user connection into messages and attaches the file
// descriptors that arrived with them.
//
// File descriptors (SCM_RIGHTS) ride on the first byte of the sendmsg() that carried
// them. Linux (unix_stream_read_generic) glues fd-less data sent earlier into the same
// read, and stops a read right after (or inside) the first chunk that carries fds; so
// the fds of one read belong to the message that contains the read's LAST byte. Seen
// with QEMU: a DMA_UNMAP and the DMA_MAP that follows it arrive in one read whose fds
// are the DMA_MAP's.
//
// A header whose size is below the header size or above the limit cannot be trusted to
// say where the next message starts; it becomes a frame with `framing_error` set and
// only its 16 header bytes are consumed, so the stream keeps being parsed (garbage just
// produces more error replies) and the decoder never buffers more than the limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "common/unique_fd.hpp"
#include "vfio_user/protocol.hpp"

namespace ornic::vfio_user {

struct Frame {
  Header header;
  std::vector<std::byte> payload; // header.size - kHeaderSize bytes
  std::vector<UniqueFd> fds;
  bool fds_truncated = false; // the kernel dropped fds (more than we had room for)
  int framing_error = 0;      // errno for a header that could not be framed, else 0
};

class FrameDecoder {
public:
  explicit FrameDecoder(size_t max_message_size) : max_message_size_(max_message_size) {}

  // Bytes from one read, with the fds that came with them.
  void feed(std::span<const std::byte> bytes, std::vector<UniqueFd> fds = {},
            bool fds_truncated = false);
  std::optional<Frame> next();

  size_t buffered() const { return buffer_.size() - start_; }
  // True if the stream ended inside a message (for the disconnect log line).
  bool mid_message() const { return buffered() != 0; }
  size_t max_message_size() const { return max_message_size_; }

private:
  struct FdGroup {
    uint64_t stream_offset; // of the first byte read together with these fds
    std::vector<UniqueFd> fds;
    bool truncated;
  };
  void take_fds(uint64_t frame_end, Frame& frame);
  void compact();

  size_t max_message_size_;
  std::vector<std::byte> buffer_;
  size_t start_ = 0;             // first unconsumed byte in buffer_
  uint64_t consumed_offset_ = 0; // stream offset of buffer_[start_]
  std::deque<FdGroup> fd_groups_;
};

} // namespace ornic::vfio_user
