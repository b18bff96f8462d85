// One mmap()ed range of a file descriptor sent by the vfio-user client (guest RAM
// backed by a memfd). Shared by every DMA map piece cut from it; unmapped when the
// last piece goes away.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace ornic {

class MappedFile {
public:
  // Maps [offset, offset + size) of fd. Returns nullptr and sets *error (an errno)
  // if the range is empty, overflows, lies beyond the end of a regular file or
  // memfd (touching it would SIGBUS), or mmap fails.
  static std::shared_ptr<MappedFile> map(int fd, uint64_t offset, uint64_t size, bool readable,
                                         bool writable, int* error);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::byte* data() const { return data_; } // byte at `offset` of the file
  uint64_t size() const { return size_; }

private:
  MappedFile(void* base, size_t length, std::byte* data, uint64_t size)
      : base_(base), length_(length), data_(data), size_(size) {}
  void* base_;
  size_t length_;
  std::byte* data_;
  uint64_t size_;
};

} // namespace ornic
