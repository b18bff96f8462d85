// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_wq: work queue geometry (ornic_wq.c): WQE blocks, queue depths, the
 * capacities returned to users, and which posted WQE a CQE's index names.
 */
#include <kunit/test.h>

#include "ornic_wq.h"

/* The model's limits (QUERY_DEVICE) at the time of writing. */
static const struct ornic_wq_limits ornic_test_limits = {
	.max_wqe_blocks = 8,
	.max_qp_wr = 16384,
	.max_send_sge = 16,
	.max_recv_sge = 16,
	.max_inline_data = 256,
};

static void ornic_wqe_blocks(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ornic_send_wqe_blocks(0, 0), 1U);
	KUNIT_EXPECT_EQ(test, ornic_send_wqe_blocks(1, 0), 2U);
	KUNIT_EXPECT_EQ(test, ornic_send_wqe_blocks(4, 0), 2U);
	KUNIT_EXPECT_EQ(test, ornic_send_wqe_blocks(5, 0), 3U);
	KUNIT_EXPECT_EQ(test, ornic_send_wqe_blocks(0, 64), 2U);
	KUNIT_EXPECT_EQ(test, ornic_send_wqe_blocks(0, 65), 3U);
	/* SGEs and inline data share blocks 1..: the larger need wins. */
	KUNIT_EXPECT_EQ(test, ornic_send_wqe_blocks(2, 200), 5U);
	KUNIT_EXPECT_EQ(test, ornic_send_wqe_blocks(28, 0), 8U);

	/* Receive block 0 holds three SGEs, later blocks four. */
	KUNIT_EXPECT_EQ(test, ornic_recv_wqe_blocks(0), 1U);
	KUNIT_EXPECT_EQ(test, ornic_recv_wqe_blocks(3), 1U);
	KUNIT_EXPECT_EQ(test, ornic_recv_wqe_blocks(4), 2U);
	KUNIT_EXPECT_EQ(test, ornic_recv_wqe_blocks(7), 2U);
	KUNIT_EXPECT_EQ(test, ornic_recv_wqe_blocks(8), 3U);
}

static void ornic_wqe_fit_inverts_blocks(struct kunit *test)
{
	u32 n;

	for (n = 0; n <= 31; n++) {
		KUNIT_EXPECT_GE(test,
				ornic_recv_sges_fit(ornic_recv_wqe_blocks(n)),
				n);
		KUNIT_EXPECT_GE(test,
				ornic_send_sges_fit(ornic_send_wqe_blocks(n, 0)),
				n);
	}
	for (n = 0; n <= 448; n += 7)
		KUNIT_EXPECT_GE(test,
				ornic_inline_fit(ornic_send_wqe_blocks(0, n)),
				n);
	KUNIT_EXPECT_EQ(test, ornic_send_sges_fit(2), 4U);
	KUNIT_EXPECT_EQ(test, ornic_inline_fit(3), 128U);
	KUNIT_EXPECT_EQ(test, ornic_recv_sges_fit(2), 7U);
}

static void ornic_wq_depths(struct kunit *test)
{
	struct ornic_wq_limits small = ornic_test_limits;

	KUNIT_EXPECT_EQ(test, ornic_wq_log_depth(16, 2, &ornic_test_limits),
			5);
	KUNIT_EXPECT_EQ(test, ornic_wq_log_depth(17, 2, &ornic_test_limits),
			6);
	/* Minimum depth is two blocks, also for zero WRs. */
	KUNIT_EXPECT_EQ(test, ornic_wq_log_depth(0, 1, &ornic_test_limits),
			1);
	KUNIT_EXPECT_EQ(test, ornic_wq_log_depth(1, 1, &ornic_test_limits),
			1);
	/* Spec limit 2^14 blocks, and the device's max_qp_wr. */
	KUNIT_EXPECT_EQ(test, ornic_wq_log_depth(8192, 2, &ornic_test_limits),
			14);
	KUNIT_EXPECT_EQ(test, ornic_wq_log_depth(8193, 2, &ornic_test_limits),
			-EINVAL);
	small.max_qp_wr = 64;
	KUNIT_EXPECT_EQ(test, ornic_wq_log_depth(33, 2, &small), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_wq_log_depth(U32_MAX, 8, &small), -EINVAL);
}

static void ornic_sq_capacities(struct kunit *test)
{
	struct ib_qp_cap cap = {
		.max_send_wr = 16, .max_send_sge = 2, .max_inline_data = 64,
	};

	KUNIT_ASSERT_EQ(test, ornic_sq_caps(&cap, 5, &ornic_test_limits), 0);
	/* 2-block WQEs in 32 blocks; a data block holds 4 SGEs or 64 B. */
	KUNIT_EXPECT_EQ(test, cap.max_send_wr, 16U);
	KUNIT_EXPECT_EQ(test, cap.max_send_sge, 4U);
	KUNIT_EXPECT_EQ(test, cap.max_inline_data, 64U);

	/* A larger ring than needed: more WRs. */
	cap = (struct ib_qp_cap){ .max_send_wr = 16, .max_send_sge = 1 };
	KUNIT_ASSERT_EQ(test, ornic_sq_caps(&cap, 7, &ornic_test_limits), 0);
	KUNIT_EXPECT_EQ(test, cap.max_send_wr, 64U);

	cap = (struct ib_qp_cap){ .max_send_wr = 16, .max_send_sge = 2 };
	KUNIT_EXPECT_EQ(test, ornic_sq_caps(&cap, 4, &ornic_test_limits),
			-EINVAL);
	cap = (struct ib_qp_cap){ .max_send_wr = 1, .max_send_sge = 17 };
	KUNIT_EXPECT_EQ(test, ornic_sq_caps(&cap, 5, &ornic_test_limits),
			-EINVAL);
	cap = (struct ib_qp_cap){ .max_send_wr = 1, .max_inline_data = 257 };
	KUNIT_EXPECT_EQ(test, ornic_sq_caps(&cap, 5, &ornic_test_limits),
			-EINVAL);
	cap = (struct ib_qp_cap){ .max_send_wr = 1 };
	KUNIT_EXPECT_EQ(test, ornic_sq_caps(&cap, 15, &ornic_test_limits),
			-EINVAL);
}

static void ornic_rq_capacities(struct kunit *test)
{
	struct ib_qp_cap cap = { .max_recv_wr = 16, .max_recv_sge = 2 };
	u32 wr = 10, sge = 5;

	KUNIT_ASSERT_EQ(test, ornic_rq_caps(&cap, 5, &ornic_test_limits), 0);
	/* One block per WQE: 32 WRs of 3 SGEs. */
	KUNIT_EXPECT_EQ(test, cap.max_recv_wr, 32U);
	KUNIT_EXPECT_EQ(test, cap.max_recv_sge, 3U);

	KUNIT_ASSERT_EQ(test, ornic_srq_caps(&wr, &sge, 5, &ornic_test_limits),
			0);
	KUNIT_EXPECT_EQ(test, wr, 16U);
	KUNIT_EXPECT_EQ(test, sge, 7U);
	sge = 17;
	KUNIT_EXPECT_EQ(test, ornic_srq_caps(&wr, &sge, 5, &ornic_test_limits),
			-EINVAL);
}

static void ornic_devval_wqe_index(struct kunit *test)
{
	u32 idx = 0xdead;

	/* Posted [10, 14): 10..13 resolve, the rest do not. */
	KUNIT_EXPECT_TRUE(test, ornic_wq_index_resolve(10, 10, 14, &idx));
	KUNIT_EXPECT_EQ(test, idx, 10U);
	KUNIT_EXPECT_TRUE(test, ornic_wq_index_resolve(13, 10, 14, &idx));
	KUNIT_EXPECT_EQ(test, idx, 13U);
	idx = 0xdead;
	KUNIT_EXPECT_FALSE(test, ornic_wq_index_resolve(14, 10, 14, &idx));
	KUNIT_EXPECT_FALSE(test, ornic_wq_index_resolve(9, 10, 14, &idx));
	KUNIT_EXPECT_FALSE(test, ornic_wq_index_resolve(0xffff, 10, 14, &idx));
	KUNIT_EXPECT_FALSE(test, ornic_wq_index_resolve(0x800a, 10, 14, &idx));
	KUNIT_EXPECT_EQ(test, idx, 0xdeadU);	/* untouched when refused */
	/* An empty queue has nothing to complete. */
	KUNIT_EXPECT_FALSE(test, ornic_wq_index_resolve(5, 5, 5, &idx));
	/* 16-bit index across the 16- and 32-bit wraps. */
	KUNIT_EXPECT_TRUE(test, ornic_wq_index_resolve(0x0001, 0x1fffe,
						       0x20004, &idx));
	KUNIT_EXPECT_EQ(test, idx, 0x20001U);
	KUNIT_EXPECT_TRUE(test, ornic_wq_index_resolve(0x0000, 0xfffffffeU,
						       0x2, &idx));
	KUNIT_EXPECT_EQ(test, idx, 0U);
	KUNIT_EXPECT_FALSE(test, ornic_wq_index_resolve(0x0002, 0xfffffffeU,
							0x2, &idx));
}

static struct kunit_case ornic_wq_cases[] = {
	KUNIT_CASE(ornic_wqe_blocks),
	KUNIT_CASE(ornic_wqe_fit_inverts_blocks),
	KUNIT_CASE(ornic_wq_depths),
	KUNIT_CASE(ornic_sq_capacities),
	KUNIT_CASE(ornic_rq_capacities),
	KUNIT_CASE(ornic_devval_wqe_index),
	{}
};

static struct kunit_suite ornic_wq_suite = {
	.name = "ornic_wq",
	.test_cases = ornic_wq_cases,
};

kunit_test_suites(&ornic_wq_suite);
