// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_odp: on-demand paging (ornic_odp.c): its commands, page table entries
 * and PAGE_FAULT events.
 */
#include <kunit/test.h>

#include "ornic.h"

static void ornic_cmd_odp(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_odp_invalidate *inv = (void *)&sqe;
	struct ornic_admin_odp_resume *res = (void *)&sqe;
	u32 i;

	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_odp_invalidate(&sqe, 0x1234a5, 7, 3);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_ODP_INVALIDATE);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(inv->key), 0x1234a5U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(inv->first_page), 7U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(inv->num_pages), 3U);
	for (i = 0; i < ARRAY_SIZE(inv->reserved); i++)
		KUNIT_EXPECT_EQ(test, le32_to_cpu(inv->reserved[i]), 0U);

	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_odp_resume(&sqe, 42);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_ODP_RESUME);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(res->qpn), 42U);
	for (i = 0; i < ARRAY_SIZE(res->reserved); i++)
		KUNIT_EXPECT_EQ(test, le32_to_cpu(res->reserved[i]), 0U);
	KUNIT_EXPECT_STREQ(test, ornic_admin_opcode_str(ORNIC_ADMIN_ODP_RESUME),
			   "ODP_RESUME");
}

static void ornic_odp_entries(struct kunit *test)
{
	struct ornic_eqe_page_fault raw = {
		.type = ORNIC_EQE_PAGE_FAULT,
		.flags = ORNIC_EQE_PF_WRITE | ORNIC_EQE_PF_REQUESTER,
		.num_pages = cpu_to_le16(300),
		.key = cpu_to_le32(0x501),
		.page = cpu_to_le32(70000),
		.qpn = { 0x03, 0x02, 0x01 },
		.owner = 1,
	};
	struct ornic_page_fault pf;
	struct ornic_eqe eqe;

	KUNIT_EXPECT_EQ(test, le64_to_cpu(ornic_odp_pte(0x12345000, true)),
			0x12345000ULL | ORNIC_ODP_PTE_VALID |
			ORNIC_ODP_PTE_WRITE);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(ornic_odp_pte(0x12345000, false)),
			0x12345000ULL | ORNIC_ODP_PTE_VALID);
	/* Low bits of the address never leak into the flag bits. */
	KUNIT_EXPECT_EQ(test, le64_to_cpu(ornic_odp_pte(0x12345fff, false)),
			0x12345000ULL | ORNIC_ODP_PTE_VALID);

	memcpy(&eqe, &raw, sizeof(eqe));
	ornic_page_fault_decode(&eqe, &pf);
	KUNIT_EXPECT_EQ(test, pf.key, 0x501U);
	KUNIT_EXPECT_EQ(test, pf.page, 70000U);
	KUNIT_EXPECT_EQ(test, pf.num_pages, 300U);
	KUNIT_EXPECT_EQ(test, pf.qpn, 0x010203U);
	KUNIT_EXPECT_TRUE(test, pf.write);
	KUNIT_EXPECT_TRUE(test, pf.requester);
	raw.flags = 0;
	memcpy(&eqe, &raw, sizeof(eqe));
	ornic_page_fault_decode(&eqe, &pf);
	KUNIT_EXPECT_FALSE(test, pf.write);
	KUNIT_EXPECT_FALSE(test, pf.requester);
}

static struct kunit_case ornic_odp_cases[] = {
	KUNIT_CASE(ornic_cmd_odp),
	KUNIT_CASE(ornic_odp_entries),
	{}
};

static struct kunit_suite ornic_odp_suite = {
	.name = "ornic_odp",
	.test_cases = ornic_odp_cases,
};

kunit_test_suites(&ornic_odp_suite);
