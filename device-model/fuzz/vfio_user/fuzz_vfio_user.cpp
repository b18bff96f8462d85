// libFuzzer target: arbitrary byte streams through the vfio-user framing and request
// handling of a server with a small test device, exactly as if they came from the socket.
//
// The input is cut into "reads" so partial messages and fd attribution are exercised:
// each read is preceded by one control byte: low 5 bits + 1 = read length, bit 5 = attach
// a memfd (a DMA_MAP needs one), bit 6 = attach an eventfd, bit 7 = report truncated fds.
#include <cstddef>
#include <cstdint>
#include <memory>

#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "common/test_function_model.hpp"
#include "dma/dma_map_table.hpp"
#include "dma/mapped_guest_memory.hpp"
#include "pci/pci_device.hpp"
#include "vfio_user/frame_decoder.hpp"
#include "vfio_user/session.hpp"

namespace {

using namespace ornic;
using namespace ornic::vfio_user;

constexpr size_t kGuestRamSize = 1 << 20;

struct Harness {
  Harness() {
    spdlog::set_level(spdlog::level::off);
    ram.reset(memfd_create("fuzz-ram", MFD_CLOEXEC));
    if (ftruncate(ram.get(), kGuestRamSize) != 0)
      abort();
  }
  UniqueFd ram;
};

Harness& harness() {
  static Harness h;
  return h;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Harness& h = harness();
  ornic::testing::TestFunctionModel model;
  ServerLimits limits;
  limits.max_dma_maps = 64;
  limits.max_data_xfer_size = 64 * 1024;
  DmaMapTable maps(limits.max_dma_maps);
  MappedGuestMemory memory(maps);
  PciDevice device(model, memory);
  Session session(device, maps, limits);
  FrameDecoder decoder(limits.max_message_size());

  size_t pos = 0;
  while (pos < size) {
    const uint8_t control = data[pos++];
    const size_t length = std::min<size_t>((control & 0x1f) + 1, size - pos);
    std::vector<UniqueFd> fds;
    if (control & 0x20)
      fds.emplace_back(dup(h.ram.get()));
    if (control & 0x40)
      fds.emplace_back(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
    const bool truncated = control & 0x80;
    // Long runs of plain bytes come in bigger reads, so fuzzed messages can be large.
    size_t chunk = length;
    if ((control & 0x1f) == 0x1f)
      chunk = size - pos;
    decoder.feed(std::span(reinterpret_cast<const std::byte*>(data + pos), chunk), std::move(fds),
                 truncated);
    pos += chunk;
    while (std::optional<Frame> frame = decoder.next()) {
      // Let the device react to what a guest would do with the device at this point too.
      session.handle(std::move(*frame));
    }
  }
  return 0;
}
