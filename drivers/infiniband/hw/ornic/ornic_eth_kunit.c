// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_eth: the Ethernet function's commands (ornic_eth.c).
 */
#include <kunit/test.h>

#include "ornic.h"

static void ornic_cmd_eth_ring_layout(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_create_eth_ring *ring = (void *)&sqe;
	struct ornic_mem_desc mem;

	ornic_mem_desc_contig(&mem, 0x10000, 16 << 10, 12);
	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_create_eth_ring(&sqe, true, &mem, 8, 7);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_ETH_CREATE_TX_RING);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ring->cqn), 7U);
	KUNIT_EXPECT_EQ(test, ring->log_depth, 8);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(ring->mem.addr), 0x10000ULL);
	ornic_cmd_create_eth_ring(&sqe, false, &mem, 8, 7);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_ETH_CREATE_RX_RING);
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

static struct kunit_case ornic_eth_cases[] = {
	KUNIT_CASE(ornic_cmd_eth_ring_layout),
	KUNIT_CASE(ornic_cmd_eth_settings),
	{}
};

static struct kunit_suite ornic_eth_suite = {
	.name = "ornic_eth",
	.test_cases = ornic_eth_cases,
};

kunit_test_suites(&ornic_eth_suite);
