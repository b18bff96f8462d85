// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_eq: the EQ's command and the EQE types the driver knows (ornic_eq.c).
 */
#include <kunit/test.h>

#include "ornic.h"
#include "ornic_kunit.h"

static void ornic_cmd_create_eq_layout(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_create_eq *eq = (void *)&sqe;
	struct ornic_mem_desc mem;

	ornic_mem_desc_contig(&mem, 0x10000, 16 << 10, 12);
	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_create_eq(&sqe, &mem, 10, 3);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_CREATE_EQ);
	KUNIT_EXPECT_EQ(test, eq->log_depth, 10);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(eq->msix_vector), 3);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(eq->mem.num_pages), 4U);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(eq->reserved1,
					       sizeof(eq->reserved1)));
}

static void ornic_devval_eqe_type(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ornic_eqe_type_valid(ORNIC_EQE_COMPLETION));
	KUNIT_EXPECT_TRUE(test, ornic_eqe_type_valid(ORNIC_EQE_QP_FATAL));
	KUNIT_EXPECT_TRUE(test, ornic_eqe_type_valid(ORNIC_EQE_DEVICE_FATAL));
	KUNIT_EXPECT_TRUE(test, ornic_eqe_type_valid(ORNIC_EQE_PAGE_FAULT));
	KUNIT_EXPECT_TRUE(test, ornic_eqe_type_valid(ORNIC_EQE_PORT_CHANGE));
	/* Holes and values past the last type. */
	KUNIT_EXPECT_FALSE(test, ornic_eqe_type_valid(0x07));
	KUNIT_EXPECT_FALSE(test, ornic_eqe_type_valid(0x0b));
	KUNIT_EXPECT_FALSE(test, ornic_eqe_type_valid(0x0f));
	KUNIT_EXPECT_FALSE(test, ornic_eqe_type_valid(0x14));
	KUNIT_EXPECT_FALSE(test, ornic_eqe_type_valid(0xff));
}

static struct kunit_case ornic_eq_cases[] = {
	KUNIT_CASE(ornic_cmd_create_eq_layout),
	KUNIT_CASE(ornic_devval_eqe_type),
	{}
};

static struct kunit_suite ornic_eq_suite = {
	.name = "ornic_eq",
	.test_cases = ornic_eq_cases,
};

kunit_test_suites(&ornic_eq_suite);
