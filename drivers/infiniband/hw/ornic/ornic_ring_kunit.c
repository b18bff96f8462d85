// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_ring: ring index and phase arithmetic, ring depths, doorbell values
 * and the memory descriptor of a contiguous ring (ornic_ring.c).
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "ornic_ring.h"

static void ornic_ring_slot_wraps(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ornic_ring_slot(0, 4), 0U);
	KUNIT_EXPECT_EQ(test, ornic_ring_slot(15, 4), 15U);
	KUNIT_EXPECT_EQ(test, ornic_ring_slot(16, 4), 0U);
	KUNIT_EXPECT_EQ(test, ornic_ring_slot(0xffffffffU, 4), 15U);
	KUNIT_EXPECT_EQ(test, ornic_ring_slot(0xffffffffU, 1), 1U);
}

static void ornic_ring_phase_alternates(struct kunit *test)
{
	/* First pass 1, second 0, third 1 (spec: index.rst). */
	KUNIT_EXPECT_EQ(test, ornic_ring_phase(0, 3), 1);
	KUNIT_EXPECT_EQ(test, ornic_ring_phase(7, 3), 1);
	KUNIT_EXPECT_EQ(test, ornic_ring_phase(8, 3), 0);
	KUNIT_EXPECT_EQ(test, ornic_ring_phase(15, 3), 0);
	KUNIT_EXPECT_EQ(test, ornic_ring_phase(16, 3), 1);
	/* 2^32 is a multiple of every depth: the phase is continuous. */
	KUNIT_EXPECT_EQ(test, ornic_ring_phase(0xffffffffU, 3), 0);
	KUNIT_EXPECT_EQ(test, ornic_ring_phase(0xffffffffU + 1U, 3), 1);
}

static void ornic_ring_owned_follows_phase(struct kunit *test)
{
	/* A zeroed ring is not owned on the first pass. */
	KUNIT_EXPECT_FALSE(test, ornic_ring_owned(0, 0, 2));
	KUNIT_EXPECT_TRUE(test, ornic_ring_owned(1, 0, 2));
	/* Second pass: the stale phase-1 entry is not ours. */
	KUNIT_EXPECT_FALSE(test, ornic_ring_owned(1, 4, 2));
	KUNIT_EXPECT_TRUE(test, ornic_ring_owned(0, 4, 2));
	/* Only bit 0 counts. */
	KUNIT_EXPECT_TRUE(test, ornic_ring_owned(0xff, 0, 2));
	KUNIT_EXPECT_TRUE(test, ornic_ring_owned(0xfe, 4, 2));
}

static void ornic_ring_space_free_running(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ornic_ring_space(0, 0, 3), 8U);
	KUNIT_EXPECT_EQ(test, ornic_ring_space(8, 0, 3), 0U);
	KUNIT_EXPECT_EQ(test, ornic_ring_space(5, 3, 3), 6U);
	/* Across the 32-bit wrap. */
	KUNIT_EXPECT_EQ(test, ornic_ring_used(2, 0xfffffffeU), 4U);
	KUNIT_EXPECT_EQ(test, ornic_ring_space(2, 0xfffffffeU, 3), 4U);
}

static void ornic_log2_depth_rounds_up(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ornic_log2_depth(0), 1U);
	KUNIT_EXPECT_EQ(test, ornic_log2_depth(2), 1U);
	KUNIT_EXPECT_EQ(test, ornic_log2_depth(3), 2U);
	KUNIT_EXPECT_EQ(test, ornic_log2_depth(4096), 12U);
	KUNIT_EXPECT_EQ(test, ornic_log2_depth(4097), 13U);
}

static void ornic_db_value_layout(struct kunit *test)
{
	u64 v = ornic_db_value(0x123456, ORNIC_DB_FLAG_ARM_NEXT, 0x89abcdef);

	KUNIT_EXPECT_EQ(test, v & ORNIC_DB_QN_MASK, 0x123456ULL);
	KUNIT_EXPECT_EQ(test, (v & ORNIC_DB_FLAGS_MASK) >> ORNIC_DB_FLAGS_SHIFT,
			1ULL);
	KUNIT_EXPECT_EQ(test, v >> ORNIC_DB_INDEX_SHIFT, 0x89abcdefULL);
	/* A queue number wider than 24 bits cannot leak into the flags. */
	v = ornic_db_value(0xff000001, 0, 0);
	KUNIT_EXPECT_EQ(test, v, 1ULL);
}

static void ornic_mem_desc_contig_pages(struct kunit *test)
{
	struct ornic_mem_desc d;

	ornic_mem_desc_contig(&d, 0x200000, 4096, 12);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(d.addr), 0x200000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d.num_pages), 1U);
	KUNIT_EXPECT_EQ(test, d.page_shift, 12);
	KUNIT_EXPECT_EQ(test, d.mode, ORNIC_MEM_MODE_CONTIG);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(d.reserved), 0);
	/* A ring smaller than a page still takes one page. */
	ornic_mem_desc_contig(&d, 0x200000, 1024, 12);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d.num_pages), 1U);
	ornic_mem_desc_contig(&d, 0x200000, 4097, 12);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d.num_pages), 2U);
}

static struct kunit_case ornic_ring_cases[] = {
	KUNIT_CASE(ornic_ring_slot_wraps),
	KUNIT_CASE(ornic_ring_phase_alternates),
	KUNIT_CASE(ornic_ring_owned_follows_phase),
	KUNIT_CASE(ornic_ring_space_free_running),
	KUNIT_CASE(ornic_log2_depth_rounds_up),
	KUNIT_CASE(ornic_db_value_layout),
	KUNIT_CASE(ornic_mem_desc_contig_pages),
	{}
};

static struct kunit_suite ornic_ring_suite = {
	.name = "ornic_ring",
	.test_cases = ornic_ring_cases,
};

kunit_test_suites(&ornic_ring_suite);

/* ornic_kunit.ko's own: its suites are ornic_*_kunit.c (Kbuild). */
MODULE_DESCRIPTION("KUnit tests for the ornic driver's pure logic");
MODULE_LICENSE("Dual BSD/GPL");
/* What ornic.ko exports with EXPORT_SYMBOL_IF_KUNIT(). */
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
