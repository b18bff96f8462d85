// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_cc: the congestion control knobs (ornic_cc_knob.c): CC_CONFIG, and
 * each knob's name, value and range.
 */
#include <kunit/test.h>

#include "ornic_admin_cmd.h"
#include "ornic_cc_knob.h"

static void ornic_cmd_cc_config_layout(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_cc_config *c = (void *)&sqe;
	unsigned int i;

	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_cc_config(&sqe, ORNIC_CC_CONFIG_SET, 0x123456789000ULL);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_CC_CONFIG);
	KUNIT_EXPECT_EQ(test, sqe.hdr.flags, 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->params_addr), 0x123456789000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->params_len),
			(u32)sizeof(struct ornic_cc_params));
	KUNIT_EXPECT_EQ(test, c->op, ORNIC_CC_CONFIG_SET);
	for (i = 0; i < ARRAY_SIZE(c->reserved0); i++)
		KUNIT_EXPECT_EQ(test, c->reserved0[i], 0);
	for (i = 0; i < ARRAY_SIZE(c->reserved1); i++)
		KUNIT_EXPECT_EQ(test, le32_to_cpu(c->reserved1[i]), 0U);
	KUNIT_EXPECT_STREQ(test, ornic_admin_opcode_str(ORNIC_ADMIN_CC_CONFIG),
			   "CC_CONFIG");
}

/* The model's defaults (roce.rst "Congestion control"). */
static void ornic_cc_defaults(struct ornic_cc_params *p)
{
	memset(p, 0, sizeof(*p));
	p->flags = cpu_to_le32(ORNIC_CC_FLAGS_ALL);
	p->ect = ORNIC_CC_ECT_0;
	p->np_cnp_dscp = 48;
	p->np_min_time_between_cnps = cpu_to_le32(4);
	p->rp_max_rate = cpu_to_le32(100000);
	p->rp_min_rate = cpu_to_le32(10);
	p->rp_ai_rate = cpu_to_le32(5);
	p->rp_hai_rate = cpu_to_le32(50);
	p->rp_time_reset = cpu_to_le32(300);
	p->rp_threshold = cpu_to_le32(5);
	p->rp_dce_tcp_rtt = cpu_to_le32(55);
}

static void ornic_cc_knobs(struct kunit *test)
{
	struct ornic_cc_params p, before;
	unsigned int knob;
	u32 min, max;

	ornic_cc_defaults(&p);
	/*
	 * Every knob has a name and reads back what it sets (last to first:
	 * the rates below rp_max_rate go to 1 before it does).
	 */
	for (knob = ORNIC_CC_KNOB_COUNT; knob-- > 0;) {
		KUNIT_EXPECT_NOT_NULL(test, ornic_cc_knob_name(knob));
		KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, knob, 1, &min, &max),
				0);
		KUNIT_EXPECT_EQ(test, ornic_cc_knob_get(&p, knob), 1U);
	}
	KUNIT_EXPECT_NULL(test, ornic_cc_knob_name(ORNIC_CC_KNOB_COUNT));
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_COUNT, 0,
						&min, &max), -EINVAL);

	/* Flags: each enable is its own bit. */
	ornic_cc_defaults(&p);
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_NP_ENABLE, 0,
						&min, &max), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(p.flags), ORNIC_CC_FLAG_RP_ENABLE);
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_get(&p, ORNIC_CC_KNOB_RP_ENABLE), 1U);

	/* Out of range: -EINVAL, the range reported, nothing changed. */
	ornic_cc_defaults(&p);
	before = p;
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_ECT, 3,
						&min, &max), -EINVAL);
	KUNIT_EXPECT_EQ(test, max, (u32)ORNIC_CC_ECT_0);
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_NP_CNP_DSCP, 64,
						&min, &max), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_RP_THRESHOLD, 0,
						&min, &max), -EINVAL);
	KUNIT_EXPECT_EQ(test, min, 1U);
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_NP_ENABLE, 2,
						&min, &max), -EINVAL);
	/* Rates depend on each other: min <= max, ai and hai <= max. */
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_RP_MIN_RATE,
						100001, &min, &max), -EINVAL);
	KUNIT_EXPECT_EQ(test, max, 100000U);
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_RP_MAX_RATE, 49,
						&min, &max), -EINVAL);
	KUNIT_EXPECT_EQ(test, min, 50U); /* the hai rate */
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_RP_MAX_RATE,
						ORNIC_CC_MAX_RATE_MBPS + 1,
						&min, &max), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_RP_TIME_RESET,
						0, &min, &max), -EINVAL);
	KUNIT_EXPECT_EQ(test,
			ornic_cc_knob_set(&p, ORNIC_CC_KNOB_RP_DCE_TCP_G,
					  ORNIC_CC_ALPHA_ONE + 1, &min, &max),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, memcmp(&p, &before, sizeof(p)), 0);
	/* In range: only that field changes. */
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_RP_MAX_RATE, 50,
						&min, &max), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(p.rp_max_rate), 50U);
	p.rp_max_rate = before.rp_max_rate;
	KUNIT_EXPECT_EQ(test, memcmp(&p, &before, sizeof(p)), 0);
}

static struct kunit_case ornic_cc_cases[] = {
	KUNIT_CASE(ornic_cmd_cc_config_layout),
	KUNIT_CASE(ornic_cc_knobs),
	{}
};

static struct kunit_suite ornic_cc_suite = {
	.name = "ornic_cc",
	.test_cases = ornic_cc_cases,
};

kunit_test_suites(&ornic_cc_suite);
