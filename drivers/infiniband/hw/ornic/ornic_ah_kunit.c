// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_ah: the AH command (ornic_ah.c).
 */
#include <kunit/test.h>

#include "ornic_kunit.h"
#include "ornic_res.h"

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

/* An InfiniBand AH: the LID fields, and the GRH only when asked for. */
static void ornic_ib_av_from_ah_attr(struct kunit *test)
{
	struct rdma_ah_attr attr = { .type = RDMA_AH_ATTR_TYPE_IB };
	union ib_gid dgid = { .raw = { 0xff, 0x12, [15] = 0x01 } };
	struct ornic_admin_sqe sqe;
	struct ornic_admin_create_ah *c = (void *)&sqe;
	struct ornic_av av;

	rdma_ah_set_port_num(&attr, 1);
	rdma_ah_set_dlid(&attr, 0xc001);
	rdma_ah_set_sl(&attr, 5);
	rdma_ah_set_path_bits(&attr, 1);
	rdma_ah_set_static_rate(&attr, IB_RATE_100_GBPS);
	KUNIT_ASSERT_EQ(test, ornic_ib_av(&attr, &av), 0);
	KUNIT_EXPECT_EQ(test, av.dlid, 0xc001);
	KUNIT_EXPECT_EQ(test, av.sl, 5);
	KUNIT_EXPECT_EQ(test, av.src_path_bits, 1);
	KUNIT_EXPECT_EQ(test, av.static_rate, IB_RATE_100_GBPS);
	KUNIT_EXPECT_EQ(test, av.av_flags, 0);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(av.dgid, sizeof(av.dgid)));

	rdma_ah_set_grh(&attr, &dgid, 0xfffff123, 0, 1, 0x28);
	KUNIT_ASSERT_EQ(test, ornic_ib_av(&attr, &av), 0);
	KUNIT_EXPECT_EQ(test, av.av_flags, ORNIC_AV_FLAG_GRH);
	KUNIT_EXPECT_EQ(test, av.flow_label, 0xff123U);
	KUNIT_EXPECT_EQ(test, av.hop_limit, 1);
	KUNIT_EXPECT_EQ(test, memcmp(av.dgid, dgid.raw, 16), 0);
	ornic_cmd_create_ah(&sqe, 7, &av);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->dlid), 0xc001);
	KUNIT_EXPECT_EQ(test, c->sl, 5);
	KUNIT_EXPECT_EQ(test, c->av_flags, ORNIC_AV_FLAG_GRH);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(c->dmac, sizeof(c->dmac)));

	/* The vector as the MAD layer reads it back (rdma_query_ah()). */
	{
		struct rdma_ah_attr back;

		ornic_av_to_ah_attr(&av, true, &back);
		KUNIT_EXPECT_EQ(test, back.type, RDMA_AH_ATTR_TYPE_IB);
		KUNIT_EXPECT_EQ(test, rdma_ah_get_dlid(&back), 0xc001U);
		KUNIT_EXPECT_EQ(test, rdma_ah_get_sl(&back), 5);
		KUNIT_EXPECT_EQ(test, rdma_ah_get_path_bits(&back), 1);
		KUNIT_EXPECT_TRUE(test, rdma_ah_get_ah_flags(&back) & IB_AH_GRH);
		KUNIT_EXPECT_EQ(test, rdma_ah_read_grh(&back)->flow_label,
				0xff123U);
	}

	/* The port has GID 0 only; a RoCE AH is not an InfiniBand one. */
	rdma_ah_set_grh(&attr, &dgid, 0, 1, 1, 0);
	KUNIT_EXPECT_EQ(test, ornic_ib_av(&attr, &av), -EINVAL);
	rdma_ah_set_ah_flags(&attr, 0);
	attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	KUNIT_EXPECT_EQ(test, ornic_ib_av(&attr, &av), -EINVAL);
}

static struct kunit_case ornic_ah_cases[] = {
	KUNIT_CASE(ornic_cmd_create_ah_layout),
	KUNIT_CASE(ornic_ib_av_from_ah_attr),
	{}
};

static struct kunit_suite ornic_ah_suite = {
	.name = "ornic_ah",
	.test_cases = ornic_ah_cases,
};

kunit_test_suites(&ornic_ah_suite);
