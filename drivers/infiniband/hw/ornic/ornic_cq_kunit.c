// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_cq: the CQ commands (ornic_cq.c), what a CQE's opcode completes
 * and the ring depth of a kernel CQ (ornic_cq_kernel.c).
 */
#include <kunit/test.h>

#include "ornic_kunit.h"
#include "ornic_res.h"

static void ornic_cmd_create_cq_layouts(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_create_cq *cq = (void *)&sqe;
	struct ornic_mem_desc mem;

	ornic_mem_desc_contig(&mem, 0x10000, 16 << 10, 12);
	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_create_cq(&sqe, &mem, 9, 2, 0, 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_CREATE_CQ);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cq->eqn), 2U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cq->db_page), 0);
	KUNIT_EXPECT_EQ(test, cq->log_depth, 9);
	KUNIT_EXPECT_EQ(test, cq->flags, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cq->mem.num_pages), 4U);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(cq->reserved1,
					       sizeof(cq->reserved1)));
	ornic_cmd_create_cq(&sqe, &mem, 6, 3, 17, ORNIC_CQ_FLAG_TIMESTAMP);
	KUNIT_EXPECT_EQ(test, cq->flags, ORNIC_CQ_FLAG_TIMESTAMP);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cq->db_page), 17);
	KUNIT_EXPECT_EQ(test, cq->log_depth, 6);
}

static void ornic_cmd_resize_cq_layout(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_resize_cq *cq = (void *)&sqe;
	struct ornic_mem_desc mem;

	ornic_mem_desc_contig(&mem, 0x20000, 8 << 10, 12);
	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_resize_cq(&sqe, &mem, 8, 5, 0xfffffffeU);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_RESIZE_CQ);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cq->cqn), 5U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cq->consumer), 0xfffffffeU);
	KUNIT_EXPECT_EQ(test, cq->log_depth, 8);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(cq->mem.addr), 0x20000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cq->mem.num_pages), 2U);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(cq->reserved0,
					       sizeof(cq->reserved0)));
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(cq->reserved1,
					       sizeof(cq->reserved1)));
	KUNIT_EXPECT_STREQ(test, ornic_admin_opcode_str(ORNIC_ADMIN_RESIZE_CQ),
			   "RESIZE_CQ");
}

static void ornic_cqe_network_types(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ornic_cqe_network_type(ORNIC_CQE_FLAG_GRH),
			RDMA_NETWORK_IPV6);
	KUNIT_EXPECT_EQ(test, ornic_cqe_network_type(ORNIC_CQE_FLAG_GRH |
						     ORNIC_CQE_FLAG_IPV4),
			RDMA_NETWORK_IPV4);
	/* RoCE v1's GRH is IB's: the core then looks for a v1 GID. */
	KUNIT_EXPECT_EQ(test, ornic_cqe_network_type(ORNIC_CQE_FLAG_GRH |
						     ORNIC_CQE_FLAG_ROCE_V1),
			RDMA_NETWORK_ROCE_V1);
}

static void ornic_cqe_vlan_tci_split(struct kunit *test)
{
	struct ornic_cqe cqe = { .src_qp = cpu_to_le32(0x2a000123),
				 .vlan_tci_hi = 0xa0 };

	/* PCP 5, VLAN 42: 0xa02a; the source QPN keeps its 24 bits. */
	KUNIT_EXPECT_EQ(test, ornic_cqe_vlan_tci(&cqe), 0xa02a);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cqe.src_qp) & ORNIC_QPN_MASK, 0x123);
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

/* Creation and resize size a kernel CQ's ring alike. */
static void ornic_kernel_cq_log_depths(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ornic_kernel_cq_log_depth(0, 4096), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_kernel_cq_log_depth(1, 4096), 1);
	KUNIT_EXPECT_EQ(test, ornic_kernel_cq_log_depth(2, 4096), 1);
	KUNIT_EXPECT_EQ(test, ornic_kernel_cq_log_depth(3, 4096), 2);
	KUNIT_EXPECT_EQ(test, ornic_kernel_cq_log_depth(16, 4096), 4);
	KUNIT_EXPECT_EQ(test, ornic_kernel_cq_log_depth(17, 4096), 5);
	KUNIT_EXPECT_EQ(test, ornic_kernel_cq_log_depth(4096, 4096), 12);
	/* Past what the device allows, or what a DMA-contiguous ring holds. */
	KUNIT_EXPECT_EQ(test, ornic_kernel_cq_log_depth(4097, 4096), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_kernel_cq_log_depth(U32_MAX, 4096), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_kernel_cq_log_depth(1U << 14, 1U << 20), 14);
	KUNIT_EXPECT_EQ(test, ornic_kernel_cq_log_depth((1U << 14) + 1,
							1U << 20), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_kernel_cq_log_depth(U32_MAX, U32_MAX),
			-EINVAL);
}

static struct kunit_case ornic_cq_cases[] = {
	KUNIT_CASE(ornic_cmd_create_cq_layouts),
	KUNIT_CASE(ornic_cmd_resize_cq_layout),
	KUNIT_CASE(ornic_cqe_network_types),
	KUNIT_CASE(ornic_cqe_vlan_tci_split),
	KUNIT_CASE(ornic_devval_cqe_kind),
	KUNIT_CASE(ornic_kernel_cq_log_depths),
	{}
};

static struct kunit_suite ornic_cq_suite = {
	.name = "ornic_cq",
	.test_cases = ornic_cq_cases,
};

kunit_test_suites(&ornic_cq_suite);
