// P_KeyTable, SLtoVLMappingTable and VLArbitrationTable (infiniband.rst, "Management
// agents", "Partitions and Q_Keys"). A channel adapter has one port: the modifier fields
// that name a switch's ports may name only port 0 (the port the SMP came in on) or port 1.
#include "mad/sma_attributes.hpp"
#include "mad/smp_attributes.hpp"

namespace ornic::mad {
namespace {

constexpr bool names_this_port(uint32_t port) {
  return port <= 1;
}

// The only VL the SL-to-VL table may name: the port's one data VL.
constexpr uint8_t kDataVl = 0;
constexpr uint8_t kMaxArbitrationVl = 14; // VL15 is never arbitrated

} // namespace

uint16_t pkey_table(NicCore& core, const SmpRequest& request, SmpData& out) {
  const uint32_t block_number = request.modifier & 0xffff;
  if (block_number != 0 || !names_this_port(request.modifier >> 16))
    return kStatusInvalidField;
  auto& pkeys = core.ib.pkeys;
  if (request.set) {
    // Entries past the table (16..31 of block 0) do not exist: their values are dropped.
    const auto block = load_as<PkeyTableBlock>(request.data);
    bool changed = false;
    for (size_t i = 0; i < pkeys.size(); ++i) {
      changed |= pkeys[i] != block[i].get();
      pkeys[i] = block[i].get();
    }
    if (changed)
      core.post_port_change(ORNIC_PORT_CHANGE_PKEY);
  }
  PkeyTableBlock block{};
  for (size_t i = 0; i < pkeys.size(); ++i)
    block[i].set(pkeys[i]);
  store_as(out, block);
  return 0;
}

// One data VL: every SL maps to VL0, and a Set that maps any SL elsewhere (another data
// VL, or VL15 to drop its packets) is refused.
uint16_t sl_to_vl_table(NicCore&, const SmpRequest& request, SmpData& out) {
  const uint32_t out_port = request.modifier & 0xff;
  const uint32_t in_port = (request.modifier >> 8) & 0xff;
  if ((request.modifier >> 16) != 0 || !names_this_port(out_port) || !names_this_port(in_port))
    return kStatusInvalidField;
  uint16_t status = 0;
  if (request.set) {
    const auto table = load_as<SlToVlTable>(request.data);
    for (uint8_t pair : table)
      if (high_nibble(pair) != kDataVl || low_nibble(pair) != kDataVl)
        status = kStatusInvalidField;
  }
  static_assert(kDataVl == 0);
  out.fill(0); // every SL on VL0
  return status;
}

// Blocks 1 (low priority) and 3 (high priority) hold the kIbVlArbitrationCap entries each
// table has; blocks 2 and 4 (entries 32..63) lie past them.
uint16_t vl_arbitration_table(NicCore& core, const SmpRequest& request, SmpData& out) {
  const uint32_t block_number = request.modifier >> 16;
  if (!names_this_port(request.modifier & 0xffff) ||
      (block_number != kVlArbBlockLow && block_number != kVlArbBlockHigh))
    return kStatusInvalidField;
  auto& table =
      block_number == kVlArbBlockLow ? core.ib.vl_arbitration_low : core.ib.vl_arbitration_high;
  VlArbitrationBlock block{};
  uint16_t status = 0;
  if (request.set) {
    // Entries past the table are dropped; the reserved high nibble of each VL byte too.
    block = load_as<VlArbitrationBlock>(request.data);
    for (size_t i = 0; i < table.size(); ++i)
      if (low_nibble(block[i].vl) > kMaxArbitrationVl)
        status = kStatusInvalidField;
    for (size_t i = 0; status == 0 && i < table.size(); ++i)
      table[i] = {low_nibble(block[i].vl), block[i].weight};
  }
  block = {};
  for (size_t i = 0; i < table.size(); ++i)
    block[i] = {table[i].vl, table[i].weight};
  store_as(out, block);
  return status;
}

} // namespace ornic::mad
