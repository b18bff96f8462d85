// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite for the checks the driver applies to values the device
 * writes (ornic_lib.c, ornic_verbs_lib.c): QP states and attributes from
 * MODIFY_QP/QUERY_QP, EQE types, CQE opcodes and WQE indices, and the
 * DEV_STATUS that confirms a reset.  Each case feeds the out-of-range values
 * a broken device could produce next to the valid ones around the limit.
 */
#include <kunit/test.h>
#include <rdma/ib_verbs.h>

#include "ornic_lib.h"
#include "ornic_liveness.h"
#include "ornic_verbs_lib.h"

static void ornic_devval_qp_state(struct kunit *test)
{
	u32 s;

	for (s = ORNIC_QPS_RESET; s <= ORNIC_QPS_ERR; s++)
		KUNIT_EXPECT_TRUE(test, ornic_qp_state_valid(s));
	/* The IB table ib_modify_qp_is_ok() indexes has IB_QPS_ERR + 1 rows. */
	KUNIT_EXPECT_EQ(test, (int)ORNIC_QPS_ERR, (int)IB_QPS_ERR);
	KUNIT_EXPECT_FALSE(test, ornic_qp_state_valid(ORNIC_QPS_ERR + 1));
	KUNIT_EXPECT_FALSE(test, ornic_qp_state_valid(0x2a));
	KUNIT_EXPECT_FALSE(test, ornic_qp_state_valid(0xff));
	KUNIT_EXPECT_FALSE(test, ornic_qp_state_valid(0x80000000U));
	KUNIT_EXPECT_FALSE(test, ornic_qp_state_valid(U32_MAX));
}

static void ornic_devval_qp_attr(struct kunit *test)
{
	struct ornic_qp_attr oa = {
		.state = ORNIC_QPS_RTS,
		.path_mtu = ORNIC_MTU_4096,
		.timeout = 31,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.min_rnr_timer = 31,
	};
	u32 value = 0, limit = 0;

	KUNIT_EXPECT_NULL(test, ornic_qp_attr_invalid(&oa, &value, &limit));
	oa.state = 7;
	KUNIT_EXPECT_STREQ(test, ornic_qp_attr_invalid(&oa, &value, &limit),
			   "state");
	KUNIT_EXPECT_EQ(test, value, 7U);
	KUNIT_EXPECT_EQ(test, limit, (u32)ORNIC_QPS_ERR);
	oa.state = ORNIC_QPS_RESET;
	oa.path_mtu = 6;
	KUNIT_EXPECT_STREQ(test, ornic_qp_attr_invalid(&oa, &value, &limit),
			   "path_mtu");
	oa.path_mtu = 0;	/* a QP in RESET has none yet */
	KUNIT_EXPECT_NULL(test, ornic_qp_attr_invalid(&oa, &value, &limit));
	oa.retry_cnt = 8;
	KUNIT_EXPECT_STREQ(test, ornic_qp_attr_invalid(&oa, &value, &limit),
			   "retry_cnt");
	oa.retry_cnt = 0;
	oa.rnr_retry = 0xff;
	KUNIT_EXPECT_STREQ(test, ornic_qp_attr_invalid(&oa, &value, &limit),
			   "rnr_retry");
	KUNIT_EXPECT_EQ(test, value, 0xffU);
	oa.rnr_retry = 0;
	oa.min_rnr_timer = 32;
	KUNIT_EXPECT_STREQ(test, ornic_qp_attr_invalid(&oa, &value, &limit),
			   "min_rnr_timer");
	oa.min_rnr_timer = 0;
	oa.timeout = 32;
	KUNIT_EXPECT_STREQ(test, ornic_qp_attr_invalid(&oa, &value, &limit),
			   "timeout");
}

static void ornic_devval_eqe_type(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ornic_eqe_type_valid(ORNIC_EQE_COMPLETION));
	KUNIT_EXPECT_TRUE(test, ornic_eqe_type_valid(ORNIC_EQE_QP_FATAL));
	KUNIT_EXPECT_TRUE(test, ornic_eqe_type_valid(ORNIC_EQE_DEVICE_FATAL));
	KUNIT_EXPECT_TRUE(test, ornic_eqe_type_valid(ORNIC_EQE_PAGE_FAULT));
	/* Holes and values past the last type. */
	KUNIT_EXPECT_FALSE(test, ornic_eqe_type_valid(0x07));
	KUNIT_EXPECT_FALSE(test, ornic_eqe_type_valid(0x0b));
	KUNIT_EXPECT_FALSE(test, ornic_eqe_type_valid(0x0f));
	KUNIT_EXPECT_FALSE(test, ornic_eqe_type_valid(0x13));
	KUNIT_EXPECT_FALSE(test, ornic_eqe_type_valid(0xff));
}

static void ornic_devval_cqe_kind(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ornic_cqe_kind(ORNIC_CQE_OP_SEND),
			ORNIC_CQE_KIND_SEND);
	KUNIT_EXPECT_EQ(test, ornic_cqe_kind(ORNIC_CQE_OP_BIND_MW),
			ORNIC_CQE_KIND_SEND);
	KUNIT_EXPECT_EQ(test, ornic_cqe_kind(ORNIC_CQE_OP_RECV),
			ORNIC_CQE_KIND_RECV);
	KUNIT_EXPECT_EQ(test, ornic_cqe_kind(ORNIC_CQE_OP_RECV_RDMA_IMM),
			ORNIC_CQE_KIND_RECV);
	KUNIT_EXPECT_EQ(test, ornic_cqe_kind(ORNIC_CQE_OP_ETH_TX),
			ORNIC_CQE_KIND_ETH);
	KUNIT_EXPECT_EQ(test, ornic_cqe_kind(ORNIC_CQE_OP_ETH_RX),
			ORNIC_CQE_KIND_ETH);
	KUNIT_EXPECT_EQ(test, ornic_cqe_kind(0x0a), ORNIC_CQE_KIND_INVALID);
	KUNIT_EXPECT_EQ(test, ornic_cqe_kind(0x82), ORNIC_CQE_KIND_INVALID);
	KUNIT_EXPECT_EQ(test, ornic_cqe_kind(0xc2), ORNIC_CQE_KIND_INVALID);
	KUNIT_EXPECT_EQ(test, ornic_cqe_kind(0xff), ORNIC_CQE_KIND_INVALID);
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

static struct kunit_case ornic_devval_cases[] = {
	KUNIT_CASE(ornic_devval_qp_state),
	KUNIT_CASE(ornic_devval_qp_attr),
	KUNIT_CASE(ornic_devval_eqe_type),
	KUNIT_CASE(ornic_devval_cqe_kind),
	KUNIT_CASE(ornic_devval_wqe_index),
	KUNIT_CASE(ornic_devval_reset_done),
	{}
};

static struct kunit_suite ornic_devval_suite = {
	.name = "ornic_device_values",
	.test_cases = ornic_devval_cases,
};

kunit_test_suites(&ornic_devval_suite);
