// Guest RAM as QEMU gives it to the model: a memfd the device reaches through a DMA map
// (MappedGuestMemory, with its SIGBUS-guarded copies), while the test writes rings and
// buffers through a plain mapping of the same file. For rigs that should cost what the
// real data path costs (ornic-bench).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "common/unique_fd.hpp"
#include "dma/dma_map_table.hpp"
#include "dma/mapped_guest_memory.hpp"

namespace ornic::test {

class MemfdRam {
public:
  // `size` bytes of a new memfd mapped at `base_iova`; throws std::system_error on failure.
  MemfdRam(uint64_t base_iova, size_t size);
  MemfdRam(const MemfdRam&) = delete;
  MemfdRam& operator=(const MemfdRam&) = delete;

  std::span<std::byte> bytes() const { return {file_->data(), size_}; }
  GuestMemory& dma() { return dma_; }

private:
  UniqueFd fd_;
  size_t size_;
  std::shared_ptr<MappedFile> file_;
  DmaMapTable table_;
  MappedGuestMemory dma_{table_};
};

} // namespace ornic::test
