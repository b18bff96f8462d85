// Bounds-checked little-endian field access on message payloads. A reader never reads
// past its span: a short payload makes ok() false and yields zeros.
#pragma once

#include <cstring>
#include <span>
#include <vector>

#include "vfio_user/protocol.hpp"

namespace ornic::vfio_user {

class WireReader {
public:
  explicit WireReader(std::span<const std::byte> bytes) : bytes_(bytes) {}

  template <typename T>
  T get() {
    T value{};
    if (bytes_.size() - pos_ < sizeof(T)) {
      ok_ = false;
      pos_ = bytes_.size();
      return value;
    }
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  std::span<const std::byte> rest() const { return bytes_.subspan(pos_); }
  bool ok() const { return ok_; }

private:
  std::span<const std::byte> bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
};

class WireWriter {
public:
  explicit WireWriter(std::vector<std::byte>& out) : out_(out) {}

  template <typename T>
  WireWriter& put(T value) {
    const size_t at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &value, sizeof(T));
    return *this;
  }
  WireWriter& put_bytes(std::span<const std::byte> bytes) {
    out_.insert(out_.end(), bytes.begin(), bytes.end());
    return *this;
  }

private:
  std::vector<std::byte>& out_;
};

inline Header decode_header(std::span<const std::byte, kHeaderSize> bytes) {
  WireReader r(bytes);
  Header h;
  h.msg_id = r.get<uint16_t>();
  h.command = r.get<uint16_t>();
  h.size = r.get<uint32_t>();
  h.flags = r.get<uint32_t>();
  h.error = r.get<uint32_t>();
  return h;
}

inline void encode_header(const Header& h, std::vector<std::byte>& out) {
  WireWriter(out).put(h.msg_id).put(h.command).put(h.size).put(h.flags).put(h.error);
}

} // namespace ornic::vfio_user
