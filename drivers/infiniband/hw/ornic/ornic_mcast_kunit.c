// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_mcast: multicast groups and their commands (ornic_mcast.c).
 */
#include <kunit/test.h>

#include "ornic_kunit.h"
#include "ornic_res.h"

static void ornic_cmd_mcast_encoding(struct kunit *test)
{
	static const u8 v4[16] = { [10] = 0xff, [11] = 0xff, 239, 1, 2, 3 };
	static const u8 v6[16] = { 0xff, 0x0e, [15] = 1 };
	static const u8 v4_unicast[16] = { [10] = 0xff, [11] = 0xff, 10, 0,
					   0, 1 };
	static const u8 v6_unicast[16] = { 0xfe, 0x80, [15] = 1 };
	static const u8 v1_style[16] = { 0xff, 0x0e, [10] = 0xff,
					 [11] = 0xff, 239, 1, 2, 3 };
	struct ornic_admin_sqe sqe;
	struct ornic_admin_mcast *m = (void *)&sqe;

	KUNIT_EXPECT_TRUE(test, ornic_gid_is_mcast(v4));
	KUNIT_EXPECT_TRUE(test, ornic_gid_is_mcast(v6));
	KUNIT_EXPECT_TRUE(test, ornic_gid_is_mcast(v1_style));
	KUNIT_EXPECT_FALSE(test, ornic_gid_is_mcast(v4_unicast));
	KUNIT_EXPECT_FALSE(test, ornic_gid_is_mcast(v6_unicast));

	KUNIT_EXPECT_EQ(test, ornic_cmd_mcast(&sqe, true, 77, v4), 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_ATTACH_MCAST);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(m->qpn), 77U);
	KUNIT_EXPECT_MEMEQ(test, m->gid, v4, 16);
	KUNIT_EXPECT_EQ(test, m->reserved0, 0U);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(m->reserved1,
					       sizeof(m->reserved1)));

	KUNIT_EXPECT_EQ(test, ornic_cmd_mcast(&sqe, false, 78, v6), 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_DETACH_MCAST);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(m->qpn), 78U);
	KUNIT_EXPECT_MEMEQ(test, m->gid, v6, 16);

	/* A unicast GID or a QPN beyond 24 bits is no command. */
	KUNIT_EXPECT_EQ(test, ornic_cmd_mcast(&sqe, true, 77, v4_unicast),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cmd_mcast(&sqe, true, 77, v6_unicast),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cmd_mcast(&sqe, true, 1U << 24, v4),
			-EINVAL);
}

static struct kunit_case ornic_mcast_cases[] = {
	KUNIT_CASE(ornic_cmd_mcast_encoding),
	{}
};

static struct kunit_suite ornic_mcast_suite = {
	.name = "ornic_mcast",
	.test_cases = ornic_mcast_cases,
};

kunit_test_suites(&ornic_mcast_suite);
