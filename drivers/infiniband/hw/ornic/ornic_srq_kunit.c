// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_srq: the SRQ commands (ornic_srq.c).
 */
#include <kunit/test.h>

#include "ornic_kunit.h"
#include "ornic_res.h"

static void ornic_cmd_srq_layouts(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_create_srq *c = (void *)&sqe;
	struct ornic_admin_modify_srq *m = (void *)&sqe;
	const u8 *b = (const u8 *)&sqe;
	struct ornic_srq_create_args args = {
		.pdn = 12,
		.limit = 0x0a0b,
		.xrcdn = 4,
		.cqn = 8,
		.db_page = 3,
		.log_depth = 9,
		.srq_type = ORNIC_SRQT_BASIC,
	};

	ornic_mem_desc_contig(&args.mem, 0x300000, 32 << 10, 12);
	/* A basic SRQ sends neither a domain nor a CQ. */
	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_create_srq(&sqe, &args);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_CREATE_SRQ);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->mem.addr), 0x300000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->mem.num_pages), 8U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->pd), 12U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->db_page), 3);
	KUNIT_EXPECT_EQ(test, c->log_depth, 9);
	KUNIT_EXPECT_EQ(test, c->srq_type, ORNIC_SRQT_BASIC);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->limit), 0x0a0bU);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->xrcd), 0U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->cqn), 0U);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(c->reserved1,
					       sizeof(c->reserved1)));
	KUNIT_EXPECT_EQ(test, b[32], 0x0b);
	KUNIT_EXPECT_EQ(test, b[33], 0x0a);

	/* An XRC SRQ: its domain and CQ at the asserted offsets. */
	args.srq_type = ORNIC_SRQT_XRC;
	ornic_cmd_create_srq(&sqe, &args);
	KUNIT_EXPECT_EQ(test, c->srq_type, ORNIC_SRQT_XRC);
	KUNIT_EXPECT_EQ(test, b[31], ORNIC_SRQT_XRC);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->xrcd), 4U);
	KUNIT_EXPECT_EQ(test, b[36], 4);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->cqn), 8U);
	KUNIT_EXPECT_EQ(test, b[40], 8);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->flags), 0U);

	/* A doorbell record (ORNIC_CAP_DB_RECORD): flags at byte 44. */
	args.flags = ORNIC_SRQ_FLAG_DB_RECORD;
	ornic_cmd_create_srq(&sqe, &args);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->flags), ORNIC_SRQ_FLAG_DB_RECORD);
	KUNIT_EXPECT_EQ(test, b[44], ORNIC_SRQ_FLAG_DB_RECORD);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(c->reserved1,
					       sizeof(c->reserved1)));

	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_modify_srq(&sqe, 0x010203, 16);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_MODIFY_SRQ);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(m->srqn), 0x010203U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(m->limit), 16U);
	KUNIT_EXPECT_EQ(test, b[8], 0x03);
	KUNIT_EXPECT_EQ(test, b[12], 16);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(m->reserved,
					       sizeof(m->reserved)));
}

static void ornic_cmd_resize_srq_layout(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_resize_srq *srq = (void *)&sqe;
	struct ornic_mem_desc mem;

	ornic_mem_desc_contig(&mem, 0x20000, 8 << 10, 12);
	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_resize_srq(&sqe, &mem, 7, 9);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_RESIZE_SRQ);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(srq->srqn), 9U);
	KUNIT_EXPECT_EQ(test, srq->log_depth, 7);
	KUNIT_EXPECT_EQ(test, srq->mem.page_shift, 12);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(srq->reserved1,
					       sizeof(srq->reserved1)));
	KUNIT_EXPECT_STREQ(test, ornic_admin_opcode_str(ORNIC_ADMIN_RESIZE_SRQ),
			   "RESIZE_SRQ");
}

static struct kunit_case ornic_srq_cases[] = {
	KUNIT_CASE(ornic_cmd_srq_layouts),
	KUNIT_CASE(ornic_cmd_resize_srq_layout),
	{}
};

static struct kunit_suite ornic_srq_suite = {
	.name = "ornic_srq",
	.test_cases = ornic_srq_cases,
};

kunit_test_suites(&ornic_srq_suite);
