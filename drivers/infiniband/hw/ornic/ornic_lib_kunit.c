// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suites for the ornic driver's pure logic (ornic_lib.c): ring index
 * and phase arithmetic, command identifiers and their allocator, admin
 * command encoding and status decoding, memory descriptors and page lists,
 * MTU and speed mapping.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <rdma/ib_verbs.h>

#include "ornic_lib.h"

/* --- rings ------------------------------------------------------------------ */

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

static struct kunit_case ornic_ring_cases[] = {
	KUNIT_CASE(ornic_ring_slot_wraps),
	KUNIT_CASE(ornic_ring_phase_alternates),
	KUNIT_CASE(ornic_ring_owned_follows_phase),
	KUNIT_CASE(ornic_ring_space_free_running),
	KUNIT_CASE(ornic_log2_depth_rounds_up),
	{}
};

static struct kunit_suite ornic_ring_suite = {
	.name = "ornic_ring",
	.test_cases = ornic_ring_cases,
};

/* --- command identifiers ------------------------------------------------ */

static void ornic_cmd_id_roundtrip(struct kunit *test)
{
	u32 slot, seq;
	u16 id;

	for (seq = 0; seq < 3000; seq += 7) {
		for (slot = 0; slot < 64; slot += 9) {
			id = ornic_cmd_id_make(slot, seq, 6);
			KUNIT_EXPECT_EQ(test, ornic_cmd_id_slot(id, 6), slot);
		}
	}
	/* Same slot, consecutive sequence numbers: different ids. */
	KUNIT_EXPECT_NE(test, ornic_cmd_id_make(5, 1, 6),
			ornic_cmd_id_make(5, 2, 6));
}

static void ornic_id_alloc_round_robin(struct kunit *test)
{
	DECLARE_BITMAP(map, 4);
	struct ornic_id_alloc ida;

	ornic_id_alloc_init(&ida, map, 4);
	KUNIT_EXPECT_EQ(test, ornic_id_get(&ida), 0);
	KUNIT_EXPECT_EQ(test, ornic_id_get(&ida), 1);
	ornic_id_put(&ida, 0);
	/* A freed id is not handed out again at once. */
	KUNIT_EXPECT_EQ(test, ornic_id_get(&ida), 2);
	KUNIT_EXPECT_EQ(test, ornic_id_get(&ida), 3);
	KUNIT_EXPECT_EQ(test, ornic_id_get(&ida), 0);
	KUNIT_EXPECT_EQ(test, ornic_id_get(&ida), -ENOSPC);
	ornic_id_put(&ida, 2);
	KUNIT_EXPECT_EQ(test, ornic_id_get(&ida), 2);
	/* Out-of-range puts are ignored. */
	ornic_id_put(&ida, 99);
	KUNIT_EXPECT_EQ(test, ornic_id_get(&ida), -ENOSPC);
}

static struct kunit_case ornic_id_cases[] = {
	KUNIT_CASE(ornic_cmd_id_roundtrip),
	KUNIT_CASE(ornic_id_alloc_round_robin),
	{}
};

static struct kunit_suite ornic_id_suite = {
	.name = "ornic_id",
	.test_cases = ornic_id_cases,
};

/* --- admin command encoding -------------------------------------------- */

static bool ornic_all_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

static void ornic_cmd_query_layout(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_query *q = (struct ornic_admin_query *)&sqe;

	memset(&sqe, 0xaa, sizeof(sqe));
	ornic_cmd_query(&sqe, ORNIC_ADMIN_QUERY_DEVICE, 0x123456789000ULL, 256);
	ornic_cmd_set_id(&sqe, 0x1234);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_QUERY_DEVICE);
	KUNIT_EXPECT_EQ(test, sqe.hdr.flags, 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(sqe.hdr.command_id), 0x1234);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(sqe.hdr.reserved), 0U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q->resp_addr), 0x123456789000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q->resp_len), 256U);
	/* Every reserved byte is zero: the device checks them. */
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(q->reserved,
					       sizeof(q->reserved)));
	/* Byte-level check of the little-endian encoding. */
	KUNIT_EXPECT_EQ(test, ((u8 *)&sqe)[2], 0x34);
	KUNIT_EXPECT_EQ(test, ((u8 *)&sqe)[3], 0x12);
	KUNIT_EXPECT_EQ(test, ((u8 *)&sqe)[8], 0x00);
	KUNIT_EXPECT_EQ(test, ((u8 *)&sqe)[9], 0x90);
}

static void ornic_cmd_header_only(struct kunit *test)
{
	struct ornic_admin_sqe sqe;

	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_init(&sqe, ORNIC_ADMIN_ALLOC_PD);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_ALLOC_PD);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(sqe.body, sizeof(sqe.body)));
}

static void ornic_cmd_create_layouts(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_create_eq *eq = (void *)&sqe;
	struct ornic_admin_create_cq *cq = (void *)&sqe;
	struct ornic_admin_create_eth_ring *ring = (void *)&sqe;
	struct ornic_admin_destroy *d = (void *)&sqe;
	struct ornic_mem_desc mem;

	ornic_mem_desc_contig(&mem, 0x10000, 16 << 10, 12);
	ornic_cmd_create_eq(&sqe, &mem, 10, 3);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_CREATE_EQ);
	KUNIT_EXPECT_EQ(test, eq->log_depth, 10);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(eq->msix_vector), 3);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(eq->mem.num_pages), 4U);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(eq->reserved1,
					       sizeof(eq->reserved1)));

	ornic_cmd_create_cq(&sqe, &mem, 9, 2, 0, 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_CREATE_CQ);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cq->eqn), 2U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cq->db_page), 0);
	KUNIT_EXPECT_EQ(test, cq->log_depth, 9);
	KUNIT_EXPECT_EQ(test, cq->flags, 0);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(cq->reserved1,
					       sizeof(cq->reserved1)));
	ornic_cmd_create_cq(&sqe, &mem, 6, 3, 17, ORNIC_CQ_FLAG_TIMESTAMP);
	KUNIT_EXPECT_EQ(test, cq->flags, ORNIC_CQ_FLAG_TIMESTAMP);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cq->db_page), 17);
	KUNIT_EXPECT_EQ(test, cq->log_depth, 6);

	ornic_cmd_create_eth_ring(&sqe, true, &mem, 8, 7);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_ETH_CREATE_TX_RING);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ring->cqn), 7U);
	ornic_cmd_create_eth_ring(&sqe, false, &mem, 8, 7);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_ETH_CREATE_RX_RING);

	ornic_cmd_destroy(&sqe, ORNIC_ADMIN_DEALLOC_PD, 42);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_DEALLOC_PD);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->handle), 42U);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(d->reserved,
					       sizeof(d->reserved)));
}

static void ornic_cmd_resize_layouts(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_resize_cq *cq = (void *)&sqe;
	struct ornic_admin_resize_srq *srq = (void *)&sqe;
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

	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_resize_srq(&sqe, &mem, 7, 9);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_RESIZE_SRQ);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(srq->srqn), 9U);
	KUNIT_EXPECT_EQ(test, srq->log_depth, 7);
	KUNIT_EXPECT_EQ(test, srq->mem.page_shift, 12);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(srq->reserved1,
					       sizeof(srq->reserved1)));
}

static void ornic_cmd_rereg_mr_parts(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_rereg_mr *c = (void *)&sqe;
	struct ornic_mr_xlat xlat = {
		.iova = 0x7f0000001234ULL,
		.length = 0x3000,
		.first_page_offset = 0x234,
	};

	ornic_mem_desc_contig(&xlat.mem, 0x40000, 0x4000, 12);
	/* Access only: every translation and PD field stays zero. */
	memset(&sqe, 0xff, sizeof(sqe));
	KUNIT_EXPECT_EQ(test, ornic_cmd_rereg_mr(&sqe, 0x1234, ORNIC_REREG_MR_ACCESS,
						 NULL, 77,
						 ORNIC_ACCESS_LOCAL_WRITE), 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_REREG_MR);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->key), 0x1234U);
	KUNIT_EXPECT_EQ(test, c->flags, ORNIC_REREG_MR_ACCESS);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->access), ORNIC_ACCESS_LOCAL_WRITE);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->pd), 0U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->iova), 0ULL);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(&c->mem, sizeof(c->mem)));

	/* Everything. */
	KUNIT_EXPECT_EQ(test, ornic_cmd_rereg_mr(&sqe, 0x1234, ORNIC_REREG_MR_ALL,
						 &xlat, 77, 0x7), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->pd), 77U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->access), 0x7U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->iova), 0x7f0000001234ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->length), 0x3000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->first_page_offset), 0x234U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->mem.num_pages), 4U);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(c->reserved0,
					       sizeof(c->reserved0)));
	KUNIT_EXPECT_EQ(test, c->reserved1, 0U);

	/* PD only: access is not sent even when given. */
	KUNIT_EXPECT_EQ(test, ornic_cmd_rereg_mr(&sqe, 0x1234, ORNIC_REREG_MR_PD,
						 NULL, 5, 0x7), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->pd), 5U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->access), 0U);

	/* No part, an unknown part, translation without a region or the reverse. */
	KUNIT_EXPECT_EQ(test, ornic_cmd_rereg_mr(&sqe, 1, 0, NULL, 0, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cmd_rereg_mr(&sqe, 1, 0x8, NULL, 0, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cmd_rereg_mr(&sqe, 1,
						 ORNIC_REREG_MR_TRANSLATION,
						 NULL, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cmd_rereg_mr(&sqe, 1, ORNIC_REREG_MR_PD,
						 &xlat, 0, 0), -EINVAL);
	KUNIT_EXPECT_STREQ(test, ornic_admin_opcode_str(ORNIC_ADMIN_REREG_MR),
			   "REREG_MR");
	KUNIT_EXPECT_STREQ(test, ornic_admin_opcode_str(ORNIC_ADMIN_RESIZE_CQ),
			   "RESIZE_CQ");
	KUNIT_EXPECT_STREQ(test, ornic_admin_opcode_str(ORNIC_ADMIN_RESIZE_SRQ),
			   "RESIZE_SRQ");
}

static void ornic_cmd_reg_mr_kinds(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_reg_mr *c = (void *)&sqe;
	const u8 *b = (const u8 *)&sqe;
	struct ornic_mr_xlat xlat = {
		.iova = 0x7f0000001234ULL,
		.length = 0x3000,
		.first_page_offset = 0x234,
	};

	ornic_mem_desc_contig(&xlat.mem, 0x40000, 0x4000, 12);
	/* A user (or ODP) MR: the region, PD, access and key variant. */
	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_reg_mr(&sqe, &xlat, 0x01020304,
			 ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_ON_DEMAND, 0xa5);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_REG_MR);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->mem.addr), 0x40000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->mem.num_pages), 4U);
	KUNIT_EXPECT_EQ(test, c->mem.mode, ORNIC_MEM_MODE_CONTIG);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->iova), 0x7f0000001234ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->length), 0x3000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->pd), 0x01020304U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->access),
			ORNIC_ACCESS_LOCAL_WRITE | ORNIC_ACCESS_ON_DEMAND);
	KUNIT_EXPECT_EQ(test, c->key_variant, 0xa5);
	KUNIT_EXPECT_EQ(test, c->flags, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->first_page_offset), 0x234U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->reserved0), 0);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(c->reserved1,
					       sizeof(c->reserved1)));
	/* Little-endian at the offsets the header asserts. */
	KUNIT_EXPECT_EQ(test, b[24], 0x34);
	KUNIT_EXPECT_EQ(test, b[25], 0x12);
	KUNIT_EXPECT_EQ(test, b[29], 0x7f);
	KUNIT_EXPECT_EQ(test, b[40], 0x04);
	KUNIT_EXPECT_EQ(test, b[43], 0x01);
	KUNIT_EXPECT_EQ(test, b[48], 0xa5);

	/* PHYSICAL: no page list, iova 0, the whole range. */
	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_reg_mr_physical(&sqe, 7, ORNIC_ACCESS_LOCAL_WRITE, 3);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_REG_MR);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(&c->mem, sizeof(c->mem)));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->iova), 0ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->length), U64_MAX);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->pd), 7U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->access), ORNIC_ACCESS_LOCAL_WRITE);
	KUNIT_EXPECT_EQ(test, c->key_variant, 3);
	KUNIT_EXPECT_EQ(test, c->flags, ORNIC_MR_FLAG_PHYSICAL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->first_page_offset), 0U);

	/* FAST_REG: only the page capacity; no access, iova or length. */
	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_reg_mr_fast(&sqe, 9, 256, 0xfe);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_REG_MR);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->mem.num_pages), 256U);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->mem.addr), 0ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->iova), 0ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->length), 0ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->pd), 9U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->access), 0U);
	KUNIT_EXPECT_EQ(test, c->key_variant, 0xfe);
	KUNIT_EXPECT_EQ(test, c->flags, ORNIC_MR_FLAG_FAST_REG);
	/* mem.num_pages at 16, little-endian. */
	KUNIT_EXPECT_EQ(test, b[16], 0x00);
	KUNIT_EXPECT_EQ(test, b[17], 0x01);
}

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

static void ornic_cmd_create_ah_layout(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_create_ah *c = (void *)&sqe;
	const u8 *b = (const u8 *)&sqe;
	struct ornic_av av = {
		.dgid = { 0xfe, 0x80, [15] = 0x01 },
		.dmac = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x2a },
		.sgid_index = 3,
		.hop_limit = 64,
		.traffic_class = 0x18,
		.flow_label = 0xabcde,
		.udp_sport = 0xc000,
	};

	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_create_ah(&sqe, 0x42, &av);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_CREATE_AH);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->pd), 0x42U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->flow_label), 0xabcdeU);
	KUNIT_EXPECT_EQ(test, memcmp(c->dgid, av.dgid, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(c->dmac, av.dmac, 6), 0);
	KUNIT_EXPECT_EQ(test, c->sgid_index, 3);
	KUNIT_EXPECT_EQ(test, c->hop_limit, 64);
	KUNIT_EXPECT_EQ(test, c->traffic_class, 0x18);
	KUNIT_EXPECT_EQ(test, c->reserved0, 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->udp_sport), 0xc000);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(c->reserved1,
					       sizeof(c->reserved1)));
	/* dgid at 16 as asserted; flow label little-endian at 12. */
	KUNIT_EXPECT_EQ(test, b[16], 0xfe);
	KUNIT_EXPECT_EQ(test, b[31], 0x01);
	KUNIT_EXPECT_EQ(test, b[12], 0xde);
	KUNIT_EXPECT_EQ(test, b[14], 0x0a);
	KUNIT_EXPECT_EQ(test, b[37], 0x2a);
}

static void ornic_cmd_gid_encoding(struct kunit *test)
{
	static const u8 v4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
	static const u8 v6[16] = { 0xfe, 0x80, [15] = 1 };
	struct ornic_admin_sqe sqe;
	struct ornic_admin_gid *g = (void *)&sqe;

	KUNIT_EXPECT_EQ(test, ornic_cmd_gid(&sqe, true, 3, v4, true), 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_ADD_GID);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(g->index), 3U);
	KUNIT_EXPECT_EQ(test, g->type, ORNIC_GID_TYPE_ROCE_V2_IPV4);
	KUNIT_EXPECT_MEMEQ(test, g->gid, v4, 16);

	KUNIT_EXPECT_EQ(test, ornic_cmd_gid(&sqe, true, 1, v6, false), 0);
	KUNIT_EXPECT_EQ(test, g->type, ORNIC_GID_TYPE_ROCE_V2_IPV6);

	/* An IPv4 type needs an IPv4-mapped GID. */
	KUNIT_EXPECT_EQ(test, ornic_cmd_gid(&sqe, true, 1, v6, true), -EINVAL);

	/* DEL_GID: gid and type must be zero. */
	KUNIT_EXPECT_EQ(test, ornic_cmd_gid(&sqe, false, 5, NULL, false), 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_DEL_GID);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(g->index), 5U);
	KUNIT_EXPECT_EQ(test, g->type, 0);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(g->gid, sizeof(g->gid)));
}

static void ornic_cmd_mcast_encoding(struct kunit *test)
{
	static const u8 v4[16] = { [10] = 0xff, [11] = 0xff, 239, 1, 2, 3 };
	static const u8 v6[16] = { 0xff, 0x0e, [15] = 1 };
	static const u8 v4_unicast[16] = { [10] = 0xff, [11] = 0xff, 10, 0,
					   0, 1 };
	static const u8 v6_unicast[16] = { 0xfe, 0x80, [15] = 1 };
	static const u8 v1_style[16] = { 0xff, 0x0e, [10] = 0xff,
					 [11] = 0xff, 239, 1, 2, 3 };
	struct ornic_admin_sqe sqe;
	struct ornic_admin_mcast *m = (void *)&sqe;

	KUNIT_EXPECT_TRUE(test, ornic_gid_is_mcast(v4));
	KUNIT_EXPECT_TRUE(test, ornic_gid_is_mcast(v6));
	KUNIT_EXPECT_TRUE(test, ornic_gid_is_mcast(v1_style));
	KUNIT_EXPECT_FALSE(test, ornic_gid_is_mcast(v4_unicast));
	KUNIT_EXPECT_FALSE(test, ornic_gid_is_mcast(v6_unicast));

	KUNIT_EXPECT_EQ(test, ornic_cmd_mcast(&sqe, true, 77, v4), 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_ATTACH_MCAST);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(m->qpn), 77U);
	KUNIT_EXPECT_MEMEQ(test, m->gid, v4, 16);
	KUNIT_EXPECT_EQ(test, m->reserved0, 0U);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(m->reserved1,
					       sizeof(m->reserved1)));

	KUNIT_EXPECT_EQ(test, ornic_cmd_mcast(&sqe, false, 78, v6), 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_DETACH_MCAST);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(m->qpn), 78U);
	KUNIT_EXPECT_MEMEQ(test, m->gid, v6, 16);

	/* A unicast GID or a QPN beyond 24 bits is no command. */
	KUNIT_EXPECT_EQ(test, ornic_cmd_mcast(&sqe, true, 77, v4_unicast),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cmd_mcast(&sqe, true, 77, v6_unicast),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cmd_mcast(&sqe, true, 1U << 24, v4),
			-EINVAL);
}

static void ornic_cmd_eth_settings(struct kunit *test)
{
	static const u8 mac[6] = { 0x02, 0, 0, 0, 0, 0x42 };
	struct ornic_admin_sqe sqe;
	struct ornic_admin_eth_set_mac *m = (void *)&sqe;
	struct ornic_admin_eth_set_mtu *t = (void *)&sqe;

	ornic_cmd_set_mac(&sqe, mac);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_ETH_SET_MAC);
	KUNIT_EXPECT_MEMEQ(test, m->mac, mac, 6);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(m->reserved0), 0);

	ornic_cmd_set_mtu(&sqe, 9000);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_ETH_SET_MTU);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(t->mtu), 9000U);
}

static void ornic_cmd_alloc_mw_encoding(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_alloc_mw *c = (void *)&sqe;

	KUNIT_EXPECT_EQ(test, ornic_cmd_alloc_mw(&sqe, 7, ORNIC_MW_TYPE_2,
						 0x5a), 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_ALLOC_MW);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->pd), 7U);
	KUNIT_EXPECT_EQ(test, c->type, ORNIC_MW_TYPE_2);
	KUNIT_EXPECT_EQ(test, c->key_variant, 0x5a);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->reserved0), 0);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(c->reserved1,
					       sizeof(c->reserved1)));
	KUNIT_EXPECT_EQ(test, ornic_cmd_alloc_mw(&sqe, 7, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cmd_alloc_mw(&sqe, 7, 3, 0), -EINVAL);
	KUNIT_EXPECT_STREQ(test, ornic_admin_opcode_str(ORNIC_ADMIN_ALLOC_MW),
			   "ALLOC_MW");
	KUNIT_EXPECT_STREQ(test,
			   ornic_admin_opcode_str(ORNIC_ADMIN_DEALLOC_MW),
			   "DEALLOC_MW");
}

static void ornic_cmd_counters(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_query_counters *q = (void *)&sqe;

	ornic_cmd_query_counters(&sqe, ORNIC_COUNTER_SCOPE_QP, 17, 0x2000, 128);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_QUERY_COUNTERS);
	KUNIT_EXPECT_EQ(test, q->scope, ORNIC_COUNTER_SCOPE_QP);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q->handle), 17U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q->resp_len), 128U);
}

static void ornic_status_decoding(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ornic_admin_status_errno(0), 0);
	KUNIT_EXPECT_EQ(test,
			ornic_admin_status_errno(ORNIC_ADMIN_STATUS_BUSY),
			-EBUSY);
	KUNIT_EXPECT_EQ(test,
			ornic_admin_status_errno(ORNIC_ADMIN_STATUS_NO_RESOURCES),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test,
			ornic_admin_status_errno(ORNIC_ADMIN_STATUS_BAD_OPCODE),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, ornic_admin_status_errno(0xee), -EIO);
	KUNIT_EXPECT_STREQ(test,
			   ornic_admin_status_str(ORNIC_ADMIN_STATUS_BAD_DMA),
			   "BAD_DMA");
	KUNIT_EXPECT_STREQ(test, ornic_admin_status_str(0xee), "UNKNOWN");
	KUNIT_EXPECT_STREQ(test, ornic_admin_opcode_str(ORNIC_ADMIN_ADD_GID),
			   "ADD_GID");
	KUNIT_EXPECT_STREQ(test,
			   ornic_admin_opcode_str(ORNIC_ADMIN_ALLOC_XRCD),
			   "ALLOC_XRCD");
	KUNIT_EXPECT_STREQ(test,
			   ornic_admin_opcode_str(ORNIC_ADMIN_DEALLOC_XRCD),
			   "DEALLOC_XRCD");
	KUNIT_EXPECT_STREQ(test, ornic_admin_opcode_str(0xff), "UNKNOWN");
}

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

static void ornic_cmd_cc_config_layout(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_cc_config *c = (void *)&sqe;
	unsigned int i;

	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_cc_config(&sqe, ORNIC_CC_CONFIG_SET, 0x123456789000ULL);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_CC_CONFIG);
	KUNIT_EXPECT_EQ(test, sqe.hdr.flags, 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->params_addr), 0x123456789000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->params_len),
			(u32)sizeof(struct ornic_cc_params));
	KUNIT_EXPECT_EQ(test, c->op, ORNIC_CC_CONFIG_SET);
	for (i = 0; i < ARRAY_SIZE(c->reserved0); i++)
		KUNIT_EXPECT_EQ(test, c->reserved0[i], 0);
	for (i = 0; i < ARRAY_SIZE(c->reserved1); i++)
		KUNIT_EXPECT_EQ(test, le32_to_cpu(c->reserved1[i]), 0U);
	KUNIT_EXPECT_STREQ(test, ornic_admin_opcode_str(ORNIC_ADMIN_CC_CONFIG),
			   "CC_CONFIG");
}

/* The model's defaults (roce.rst "Congestion control"). */
static void ornic_cc_defaults(struct ornic_cc_params *p)
{
	memset(p, 0, sizeof(*p));
	p->flags = cpu_to_le32(ORNIC_CC_FLAGS_ALL);
	p->ect = ORNIC_CC_ECT_0;
	p->np_cnp_dscp = 48;
	p->np_min_time_between_cnps = cpu_to_le32(4);
	p->rp_max_rate = cpu_to_le32(100000);
	p->rp_min_rate = cpu_to_le32(10);
	p->rp_ai_rate = cpu_to_le32(5);
	p->rp_hai_rate = cpu_to_le32(50);
	p->rp_time_reset = cpu_to_le32(300);
	p->rp_threshold = cpu_to_le32(5);
	p->rp_dce_tcp_rtt = cpu_to_le32(55);
}

static void ornic_cc_knobs(struct kunit *test)
{
	struct ornic_cc_params p, before;
	unsigned int knob;
	u32 min, max;

	ornic_cc_defaults(&p);
	/*
	 * Every knob has a name and reads back what it sets (last to first:
	 * the rates below rp_max_rate go to 1 before it does).
	 */
	for (knob = ORNIC_CC_KNOB_COUNT; knob-- > 0;) {
		KUNIT_EXPECT_NOT_NULL(test, ornic_cc_knob_name(knob));
		KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, knob, 1, &min, &max),
				0);
		KUNIT_EXPECT_EQ(test, ornic_cc_knob_get(&p, knob), 1U);
	}
	KUNIT_EXPECT_NULL(test, ornic_cc_knob_name(ORNIC_CC_KNOB_COUNT));
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_COUNT, 0,
						&min, &max), -EINVAL);

	/* Flags: each enable is its own bit. */
	ornic_cc_defaults(&p);
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_NP_ENABLE, 0,
						&min, &max), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(p.flags), ORNIC_CC_FLAG_RP_ENABLE);
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_get(&p, ORNIC_CC_KNOB_RP_ENABLE), 1U);

	/* Out of range: -EINVAL, the range reported, nothing changed. */
	ornic_cc_defaults(&p);
	before = p;
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_ECT, 3,
						&min, &max), -EINVAL);
	KUNIT_EXPECT_EQ(test, max, (u32)ORNIC_CC_ECT_0);
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_NP_CNP_DSCP, 64,
						&min, &max), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_RP_THRESHOLD, 0,
						&min, &max), -EINVAL);
	KUNIT_EXPECT_EQ(test, min, 1U);
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_NP_ENABLE, 2,
						&min, &max), -EINVAL);
	/* Rates depend on each other: min <= max, ai and hai <= max. */
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_RP_MIN_RATE,
						100001, &min, &max), -EINVAL);
	KUNIT_EXPECT_EQ(test, max, 100000U);
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_RP_MAX_RATE, 49,
						&min, &max), -EINVAL);
	KUNIT_EXPECT_EQ(test, min, 50U); /* the hai rate */
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_RP_MAX_RATE,
						ORNIC_CC_MAX_RATE_MBPS + 1,
						&min, &max), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_RP_TIME_RESET,
						0, &min, &max), -EINVAL);
	KUNIT_EXPECT_EQ(test,
			ornic_cc_knob_set(&p, ORNIC_CC_KNOB_RP_DCE_TCP_G,
					  ORNIC_CC_ALPHA_ONE + 1, &min, &max),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, memcmp(&p, &before, sizeof(p)), 0);
	/* In range: only that field changes. */
	KUNIT_EXPECT_EQ(test, ornic_cc_knob_set(&p, ORNIC_CC_KNOB_RP_MAX_RATE, 50,
						&min, &max), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(p.rp_max_rate), 50U);
	p.rp_max_rate = before.rp_max_rate;
	KUNIT_EXPECT_EQ(test, memcmp(&p, &before, sizeof(p)), 0);
}

static struct kunit_case ornic_cmd_cases[] = {
	KUNIT_CASE(ornic_cmd_cc_config_layout),
	KUNIT_CASE(ornic_cc_knobs),
	KUNIT_CASE(ornic_cmd_odp),
	KUNIT_CASE(ornic_odp_entries),
	KUNIT_CASE(ornic_cmd_query_layout),
	KUNIT_CASE(ornic_cmd_header_only),
	KUNIT_CASE(ornic_cmd_create_layouts),
	KUNIT_CASE(ornic_cmd_resize_layouts),
	KUNIT_CASE(ornic_cmd_rereg_mr_parts),
	KUNIT_CASE(ornic_cmd_reg_mr_kinds),
	KUNIT_CASE(ornic_cmd_create_qp_kinds),
	KUNIT_CASE(ornic_cmd_modify_qp_layout),
	KUNIT_CASE(ornic_cmd_srq_layouts),
	KUNIT_CASE(ornic_cmd_create_ah_layout),
	KUNIT_CASE(ornic_cmd_gid_encoding),
	KUNIT_CASE(ornic_cmd_mcast_encoding),
	KUNIT_CASE(ornic_cmd_eth_settings),
	KUNIT_CASE(ornic_cmd_alloc_mw_encoding),
	KUNIT_CASE(ornic_cmd_counters),
	KUNIT_CASE(ornic_status_decoding),
	{}
};

static struct kunit_suite ornic_cmd_suite = {
	.name = "ornic_cmd",
	.test_cases = ornic_cmd_cases,
};

/* --- memory descriptors and page lists ---------------------------------- */

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

static struct kunit_case ornic_mem_cases[] = {
	KUNIT_CASE(ornic_mem_desc_contig_pages),
	KUNIT_CASE(ornic_pbl_modes),
	KUNIT_CASE(ornic_pbl_locate_split),
	KUNIT_CASE(ornic_mr_pages),
	{}
};

static struct kunit_suite ornic_mem_suite = {
	.name = "ornic_mem",
	.test_cases = ornic_mem_cases,
};

/* --- doorbells, link and MTU -------------------------------------------- */

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

static void ornic_roce_mtu_table(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ornic_roce_mtu(1500), ORNIC_MTU_1024);
	KUNIT_EXPECT_EQ(test, ornic_roce_mtu(9000), ORNIC_MTU_4096);
	KUNIT_EXPECT_EQ(test, ornic_roce_mtu(4156), ORNIC_MTU_4096);
	KUNIT_EXPECT_EQ(test, ornic_roce_mtu(4155), ORNIC_MTU_2048);
	KUNIT_EXPECT_EQ(test, ornic_roce_mtu(2108), ORNIC_MTU_2048);
	KUNIT_EXPECT_EQ(test, ornic_roce_mtu(2107), ORNIC_MTU_1024);
	KUNIT_EXPECT_EQ(test, ornic_roce_mtu(68), ORNIC_MTU_256);
	KUNIT_EXPECT_EQ(test, ornic_roce_mtu(0), ORNIC_MTU_256);
}

static void ornic_speed_mapping(struct kunit *test)
{
	u16 speed;
	u8 width;

	ornic_speed_to_ib(100, &speed, &width);
	KUNIT_EXPECT_EQ(test, speed, (u16)IB_SPEED_EDR);
	KUNIT_EXPECT_EQ(test, width, (u8)IB_WIDTH_4X);
	ornic_speed_to_ib(25, &speed, &width);
	KUNIT_EXPECT_EQ(test, speed, (u16)IB_SPEED_EDR);
	KUNIT_EXPECT_EQ(test, width, (u8)IB_WIDTH_1X);
	ornic_speed_to_ib(0, &speed, &width);
	KUNIT_EXPECT_EQ(test, speed, (u16)IB_SPEED_SDR);
}

static void ornic_gid_v4_detection(struct kunit *test)
{
	static const u8 v4[16] = { [10] = 0xff, [11] = 0xff, 192, 168, 0, 1 };
	static const u8 v6[16] = { 0xfe, 0x80, [15] = 1 };

	KUNIT_EXPECT_TRUE(test, ornic_gid_is_v4(v4));
	KUNIT_EXPECT_FALSE(test, ornic_gid_is_v4(v6));
}

static struct kunit_case ornic_misc_cases[] = {
	KUNIT_CASE(ornic_db_value_layout),
	KUNIT_CASE(ornic_roce_mtu_table),
	KUNIT_CASE(ornic_speed_mapping),
	KUNIT_CASE(ornic_gid_v4_detection),
	{}
};

static struct kunit_suite ornic_misc_suite = {
	.name = "ornic_misc",
	.test_cases = ornic_misc_cases,
};

kunit_test_suites(&ornic_ring_suite, &ornic_id_suite, &ornic_cmd_suite,
		  &ornic_mem_suite, &ornic_misc_suite);

MODULE_DESCRIPTION("KUnit tests for the ornic driver's pure logic");
MODULE_LICENSE("Dual BSD/GPL");
/* What ornic.ko exports with EXPORT_SYMBOL_IF_KUNIT(). */
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
