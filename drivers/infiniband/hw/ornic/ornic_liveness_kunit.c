// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_liveness: the liveness layer (ornic_liveness.c): the DEV_STATUS that
 * confirms a reset.
 */
#include <kunit/test.h>

#include "ornic_liveness.h"

static void ornic_devval_reset_done(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ornic_reset_done(0));
	KUNIT_EXPECT_TRUE(test, ornic_reset_done(~0U));	/* device gone */
	/* ENABLE_FAILED is a disabled device: no DMA either. */
	KUNIT_EXPECT_TRUE(test, ornic_reset_done(ORNIC_DEV_STATUS_ENABLE_FAILED));
	/* The posted reset has not landed yet, or is still running. */
	KUNIT_EXPECT_FALSE(test, ornic_reset_done(ORNIC_DEV_STATUS_READY));
	KUNIT_EXPECT_FALSE(test, ornic_reset_done(ORNIC_DEV_STATUS_FATAL));
	KUNIT_EXPECT_FALSE(test, ornic_reset_done(ORNIC_DEV_STATUS_RESETTING));
	KUNIT_EXPECT_FALSE(test, ornic_reset_done(ORNIC_DEV_STATUS_READY |
						  ORNIC_DEV_STATUS_FATAL));
}

static struct kunit_case ornic_liveness_cases[] = {
	KUNIT_CASE(ornic_devval_reset_done),
	{}
};

static struct kunit_suite ornic_liveness_suite = {
	.name = "ornic_liveness",
	.test_cases = ornic_liveness_cases,
};

kunit_test_suites(&ornic_liveness_suite);
