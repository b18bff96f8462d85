// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_mr: what the MR and MW commands carry (ornic_mr_cmd.c): access flags,
 * MW types, rereg flags, REG_MR, REREG_MR and ALLOC_MW.
 */
#include <kunit/test.h>

#include "ornic_admin_cmd.h"
#include "ornic_kunit.h"
#include "ornic_mr_cmd.h"
#include "ornic_ring.h"

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

static struct kunit_case ornic_mr_cases[] = {
	KUNIT_CASE(ornic_access_flags),
	KUNIT_CASE(ornic_mr_access_and_mw_type),
	KUNIT_CASE(ornic_rereg_flags),
	KUNIT_CASE(ornic_flush_access_flags),
	KUNIT_CASE(ornic_cmd_rereg_mr_parts),
	KUNIT_CASE(ornic_cmd_reg_mr_kinds),
	KUNIT_CASE(ornic_cmd_alloc_mw_encoding),
	{}
};

static struct kunit_suite ornic_mr_suite = {
	.name = "ornic_mr",
	.test_cases = ornic_mr_cases,
};

kunit_test_suites(&ornic_mr_suite);
