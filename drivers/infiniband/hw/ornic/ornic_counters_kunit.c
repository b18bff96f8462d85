// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_counters: QUERY_COUNTERS (ornic_counters.c).
 */
#include <kunit/test.h>

#include "ornic.h"

static void ornic_cmd_counters(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_query_counters *q = (void *)&sqe;

	ornic_cmd_query_counters(&sqe, ORNIC_COUNTER_SCOPE_QP, 17, 0x2000, 128);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_QUERY_COUNTERS);
	KUNIT_EXPECT_EQ(test, q->scope, ORNIC_COUNTER_SCOPE_QP);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q->handle), 17U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q->resp_len), 128U);
}

static struct kunit_case ornic_counters_cases[] = {
	KUNIT_CASE(ornic_cmd_counters),
	{}
};

static struct kunit_suite ornic_counters_suite = {
	.name = "ornic_counters",
	.test_cases = ornic_counters_cases,
};

kunit_test_suites(&ornic_counters_suite);
