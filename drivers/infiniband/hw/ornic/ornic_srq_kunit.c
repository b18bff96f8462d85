// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_srq: the SRQ commands (ornic_srq.c), and a kernel
 * SRQ's size and the retiring of its WQEs in any order
 * (ornic_srq_kernel.c).
 */
#include <kunit/test.h>
#include <linux/slab.h>

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

/* The model's SRQ limits (QUERY_DEVICE: max_srq_wr, max_srq_sge). */
static const struct ornic_wq_limits ornic_test_srq_limits = {
	.max_wqe_blocks = 8,
	.max_qp_wr = 16384,
	.max_send_sge = 16,
	.max_recv_sge = 15,
	.max_inline_data = 256,
};

static void ornic_ksrq_sizes(struct kunit *test)
{
	const struct ornic_wq_limits *l = &ornic_test_srq_limits;
	u32 wr, sge;

	/* IPoIB's connected mode: 256 receives of 15 pages, 4 blocks each. */
	wr = 256;
	sge = 15;
	KUNIT_EXPECT_EQ(test, ornic_ksrq_log_depth(&wr, &sge, 0, l), 10);
	KUNIT_EXPECT_EQ(test, wr, 256U);
	KUNIT_EXPECT_EQ(test, sge, 15U);

	/* Rounded up: what the ring really holds is reported. */
	wr = 3;
	sge = 1;
	KUNIT_EXPECT_EQ(test, ornic_ksrq_log_depth(&wr, &sge, 0, l), 2);
	KUNIT_EXPECT_EQ(test, wr, 4U);
	KUNIT_EXPECT_EQ(test, sge, 3U);
	wr = 0;
	sge = 0;
	KUNIT_EXPECT_EQ(test, ornic_ksrq_log_depth(&wr, &sge, 0, l), 1);
	KUNIT_EXPECT_EQ(test, wr, 2U);

	/* More SGEs or blocks than the device has for SRQs. */
	wr = 16;
	sge = 16;
	KUNIT_EXPECT_EQ(test, ornic_ksrq_log_depth(&wr, &sge, 0, l), -EINVAL);
	wr = 4097;
	sge = 15;
	KUNIT_EXPECT_EQ(test, ornic_ksrq_log_depth(&wr, &sge, 0, l), -EINVAL);
	wr = 4096;
	sge = 15;
	KUNIT_EXPECT_EQ(test, ornic_ksrq_log_depth(&wr, &sge, 0, l), 14);

	/* The limit must stay below the depth in blocks. */
	wr = 8;
	sge = 1;
	KUNIT_EXPECT_EQ(test, ornic_ksrq_log_depth(&wr, &sge, 7, l), 3);
	wr = 8;
	sge = 1;
	KUNIT_EXPECT_EQ(test, ornic_ksrq_log_depth(&wr, &sge, 8, l), -EINVAL);
}

/* Post a WQE of @blocks blocks at wq->pi as post_srq_recv records it. */
static void ornic_test_ksrq_post(struct ornic_kwq *wq, u64 wr_id, u32 blocks)
{
	u32 b;

	for (b = 0; b < blocks; b++) {
		struct ornic_kwq_shadow *sh =
			&wq->shadow[ornic_ring_slot(wq->pi + b, wq->log_depth)];

		sh->wr_id = b ? 0 : wr_id;
		sh->blocks = b ? 0 : blocks;
		sh->len = 64;
		sh->done = false;
	}
	wq->pi += blocks;
}

static void ornic_ksrq_retire_out_of_order(struct kunit *test)
{
	struct ornic_kwq_shadow posted;
	struct ornic_kwq wq = { .log_depth = 3 };

	spin_lock_init(&wq.lock);
	wq.shadow = kunit_kcalloc(test, 8, sizeof(*wq.shadow), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wq.shadow);
	ornic_test_ksrq_post(&wq, 0xa, 1);	/* blocks 0 */
	ornic_test_ksrq_post(&wq, 0xb, 2);	/* blocks 1, 2 */
	ornic_test_ksrq_post(&wq, 0xc, 1);	/* block 3 */

	/* B completes first: its blocks stay in use until A is done. */
	KUNIT_EXPECT_TRUE(test, ornic_ksrq_retire(&wq, 1, &posted));
	KUNIT_EXPECT_EQ(test, posted.wr_id, 0xbULL);
	KUNIT_EXPECT_EQ(test, wq.ci, 0U);
	/* Twice, a block inside a WQE, or past what was posted: nothing. */
	KUNIT_EXPECT_FALSE(test, ornic_ksrq_retire(&wq, 1, &posted));
	KUNIT_EXPECT_FALSE(test, ornic_ksrq_retire(&wq, 2, &posted));
	KUNIT_EXPECT_FALSE(test, ornic_ksrq_retire(&wq, 4, &posted));
	KUNIT_EXPECT_FALSE(test, ornic_ksrq_retire(&wq, 0xfff8, &posted));
	KUNIT_EXPECT_EQ(test, wq.ci, 0U);

	/* A frees A and B together; C then frees itself. */
	KUNIT_EXPECT_TRUE(test, ornic_ksrq_retire(&wq, 0, &posted));
	KUNIT_EXPECT_EQ(test, posted.wr_id, 0xaULL);
	KUNIT_EXPECT_EQ(test, wq.ci, 3U);
	KUNIT_EXPECT_TRUE(test, ornic_ksrq_retire(&wq, 3, &posted));
	KUNIT_EXPECT_EQ(test, posted.wr_id, 0xcULL);
	KUNIT_EXPECT_EQ(test, wq.ci, 4U);
	KUNIT_EXPECT_FALSE(test, ornic_ksrq_retire(&wq, 3, &posted));

	/* Across the 16-bit wrap of the CQE's index, and the ring's. */
	wq.pi = 0xfffe;
	wq.ci = 0xfffe;
	ornic_test_ksrq_post(&wq, 0xd, 1);	/* 0xfffe */
	ornic_test_ksrq_post(&wq, 0xe, 2);	/* 0xffff, 0x10000 */
	ornic_test_ksrq_post(&wq, 0xf, 1);	/* 0x10001 */
	KUNIT_EXPECT_FALSE(test, ornic_ksrq_retire(&wq, 0, &posted));
	KUNIT_EXPECT_TRUE(test, ornic_ksrq_retire(&wq, 1, &posted));
	KUNIT_EXPECT_EQ(test, posted.wr_id, 0xfULL);
	KUNIT_EXPECT_TRUE(test, ornic_ksrq_retire(&wq, 0xffff, &posted));
	KUNIT_EXPECT_EQ(test, posted.wr_id, 0xeULL);
	KUNIT_EXPECT_EQ(test, wq.ci, 0xfffeU);
	KUNIT_EXPECT_TRUE(test, ornic_ksrq_retire(&wq, 0xfffe, &posted));
	KUNIT_EXPECT_EQ(test, wq.ci, 0x10002U);
	KUNIT_EXPECT_EQ(test, wq.ci, wq.pi);
}

static struct kunit_case ornic_srq_cases[] = {
	KUNIT_CASE(ornic_cmd_srq_layouts),
	KUNIT_CASE(ornic_cmd_resize_srq_layout),
	KUNIT_CASE(ornic_ksrq_sizes),
	KUNIT_CASE(ornic_ksrq_retire_out_of_order),
	{}
};

static struct kunit_suite ornic_srq_suite = {
	.name = "ornic_srq",
	.test_cases = ornic_srq_cases,
};

kunit_test_suites(&ornic_srq_suite);
