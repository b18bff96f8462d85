// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suites for the data-path verbs' pure logic (ornic_verbs_lib.c):
 * WQE blocks, queue depths and the capacities returned to users, page size
 * choice, access flags, and the IB <-> device QP attribute translation.
 */
#include <kunit/test.h>
#include <rdma/ib_verbs.h>

#include "ornic_verbs_lib.h"

/* The model's limits (QUERY_DEVICE) at the time of writing. */
static const struct ornic_wq_limits ornic_test_limits = {
	.max_wqe_blocks = 8,
	.max_qp_wr = 16384,
	.max_send_sge = 16,
	.max_recv_sge = 16,
	.max_inline_data = 256,
};

/* --- WQE blocks and depths --------------------------------------------------- */

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

static struct kunit_case ornic_wq_cases[] = {
	KUNIT_CASE(ornic_wqe_blocks),
	KUNIT_CASE(ornic_wqe_fit_inverts_blocks),
	KUNIT_CASE(ornic_wq_depths),
	KUNIT_CASE(ornic_sq_capacities),
	KUNIT_CASE(ornic_rq_capacities),
	{}
};

static struct kunit_suite ornic_wq_suite = {
	.name = "ornic_wq",
	.test_cases = ornic_wq_cases,
};

/* --- page sizes and access flags -------------------------------------------- */

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

static void ornic_access_flags(struct kunit *test)
{
	u32 a = ~0U;

	KUNIT_EXPECT_EQ(test, ornic_access_from_ib(0, false, false, &a), 0);
	KUNIT_EXPECT_EQ(test, a, 0U);
	KUNIT_EXPECT_EQ(test, ornic_access_from_ib(IB_ACCESS_LOCAL_WRITE |
						   IB_ACCESS_REMOTE_READ |
						   IB_ACCESS_REMOTE_WRITE,
						   false, false, &a), 0);
	KUNIT_EXPECT_EQ(test, a, (u32)(ORNIC_ACCESS_LOCAL_WRITE |
				       ORNIC_ACCESS_REMOTE_READ |
				       ORNIC_ACCESS_REMOTE_WRITE));
	KUNIT_EXPECT_EQ(test, ornic_access_from_ib(IB_ACCESS_LOCAL_WRITE |
						   IB_ACCESS_REMOTE_ATOMIC,
						   true, false, &a), 0);
	KUNIT_EXPECT_EQ(test, a, (u32)(ORNIC_ACCESS_LOCAL_WRITE |
				       ORNIC_ACCESS_REMOTE_ATOMIC));
	/* Atomics only where the device has them. */
	KUNIT_EXPECT_EQ(test, ornic_access_from_ib(IB_ACCESS_REMOTE_ATOMIC,
						   false, true, &a),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ornic_access_from_ib(IB_ACCESS_MW_BIND, true,
						   true, &a), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ornic_access_from_ib(IB_ACCESS_ON_DEMAND, true,
						   true, &a), -EOPNOTSUPP);
	/* Optional hints are ignored, not refused. */
	KUNIT_EXPECT_EQ(test, ornic_access_from_ib(IB_ACCESS_RELAXED_ORDERING,
						   true, false, &a), 0);
	KUNIT_EXPECT_EQ(test, a, 0U);
}

static void ornic_mr_access_and_mw_type(struct kunit *test)
{
	u32 a = ~0U;
	u8 t = 0;

	/* MW_BIND only with the device's memory windows. */
	KUNIT_EXPECT_EQ(test, ornic_mr_access_from_ib(IB_ACCESS_LOCAL_WRITE |
						      IB_ACCESS_MW_BIND,
						      false, false, true, &a), 0);
	KUNIT_EXPECT_EQ(test, a, (u32)(ORNIC_ACCESS_LOCAL_WRITE |
				       ORNIC_ACCESS_MW_BIND));
	KUNIT_EXPECT_EQ(test, ornic_mr_access_from_ib(IB_ACCESS_MW_BIND, false, false,
						      false, &a), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ornic_mr_access_from_ib(IB_ACCESS_REMOTE_READ,
						      false, false, false, &a), 0);
	KUNIT_EXPECT_EQ(test, a, (u32)ORNIC_ACCESS_REMOTE_READ);
	/* The other rules are those of ornic_access_from_ib. */
	KUNIT_EXPECT_EQ(test, ornic_mr_access_from_ib(IB_ACCESS_MW_BIND |
						      IB_ACCESS_REMOTE_ATOMIC,
						      false, false, true, &a),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ornic_mr_access_from_ib(IB_ACCESS_MW_BIND |
						      IB_ACCESS_ON_DEMAND,
						      true, false, true, &a), -EOPNOTSUPP);

	KUNIT_EXPECT_EQ(test, ornic_mw_type_from_ib(IB_MW_TYPE_1, &t), 0);
	KUNIT_EXPECT_EQ(test, t, ORNIC_MW_TYPE_1);
	KUNIT_EXPECT_EQ(test, ornic_mw_type_from_ib(IB_MW_TYPE_2, &t), 0);
	KUNIT_EXPECT_EQ(test, t, ORNIC_MW_TYPE_2);
	KUNIT_EXPECT_EQ(test, ornic_mw_type_from_ib((enum ib_mw_type)3, &t),
			-EINVAL);
}

static void ornic_rereg_flags(struct kunit *test)
{
	u8 f = 0xff;

	KUNIT_EXPECT_EQ(test, ornic_rereg_flags_from_ib(IB_MR_REREG_ACCESS, &f),
			0);
	KUNIT_EXPECT_EQ(test, f, ORNIC_REREG_MR_ACCESS);
	KUNIT_EXPECT_EQ(test, ornic_rereg_flags_from_ib(IB_MR_REREG_TRANS |
							IB_MR_REREG_PD, &f), 0);
	KUNIT_EXPECT_EQ(test, f, (u8)(ORNIC_REREG_MR_TRANSLATION |
				      ORNIC_REREG_MR_PD));
	KUNIT_EXPECT_EQ(test, ornic_rereg_flags_from_ib(IB_MR_REREG_SUPPORTED,
							&f), 0);
	KUNIT_EXPECT_EQ(test, f, (u8)ORNIC_REREG_MR_ALL);
	KUNIT_EXPECT_EQ(test, ornic_rereg_flags_from_ib(0, &f), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_rereg_flags_from_ib(IB_MR_REREG_SUPPORTED + 1,
							&f), -EOPNOTSUPP);
}

/* IBTA 1.5 FLUSH rights: the IB bits and the device's are the same bits. */
static void ornic_flush_access_flags(struct kunit *test)
{
	u32 a = ~0U;

	KUNIT_EXPECT_EQ(test, (u32)IB_ACCESS_FLUSH_GLOBAL,
			(u32)ORNIC_ACCESS_FLUSH_GLOBAL);
	KUNIT_EXPECT_EQ(test, (u32)IB_ACCESS_FLUSH_PERSISTENT,
			(u32)ORNIC_ACCESS_FLUSH_PERSISTENT);
	/* pyverbs' QpExRCFlush MR: local write, remote write, FLUSH_GLOBAL. */
	KUNIT_EXPECT_EQ(test, ornic_access_from_ib(IB_ACCESS_LOCAL_WRITE |
						   IB_ACCESS_REMOTE_WRITE |
						   IB_ACCESS_FLUSH_GLOBAL,
						   true, true, &a), 0);
	KUNIT_EXPECT_EQ(test, a, (u32)(ORNIC_ACCESS_LOCAL_WRITE |
				       ORNIC_ACCESS_REMOTE_WRITE |
				       ORNIC_ACCESS_FLUSH_GLOBAL));
	/* FLUSH rights alone, without any other remote right. */
	KUNIT_EXPECT_EQ(test, ornic_access_from_ib(IB_ACCESS_FLUSH_PERSISTENT,
						   false, true, &a), 0);
	KUNIT_EXPECT_EQ(test, a, (u32)ORNIC_ACCESS_FLUSH_PERSISTENT);
	/* Without ORNIC_CAP_FLUSH an MR cannot promise them. */
	a = ~0U;
	KUNIT_EXPECT_EQ(test, ornic_access_from_ib(IB_ACCESS_FLUSH_GLOBAL,
						   true, false, &a),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ornic_access_from_ib(IB_ACCESS_LOCAL_WRITE |
						   IB_ACCESS_FLUSH_PERSISTENT,
						   true, false, &a),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, a, ~0U);
}

/* Verbs advertise FLUSH and ATOMIC WRITE exactly when the device has them. */
static void ornic_device_caps_to_ib(struct kunit *test)
{
	u64 base = IB_DEVICE_RC_RNR_NAK_GEN | IB_DEVICE_CHANGE_PHY_PORT |
		   IB_DEVICE_SYS_IMAGE_GUID;
	u64 ibta15 = IB_DEVICE_FLUSH_GLOBAL | IB_DEVICE_FLUSH_PERSISTENT |
		     IB_DEVICE_ATOMIC_WRITE;
	u64 flags;

	KUNIT_EXPECT_EQ(test, ornic_device_cap_flags(0), base);
	flags = ornic_device_cap_flags(ORNIC_CAP_RC | ORNIC_CAP_FAST_REG);
	KUNIT_EXPECT_EQ(test, flags, base | IB_DEVICE_MEM_MGT_EXTENSIONS);
	flags = ornic_device_cap_flags(ORNIC_CAP_FLUSH);
	KUNIT_EXPECT_EQ(test, flags & ibta15,
			(u64)(IB_DEVICE_FLUSH_GLOBAL |
			      IB_DEVICE_FLUSH_PERSISTENT));
	flags = ornic_device_cap_flags(ORNIC_CAP_ATOMIC_WRITE);
	KUNIT_EXPECT_EQ(test, flags & ibta15, (u64)IB_DEVICE_ATOMIC_WRITE);
	flags = ornic_device_cap_flags(ORNIC_CAP_FLUSH |
				       ORNIC_CAP_ATOMIC_WRITE);
	KUNIT_EXPECT_EQ(test, flags, base | ibta15);
	/* Windows and SRQ resize come with their caps. */
	flags = ornic_device_cap_flags(ORNIC_CAP_MW);
	KUNIT_EXPECT_EQ(test, flags, base | IB_DEVICE_MEM_WINDOW |
			IB_DEVICE_MEM_WINDOW_TYPE_2B);
	KUNIT_EXPECT_EQ(test, ornic_device_cap_flags(ORNIC_CAP_RESIZE), base);
	flags = ornic_device_cap_flags(ORNIC_CAP_RESIZE | ORNIC_CAP_SRQ);
	KUNIT_EXPECT_EQ(test, flags, base | IB_DEVICE_SRQ_RESIZE);
	KUNIT_EXPECT_EQ(test, ornic_device_cap_flags(ORNIC_CAP_XRC),
			base | IB_DEVICE_XRC);
	/* Unknown cap bits advertise nothing. */
	KUNIT_EXPECT_EQ(test, ornic_device_cap_flags(BIT_ULL(63)), base);
}

static struct kunit_case ornic_mem_verbs_cases[] = {
	KUNIT_CASE(ornic_pgsz_bitmaps),
	KUNIT_CASE(ornic_access_flags),
	KUNIT_CASE(ornic_mr_access_and_mw_type),
	KUNIT_CASE(ornic_rereg_flags),
	KUNIT_CASE(ornic_flush_access_flags),
	KUNIT_CASE(ornic_device_caps_to_ib),
	{}
};

static struct kunit_suite ornic_mem_verbs_suite = {
	.name = "ornic_mr",
	.test_cases = ornic_mem_verbs_cases,
};

/* --- QP attributes ---------------------------------------------------------- */

static void ornic_qp_masks(struct kunit *test)
{
	u32 m = 0;

	KUNIT_EXPECT_EQ(test, ornic_qp_mask_from_ib(IB_QP_STATE | IB_QP_AV |
						    IB_QP_DEST_QPN, &m), 0);
	KUNIT_EXPECT_EQ(test, m, (u32)(ORNIC_QP_ATTR_STATE |
				       ORNIC_QP_ATTR_AV |
				       ORNIC_QP_ATTR_DEST_QPN));
	/* Checked by the driver, no device bit. */
	KUNIT_EXPECT_EQ(test, ornic_qp_mask_from_ib(IB_QP_CUR_STATE |
						    IB_QP_PORT, &m), 0);
	KUNIT_EXPECT_EQ(test, m, 0U);
	KUNIT_EXPECT_EQ(test,
			ornic_qp_mask_from_ib(ORNIC_IB_QP_MASK_SUPPORTED, &m),
			0);
	KUNIT_EXPECT_EQ(test, m, (u32)ORNIC_QP_ATTR_ALL);
	KUNIT_EXPECT_EQ(test, ornic_qp_mask_from_ib(IB_QP_ALT_PATH, &m),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ornic_qp_mask_from_ib(IB_QP_RATE_LIMIT, &m),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ornic_qp_mask_from_ib(IB_QP_CAP, &m),
			-EOPNOTSUPP);
}

static void ornic_qp_attrs_to_hw(struct kunit *test)
{
	struct ib_qp_attr ia = {
		.qp_state = IB_QPS_RTR, .path_mtu = IB_MTU_1024,
		.qkey = 0x11223344, .rq_psn = 0xabcdef, .sq_psn = 0x123456,
		.dest_qp_num = 0x42, .timeout = 14, .retry_cnt = 7,
		.rnr_retry = 6, .min_rnr_timer = 12, .max_rd_atomic = 4,
		.max_dest_rd_atomic = 8, .en_sqd_async_notify = 5,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_LOCAL_WRITE,
	};
	struct ornic_qp_attr oa = {};

	KUNIT_ASSERT_EQ(test, ornic_qp_attr_from_ib(&ia,
						    ORNIC_IB_QP_MASK_SUPPORTED &
						    ~IB_QP_AV, &oa), 0);
	KUNIT_EXPECT_EQ(test, oa.state, (u8)ORNIC_QPS_RTR);
	KUNIT_EXPECT_EQ(test, oa.path_mtu, (u8)ORNIC_MTU_1024);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(oa.qkey), 0x11223344U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(oa.rq_psn), 0xabcdefU);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(oa.sq_psn), 0x123456U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(oa.dest_qpn), 0x42U);
	KUNIT_EXPECT_EQ(test, oa.timeout, 14);
	KUNIT_EXPECT_EQ(test, oa.retry_cnt, 7);
	KUNIT_EXPECT_EQ(test, oa.rnr_retry, 6);
	KUNIT_EXPECT_EQ(test, oa.min_rnr_timer, 12);
	KUNIT_EXPECT_EQ(test, oa.max_rd_atomic, 4);
	KUNIT_EXPECT_EQ(test, oa.max_dest_rd_atomic, 8);
	KUNIT_EXPECT_EQ(test, oa.en_sqd_async_notify, 1);
	/* A QP's access flags are about remote access only. */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(oa.access_flags),
			(u32)(ORNIC_ACCESS_REMOTE_WRITE |
			      ORNIC_ACCESS_REMOTE_READ));

	/* Fields outside the mask stay untouched. */
	memset(&oa, 0, sizeof(oa));
	KUNIT_ASSERT_EQ(test, ornic_qp_attr_from_ib(&ia, IB_QP_STATE, &oa), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(oa.qkey), 0U);
	KUNIT_EXPECT_EQ(test, oa.timeout, 0);
}

static void ornic_qp_attr_ranges(struct kunit *test)
{
	struct ornic_qp_attr oa = {};
	struct ib_qp_attr ia;

	ia = (struct ib_qp_attr){ .timeout = 32 };
	KUNIT_EXPECT_EQ(test, ornic_qp_attr_from_ib(&ia, IB_QP_TIMEOUT, &oa),
			-EINVAL);
	ia = (struct ib_qp_attr){ .retry_cnt = 8 };
	KUNIT_EXPECT_EQ(test, ornic_qp_attr_from_ib(&ia, IB_QP_RETRY_CNT,
						    &oa), -EINVAL);
	/* 24-bit PSNs and QPNs keep their low 24 bits, as rxe and mlx5 do. */
	ia = (struct ib_qp_attr){ .sq_psn = 0x1abcdef, .rq_psn = 0xff123456,
				  .dest_qp_num = 0xff000042 };
	KUNIT_EXPECT_EQ(test, ornic_qp_attr_from_ib(&ia, IB_QP_SQ_PSN |
						    IB_QP_RQ_PSN |
						    IB_QP_DEST_QPN, &oa), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(oa.sq_psn), 0xabcdefU);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(oa.rq_psn), 0x123456U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(oa.dest_qpn), 0x42U);
	ia = (struct ib_qp_attr){ .pkey_index = 1 };
	KUNIT_EXPECT_EQ(test, ornic_qp_attr_from_ib(&ia, IB_QP_PKEY_INDEX,
						    &oa), -EINVAL);
	ia = (struct ib_qp_attr){ .path_mtu = 6 };
	KUNIT_EXPECT_EQ(test, ornic_qp_attr_from_ib(&ia, IB_QP_PATH_MTU, &oa),
			-EINVAL);
	ia = (struct ib_qp_attr){ .min_rnr_timer = 32 };
	KUNIT_EXPECT_EQ(test, ornic_qp_attr_from_ib(&ia, IB_QP_MIN_RNR_TIMER,
						    &oa), -EINVAL);
	/* Unknown access bits are refused, as rxe refuses them. */
	ia = (struct ib_qp_attr){ .qp_access_flags = IB_ZERO_BASED };
	KUNIT_EXPECT_EQ(test, ornic_qp_attr_from_ib(&ia, IB_QP_ACCESS_FLAGS,
						    &oa), -EINVAL);
	/*
	 * rxe's QP set is taken; MW_BIND, ON_DEMAND and relaxed ordering do
	 * not reach the device, the FLUSH rights do (ornic_qp_flush_access).
	 */
	ia = (struct ib_qp_attr){ .qp_access_flags = IB_ACCESS_REMOTE_WRITE |
						     IB_ACCESS_MW_BIND |
						     IB_ACCESS_ON_DEMAND |
						     IB_ACCESS_FLUSH_GLOBAL |
						     IB_ACCESS_FLUSH_PERSISTENT |
						     IB_ACCESS_RELAXED_ORDERING };
	KUNIT_EXPECT_EQ(test, ornic_qp_attr_from_ib(&ia, IB_QP_ACCESS_FLAGS,
						    &oa), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(oa.access_flags),
			ORNIC_ACCESS_REMOTE_WRITE | ORNIC_ACCESS_FLUSH);
	/* ON_DEMAND is an MR flag: on a QP it is taken and means nothing. */
	ia = (struct ib_qp_attr){ .qp_access_flags = IB_ACCESS_REMOTE_READ |
						     IB_ACCESS_ON_DEMAND };
	KUNIT_EXPECT_EQ(test, ornic_qp_attr_from_ib(&ia, IB_QP_ACCESS_FLAGS,
						    &oa), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(oa.access_flags),
			ORNIC_ACCESS_REMOTE_READ);
}

/* A QP's remote FLUSH rights (pyverbs asks them of every RC QP). */
static void ornic_qp_flush_access(struct kunit *test)
{
	struct ib_qp_attr ia = { .qp_access_flags = IB_ACCESS_REMOTE_WRITE |
						    IB_ACCESS_FLUSH_GLOBAL |
						    IB_ACCESS_FLUSH_PERSISTENT };
	u32 flush = ORNIC_ACCESS_FLUSH_GLOBAL | ORNIC_ACCESS_FLUSH_PERSISTENT;
	struct ornic_qp_attr oa = {};
	struct ib_qp_attr back = {};
	u32 access;

	KUNIT_ASSERT_EQ(test, ornic_qp_attr_from_ib(&ia, IB_QP_ACCESS_FLAGS,
						    &oa), 0);
	access = le32_to_cpu(oa.access_flags);
	KUNIT_EXPECT_EQ(test, access, ORNIC_ACCESS_REMOTE_WRITE | flush);
	/* A device with FLUSH keeps them ... */
	KUNIT_EXPECT_EQ(test, ornic_qp_access_for_caps(access, ORNIC_CAP_RC |
						       ORNIC_CAP_FLUSH),
			access);
	/* ... one without takes the QP and drops them (as mlx5 and rxe). */
	KUNIT_EXPECT_EQ(test, ornic_qp_access_for_caps(access, ORNIC_CAP_RC |
						       ORNIC_CAP_ATOMIC_WRITE),
			(u32)ORNIC_ACCESS_REMOTE_WRITE);
	/* QUERY_QP gives them back. */
	ornic_qp_attr_to_ib(&oa, &back);
	KUNIT_EXPECT_EQ(test, back.qp_access_flags, ia.qp_access_flags);
	oa.access_flags = cpu_to_le32(ORNIC_ACCESS_FLUSH_PERSISTENT);
	ornic_qp_attr_to_ib(&oa, &back);
	KUNIT_EXPECT_EQ(test, back.qp_access_flags,
			IB_ACCESS_FLUSH_PERSISTENT);
}

static void ornic_qp_av_roundtrip(struct kunit *test)
{
	struct ornic_av av = {
		.dgid = { [10] = 0xff, [11] = 0xff, 10, 1, 0, 2 },
		.dmac = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x07 },
		.sgid_index = 3, .hop_limit = 64, .traffic_class = 0x20,
		.flow_label = 0xabcde, .udp_sport = 0xc123,
	};
	struct ornic_qp_attr oa = {};
	struct ib_qp_attr ia = {};
	const struct ib_global_route *grh;

	ornic_qp_av_to_hw(&av, &oa);
	KUNIT_EXPECT_MEMEQ(test, oa.dgid, av.dgid, 16);
	KUNIT_EXPECT_MEMEQ(test, oa.dmac, av.dmac, 6);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(oa.udp_sport), 0xc123);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(oa.flow_label), 0xabcdeU);

	oa.state = ORNIC_QPS_RTS;
	oa.sq_psn = cpu_to_le32(77);
	oa.access_flags = cpu_to_le32(ORNIC_ACCESS_REMOTE_READ);
	ornic_qp_attr_to_ib(&oa, &ia);
	KUNIT_EXPECT_EQ(test, ia.qp_state, IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, ia.sq_psn, 77U);
	KUNIT_EXPECT_EQ(test, ia.qp_access_flags, IB_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, ia.port_num, 1);
	KUNIT_EXPECT_EQ(test, ia.ah_attr.type, RDMA_AH_ATTR_TYPE_ROCE);
	grh = rdma_ah_read_grh(&ia.ah_attr);
	KUNIT_EXPECT_MEMEQ(test, grh->dgid.raw, av.dgid, 16);
	KUNIT_EXPECT_EQ(test, grh->sgid_index, 3);
	KUNIT_EXPECT_EQ(test, grh->hop_limit, 64);
	KUNIT_EXPECT_EQ(test, grh->traffic_class, 0x20);
	KUNIT_EXPECT_EQ(test, grh->flow_label, 0xabcdeU);
	KUNIT_EXPECT_MEMEQ(test, ia.ah_attr.roce.dmac, av.dmac, 6);

	/* "Any flow label" (0xffffffff) keeps the 20 bits the wire has. */
	av.flow_label = 0xffffffff;
	ornic_qp_av_to_hw(&av, &oa);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(oa.flow_label), 0xfffffU);
}

/* QP types follow the device's caps; each type carries its opcodes only. */
static void ornic_qp_types(struct kunit *test)
{
	const u64 all = ORNIC_CAP_RC | ORNIC_CAP_UC | ORNIC_CAP_UD |
			ORNIC_CAP_GSI | ORNIC_CAP_XRC;
	u8 hw = 0;

	KUNIT_EXPECT_EQ(test, ornic_qp_type_to_hw(IB_QPT_RC, all, &hw), 0);
	KUNIT_EXPECT_EQ(test, hw, (u8)ORNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, ornic_qp_type_to_hw(IB_QPT_UC, all, &hw), 0);
	KUNIT_EXPECT_EQ(test, hw, (u8)ORNIC_QPT_UC);
	KUNIT_EXPECT_EQ(test, ornic_qp_type_to_hw(IB_QPT_UD, all, &hw), 0);
	KUNIT_EXPECT_EQ(test, hw, (u8)ORNIC_QPT_UD);
	KUNIT_EXPECT_EQ(test, ornic_qp_type_to_hw(IB_QPT_GSI, all, &hw), 0);
	KUNIT_EXPECT_EQ(test, hw, (u8)ORNIC_QPT_GSI);
	KUNIT_EXPECT_EQ(test, ornic_qp_type_to_hw(IB_QPT_XRC_INI, all, &hw), 0);
	KUNIT_EXPECT_EQ(test, hw, (u8)ORNIC_QPT_XRC_INI);
	KUNIT_EXPECT_EQ(test, ornic_qp_type_to_hw(IB_QPT_XRC_TGT, all, &hw), 0);
	KUNIT_EXPECT_EQ(test, hw, (u8)ORNIC_QPT_XRC_TGT);
	/* A device without the cap, and types no ornic has. */
	hw = 0xee;
	KUNIT_EXPECT_EQ(test, ornic_qp_type_to_hw(IB_QPT_UC,
						  all & ~ORNIC_CAP_UC, &hw),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ornic_qp_type_to_hw(IB_QPT_RC, ORNIC_CAP_UC,
						  &hw), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ornic_qp_type_to_hw(IB_QPT_XRC_INI,
						  all & ~ORNIC_CAP_XRC, &hw),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ornic_qp_type_to_hw(IB_QPT_XRC_TGT, ORNIC_CAP_RC,
						  &hw), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ornic_qp_type_to_hw(IB_QPT_GSI,
						  all & ~ORNIC_CAP_GSI, &hw),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ornic_qp_type_to_hw(IB_QPT_RAW_PACKET, all,
						  &hw), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, hw, (u8)0xee);

	KUNIT_EXPECT_TRUE(test, ornic_qp_type_has_op(ORNIC_QPT_RC,
						     ORNIC_WQE_OP_RDMA_READ));
	KUNIT_EXPECT_TRUE(test, ornic_qp_type_has_op(ORNIC_QPT_RC,
						     ORNIC_WQE_OP_SEND_INV));
	KUNIT_EXPECT_TRUE(test, ornic_qp_type_has_op(ORNIC_QPT_UC,
						     ORNIC_WQE_OP_SEND_IMM));
	KUNIT_EXPECT_TRUE(test,
			  ornic_qp_type_has_op(ORNIC_QPT_UC,
					       ORNIC_WQE_OP_RDMA_WRITE_IMM));
	KUNIT_EXPECT_TRUE(test, ornic_qp_type_has_op(ORNIC_QPT_UC,
						     ORNIC_WQE_OP_LOCAL_INV));
	KUNIT_EXPECT_FALSE(test, ornic_qp_type_has_op(ORNIC_QPT_UC,
						      ORNIC_WQE_OP_RDMA_READ));
	KUNIT_EXPECT_FALSE(test,
			   ornic_qp_type_has_op(ORNIC_QPT_UC,
						ORNIC_WQE_OP_ATOMIC_CMP_SWP));
	KUNIT_EXPECT_FALSE(test, ornic_qp_type_has_op(ORNIC_QPT_UC,
						      ORNIC_WQE_OP_SEND_INV));
	KUNIT_EXPECT_TRUE(test, ornic_qp_type_has_op(ORNIC_QPT_GSI,
						     ORNIC_WQE_OP_SEND));
	KUNIT_EXPECT_FALSE(test,
			   ornic_qp_type_has_op(ORNIC_QPT_UD,
						ORNIC_WQE_OP_RDMA_WRITE));
	/* An initiator sends what RC sends; a target has no send queue. */
	KUNIT_EXPECT_TRUE(test, ornic_qp_type_has_op(ORNIC_QPT_XRC_INI,
						     ORNIC_WQE_OP_ATOMIC_CMP_SWP));
	KUNIT_EXPECT_FALSE(test, ornic_qp_type_has_op(ORNIC_QPT_XRC_TGT,
						      ORNIC_WQE_OP_SEND));
	KUNIT_EXPECT_FALSE(test, ornic_qp_type_has_op(ORNIC_QPT_RC, 0x0f));
	KUNIT_EXPECT_FALSE(test, ornic_qp_type_has_op(0, ORNIC_WQE_OP_SEND));
}

static struct kunit_case ornic_qp_attr_cases[] = {
	KUNIT_CASE(ornic_qp_types),
	KUNIT_CASE(ornic_qp_masks),
	KUNIT_CASE(ornic_qp_attrs_to_hw),
	KUNIT_CASE(ornic_qp_attr_ranges),
	KUNIT_CASE(ornic_qp_flush_access),
	KUNIT_CASE(ornic_qp_av_roundtrip),
	{}
};

static struct kunit_suite ornic_qp_attr_suite = {
	.name = "ornic_qp_attr",
	.test_cases = ornic_qp_attr_cases,
};

kunit_test_suites(&ornic_wq_suite, &ornic_mem_verbs_suite,
		  &ornic_qp_attr_suite);
