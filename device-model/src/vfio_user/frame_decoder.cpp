#include "vfio_user/frame_decoder.hpp"

#include <cerrno>

#include "vfio_user/wire.hpp"

namespace ornic::vfio_user {

void FrameDecoder::feed(std::span<const std::byte> bytes, std::vector<UniqueFd> fds,
                        bool fds_truncated) {
  if ((!fds.empty() || fds_truncated) && !bytes.empty())
    fd_groups_.push_back(
        {consumed_offset_ + buffered() + bytes.size() - 1, std::move(fds), fds_truncated});
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
}

std::optional<Frame> FrameDecoder::next() {
  if (buffered() < kHeaderSize) {
    compact();
    return std::nullopt;
  }
  Frame frame;
  frame.header =
      decode_header(std::span<const std::byte, kHeaderSize>(buffer_.data() + start_, kHeaderSize));
  size_t frame_size = frame.header.size;
  if (frame.header.size < kHeaderSize) {
    frame.framing_error = EINVAL;
    frame_size = kHeaderSize;
  } else if (frame.header.size > max_message_size_) {
    frame.framing_error = E2BIG;
    frame_size = kHeaderSize;
  } else if (buffered() < frame_size) {
    compact();
    return std::nullopt;
  }
  frame.payload.assign(buffer_.begin() + static_cast<ptrdiff_t>(start_ + kHeaderSize),
                       buffer_.begin() + static_cast<ptrdiff_t>(start_ + frame_size));
  start_ += frame_size;
  consumed_offset_ += frame_size;
  take_fds(consumed_offset_, frame);
  return frame;
}

void FrameDecoder::take_fds(uint64_t frame_end, Frame& frame) {
  while (!fd_groups_.empty() && fd_groups_.front().stream_offset < frame_end) {
    FdGroup& group = fd_groups_.front();
    for (auto& fd : group.fds)
      frame.fds.push_back(std::move(fd));
    frame.fds_truncated |= group.truncated;
    fd_groups_.pop_front();
  }
}

void FrameDecoder::compact() {
  // Drop consumed bytes once they dominate, keeping the copy cost amortised O(1).
  if (start_ > 0 && start_ >= buffer_.size() / 2) {
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<ptrdiff_t>(start_));
    start_ = 0;
  }
}

} // namespace ornic::vfio_user
