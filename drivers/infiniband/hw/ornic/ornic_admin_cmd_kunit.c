// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_admin_cmd: the admin command frame (ornic_admin_cmd.c): command identifiers
 * and their slot allocator, the header, QUERY and DESTROY-style commands,
 * completion status decoding and the names in messages.
 */
#include <kunit/test.h>

#include "ornic_admin_cmd.h"
#include "ornic_kunit.h"

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

static void ornic_cmd_destroy_layout(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_destroy *d = (void *)&sqe;

	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_destroy(&sqe, ORNIC_ADMIN_DEALLOC_PD, 42);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_DEALLOC_PD);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->handle), 42U);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(d->reserved,
					       sizeof(d->reserved)));
}

static void ornic_status_decoding(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ornic_admin_status_errno(0), 0);
	KUNIT_EXPECT_EQ(test,
			ornic_admin_status_errno(ORNIC_ADMIN_STATUS_BUSY),
			-EBUSY);
	KUNIT_EXPECT_EQ(test,
			ornic_admin_status_errno(ORNIC_ADMIN_STATUS_NO_RESOURCES),
			-ENOMEM);
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

static struct kunit_case ornic_admin_cmd_cases[] = {
	KUNIT_CASE(ornic_cmd_id_roundtrip),
	KUNIT_CASE(ornic_id_alloc_round_robin),
	KUNIT_CASE(ornic_cmd_query_layout),
	KUNIT_CASE(ornic_cmd_header_only),
	KUNIT_CASE(ornic_cmd_destroy_layout),
	KUNIT_CASE(ornic_status_decoding),
	{}
};

static struct kunit_suite ornic_admin_cmd_suite = {
	.name = "ornic_admin_cmd",
	.test_cases = ornic_admin_cmd_cases,
};

kunit_test_suites(&ornic_admin_cmd_suite);
