// The JSON state dump (ornic-model on SIGUSR1 and at exit): every counter by the driver's
// name with the device's value, the object counts, each QP with its state, rings and
// counters, and the QUERY_COUNTERS view and the dump agreeing.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "driver_harness.hpp"
#include "nic/state_dump.hpp"

namespace ornic::test {
namespace {

TEST(NicStateDump, CounterNamesAreTheDriversAndUnique) {
  std::set<std::string> names;
  for (uint32_t i = 0; i < ORNIC_CNT_COUNT; ++i) {
    const auto name = counter_name(static_cast<ornic_counter_id>(i));
    EXPECT_FALSE(name.empty()) << "counter " << i;
    names.emplace(name);
  }
  EXPECT_EQ(names.size(), size_t{ORNIC_CNT_COUNT});
  EXPECT_EQ(counter_name(ORNIC_CNT_ADMIN_COMMANDS), "admin_commands");
  EXPECT_EQ(counter_name(ORNIC_CNT_TX_RDMA_PACKETS), "tx_rdma_packets");
  EXPECT_EQ(counter_name(ORNIC_CNT_RX_PEER_MISMATCH), "rx_peer_mismatch");
  // Not a counter: no name, no crash.
  EXPECT_TRUE(counter_name(static_cast<ornic_counter_id>(ORNIC_CNT_COUNT)).empty());
  EXPECT_TRUE(counter_name(static_cast<ornic_counter_id>(0xffffffffu)).empty());
}

TEST(NicStateDump, BeforeEnableTheDeviceIsEmptyAndNotReady) {
  DriverHarness h;
  const nlohmann::json s = h.device.state();
  EXPECT_FALSE(s.at("ready").get<bool>());
  EXPECT_EQ(s.at("spec_version"), "1.0");
  EXPECT_EQ(s.at("mac"), "02:00:00:00:00:01");
  EXPECT_EQ(s.at("objects").at("qps"), 0u);
  EXPECT_TRUE(s.at("qps").empty());
  EXPECT_EQ(s.at("counters").size(), size_t{ORNIC_CNT_COUNT});
  for (const auto& [name, value] : s.at("counters").items())
    EXPECT_EQ(value, 0u) << name;
}

TEST(NicStateDump, CountersObjectsAndQpsMatchTheDevice) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up(32));
  const uint32_t cqn = h.create_cq(h.create_eq());
  const uint32_t pd = h.alloc_pd();
  const uint32_t qpn = h.create_qp(pd, cqn);
  // One refused command: counted as an error.
  EXPECT_EQ(h.execute(DriverHarness::simple(ORNIC_ADMIN_DESTROY_QP, 999)).status,
            ORNIC_ADMIN_STATUS_BAD_HANDLE);

  const nlohmann::json s = h.device.state();
  EXPECT_TRUE(s.at("ready").get<bool>());
  EXPECT_EQ(s.at("fatal"), 0u);
  const auto& counters = s.at("counters");
  for (uint32_t i = 0; i < ORNIC_CNT_COUNT; ++i) {
    const auto id = static_cast<ornic_counter_id>(i);
    EXPECT_EQ(counters.at(std::string(counter_name(id))).get<uint64_t>(), h.counter(id))
        << counter_name(id);
  }
  EXPECT_GE(counters.at("admin_commands").get<uint64_t>(), 5u);
  EXPECT_EQ(counters.at("admin_bad_handle"), 1u);
  EXPECT_EQ(counters.at("admin_errors"), 1u);

  // What QUERY_COUNTERS gives the driver is what the dump shows.
  const uint64_t before = h.counter(ORNIC_CNT_ADMIN_COMMANDS);
  const ornic_device_counters queried = h.query_counters();
  EXPECT_EQ(le(queried.counter[ORNIC_CNT_ADMIN_COMMANDS]), before + 1);

  const auto& objects = s.at("objects");
  EXPECT_EQ(objects.at("eqs"), 1u);
  EXPECT_EQ(objects.at("cqs"), 1u);
  EXPECT_EQ(objects.at("pds"), 1u);
  EXPECT_EQ(objects.at("qps"), 1u);
  EXPECT_EQ(objects.at("srqs"), 0u);
  ASSERT_EQ(s.at("qps").size(), 1u);
  const auto& qp = s.at("qps").at(0);
  EXPECT_EQ(qp.at("qpn"), qpn);
  EXPECT_EQ(qp.at("type"), static_cast<unsigned>(ORNIC_QPT_RC));
  EXPECT_EQ(qp.at("state"), static_cast<unsigned>(ORNIC_QPS_RESET));
  EXPECT_EQ(qp.at("send_cqn"), cqn);
  EXPECT_GT(qp.at("sq").at("log_depth").get<unsigned>(), 0u);
  EXPECT_EQ(qp.at("sq").at("producer"), 0u);
  EXPECT_EQ(qp.at("counters").at("send_wqes"), 0u);
  EXPECT_EQ(qp.at("counters").size(), 14u);

  // The dump is a document: it survives a text round trip.
  EXPECT_EQ(nlohmann::json::parse(s.dump()), s);
}

TEST(NicStateDump, ResetEmptiesIt) {
  DriverHarness h;
  ASSERT_TRUE(h.bring_up(32));
  h.create_qp(h.alloc_pd(), h.create_cq(h.create_eq()));
  h.device.reset();
  const nlohmann::json s = h.device.state();
  EXPECT_FALSE(s.at("ready").get<bool>());
  EXPECT_TRUE(s.at("qps").empty());
  EXPECT_EQ(s.at("counters").at("admin_commands"), 0u);
}

} // namespace
} // namespace ornic::test
