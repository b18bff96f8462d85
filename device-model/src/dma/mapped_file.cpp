#include "dma/mapped_file.hpp"

#include <cerrno>
#include <limits>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ornic {

std::shared_ptr<MappedFile> MappedFile::map(int fd, uint64_t offset, uint64_t size, bool readable,
                                            bool writable, int* error) {
  *error = EINVAL;
  if (size == 0 || offset > std::numeric_limits<uint64_t>::max() - size)
    return nullptr;
  struct stat st{};
  if (fstat(fd, &st) < 0) {
    *error = errno;
    return nullptr;
  }
  // Touching pages past the end of a regular file or memfd raises SIGBUS: refuse up front.
  if (S_ISREG(st.st_mode) && offset + size > static_cast<uint64_t>(st.st_size))
    return nullptr;

  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t aligned_offset = offset - offset % page;
  const uint64_t lead = offset - aligned_offset;
  if (size > std::numeric_limits<size_t>::max() - lead ||
      aligned_offset > static_cast<uint64_t>(std::numeric_limits<off_t>::max()))
    return nullptr;
  const size_t length = static_cast<size_t>(lead + size);

  int prot = 0;
  if (readable)
    prot |= PROT_READ;
  if (writable)
    prot |= PROT_WRITE;
  void* base = mmap(nullptr, length, prot == 0 ? PROT_NONE : prot, MAP_SHARED, fd,
                    static_cast<off_t>(aligned_offset));
  if (base == MAP_FAILED) {
    *error = errno;
    return nullptr;
  }
  *error = 0;
  return std::shared_ptr<MappedFile>(
      new MappedFile(base, length, static_cast<std::byte*>(base) + lead, size));
}

MappedFile::~MappedFile() {
  munmap(base_, length_);
}

} // namespace ornic
