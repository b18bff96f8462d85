// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_dcb: the DCB settings in the device's terms
 * (ornic_dcb_cmd.c): what is taken from dcbnl and what is refused, the
 * PORT_QOS commands and struct ornic_port_qos, ethtool's counter order.
 */
#include <kunit/test.h>

#include "ornic_admin_cmd.h"
#include "ornic_dcb_cmd.h"
#include "ornic_kunit.h"

static void ornic_cmd_port_qos_layout(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_port_qos *c = (void *)&sqe;

	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_port_qos(&sqe, ORNIC_ADMIN_SET_PORT_QOS, 0x1234567000ULL,
			   sizeof(struct ornic_port_qos));
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_SET_PORT_QOS);
	KUNIT_EXPECT_EQ(test, sqe.hdr.flags, 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->addr), 0x1234567000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->len), 128U);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(c->reserved,
					       sizeof(c->reserved)));
	ornic_cmd_port_qos(&sqe, ORNIC_ADMIN_QUERY_PORT_QOS, 0x2000,
			   sizeof(struct ornic_port_qos_query));
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_QUERY_PORT_QOS);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->len), 896U);
	KUNIT_EXPECT_STREQ(test,
			   ornic_admin_opcode_str(ORNIC_ADMIN_SET_PORT_QOS),
			   "SET_PORT_QOS");
	KUNIT_EXPECT_STREQ(test,
			   ornic_admin_opcode_str(ORNIC_ADMIN_QUERY_PORT_QOS),
			   "QUERY_PORT_QOS");
}

/* Two ETS classes of 50 %, the rest strict: what dcb-ets(8) shows. */
static void ornic_dcb_ets_two_classes(struct ieee_ets *ets)
{
	unsigned int i;

	memset(ets, 0, sizeof(*ets));
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++)
		ets->prio_tc[i] = i == 3 ? 1 : 0;
	ets->tc_tsa[0] = IEEE_8021QAZ_TSA_ETS;
	ets->tc_tsa[1] = IEEE_8021QAZ_TSA_ETS;
	ets->tc_tx_bw[0] = 50;
	ets->tc_tx_bw[1] = 50;
}

static void ornic_dcb_ets_taken_and_refused(struct kunit *test)
{
	struct ieee_ets ets;

	memset(&ets, 0, sizeof(ets));
	KUNIT_EXPECT_EQ(test, ornic_dcb_ets_check(&ets), 0); /* all strict */
	ornic_dcb_ets_two_classes(&ets);
	KUNIT_EXPECT_EQ(test, ornic_dcb_ets_check(&ets), 0);
	/* Strict classes' bandwidth is ignored, not summed. */
	ets.tc_tx_bw[5] = 30;
	KUNIT_EXPECT_EQ(test, ornic_dcb_ets_check(&ets), 0);

	ornic_dcb_ets_two_classes(&ets);
	ets.tc_tx_bw[1] = 40; /* ETS sum 90 */
	KUNIT_EXPECT_EQ(test, ornic_dcb_ets_check(&ets), -EINVAL);
	ornic_dcb_ets_two_classes(&ets);
	ets.tc_tx_bw[1] = 51; /* ETS sum 101 */
	KUNIT_EXPECT_EQ(test, ornic_dcb_ets_check(&ets), -EINVAL);
	ornic_dcb_ets_two_classes(&ets);
	ets.tc_tx_bw[6] = 101; /* a percentage past 100, even strict */
	KUNIT_EXPECT_EQ(test, ornic_dcb_ets_check(&ets), -EINVAL);
	ornic_dcb_ets_two_classes(&ets);
	ets.prio_tc[7] = IEEE_8021QAZ_MAX_TCS; /* no such TC */
	KUNIT_EXPECT_EQ(test, ornic_dcb_ets_check(&ets), -EINVAL);
	ornic_dcb_ets_two_classes(&ets);
	ets.tc_tsa[2] = IEEE_8021QAZ_TSA_CB_SHAPER;
	KUNIT_EXPECT_EQ(test, ornic_dcb_ets_check(&ets), -EINVAL);
	ornic_dcb_ets_two_classes(&ets);
	ets.tc_tsa[2] = IEEE_8021QAZ_TSA_VENDOR;
	KUNIT_EXPECT_EQ(test, ornic_dcb_ets_check(&ets), -EINVAL);
}

static void ornic_dcb_app_taken_and_refused(struct kunit *test)
{
	struct dcb_app app = {
		.selector = IEEE_8021QAZ_APP_SEL_DSCP,
		.protocol = 26,
		.priority = 3,
	};

	KUNIT_EXPECT_EQ(test, ornic_dcb_app_check(&app), 0);
	app.protocol = 63;
	KUNIT_EXPECT_EQ(test, ornic_dcb_app_check(&app), 0);
	app.protocol = 64;
	KUNIT_EXPECT_EQ(test, ornic_dcb_app_check(&app), -EINVAL);
	app.protocol = 26;
	app.priority = 8;
	KUNIT_EXPECT_EQ(test, ornic_dcb_app_check(&app), -EINVAL);
	app.priority = 7;
	app.selector = IEEE_8021QAZ_APP_SEL_ETHERTYPE;
	app.protocol = 0x8915;
	KUNIT_EXPECT_EQ(test, ornic_dcb_app_check(&app), 0);
	app.selector = IEEE_8021QAZ_APP_SEL_STREAM;
	app.protocol = 4791;
	KUNIT_EXPECT_EQ(test, ornic_dcb_app_check(&app), -EINVAL);
	app.selector = IEEE_8021QAZ_APP_SEL_DGRAM;
	KUNIT_EXPECT_EQ(test, ornic_dcb_app_check(&app), -EINVAL);
	app.selector = 0;
	KUNIT_EXPECT_EQ(test, ornic_dcb_app_check(&app), -EINVAL);
}

static void ornic_dcb_fill_layout(struct kunit *test)
{
	struct ieee_pfc pfc = { .pfc_en = 0x08, .mbc = 1, .delay = 7 };
	struct dcb_ieee_app_dscp_map map = {};
	struct ornic_port_qos q;
	struct ieee_ets ets;

	ornic_dcb_ets_two_classes(&ets);
	map.map[26] = BIT(3);
	map.map[46] = BIT(1) | BIT(5); /* two entries: the higher wins */
	memset(&q, 0xff, sizeof(q));
	ornic_dcb_fill(&pfc, &ets, &map, &q);
	KUNIT_EXPECT_EQ(test, q.pfc_enable, 0x08);
	KUNIT_EXPECT_EQ(test, q.prio_tc[3], 1);
	KUNIT_EXPECT_EQ(test, q.prio_tc[2], 0);
	KUNIT_EXPECT_EQ(test, q.tc_bw[0], 50);
	KUNIT_EXPECT_EQ(test, q.tc_bw[1], 50);
	KUNIT_EXPECT_EQ(test, q.tc_tsa[1], ORNIC_QOS_TSA_ETS);
	KUNIT_EXPECT_EQ(test, q.tc_tsa[2], ORNIC_QOS_TSA_STRICT);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q.dscp_valid),
			BIT_ULL(26) | BIT_ULL(46));
	KUNIT_EXPECT_EQ(test, q.dscp_prio[26], 3);
	KUNIT_EXPECT_EQ(test, q.dscp_prio[46], 5);
	KUNIT_EXPECT_EQ(test, q.dscp_prio[0], 0);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(q.reserved0,
					       sizeof(q.reserved0)));
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(q.reserved1,
					       sizeof(q.reserved1)));
}

/* Every counter lands under its own name, for every priority. */
static void ornic_dcb_stats_order(struct kunit *test)
{
	static const char * const names[ORNIC_PRIO_STATS] = {
		"rx_prio%u_packets", "rx_prio%u_bytes",
		"tx_prio%u_packets", "tx_prio%u_bytes",
		"rx_prio%u_pause", "tx_prio%u_pause",
		"rx_prio%u_pause_duration", "tx_prio%u_pause_duration",
		"rx_prio%u_pause_transition",
		"rx_prio%u_discards", "tx_prio%u_discards",
	};
	struct ornic_port_qos_query *q;
	struct ornic_prio_counters *c;
	u64 *data;
	unsigned int p, i;

	q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	data = kunit_kcalloc(test, ORNIC_QOS_NUM_PRIO * ORNIC_PRIO_STATS,
			     sizeof(*data), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_NOT_NULL(test, data);
	for (p = 0; p < ORNIC_QOS_NUM_PRIO; p++) {
		c = &q->prio[p];
		/* value = 100 * priority + the name's index */
		c->rx_frames = cpu_to_le64(100 * p + 0);
		c->rx_bytes = cpu_to_le64(100 * p + 1);
		c->tx_frames = cpu_to_le64(100 * p + 2);
		c->tx_bytes = cpu_to_le64(100 * p + 3);
		c->rx_pause = cpu_to_le64(100 * p + 4);
		c->tx_pause = cpu_to_le64(100 * p + 5);
		c->rx_pause_duration = cpu_to_le64(100 * p + 6);
		c->tx_pause_duration = cpu_to_le64(100 * p + 7);
		c->rx_pause_transitions = cpu_to_le64(100 * p + 8);
		c->rx_discards = cpu_to_le64(100 * p + 9);
		c->tx_discards = cpu_to_le64(100 * p + 10);
		c->reserved = cpu_to_le64(U64_MAX);
	}
	ornic_dcb_stats_from(q, data);
	for (p = 0; p < ORNIC_QOS_NUM_PRIO; p++)
		for (i = 0; i < ORNIC_PRIO_STATS; i++)
			KUNIT_EXPECT_EQ(test, data[p * ORNIC_PRIO_STATS + i],
					(u64)(100 * p + i));
	for (i = 0; i < ORNIC_PRIO_STATS; i++)
		KUNIT_EXPECT_STREQ(test, ornic_dcb_stat_name(i), names[i]);
	KUNIT_EXPECT_NULL(test, ornic_dcb_stat_name(ORNIC_PRIO_STATS));
}

static struct kunit_case ornic_dcb_cases[] = {
	KUNIT_CASE(ornic_cmd_port_qos_layout),
	KUNIT_CASE(ornic_dcb_ets_taken_and_refused),
	KUNIT_CASE(ornic_dcb_app_taken_and_refused),
	KUNIT_CASE(ornic_dcb_fill_layout),
	KUNIT_CASE(ornic_dcb_stats_order),
	{}
};

static struct kunit_suite ornic_dcb_suite = {
	.name = "ornic_dcb",
	.test_cases = ornic_dcb_cases,
};

kunit_test_suites(&ornic_dcb_suite);
