// The MAD formats the device's agents read and write (IBA 13.4 and 14.2.1): the common MAD
// header, the subnet management packet in its LID-routed and directed-route forms, and the
// performance management MAD, with the class, method, status and attribute numbers the
// agents use. Offsets are the IBTA's; every one is checked below.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/hw.hpp"
#include "mad/big_endian.hpp"

namespace ornic::mad {

inline constexpr size_t kMadSize = ORNIC_MAD_SIZE;
using MadBytes = std::array<uint8_t, kMadSize>;

inline constexpr uint8_t kBaseVersion = 1;

// Management classes (IBA 13.4.4).
inline constexpr uint8_t kClassSubnLid = 0x01;
inline constexpr uint8_t kClassPerfMgt = 0x04;
inline constexpr uint8_t kClassSubnDirected = 0x81;
inline constexpr uint8_t kSmpClassVersion = 1;
inline constexpr uint8_t kPmaClassVersion = 1;

// Methods (IBA 13.4.5); responses have bit 7 set.
inline constexpr uint8_t kMethodGet = 0x01;
inline constexpr uint8_t kMethodSet = 0x02;
inline constexpr uint8_t kMethodTrapRepress = 0x07;
inline constexpr uint8_t kMethodGetResp = 0x81;

// MAD status (IBA 13.4.7): the class-independent codes the agents answer with.
inline constexpr uint16_t kStatusBadVersion = 0x0004;
inline constexpr uint16_t kStatusUnsupportedMethodAttr = 0x000c;
inline constexpr uint16_t kStatusInvalidField = 0x001c;
// A directed-route SMP's status carries the direction bit (IBA 14.2.1.2): set on the way
// back.
inline constexpr uint16_t kSmpDirection = 0x8000;

// Subnet management attributes (IBA 14.2.5).
inline constexpr uint16_t kAttrNodeDescription = 0x0010;
inline constexpr uint16_t kAttrNodeInfo = 0x0011;
inline constexpr uint16_t kAttrSwitchInfo = 0x0012;
inline constexpr uint16_t kAttrGuidInfo = 0x0014;
inline constexpr uint16_t kAttrPortInfo = 0x0015;
inline constexpr uint16_t kAttrPkeyTable = 0x0016;
inline constexpr uint16_t kAttrSlToVlTable = 0x0017;
inline constexpr uint16_t kAttrVlArbitrationTable = 0x0018;
inline constexpr uint16_t kAttrSmInfo = 0x0020;

// Performance management attributes (IBA 16.1.3, 16.1.4).
inline constexpr uint16_t kAttrClassPortInfo = 0x0001;
inline constexpr uint16_t kAttrPortCounters = 0x0012;
inline constexpr uint16_t kAttrPortCountersExtended = 0x001d;

// The common MAD header (IBA 13.4.2), 24 bytes.
struct MadHeader {
  uint8_t base_version;
  uint8_t mgmt_class;
  uint8_t class_version;
  uint8_t method;
  Be16 status;
  // SubnDirected: hop pointer and hop count; otherwise class-specific.
  uint8_t hop_pointer;
  uint8_t hop_count;
  Be64 transaction_id;
  Be16 attribute_id;
  Be16 reserved;
  Be32 attribute_modifier;
};

inline constexpr size_t kSmpDataSize = 64;
inline constexpr size_t kDrPathSize = 64;

// A subnet management packet (IBA 14.2.1.1 LID-routed, 14.2.1.2 directed-route): both put
// the M_Key at 24 and the 64 attribute bytes at 64; the LID-routed form leaves the
// directed-route fields reserved.
struct Smp {
  MadHeader header;
  Be64 m_key;
  Be16 dr_slid;
  Be16 dr_dlid;
  std::array<uint8_t, 28> reserved;
  std::array<uint8_t, kSmpDataSize> data;
  std::array<uint8_t, kDrPathSize> initial_path;
  std::array<uint8_t, kDrPathSize> return_path;
};

inline constexpr size_t kPmaDataSize = 192;

// A performance management MAD (IBA 16.1.1): 40 reserved bytes after the header, then the
// attribute.
struct PmaMad {
  MadHeader header;
  std::array<uint8_t, 40> reserved;
  std::array<uint8_t, kPmaDataSize> data;
};

static_assert(sizeof(MadHeader) == 24);
static_assert(offsetof(MadHeader, status) == 4);
static_assert(offsetof(MadHeader, hop_pointer) == 6);
static_assert(offsetof(MadHeader, transaction_id) == 8);
static_assert(offsetof(MadHeader, attribute_id) == 16);
static_assert(offsetof(MadHeader, attribute_modifier) == 20);
static_assert(sizeof(Smp) == kMadSize);
static_assert(offsetof(Smp, m_key) == 24);
static_assert(offsetof(Smp, dr_slid) == 32);
static_assert(offsetof(Smp, dr_dlid) == 34);
static_assert(offsetof(Smp, data) == 64);
static_assert(offsetof(Smp, initial_path) == 128);
static_assert(offsetof(Smp, return_path) == 192);
static_assert(sizeof(PmaMad) == kMadSize);
static_assert(offsetof(PmaMad, data) == 64);

constexpr bool is_response_method(uint8_t method) {
  return (method & 0x80) != 0;
}

// A layout read from, or written to, the start of a byte array (a MAD or its attribute).
template <typename T, size_t N>
T load_as(const std::array<uint8_t, N>& bytes) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= N);
  T value;
  std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}
template <typename T, size_t N>
void store_as(std::array<uint8_t, N>& bytes, const T& value) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= N);
  std::memcpy(bytes.data(), &value, sizeof(T));
}

} // namespace ornic::mad
