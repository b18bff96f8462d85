#include "vfio_user/session.hpp"

#include <bit>
#include <cerrno>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "dma/mapped_file.hpp"
#include "vfio_user/fd_kind.hpp"
#include "vfio_user/wire.hpp"

namespace ornic::vfio_user {
namespace {

constexpr uint64_t kRegionOffsetShift = 40; // region info "offset": index << 40, like vfio-pci

bool is_known_request(uint16_t command) {
  return command >= static_cast<uint16_t>(Command::kVersion) &&
         command <= static_cast<uint16_t>(Command::kRegionWriteMulti);
}

// Commands without an fd argument must not carry any.
bool takes_fds(uint16_t command) {
  return command == static_cast<uint16_t>(Command::kDmaMap) ||
         command == static_cast<uint16_t>(Command::kDeviceSetIrqs);
}

} // namespace

Session::Session(PciDevice& device, DmaMapTable& dma_maps, const ServerLimits& limits)
    : device_(device), dma_maps_(dma_maps), limits_(limits) {}

std::optional<Reply> Session::handle(Frame frame) {
  const Header& request = frame.header;
  const bool no_reply = (request.flags & kFlagNoReply) != 0;
  if ((request.flags & kFlagTypeMask) != kTypeRequest && frame.framing_error == 0) {
    // We never send requests, so there is nothing a reply could answer.
    ++stats_.silent_errors;
    error_log_.warn("vfio-user: dropped unexpected non-request message id {} command {}",
                    request.msg_id, request.command);
    return std::nullopt;
  }
  ++stats_.requests;

  Outcome outcome;
  if (frame.framing_error != 0) {
    outcome = fail(frame.framing_error);
  } else if (frame.fds_truncated || frame.fds.size() > limits_.max_msg_fds ||
             (!frame.fds.empty() && !takes_fds(request.command))) {
    outcome = fail(EINVAL);
  } else {
    try {
      outcome = dispatch(frame);
    } catch (const std::exception& e) {
      // A bug in the device model must not take the whole VM's device down with it.
      spdlog::error("vfio-user: {} raised an exception in the device model: {}",
                    command_name(request.command), e.what());
      outcome = fail(EIO);
    }
  }

  if (outcome.error != 0) {
    error_log_.warn("vfio-user: {} (command {}, id {}, size {}, {} fds) failed: {}",
                    command_name(request.command), request.command, request.msg_id, request.size,
                    frame.fds.size(), std::strerror(outcome.error));
    if (no_reply) {
      ++stats_.silent_errors;
      return std::nullopt;
    }
    ++stats_.error_replies;
    Reply reply;
    reply.header = {request.msg_id, request.command, static_cast<uint32_t>(kHeaderSize),
                    kTypeReply | kFlagError, static_cast<uint32_t>(outcome.error)};
    return reply;
  }
  if (no_reply)
    return std::nullopt;
  Reply reply;
  reply.header = {request.msg_id, request.command,
                  static_cast<uint32_t>(kHeaderSize + outcome.payload.size()), kTypeReply, 0};
  reply.payload = std::move(outcome.payload);
  return reply;
}

Session::Outcome Session::dispatch(Frame& frame) {
  const uint16_t command = frame.header.command;
  if (!is_known_request(command))
    return fail(ENOTSUP);
  if (!negotiated_ && command != static_cast<uint16_t>(Command::kVersion))
    return fail(EINVAL); // VERSION must come first
  switch (static_cast<Command>(command)) {
  case Command::kVersion:
    return on_version(frame);
  case Command::kDmaMap:
    return on_dma_map(frame);
  case Command::kDmaUnmap:
    return on_dma_unmap(frame);
  case Command::kDeviceGetInfo:
    return on_device_get_info(frame);
  case Command::kDeviceGetRegionInfo:
    return on_get_region_info(frame);
  case Command::kDeviceGetIrqInfo:
    return on_get_irq_info(frame);
  case Command::kDeviceSetIrqs:
    return on_set_irqs(frame);
  case Command::kRegionRead:
    return on_region_read(frame);
  case Command::kRegionWrite:
    return on_region_write(frame);
  case Command::kRegionWriteMulti:
    return on_region_write_multi(frame);
  case Command::kDeviceReset:
    return on_device_reset(frame);
  case Command::kDeviceGetRegionIoFds: // no ioeventfds: every access comes as a message
  case Command::kDmaRead:              // server-to-client commands
  case Command::kDmaWrite:
  case Command::kDirtyPages: // no migration support
    return fail(ENOTSUP);
  }
  return fail(ENOTSUP);
}

Session::Outcome Session::on_version(const Frame& frame) {
  WireReader r(frame.payload);
  const uint16_t major = r.get<uint16_t>();
  const uint16_t minor = r.get<uint16_t>();
  if (!r.ok() || major != kMajorVersion)
    return fail(EINVAL);
  (void)minor; // we speak 0.0; a newer minor client falls back to what we reply

  // Optional NUL-terminated JSON. Only write_multiple changes what we do; the limits we
  // reply are our own and the client adopts them.
  std::span<const std::byte> json_bytes = r.rest();
  while (!json_bytes.empty() && json_bytes.back() == std::byte{0})
    json_bytes = json_bytes.first(json_bytes.size() - 1);
  if (json_bytes.size() > limits_.max_version_json)
    return fail(E2BIG);
  bool client_multi = false;
  if (!json_bytes.empty()) {
    const std::string_view text(reinterpret_cast<const char*>(json_bytes.data()),
                                json_bytes.size());
    const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object())
      return fail(EINVAL);
    const auto caps = json.find("capabilities");
    if (caps != json.end()) {
      if (!caps->is_object())
        return fail(EINVAL);
      const auto multi = caps->find("write_multiple");
      client_multi = multi != caps->end() && multi->is_boolean() && multi->get<bool>();
    }
  }

  nlohmann::json capabilities = {
      {"max_msg_fds", limits_.max_msg_fds},
      {"max_data_xfer_size", limits_.max_data_xfer_size},
      {"pgsizes", limits_.pgsizes},
      {"max_dma_maps", limits_.max_dma_maps},
  };
  if (client_multi)
    capabilities["write_multiple"] = true;
  const std::string text = nlohmann::json{{"capabilities", capabilities}}.dump();

  negotiated_ = true;
  write_multiple_ = client_multi;
  spdlog::info("vfio-user: client negotiated version {}.{}, write_multiple {}", major, minor,
               client_multi);
  Outcome out;
  WireWriter w(out.payload);
  w.put(kMajorVersion).put(kMinorVersion);
  w.put_bytes(std::as_bytes(std::span(text.data(), text.size() + 1))); // with the NUL
  return out;
}

Session::Outcome Session::on_dma_map(Frame& frame) {
  WireReader r(frame.payload);
  const uint32_t argsz = r.get<uint32_t>();
  const uint32_t flags = r.get<uint32_t>();
  const uint64_t fd_offset = r.get<uint64_t>();
  const uint64_t iova = r.get<uint64_t>();
  const uint64_t size = r.get<uint64_t>();
  if (!r.ok() || argsz < kDmaMapSize || argsz > frame.payload.size())
    return fail(EINVAL);
  if ((flags & ~(kDmaMapFlagRead | kDmaMapFlagWrite)) != 0)
    return fail(EINVAL);
  if (frame.fds.empty()) {
    // QEMU offers fd-less ROM areas (BIOS, option ROMs) with every boot. The map is
    // acknowledged but not entered: the device cannot reach such memory, so DMA there
    // fails as DMA to any unmapped address does. Not an error reply: QEMU 11.1 sends
    // these maps asynchronously and aborts (error_setv assertion in vfio_user_wait_reqs)
    // when it finds two failed ones pending at once, which a device reset or a server
    // dying can make happen. Guest RAM without an fd means the VM was started without
    // shareable fd-backed memory: the log says how to fix that.
    fdless_map_log_.warn("vfio-user: DMA_MAP [{:#x}, +{:#x}) without a file descriptor "
                         "acknowledged but not DMA-able: the device reaches only fd-backed "
                         "shared memory (QEMU: -object memory-backend-memfd,id=mem,share=on,"
                         "size=... -machine memory-backend=mem); harmless for ROM areas",
                         iova, size);
    ++stats_.fdless_dma_maps;
    return {};
  }
  if (frame.fds.size() != 1)
    return fail(EINVAL);
  if (size == 0 || size - 1 > std::numeric_limits<uint64_t>::max() - iova)
    return fail(EINVAL);
  if (dma_maps_.count() >= limits_.max_dma_maps)
    return fail(ENOSPC);

  const bool readable = flags & kDmaMapFlagRead;
  const bool writable = flags & kDmaMapFlagWrite;
  int error = 0;
  auto file = MappedFile::map(frame.fds[0].get(), fd_offset, size, readable, writable, &error);
  if (!file)
    return fail(error != 0 ? error : EINVAL);
  error = dma_maps_.add(iova, size, file->data(), readable, writable, file);
  if (error != 0)
    return fail(error);
  ++stats_.dma_maps;
  spdlog::debug("vfio-user: DMA_MAP iova [{:#x}, +{:#x}) fd offset {:#x} {}{}", iova, size,
                fd_offset, readable ? "r" : "", writable ? "w" : "");
  return {};
}

Session::Outcome Session::on_dma_unmap(const Frame& frame) {
  WireReader r(frame.payload);
  const uint32_t argsz = r.get<uint32_t>();
  const uint32_t flags = r.get<uint32_t>();
  const uint64_t iova = r.get<uint64_t>();
  const uint64_t size = r.get<uint64_t>();
  if (!r.ok() || argsz < kDmaUnmapSize || argsz > frame.payload.size())
    return fail(EINVAL);
  if (flags & kDmaUnmapFlagGetDirtyBitmap)
    return fail(ENOTSUP);
  if ((flags & ~kDmaUnmapFlagAll) != 0)
    return fail(EINVAL);
  if (flags & kDmaUnmapFlagAll) {
    if (iova != 0 || size != 0)
      return fail(EINVAL);
    dma_maps_.clear();
  } else {
    // Need not match a map: holes are skipped, straddled maps split, wrap clipped.
    dma_maps_.remove(iova, size);
  }
  ++stats_.dma_unmaps;
  spdlog::debug("vfio-user: DMA_UNMAP [{:#x}, +{:#x}) flags {:#x}", iova, size, flags);
  Outcome out;
  WireWriter(out.payload).put(static_cast<uint32_t>(kDmaUnmapSize)).put(flags).put(iova).put(size);
  return out;
}

Session::Outcome Session::on_device_get_info(const Frame& frame) {
  WireReader r(frame.payload);
  const uint32_t argsz = r.get<uint32_t>();
  if (!r.ok() || argsz < kDeviceInfoSize)
    return fail(EINVAL);
  Outcome out;
  WireWriter(out.payload)
      .put(static_cast<uint32_t>(kDeviceInfoSize))
      .put(kDeviceFlagReset | kDeviceFlagPci)
      .put(static_cast<uint32_t>(PciDevice::kNumRegions))
      .put(kPciNumIrqs);
  return out;
}

Session::Outcome Session::on_get_region_info(const Frame& frame) {
  WireReader r(frame.payload);
  const uint32_t argsz = r.get<uint32_t>();
  r.get<uint32_t>(); // flags: output only
  const uint32_t index = r.get<uint32_t>();
  if (!r.ok() || argsz < kRegionInfoSize)
    return fail(EINVAL);
  if (index >= PciDevice::kNumRegions)
    return fail(EINVAL);
  const uint64_t size = device_.region_size(index);
  // Nothing is mmap-able (that would make QEMU turn off posted writes) and there are no
  // capabilities, so the fixed 32 bytes are the whole answer.
  const uint32_t flags = size != 0 ? (kRegionFlagRead | kRegionFlagWrite) : 0;
  Outcome out;
  WireWriter(out.payload)
      .put(static_cast<uint32_t>(kRegionInfoSize))
      .put(flags)
      .put(index)
      .put(uint32_t{0})
      .put(size)
      .put(uint64_t{index} << kRegionOffsetShift);
  return out;
}

Session::Outcome Session::on_get_irq_info(const Frame& frame) {
  WireReader r(frame.payload);
  const uint32_t argsz = r.get<uint32_t>();
  r.get<uint32_t>(); // flags: output only
  const uint32_t index = r.get<uint32_t>();
  if (!r.ok() || argsz < kIrqInfoSize)
    return fail(EINVAL);
  uint32_t flags = 0;
  uint32_t count = 0;
  switch (index) {
  case kPciIntxIrqIndex: // interrupt pin 0: no INTx
  case kPciMsiIrqIndex:  // no MSI capability
  case kPciReqIrqIndex:  // no device request interrupt
    break;
  case kPciMsixIrqIndex:
    flags = kIrqInfoFlagEventfd;
    count = device_.msix().vectors();
    break;
  default: // ERR (no AER) and beyond
    return fail(EINVAL);
  }
  Outcome out;
  WireWriter(out.payload).put(static_cast<uint32_t>(kIrqInfoSize)).put(flags).put(index).put(count);
  return out;
}

Session::Outcome Session::on_set_irqs(Frame& frame) {
  WireReader r(frame.payload);
  const uint32_t argsz = r.get<uint32_t>();
  const uint32_t flags = r.get<uint32_t>();
  const uint32_t index = r.get<uint32_t>();
  const uint32_t start = r.get<uint32_t>();
  const uint32_t count = r.get<uint32_t>();
  if (!r.ok() || argsz < kIrqSetSize || argsz > frame.payload.size())
    return fail(EINVAL);
  const uint32_t data_type = flags & kIrqSetDataMask;
  const uint32_t action = flags & kIrqSetActionMaskAll;
  if ((flags & ~(kIrqSetDataMask | kIrqSetActionMaskAll)) != 0 || std::popcount(data_type) != 1 ||
      std::popcount(action) != 1)
    return fail(EINVAL);
  const bool disable_all =
      data_type == kIrqSetDataNone && action == kIrqSetActionTrigger && count == 0;
  if (index != kPciMsixIrqIndex) {
    // INTx and MSI have no vectors; switching them off is harmless and QEMU may do it.
    if ((index == kPciIntxIrqIndex || index == kPciMsiIrqIndex) && disable_all)
      return {};
    return fail(EINVAL);
  }
  if (action != kIrqSetActionTrigger)
    return fail(EINVAL); // MASK/UNMASK: we do not advertise MASKABLE
  if (disable_all) {
    device_.msix().clear_triggers();
    spdlog::debug("vfio-user: MSI-X interrupts disabled");
    return {};
  }
  if (uint64_t{start} + count > device_.msix().vectors())
    return fail(EINVAL);

  switch (data_type) {
  case kIrqSetDataNone: // loopback: fire the vectors
    for (uint32_t v = start; v < start + count; ++v)
      device_.msix().raise(v);
    return {};
  case kIrqSetDataBool: {
    const auto bools = r.rest();
    if (bools.size() < count || argsz < kIrqSetSize + count)
      return fail(EINVAL);
    for (uint32_t i = 0; i < count; ++i)
      if (bools[i] != std::byte{0})
        device_.msix().raise(start + i);
    return {};
  }
  default: // kIrqSetDataEventfd
    break;
  }
  // No fds de-assigns the range (QEMU sends runs of -1 that way); otherwise one each.
  if (frame.fds.empty()) {
    for (uint32_t v = start; v < start + count; ++v)
      device_.msix().set_trigger(v, UniqueFd());
    return {};
  }
  if (frame.fds.size() != count)
    return fail(EINVAL);
  for (const auto& fd : frame.fds)
    if (!is_eventfd(fd.get()))
      return fail(EINVAL);
  for (uint32_t i = 0; i < count; ++i)
    device_.msix().set_trigger(start + i, std::move(frame.fds[i]));
  spdlog::debug("vfio-user: MSI-X eventfds set for vectors [{}, {})", start, start + count);
  return {};
}

Session::Outcome Session::on_region_read(const Frame& frame) {
  WireReader r(frame.payload);
  const uint64_t offset = r.get<uint64_t>();
  const uint32_t region = r.get<uint32_t>();
  const uint32_t count = r.get<uint32_t>();
  if (!r.ok())
    return fail(EINVAL);
  if (count > limits_.max_data_xfer_size)
    return fail(E2BIG);
  spdlog::trace("vfio-user: read region {} [{:#x}, +{}]", region, offset, count);
  Outcome out;
  out.payload.resize(kRegionAccessSize + count);
  const int error =
      device_.region_read(region, offset, std::span(out.payload).subspan(kRegionAccessSize, count));
  if (error != 0)
    return fail(error);
  std::memcpy(out.payload.data(), &offset, 8);
  std::memcpy(out.payload.data() + 8, &region, 4);
  std::memcpy(out.payload.data() + 12, &count, 4);
  return out;
}

Session::Outcome Session::on_region_write(const Frame& frame) {
  WireReader r(frame.payload);
  const uint64_t offset = r.get<uint64_t>();
  const uint32_t region = r.get<uint32_t>();
  const uint32_t count = r.get<uint32_t>();
  if (!r.ok() || r.rest().size() != count)
    return fail(EINVAL);
  if (count > limits_.max_data_xfer_size)
    return fail(E2BIG);
  spdlog::trace("vfio-user: write region {} [{:#x}, +{}]", region, offset, count);
  if (const int error = device_.region_write(region, offset, r.rest()))
    return fail(error);
  if (frame.header.flags & kFlagNoReply)
    ++stats_.posted_writes;
  Outcome out;
  WireWriter(out.payload).put(offset).put(region).put(count);
  return out;
}

Session::Outcome Session::on_region_write_multi(const Frame& frame) {
  if (!write_multiple_)
    return fail(ENOTSUP);
  WireReader r(frame.payload);
  const uint64_t entries = r.get<uint64_t>();
  if (!r.ok() || entries > kWriteMultiMaxEntries ||
      r.rest().size() != entries * kWriteMultiEntrySize)
    return fail(EINVAL);
  int first_error = 0;
  for (uint64_t i = 0; i < entries; ++i) {
    const uint64_t offset = r.get<uint64_t>();
    const uint32_t region = r.get<uint32_t>();
    const uint32_t count = r.get<uint32_t>();
    const auto data = r.rest().first(kWriteMultiDataSize);
    r.get<uint64_t>(); // skip the data field
    // Each entry stands alone: a bad one is reported, the others still happen in order.
    int error = count == 0 || count > kWriteMultiDataSize
                    ? EINVAL
                    : device_.region_write(region, offset, data.first(count));
    if (error == 0)
      ++stats_.posted_writes;
    else if (first_error == 0)
      first_error = error;
  }
  if (first_error != 0)
    return fail(first_error);
  return {};
}

Session::Outcome Session::on_device_reset(const Frame&) {
  ++stats_.resets;
  spdlog::info("vfio-user: DEVICE_RESET");
  device_.reset();
  return {};
}

} // namespace ornic::vfio_user
