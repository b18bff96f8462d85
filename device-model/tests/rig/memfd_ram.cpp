#include "memfd_ram.hpp"

#include <cerrno>
#include <system_error>

#include <sys/mman.h>
#include <unistd.h>

namespace ornic::test {

MemfdRam::MemfdRam(uint64_t base_iova, size_t size) : size_(size) {
  fd_.reset(memfd_create("ornic-test-ram", MFD_CLOEXEC));
  if (!fd_.valid())
    throw std::system_error(errno, std::generic_category(), "memfd_create");
  if (ftruncate(fd_.get(), static_cast<off_t>(size)) != 0)
    throw std::system_error(errno, std::generic_category(), "ftruncate");
  int error = 0;
  file_ = MappedFile::map(fd_.get(), 0, size, true, true, &error);
  if (!file_)
    throw std::system_error(error, std::generic_category(), "mmap of the memfd");
  error = table_.add(base_iova, size, file_->data(), true, true, file_);
  if (error != 0)
    throw std::system_error(error, std::generic_category(), "DMA map");
}

} // namespace ornic::test
