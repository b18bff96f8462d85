// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_umem: the page arithmetic of pinned memory (ornic_umem.c): page sizes
 * for MRs and rings, page list modes and entries, an MR's page count.
 */
#include <kunit/test.h>

#include "ornic_res.h"

static void ornic_pgsz_bitmaps(struct kunit *test)
{
	u64 cap = BIT_ULL(11) | BIT_ULL(12) | BIT_ULL(21) | BIT_ULL(30) |
		  BIT_ULL(31);
	u64 valid = BIT_ULL(12) | BIT_ULL(21) | BIT_ULL(30);

	/* Only 2^12..2^30 exist in a memory descriptor. */
	KUNIT_EXPECT_EQ(test, ornic_mr_pgsz_bitmap(cap), valid);
	/* A ring must start at its first page: no page beyond its alignment. */
	KUNIT_EXPECT_EQ(test, ornic_ring_pgsz_bitmap(cap, 0x7f0000200000ULL),
			BIT_ULL(12) | BIT_ULL(21));
	KUNIT_EXPECT_EQ(test, ornic_ring_pgsz_bitmap(cap, 0x7f0000201000ULL),
			BIT_ULL(12));
	KUNIT_EXPECT_EQ(test, ornic_ring_pgsz_bitmap(cap, 0x7f0000200800ULL),
			0ULL);
	KUNIT_EXPECT_EQ(test, ornic_ring_pgsz_bitmap(cap, 0), valid);
}

static void ornic_pbl_modes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ornic_pbl_mode(0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_pbl_mode(1), ORNIC_MEM_MODE_DIRECT);
	KUNIT_EXPECT_EQ(test, ornic_pbl_mode(512), ORNIC_MEM_MODE_DIRECT);
	KUNIT_EXPECT_EQ(test, ornic_pbl_mode(513), ORNIC_MEM_MODE_INDIRECT);
	KUNIT_EXPECT_EQ(test, ornic_pbl_mode(262144), ORNIC_MEM_MODE_INDIRECT);
	KUNIT_EXPECT_EQ(test, ornic_pbl_mode(262145), -E2BIG);
	KUNIT_EXPECT_EQ(test, ornic_pbl_ptr_pages(1), 1U);
	KUNIT_EXPECT_EQ(test, ornic_pbl_ptr_pages(512), 1U);
	KUNIT_EXPECT_EQ(test, ornic_pbl_ptr_pages(513), 2U);
	KUNIT_EXPECT_EQ(test, ornic_pbl_ptr_pages(262144), 512U);
}

static void ornic_pbl_locate_split(struct kunit *test)
{
	u32 ptr, ent;

	ornic_pbl_locate(0, &ptr, &ent);
	KUNIT_EXPECT_EQ(test, ptr, 0U);
	KUNIT_EXPECT_EQ(test, ent, 0U);
	ornic_pbl_locate(511, &ptr, &ent);
	KUNIT_EXPECT_EQ(test, ptr, 0U);
	KUNIT_EXPECT_EQ(test, ent, 511U);
	ornic_pbl_locate(512, &ptr, &ent);
	KUNIT_EXPECT_EQ(test, ptr, 1U);
	KUNIT_EXPECT_EQ(test, ent, 0U);
	ornic_pbl_locate(262143, &ptr, &ent);
	KUNIT_EXPECT_EQ(test, ptr, 511U);
	KUNIT_EXPECT_EQ(test, ent, 511U);
}

static void ornic_mr_pages(struct kunit *test)
{
	/* spec: num_pages = ceil((first_page_offset + length) / page_size) */
	KUNIT_EXPECT_EQ(test, ornic_mr_num_pages(0x1000, 0x1000, 12), 1ULL);
	KUNIT_EXPECT_EQ(test, ornic_mr_num_pages(0x1800, 0x1000, 12), 2ULL);
	KUNIT_EXPECT_EQ(test, ornic_mr_num_pages(0x1fff, 1, 12), 1ULL);
	KUNIT_EXPECT_EQ(test, ornic_mr_num_pages(0x1fff, 2, 12), 2ULL);
	KUNIT_EXPECT_EQ(test, ornic_mr_num_pages(0, 1ULL << 30, 21), 512ULL);
	KUNIT_EXPECT_EQ(test, ornic_mr_num_pages(0x1000, 0, 12), 0ULL);
}

static struct kunit_case ornic_umem_cases[] = {
	KUNIT_CASE(ornic_pgsz_bitmaps),
	KUNIT_CASE(ornic_pbl_modes),
	KUNIT_CASE(ornic_pbl_locate_split),
	KUNIT_CASE(ornic_mr_pages),
	{}
};

static struct kunit_suite ornic_umem_suite = {
	.name = "ornic_umem",
	.test_cases = ornic_umem_cases,
};

kunit_test_suites(&ornic_umem_suite);
