// MAD_IFC and MODIFY_PORT (admin.rst): the MAD goes in from in_addr and the response out to
// out_addr, result0 says what became of it; bad fields, bad buffers and an Ethernet port are
// refused with nothing changed.
#include <cstring>

#include <gtest/gtest.h>

#include "core/nic_core.hpp"
#include "dma/fake_guest_memory.hpp"
#include "nic/admin_commands.hpp"
#include "pci/recording_interrupt_sink.hpp"

namespace ornic::test {
namespace {

constexpr uint64_t kBase = 0x10000;
constexpr uint64_t kIn = kBase;
constexpr uint64_t kOut = kBase + 0x1000;

class AdminIb : public ::testing::Test {
protected:
  AdminIb() : memory(kBase, 0x4000), core(MacAddress{0x02, 0, 0, 0, 0, 1}), commands(core) {
    core.attach(memory, irqs);
    core.ib.enabled = true;
    core.ib.port_guid = 0x1234;
    core.link_up = true;
    core.ib_physical_link(true);
  }

  // A SubnLid request for attribute `attribute` at in_addr.
  void put_smp(uint8_t method, uint16_t attribute, uint32_t modifier = 1) {
    std::array<uint8_t, ORNIC_MAD_SIZE> mad{};
    mad[0] = 1;
    mad[1] = 0x01;
    mad[2] = 1;
    mad[3] = method;
    mad[9] = 0x42; // transaction ID
    mad[16] = static_cast<uint8_t>(attribute >> 8);
    mad[17] = static_cast<uint8_t>(attribute);
    mad[23] = static_cast<uint8_t>(modifier);
    std::memcpy(memory.at(kIn), mad.data(), mad.size());
  }
  ornic_admin_mad_ifc mad_ifc(uint32_t flags = ORNIC_MAD_IFC_FLAG_IGNORE_MKEY) {
    ornic_admin_mad_ifc c{};
    c.hdr.opcode = ORNIC_ADMIN_MAD_IFC;
    c.in_addr = to_le(kIn);
    c.out_addr = to_le(kOut);
    c.flags = to_le(flags);
    c.port = 1;
    return c;
  }
  template <typename Command>
  AdminResult execute(const Command& command) {
    ornic_admin_sqe sqe;
    static_assert(sizeof(sqe) == sizeof(command));
    std::memcpy(&sqe, &command, sizeof(sqe));
    return commands.execute(sqe);
  }
  uint8_t out(size_t offset) { return static_cast<uint8_t>(*memory.at(kOut + offset)); }
  uint32_t port_info_capability_mask() {
    put_smp(0x01, 0x0015);
    EXPECT_EQ(execute(mad_ifc()).result0, ORNIC_MAD_IFC_REPLY);
    return uint32_t{out(84)} << 24 | uint32_t{out(85)} << 16 | uint32_t{out(86)} << 8 | out(87);
  }

  FakeGuestMemory memory;
  RecordingInterruptSink irqs;
  NicCore core;
  AdminCommands commands;
};

TEST_F(AdminIb, MadIfcAnswersAGet) {
  put_smp(0x01, 0x0011, 0); // NodeInfo
  const AdminResult result = execute(mad_ifc());
  EXPECT_EQ(result.status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(result.result0, ORNIC_MAD_IFC_REPLY);
  EXPECT_EQ(out(3), 0x81);  // GetResp
  EXPECT_EQ(out(9), 0x42);  // transaction ID
  EXPECT_EQ(out(66), 1);    // NodeType CA
  EXPECT_EQ(out(91), 0x34); // PortGUID's last byte
}

TEST_F(AdminIb, MadIfcResults) {
  put_smp(0x01, 0x0020); // SMInfo: the subnet manager's
  EXPECT_EQ(execute(mad_ifc()).result0, ORNIC_MAD_IFC_NOT_HANDLED);
  put_smp(0x07, 0x0002); // TrapRepress
  EXPECT_EQ(execute(mad_ifc()).result0, ORNIC_MAD_IFC_CONSUMED);
  // A Get failing the M_Key check, without IGNORE_MKEY.
  core.ib.m_key = 7;
  core.ib.m_key_protect_bits = 2;
  put_smp(0x01, 0x0015);
  EXPECT_EQ(execute(mad_ifc(0)).result0, ORNIC_MAD_IFC_CONSUMED);
  EXPECT_EQ(core.ib.m_key_violations, 1);
  EXPECT_EQ(execute(mad_ifc()).result0, ORNIC_MAD_IFC_REPLY);
  // With a completion: the fields describe a real receive.
  auto with_wc = mad_ifc(ORNIC_MAD_IFC_FLAG_IGNORE_MKEY | ORNIC_MAD_IFC_FLAG_HAS_WC);
  with_wc.src_qp = to_le(0xffffffu);
  with_wc.slid = to_le<uint16_t>(3);
  with_wc.sl = 15;
  with_wc.pkey_index = to_le<uint16_t>(15);
  with_wc.dlid_path_bits = 1;
  EXPECT_EQ(execute(with_wc).result0, ORNIC_MAD_IFC_REPLY);
}

TEST_F(AdminIb, MadIfcBadFields) {
  put_smp(0x01, 0x0015);
  std::vector<ornic_admin_mad_ifc> bad(9, mad_ifc());
  bad[0].flags = to_le(4u);
  bad[1].port = 0;
  bad[2].port = 2;
  bad[3].reserved0 = 1;
  bad[4].reserved1[4] = to_le(1u);
  bad[5].slid = to_le<uint16_t>(1); // a completion field without HAS_WC
  bad[6].flags = to_le(uint32_t{ORNIC_MAD_IFC_FLAG_HAS_WC});
  bad[6].sl = 16;
  bad[7].flags = to_le(uint32_t{ORNIC_MAD_IFC_FLAG_HAS_WC});
  bad[7].src_qp = to_le(1u << 24);
  bad[8].flags = to_le(uint32_t{ORNIC_MAD_IFC_FLAG_HAS_WC});
  bad[8].pkey_index = to_le<uint16_t>(16);
  for (size_t i = 0; i < bad.size(); ++i)
    EXPECT_EQ(execute(bad[i]).status, ORNIC_ADMIN_STATUS_BAD_FIELD) << i;
  EXPECT_EQ(out(3), 0) << "nothing written";
}

TEST_F(AdminIb, MadIfcBadBuffersChangeNothing) {
  // A PortInfo Set giving the port LID 5, whose response cannot be written.
  put_smp(0x01, 0x0015);
  ASSERT_EQ(execute(mad_ifc()).result0, ORNIC_MAD_IFC_REPLY);
  std::memcpy(memory.at(kIn + 64), memory.at(kOut + 64), 64);
  *memory.at(kIn + 3) = std::byte{0x02}; // Set
  *memory.at(kIn + 64 + 17) = std::byte{5};
  *memory.at(kIn + 64 + 32) = std::byte{0x10}; // PortState: no change
  *memory.at(kIn + 64 + 33) = std::byte{0x02}; // PortPhysicalState: no change
  auto c = mad_ifc();
  c.out_addr = to_le<uint64_t>(kBase + 0x4000 - 128); // runs past guest memory
  EXPECT_EQ(execute(c).status, ORNIC_ADMIN_STATUS_BAD_DMA);
  EXPECT_EQ(core.ib.lid, 0);
  c = mad_ifc();
  c.in_addr = to_le<uint64_t>(0x100);
  EXPECT_EQ(execute(c).status, ORNIC_ADMIN_STATUS_BAD_DMA);
  EXPECT_EQ(core.counters.get(ORNIC_CNT_DMA_ERRORS), 2u);
  EXPECT_EQ(execute(mad_ifc()).result0, ORNIC_MAD_IFC_REPLY);
  EXPECT_EQ(core.ib.lid, 5);
}

TEST_F(AdminIb, ModifyPortSetsSoftwaresCapabilityBits) {
  ornic_admin_modify_port c{};
  c.hdr.opcode = ORNIC_ADMIN_MODIFY_PORT;
  c.port = 1;
  c.set_cap_mask = to_le(0x0000'0002u | 0x0001'0000u); // IsSM, IsCommunicationManagement
  EXPECT_EQ(execute(c).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(port_info_capability_mask() & ORNIC_PORT_CAP_SW_MASK, 0x0001'0002u);
  c.set_cap_mask = 0;
  c.clr_cap_mask = to_le(0x0000'0002u);
  EXPECT_EQ(execute(c).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(port_info_capability_mask() & ORNIC_PORT_CAP_SW_MASK, 0x0001'0000u);
  // The device's own bits stay whatever software asks.
  EXPECT_NE(port_info_capability_mask() & ~ORNIC_PORT_CAP_SW_MASK, 0u);
  core.ib.q_key_violations = 9;
  c.clr_cap_mask = 0;
  c.flags = to_le(uint32_t{ORNIC_MODIFY_PORT_RESET_QKEY_CNTR});
  EXPECT_EQ(execute(c).status, ORNIC_ADMIN_STATUS_SUCCESS);
  EXPECT_EQ(core.ib.q_key_violations, 0);
}

TEST_F(AdminIb, ModifyPortBadFields) {
  ornic_admin_modify_port good{};
  good.hdr.opcode = ORNIC_ADMIN_MODIFY_PORT;
  good.port = 1;
  std::vector<ornic_admin_modify_port> bad(7, good);
  bad[0].set_cap_mask = to_le(0x0000'0008u); // IsTrapSupported is the device's
  bad[1].clr_cap_mask = to_le(0x0200'0000u);
  bad[2].set_cap_mask = bad[2].clr_cap_mask = to_le(0x0000'0002u);
  bad[3].flags = to_le(2u);
  bad[4].port = 2;
  bad[5].reserved0[1] = 1;
  bad[6].reserved1[9] = to_le(1u);
  for (size_t i = 0; i < bad.size(); ++i)
    EXPECT_EQ(execute(bad[i]).status, ORNIC_ADMIN_STATUS_BAD_FIELD) << i;
  EXPECT_EQ(core.ib.sw_capability_mask, 0u);
}

TEST_F(AdminIb, EthernetPortHasNeither) {
  core.ib.enabled = false;
  put_smp(0x01, 0x0011, 0);
  EXPECT_EQ(execute(mad_ifc()).status, ORNIC_ADMIN_STATUS_BAD_OPCODE);
  ornic_admin_modify_port c{};
  c.hdr.opcode = ORNIC_ADMIN_MODIFY_PORT;
  c.port = 1;
  EXPECT_EQ(execute(c).status, ORNIC_ADMIN_STATUS_BAD_OPCODE);
  EXPECT_EQ(out(3), 0);
}

} // namespace
} // namespace ornic::test
