// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_ah: the AH command (ornic_ah.c).
 */
#include <kunit/test.h>

#include "ornic_kunit.h"
#include "ornic_res.h"

static void ornic_cmd_create_ah_layout(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_create_ah *c = (void *)&sqe;
	const u8 *b = (const u8 *)&sqe;
	struct ornic_av av = {
		.dgid = { 0xfe, 0x80, [15] = 0x01 },
		.dmac = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x2a },
		.sgid_index = 3,
		.hop_limit = 64,
		.traffic_class = 0x18,
		.flow_label = 0xabcde,
		.udp_sport = 0xc000,
	};

	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_create_ah(&sqe, 0x42, &av);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_CREATE_AH);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->pd), 0x42U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->flow_label), 0xabcdeU);
	KUNIT_EXPECT_EQ(test, memcmp(c->dgid, av.dgid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(c->dmac, av.dmac, 6), 0);
	KUNIT_EXPECT_EQ(test, c->sgid_index, 3);
	KUNIT_EXPECT_EQ(test, c->hop_limit, 64);
	KUNIT_EXPECT_EQ(test, c->traffic_class, 0x18);
	KUNIT_EXPECT_EQ(test, c->reserved0, 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->udp_sport), 0xc000);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(c->reserved1,
					       sizeof(c->reserved1)));
	/* dgid at 16 as asserted; flow label little-endian at 12. */
	KUNIT_EXPECT_EQ(test, b[16], 0xfe);
	KUNIT_EXPECT_EQ(test, b[31], 0x01);
	KUNIT_EXPECT_EQ(test, b[12], 0xde);
	KUNIT_EXPECT_EQ(test, b[14], 0x0a);
	KUNIT_EXPECT_EQ(test, b[37], 0x2a);
}

static struct kunit_case ornic_ah_cases[] = {
	KUNIT_CASE(ornic_cmd_create_ah_layout),
	{}
};

static struct kunit_suite ornic_ah_suite = {
	.name = "ornic_ah",
	.test_cases = ornic_ah_cases,
};

kunit_test_suites(&ornic_ah_suite);
