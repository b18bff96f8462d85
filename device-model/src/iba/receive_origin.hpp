// What a receive completion on an InfiniBand port says of how its packet arrived
// (infiniband.rst, "Completions"; the first half of struct ornic_cqe_ts): the LRH's source
// LID and service level, the DLID's bits below the LMC, and the P_Key table entry that
// matched. All zero on fabrics without local routes (RoCE). On RoCE, the 802.1Q tag a
// packet came with (roce.rst, "VLANs").
#pragma once

#include <cstdint>
#include <optional>

namespace ornic::iba {

struct ReceiveOrigin {
  uint16_t slid = 0;
  uint16_t pkey_index = 0;
  uint8_t sl = 0;
  uint8_t dlid_path_bits = 0;
  std::optional<uint16_t> vlan_tci = std::nullopt; // PCP, DEI and VLAN ID
  bool operator==(const ReceiveOrigin&) const = default;
};

} // namespace ornic::iba
