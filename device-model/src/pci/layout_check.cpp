#include "pci/layout_check.hpp"

#include <fmt/format.h>

namespace ornic {
namespace {

constexpr unsigned kMaxMsixVectors = 2048; // table size field is 11 bits
constexpr uint64_t kMinBarSize = 4096;

bool ranges_overlap(uint64_t a, uint64_t a_size, uint64_t b, uint64_t b_size) {
  return a < b + b_size && b < a + a_size;
}

} // namespace

std::optional<std::string> check_function_layout(const std::array<BarDescriptor, 6>& bars,
                                                 const MsixLayout& msix) {
  for (unsigned i = 0; i < bars.size(); ++i) {
    const BarDescriptor& bar = bars[i];
    if (bar.size == 0)
      continue;
    if (bar.size < kMinBarSize || (bar.size & (bar.size - 1)) != 0)
      return fmt::format("BAR{} size {:#x} is not a power of two >= 4096", i, bar.size);
    if (!bar.is_64bit && bar.size > (uint64_t{1} << 31))
      return fmt::format("32-bit BAR{} size {:#x} is too large", i, bar.size);
    if (bar.is_64bit) {
      if (i == bars.size() - 1)
        return fmt::format("64-bit BAR{} has no upper slot", i);
      if (bars[i + 1].size != 0)
        return fmt::format("BAR{} must be absent: it holds the upper half of 64-bit BAR{}", i + 1,
                           i);
      ++i;
    }
  }
  if (msix.vectors == 0 || msix.vectors > kMaxMsixVectors)
    return fmt::format("MSI-X vector count {} not in 1..{}", msix.vectors, kMaxMsixVectors);
  if (msix.bar >= bars.size() || bars[msix.bar].size == 0)
    return fmt::format("MSI-X BAR{} is absent", msix.bar);
  if (msix.bar > 0 && bars[msix.bar - 1].is_64bit && bars[msix.bar - 1].size != 0)
    return fmt::format("MSI-X BAR{} is the upper half of a 64-bit BAR", msix.bar);
  const uint64_t bar_size = bars[msix.bar].size;
  const uint64_t table_size = uint64_t{msix.vectors} * 16;
  const uint64_t pba_size = (uint64_t{msix.vectors} + 63) / 64 * 8;
  if (msix.table_offset % 8 != 0 || msix.pba_offset % 8 != 0)
    return "MSI-X table and PBA offsets must be 8-byte aligned";
  if (msix.table_offset > bar_size || table_size > bar_size - msix.table_offset)
    return fmt::format("MSI-X table [{:#x}, +{:#x}) does not fit BAR{}", msix.table_offset,
                       table_size, msix.bar);
  if (msix.pba_offset > bar_size || pba_size > bar_size - msix.pba_offset)
    return fmt::format("MSI-X PBA [{:#x}, +{:#x}) does not fit BAR{}", msix.pba_offset, pba_size,
                       msix.bar);
  if (msix.table_offset >= (uint64_t{1} << 32) || msix.pba_offset >= (uint64_t{1} << 32))
    return "MSI-X offsets must fit the 32-bit capability fields";
  if (ranges_overlap(msix.table_offset, table_size, msix.pba_offset, pba_size))
    return "MSI-X table and PBA overlap";
  return std::nullopt;
}

} // namespace ornic
