// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_iwcm: iWARP connection management in the device's terms
 * (ornic_iwcm_cmd.c): the IW_* commands as the spec lays them out, what the
 * driver refuses before the device would, the status and attribute checks
 * of what the device reports.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>

#include "ornic_admin_cmd.h"
#include "ornic_iwcm_cmd.h"
#include "ornic_kunit.h"

static struct sockaddr_in ornic_iw_sin4(u32 ip, u16 port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(ip),
		.sin_port = htons(port),
	};

	return sin;
}

static void ornic_iwcm_listen_layout(struct kunit *test)
{
	struct sockaddr_in sin = ornic_iw_sin4(0xc0a84d01, 7174);
	struct ornic_admin_sqe sqe;
	struct ornic_admin_iw_listen *c = (void *)&sqe;
	static const u8 ip[4] = { 192, 168, 77, 1 };

	memset(&sqe, 0xff, sizeof(sqe));
	KUNIT_ASSERT_EQ(test, ornic_cmd_iw_listen(&sqe, &sin, 16), 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_IW_LISTEN);
	KUNIT_EXPECT_EQ(test, sqe.hdr.flags, 0);
	KUNIT_EXPECT_MEMEQ(test, c->ip, ip, sizeof(ip));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->port), 7174);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->backlog), 16);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(c->reserved,
					       sizeof(c->reserved)));
	/* listen(2)'s backlog: clamped into what the device takes. */
	KUNIT_ASSERT_EQ(test, ornic_cmd_iw_listen(&sqe, &sin, 100000), 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->backlog), ORNIC_IW_MAX_BACKLOG);
	KUNIT_ASSERT_EQ(test, ornic_cmd_iw_listen(&sqe, &sin, 0), 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->backlog), 1);
	KUNIT_EXPECT_STREQ(test, ornic_admin_opcode_str(ORNIC_ADMIN_IW_LISTEN),
			   "IW_LISTEN");
}

/*
 * The device takes no wildcard, loopback, multicast or broadcast address, nor
 * port 0.
 */
static void ornic_iwcm_listen_refused(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct sockaddr_in sin;

	sin = ornic_iw_sin4(0, 7174);
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_listen(&sqe, &sin, 1), -EINVAL);
	sin = ornic_iw_sin4(0xe0000001, 7174);
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_listen(&sqe, &sin, 1), -EINVAL);
	sin = ornic_iw_sin4(0xffffffff, 7174);
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_listen(&sqe, &sin, 1), -EINVAL);
	sin = ornic_iw_sin4(0x7f000001, 7174);
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_listen(&sqe, &sin, 1), -EINVAL);
	sin = ornic_iw_sin4(0x0a000001, 0);
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_listen(&sqe, &sin, 1), -EINVAL);
	sin = ornic_iw_sin4(0x0a000001, 1);
	sin.sin_family = AF_INET6;
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_listen(&sqe, &sin, 1), -EINVAL);
}

static const u8 ornic_iw_peer_mac[ETH_ALEN] = { 0x02, 0, 0, 0, 0x0c, 0x02 };

static struct ornic_iw_connect_args ornic_iw_args(struct sockaddr_in *l,
						  struct sockaddr_in *r)
{
	struct ornic_iw_connect_args a = {
		.conn_id = 7,
		.qpn = 0x123,
		.local = l,
		.remote = r,
		.next_hop = ornic_iw_peer_mac,
		.tos = 0x10,
		.ttl = 0,
		.mpa_rev = 2,
		.crc = true,
		.ird = 16,
		.ord = 8,
		.pdata_len = 56,
		.pdata_addr = 0xabc000,
	};

	return a;
}

static void ornic_iwcm_connect_layout(struct kunit *test)
{
	struct sockaddr_in l = ornic_iw_sin4(0x0a0d0001, 40000);
	struct sockaddr_in r = ornic_iw_sin4(0x0a0d0002, 7174);
	struct ornic_iw_connect_args a = ornic_iw_args(&l, &r);
	struct ornic_admin_sqe sqe;
	struct ornic_admin_iw_connect *c = (void *)&sqe;
	static const u8 lip[4] = { 10, 13, 0, 1 }, rip[4] = { 10, 13, 0, 2 };

	memset(&sqe, 0xff, sizeof(sqe));
	KUNIT_ASSERT_EQ(test, ornic_cmd_iw_connect(&sqe, &a), 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_IW_CONNECT);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->conn_id), 7);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->qpn), 0x123);
	KUNIT_EXPECT_MEMEQ(test, c->tuple.local_ip, lip, 4);
	KUNIT_EXPECT_MEMEQ(test, c->tuple.remote_ip, rip, 4);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->tuple.local_port), 40000);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->tuple.remote_port), 7174);
	KUNIT_EXPECT_MEMEQ(test, c->next_hop_mac, ornic_iw_peer_mac, ETH_ALEN);
	KUNIT_EXPECT_EQ(test, c->tos, 0x10);
	KUNIT_EXPECT_EQ(test, c->ttl, 0);
	KUNIT_EXPECT_EQ(test, c->mpa_rev, 2);
	KUNIT_EXPECT_EQ(test, c->flags, ORNIC_IW_CONNECT_CRC);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->pdata_len), 56);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->ird), 16);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->ord), 8);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->pdata_addr), 0xabc000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->reserved0), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->reserved1), 0ULL);
	/* Without private data the address is not the device's business. */
	a.pdata_len = 0;
	a.crc = false;
	KUNIT_ASSERT_EQ(test, ornic_cmd_iw_connect(&sqe, &a), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->pdata_addr), 0ULL);
	KUNIT_EXPECT_EQ(test, c->flags, 0);
}

static void ornic_iwcm_connect_refused(struct kunit *test)
{
	struct sockaddr_in l = ornic_iw_sin4(0x0a0d0001, 40000);
	struct sockaddr_in r = ornic_iw_sin4(0x0a0d0002, 7174);
	struct sockaddr_in zero = ornic_iw_sin4(0, 7174);
	struct sockaddr_in lo = ornic_iw_sin4(0x7f000001, 7174);
	struct ornic_iw_connect_args a;
	struct ornic_admin_sqe sqe;
	static const u8 bcast[ETH_ALEN] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	a = ornic_iw_args(&l, &r);
	a.conn_id = 0;
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_connect(&sqe, &a), -EINVAL);
	a = ornic_iw_args(&l, &r);
	a.conn_id = ORNIC_IW_CONN_ID_DEVICE;	/* the device's id space */
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_connect(&sqe, &a), -EINVAL);
	a = ornic_iw_args(&l, &zero);
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_connect(&sqe, &a), -EINVAL);
	/* The device's TCP has no loopback path. */
	a = ornic_iw_args(&l, &l);
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_connect(&sqe, &a), -EINVAL);
	a = ornic_iw_args(&l, &lo);
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_connect(&sqe, &a), -EINVAL);
	a = ornic_iw_args(&l, &r);
	a.next_hop = bcast;
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_connect(&sqe, &a), -EINVAL);
	a = ornic_iw_args(&l, &r);
	a.mpa_rev = 3;
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_connect(&sqe, &a), -EINVAL);
	/* Revision 2 keeps 4 of the 512 bytes for IRD and ORD. */
	a = ornic_iw_args(&l, &r);
	a.pdata_len = 509;
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_connect(&sqe, &a), -EINVAL);
	a.pdata_len = 508;
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_connect(&sqe, &a), 0);
	a.mpa_rev = 1;
	a.pdata_len = 512;
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_connect(&sqe, &a), 0);
	a.pdata_len = 513;
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_connect(&sqe, &a), -EINVAL);
	a = ornic_iw_args(&l, &r);
	a.pdata_addr = 0;
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_connect(&sqe, &a), -EINVAL);
	a = ornic_iw_args(&l, &r);
	a.ord = ORNIC_IW_MAX_IRD_ORD + 1;
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_connect(&sqe, &a), -EINVAL);
}

static void ornic_iwcm_accept_and_conn_layout(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_iw_accept *c = (void *)&sqe;
	struct ornic_admin_iw_conn_cmd *k = (void *)&sqe;
	u32 dev_id = ORNIC_IW_CONN_ID_DEVICE | 5;

	memset(&sqe, 0xff, sizeof(sqe));
	KUNIT_ASSERT_EQ(test, ornic_cmd_iw_accept(&sqe, dev_id, 0x44, 4, 2,
						  false, 12, 0x5000), 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_IW_ACCEPT);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->conn_id), dev_id);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->qpn), 0x44);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->ird), 4);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->ord), 2);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->pdata_len), 12);
	KUNIT_EXPECT_EQ(test, c->flags, 0);
	KUNIT_EXPECT_EQ(test, c->reserved0, 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->pdata_addr), 0x5000ULL);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(c->reserved1,
					       sizeof(c->reserved1)));
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_accept(&sqe, 0, 1, 1, 1, true, 0, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cmd_iw_accept(&sqe, dev_id, 1, 1, 1, true,
						  513, 0x5000), -EINVAL);

	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_iw_conn(&sqe, ORNIC_ADMIN_IW_DISCONNECT, dev_id,
			  ORNIC_IW_DISCONNECT_ABRUPT, 0, 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_IW_DISCONNECT);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(k->id), dev_id);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(k->flags),
			ORNIC_IW_DISCONNECT_ABRUPT);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(k->addr), 0ULL);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(k->reserved,
					       sizeof(k->reserved)));
	ornic_cmd_iw_conn(&sqe, ORNIC_ADMIN_IW_QUERY_CONN, 9, 0, 0x7000,
			  sizeof(struct ornic_iw_conn_attr));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(k->addr), 0x7000ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(k->len), 576U);
}

/* rdma_cm's REJECTED, UNREACHABLE and CONNECT_ERROR come from these. */
static void ornic_iwcm_status(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ornic_iw_status_errno(ORNIC_IW_STATUS_OK), 0);
	KUNIT_EXPECT_EQ(test, ornic_iw_status_errno(ORNIC_IW_STATUS_REJECTED),
			-ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, ornic_iw_status_errno(ORNIC_IW_STATUS_TIMEOUT),
			-ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, ornic_iw_status_errno(ORNIC_IW_STATUS_RESET),
			-ECONNRESET);
	KUNIT_EXPECT_EQ(test,
			ornic_iw_status_errno(ORNIC_IW_STATUS_UNREACHABLE),
			-EHOSTUNREACH);
	KUNIT_EXPECT_EQ(test, ornic_iw_status_errno(ORNIC_IW_STATUS_MPA_ERROR),
			-EPROTO);
	KUNIT_EXPECT_EQ(test, ornic_iw_status_errno(0x77), -EIO);
}

static void ornic_iw_good_attr(struct ornic_iw_conn_attr *a)
{
	static const u8 lip[4] = { 10, 13, 0, 1 }, rip[4] = { 10, 13, 0, 2 };

	memset(a, 0, sizeof(*a));
	memcpy(a->tuple.local_ip, lip, 4);
	memcpy(a->tuple.remote_ip, rip, 4);
	a->tuple.local_port = cpu_to_le16(7174);
	a->tuple.remote_port = cpu_to_le16(40001);
	a->state = ORNIC_IW_CONN_MPA_REQ_RCVD;
	a->mpa_rev = 2;
	a->peer_ird = cpu_to_le16(16);
	a->peer_ord = cpu_to_le16(16);
	a->pdata_len = cpu_to_le16(56);
}

/* What the device wrote is checked before the iw_cm sees any of it. */
static void ornic_iwcm_attr(struct kunit *test)
{
	struct ornic_iw_conn_attr *a;
	struct sockaddr_storage l, r;
	struct sockaddr_in *sl = (struct sockaddr_in *)&l;
	struct sockaddr_in *sr = (struct sockaddr_in *)&r;
	u32 full = sizeof(*a);

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	ornic_iw_good_attr(a);
	KUNIT_EXPECT_EQ(test, ornic_iw_attr_check(a, full), 0);
	ornic_iw_attr_addrs(a, &l, &r);
	KUNIT_EXPECT_EQ(test, sl->sin_family, AF_INET);
	KUNIT_EXPECT_EQ(test, ntohl(sl->sin_addr.s_addr), 0x0a0d0001U);
	KUNIT_EXPECT_EQ(test, ntohs(sl->sin_port), 7174);
	KUNIT_EXPECT_EQ(test, ntohl(sr->sin_addr.s_addr), 0x0a0d0002U);
	KUNIT_EXPECT_EQ(test, ntohs(sr->sin_port), 40001);

	/* Private data beyond what the device said it wrote. */
	KUNIT_EXPECT_EQ(test, ornic_iw_attr_check(a, 64 + 55), -EIO);
	KUNIT_EXPECT_EQ(test, ornic_iw_attr_check(a, 63), -EIO);
	KUNIT_EXPECT_EQ(test, ornic_iw_attr_check(a, full + 1), -EIO);
	a->pdata_len = cpu_to_le16(513);
	KUNIT_EXPECT_EQ(test, ornic_iw_attr_check(a, full), -EIO);
	ornic_iw_good_attr(a);
	a->state = 0;
	KUNIT_EXPECT_EQ(test, ornic_iw_attr_check(a, full), -EIO);
	a->state = ORNIC_IW_CONN_CLOSED + 1;
	KUNIT_EXPECT_EQ(test, ornic_iw_attr_check(a, full), -EIO);
	ornic_iw_good_attr(a);
	a->mpa_rev = 0;
	KUNIT_EXPECT_EQ(test, ornic_iw_attr_check(a, full), -EIO);
	ornic_iw_good_attr(a);
	a->peer_ird = cpu_to_le16(ORNIC_IW_MAX_IRD_ORD + 1);
	KUNIT_EXPECT_EQ(test, ornic_iw_attr_check(a, full), -EIO);
	ornic_iw_good_attr(a);
	a->tuple.remote_port = 0;
	KUNIT_EXPECT_EQ(test, ornic_iw_attr_check(a, full), -EIO);
}

static struct kunit_case ornic_iwcm_cases[] = {
	KUNIT_CASE(ornic_iwcm_listen_layout),
	KUNIT_CASE(ornic_iwcm_listen_refused),
	KUNIT_CASE(ornic_iwcm_connect_layout),
	KUNIT_CASE(ornic_iwcm_connect_refused),
	KUNIT_CASE(ornic_iwcm_accept_and_conn_layout),
	KUNIT_CASE(ornic_iwcm_status),
	KUNIT_CASE(ornic_iwcm_attr),
	{}
};

static struct kunit_suite ornic_iwcm_suite = {
	.name = "ornic_iwcm",
	.test_cases = ornic_iwcm_cases,
};

kunit_test_suite(ornic_iwcm_suite);
