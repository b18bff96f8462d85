// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_qp: what the QP commands carry (ornic_qp_cmd.c): CREATE_QP and
 * MODIFY_QP, QP types and their opcodes, the IB <-> device attribute
 * translation, and the checks of the states and attributes QUERY_QP brings
 * back (each fed the out-of-range values a broken device could write).
 */
#include <kunit/test.h>

#include "ornic_kunit.h"
#include "ornic_qp_cmd.h"
#include "ornic_ring.h"

static void ornic_cmd_create_qp_kinds(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_create_qp *c = (void *)&sqe;
	const u8 *b = (const u8 *)&sqe;
	struct ornic_qp_create_args args = {
		.pdn = 0x11223344,
		.send_cqn = 5,
		.recv_cqn = 6,
		.srqn = 0x77,
		.xrcdn = 0x99,
		.db_page = 0x0102,
		.qp_type = ORNIC_QPT_RC,
		.sq_log_depth = 8,
		.rq_log_depth = 7,
	};

	ornic_mem_desc_contig(&args.sq_mem, 0x100000, 16 << 10, 12);
	ornic_mem_desc_contig(&args.rq_mem, 0x200000, 8 << 10, 12);
	/* Both rings, no SRQ: neither srqn nor xrcd is sent. */
	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_create_qp(&sqe, &args);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_CREATE_QP);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->sq_mem.addr), 0x100000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->sq_mem.num_pages), 4U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->rq_mem.addr), 0x200000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->rq_mem.num_pages), 2U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->pd), 0x11223344U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->send_cqn), 5U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->recv_cqn), 6U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->srqn), 0U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->db_page), 0x0102);
	KUNIT_EXPECT_EQ(test, c->qp_type, ORNIC_QPT_RC);
	KUNIT_EXPECT_EQ(test, c->flags, 0);
	KUNIT_EXPECT_EQ(test, c->sq_log_depth, 8);
	KUNIT_EXPECT_EQ(test, c->rq_log_depth, 7);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->reserved), 0);
	KUNIT_EXPECT_EQ(test, b[40], 0x44);
	KUNIT_EXPECT_EQ(test, b[43], 0x11);
	KUNIT_EXPECT_EQ(test, b[56], 0x02);
	KUNIT_EXPECT_EQ(test, b[57], 0x01);

	/* With an SRQ: the flag and its number, no RQ. */
	memset(&args.rq_mem, 0, sizeof(args.rq_mem));
	args.flags = ORNIC_QP_FLAG_USE_SRQ;
	args.rq_log_depth = 0;
	ornic_cmd_create_qp(&sqe, &args);
	KUNIT_EXPECT_EQ(test, c->flags, ORNIC_QP_FLAG_USE_SRQ);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->srqn), 0x77U);
	KUNIT_EXPECT_EQ(test, b[52], 0x77);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(&c->rq_mem, sizeof(c->rq_mem)));
	KUNIT_EXPECT_EQ(test, c->rq_log_depth, 0);

	/* An XRC target: only its domain and the doorbell page. */
	memset(&args, 0, sizeof(args));
	args.qp_type = ORNIC_QPT_XRC_TGT;
	args.xrcdn = 0x99;
	args.db_page = ORNIC_DB_PAGE_KERNEL;
	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_create_qp(&sqe, &args);
	KUNIT_EXPECT_EQ(test, c->qp_type, ORNIC_QPT_XRC_TGT);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->xrcd), 0x99U);
	KUNIT_EXPECT_EQ(test, b[52], 0x99);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->db_page), ORNIC_DB_PAGE_KERNEL);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(&c->sq_mem, sizeof(c->sq_mem)));
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(&c->rq_mem, sizeof(c->rq_mem)));
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->pd), 0U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->send_cqn), 0U);
	KUNIT_EXPECT_EQ(test, c->flags, 0);
}

static void ornic_cmd_modify_qp_layout(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_modify_qp *c = (void *)&sqe;
	const u8 *b = (const u8 *)&sqe;

	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_modify_qp(&sqe, ORNIC_ADMIN_MODIFY_QP, 0x123456,
			    0x1122334455667788ULL, 128,
			    ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_QKEY,
			    ORNIC_QPS_RTR);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_MODIFY_QP);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->attr_addr),
			0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->attr_len), 128U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->qpn), 0x123456U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->attr_mask),
			ORNIC_QP_ATTR_STATE | ORNIC_QP_ATTR_QKEY);
	KUNIT_EXPECT_EQ(test, c->cur_state, ORNIC_QPS_RTR);
	KUNIT_EXPECT_EQ(test, c->flags, ORNIC_MODIFY_QP_FLAG_CUR_STATE);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->reserved0), 0);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(c->reserved1,
					       sizeof(c->reserved1)));
	KUNIT_EXPECT_EQ(test, b[8], 0x88);
	KUNIT_EXPECT_EQ(test, b[15], 0x11);
	KUNIT_EXPECT_EQ(test, b[20], 0x56);
	KUNIT_EXPECT_EQ(test, b[22], 0x12);

	/* QUERY_QP, and no expected current state: cur_state stays zero. */
	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_modify_qp(&sqe, ORNIC_ADMIN_QUERY_QP, 3, 0x1000, 128, 0, -1);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_QUERY_QP);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->qpn), 3U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->attr_mask), 0U);
	KUNIT_EXPECT_EQ(test, c->cur_state, 0);
	KUNIT_EXPECT_EQ(test, c->flags, 0);
}

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
	ia = (struct ib_qp_attr){ .pkey_index = ORNIC_IB_PKEY_TABLE_LEN };
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

static struct kunit_case ornic_qp_cases[] = {
	KUNIT_CASE(ornic_cmd_create_qp_kinds),
	KUNIT_CASE(ornic_cmd_modify_qp_layout),
	KUNIT_CASE(ornic_qp_types),
	KUNIT_CASE(ornic_qp_masks),
	KUNIT_CASE(ornic_qp_attrs_to_hw),
	KUNIT_CASE(ornic_qp_attr_ranges),
	KUNIT_CASE(ornic_qp_flush_access),
	KUNIT_CASE(ornic_qp_av_roundtrip),
	KUNIT_CASE(ornic_devval_qp_state),
	KUNIT_CASE(ornic_devval_qp_attr),
	{}
};

static struct kunit_suite ornic_qp_suite = {
	.name = "ornic_qp",
	.test_cases = ornic_qp_cases,
};

kunit_test_suites(&ornic_qp_suite);
