// An InfiniBand port for the agents' tests: a NicCore with the link up (port in Init), an
// async EQ in fake guest memory to see PORT_STATE and PORT_CHANGE events, a manual device
// clock, and helpers that build request MADs and read response fields at the byte offsets
// IBA gives, independently of the model's own layouts.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "core/nic_core.hpp"
#include "dma/fake_guest_memory.hpp"
#include "mad/mad_agents.hpp"
#include "manual_timer.hpp"
#include "pci/recording_interrupt_sink.hpp"

namespace ornic::test {

inline constexpr uint64_t kNodeGuid = 0x0000'0aff'fe00'0001ull;
inline constexpr uint64_t kPortGuid = 0x0200'0aff'fe00'0001ull;
inline constexpr size_t kSmpData = 64; // attribute offset in an SMP and in a PMA MAD

inline uint64_t be_at(const mad::MadBytes& mad, size_t offset, size_t size) {
  uint64_t value = 0;
  for (size_t i = 0; i < size; ++i)
    value = value << 8 | mad[offset + i];
  return value;
}
inline bool zero_at(const mad::MadBytes& mad, size_t offset, size_t size) {
  return std::all_of(mad.begin() + offset, mad.begin() + offset + size,
                     [](uint8_t byte) { return byte == 0; });
}
inline void put_be(mad::MadBytes& mad, size_t offset, size_t size, uint64_t value) {
  for (size_t i = size; i-- > 0;) {
    mad[offset + i] = static_cast<uint8_t>(value);
    value >>= 8;
  }
}

class MadRig {
public:
  static constexpr uint64_t kEqBase = 0x1000;

  MadRig() : memory_(kEqBase, 4096), core(MacAddress{0x02, 0x0a, 0, 0, 0, 1}) {
    core.attach(memory_, irqs_);
    core.async_eq.emplace(QueueMemory::contiguous(kEqBase, 4096), 8, 0);
    core.clock = &clock;
    core.ib.enabled = true;
    core.ib.node_guid = kNodeGuid;
    core.ib.port_guid = kPortGuid;
    core.ib.node_description = "ornic 02:0a:00:00:00:01";
    core.link_up = true;
    core.ib_physical_link(true);
  }

  // A request MAD: the common header, and for SMPs the M_Key.
  static mad::MadBytes request(uint8_t mgmt_class, uint8_t method, uint16_t attribute,
                               uint32_t modifier = 0, uint64_t m_key = 0) {
    mad::MadBytes m{};
    m[0] = 1; // base version
    m[1] = mgmt_class;
    m[2] = 1; // class version
    m[3] = method;
    put_be(m, 8, 8, 0x1122'3344'5566'7788ull); // transaction ID
    put_be(m, 16, 2, attribute);
    put_be(m, 20, 4, modifier);
    if (mgmt_class != mad::kClassPerfMgt)
      put_be(m, 24, 8, m_key);
    return m;
  }

  mad::Outcome run(const mad::MadBytes& in, bool ignore_m_key = false) {
    out.fill(0xee);
    mad::MadContext context;
    context.ignore_m_key = ignore_m_key;
    return mad::process(core, in, out, context);
  }
  // Runs a request that must be answered; returns the response's status.
  uint16_t answer(const mad::MadBytes& in, bool ignore_m_key = false) {
    EXPECT_EQ(run(in, ignore_m_key), mad::Outcome::reply);
    EXPECT_EQ(out[3], mad::kMethodGetResp);
    EXPECT_EQ(be_at(out, 8, 8), be_at(in, 8, 8)) << "transaction ID";
    return static_cast<uint16_t>(be_at(out, 4, 2));
  }
  // A Get of an SMA attribute that must succeed; the response data is in `out`.
  void get(uint16_t attribute, uint32_t modifier = 0) {
    ASSERT_EQ(answer(request(mad::kClassSubnLid, mad::kMethodGet, attribute, modifier), true), 0);
  }
  // PortInfo as a Get reads it: what a subnet manager edits and writes back.
  mad::MadBytes port_info_set() {
    get(mad::kAttrPortInfo, 1);
    mad::MadBytes set = request(mad::kClassSubnLid, mad::kMethodSet, mad::kAttrPortInfo, 1);
    std::copy(out.begin() + kSmpData, out.begin() + 2 * kSmpData, set.begin() + kSmpData);
    return set;
  }

  // The async events posted since the last call.
  std::vector<ornic_eqe> events() {
    std::vector<ornic_eqe> list;
    for (; seen_ < core.async_eq->ring().producer; ++seen_) {
      ornic_eqe eqe{};
      std::memcpy(&eqe, memory_.at(kEqBase + seen_ * sizeof(ornic_eqe)), sizeof(eqe));
      list.push_back(eqe);
    }
    return list;
  }
  // The data of the only PORT_CHANGE event since the last look (0: none, or not one).
  uint32_t port_change() {
    uint32_t data = 0;
    unsigned count = 0;
    for (const ornic_eqe& eqe : events())
      if (eqe.type == ORNIC_EQE_PORT_CHANGE) {
        data = le(eqe.data);
        ++count;
      }
    EXPECT_LE(count, 1u);
    return data;
  }

private:
  FakeGuestMemory memory_;
  RecordingInterruptSink irqs_;
  uint32_t seen_ = 0;

public:
  NicCore core;
  ManualTimer clock;
  mad::MadBytes out{};
};

} // namespace ornic::test
