// Wire faults a port can inject into what it sends, for testing the transport above it:
// `--wire-faults loss=1%,reorder=1%,dup=0.5%,corrupt=0.1%,seed=N`. Every key is optional;
// rates are percentages (the % sign may be left out) from 0 to 100; the seed makes a run
// repeatable.
#pragma once

#include <cstdint>
#include <string_view>

namespace ornic {

struct WireFaults {
  // Probabilities per frame, 0.0 to 1.0.
  double loss = 0;
  double reorder = 0;
  double duplicate = 0;
  double corrupt = 0;
  uint64_t seed = 1;

  bool any() const { return loss > 0 || reorder > 0 || duplicate > 0 || corrupt > 0; }
};

// Throws std::invalid_argument naming the bad key or value.
WireFaults parse_wire_faults(std::string_view spec);

} // namespace ornic
