// The variant CRC of an InfiniBand packet (IBA 7.8.2): CRC-16 with the polynomial
// x^16 + x^12 + x^3 + x + 1 (0x100b), processed least-significant bit first as the ICRC's
// CRC-32 is, starting from all ones and inverted at the end; it covers every byte from the
// LRH through the ICRC and goes on the wire least-significant byte first, like the ICRC.
// Every link recomputes it, so it is the last thing added to a packet and the first thing
// checked.
//
// Written here rather than taken from a library: ISA-L's only CRC-16 is T10-DIF's
// polynomial, and the generic CRC engines Debian packages (Boost.CRC) go a byte at a time,
// which at a 4 KiB MTU would cost more than the rest of the packet path; this one consumes
// eight bytes per step (slicing by 8). qemu-tests/tools/ib-crc-check.py recomputes it
// with python3-crcmod, which shares nothing with this code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ornic::ib {

inline constexpr size_t kVcrcSize = 2;

uint16_t compute_vcrc(std::span<const uint8_t> bytes);

void store_vcrc(std::span<uint8_t, kVcrcSize> out, uint16_t vcrc);
uint16_t load_vcrc(std::span<const uint8_t, kVcrcSize> in);

} // namespace ornic::ib
