// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_device: the port and the device (ornic_verbs.c): GID commands and types,
 * RoCE MTU, link speed and the capabilities the verbs advertise.
 */
#include <kunit/test.h>

#include "ornic.h"
#include "ornic_kunit.h"

static void ornic_cmd_gid_encoding(struct kunit *test)
{
	static const u8 v4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
	static const u8 v6[16] = { 0xfe, 0x80, [15] = 1 };
	struct ornic_admin_sqe sqe;
	struct ornic_admin_gid *g = (void *)&sqe;

	KUNIT_EXPECT_EQ(test, ornic_cmd_gid(&sqe, true, 3, v4,
					    ORNIC_GID_TYPE_ROCE_V2_IPV4, 0xffff), 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_ADD_GID);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(g->index), 3U);
	KUNIT_EXPECT_EQ(test, g->type, ORNIC_GID_TYPE_ROCE_V2_IPV4);
	KUNIT_EXPECT_MEMEQ(test, g->gid, v4, 16);

	KUNIT_EXPECT_EQ(test, g->flags, 0);
	KUNIT_EXPECT_EQ(test, g->vlan_id, 0);

	KUNIT_EXPECT_EQ(test, ornic_cmd_gid(&sqe, true, 1, v6,
					    ORNIC_GID_TYPE_ROCE_V2_IPV6, 0xffff), 0);
	KUNIT_EXPECT_EQ(test, g->type, ORNIC_GID_TYPE_ROCE_V2_IPV6);

	/* A VLAN device's GID: the flag and the VLAN ID, 1..4094. */
	KUNIT_EXPECT_EQ(test, ornic_cmd_gid(&sqe, true, 4, v4,
					    ORNIC_GID_TYPE_ROCE_V2_IPV4, 42), 0);
	KUNIT_EXPECT_EQ(test, g->flags, ORNIC_GID_FLAG_VLAN);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(g->vlan_id), 42);
	KUNIT_EXPECT_EQ(test, ornic_cmd_gid(&sqe, true, 4, v4,
					    ORNIC_GID_TYPE_ROCE_V2_IPV4, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cmd_gid(&sqe, true, 4, v4,
					    ORNIC_GID_TYPE_ROCE_V2_IPV4, 4095),
			-EINVAL);

	/* A RoCEv2 type needs a GID of its IP family; RoCE v1 takes either. */
	KUNIT_EXPECT_EQ(test, ornic_cmd_gid(&sqe, true, 1, v6,
					    ORNIC_GID_TYPE_ROCE_V2_IPV4, 0xffff), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cmd_gid(&sqe, true, 1, v4,
					    ORNIC_GID_TYPE_ROCE_V2_IPV6, 0xffff), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cmd_gid(&sqe, true, 2, v4,
					    ORNIC_GID_TYPE_ROCE_V1, 0xffff), 0);
	KUNIT_EXPECT_EQ(test, g->type, ORNIC_GID_TYPE_ROCE_V1);
	KUNIT_EXPECT_EQ(test, ornic_cmd_gid(&sqe, true, 2, v6,
					    ORNIC_GID_TYPE_ROCE_V1, 0xffff), 0);
	KUNIT_EXPECT_EQ(test, ornic_cmd_gid(&sqe, true, 2, v6, 0, 0xffff), -EINVAL);

	/* DEL_GID: gid and type must be zero. */
	KUNIT_EXPECT_EQ(test, ornic_cmd_gid(&sqe, false, 5, NULL, 0, 0xffff), 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_DEL_GID);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(g->index), 5U);
	KUNIT_EXPECT_EQ(test, g->type, 0);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(g->gid, sizeof(g->gid)));
}

static void ornic_gid_v4_detection(struct kunit *test)
{
	static const u8 v4[16] = { [10] = 0xff, [11] = 0xff, 192, 168, 0, 1 };
	static const u8 v6[16] = { 0xfe, 0x80, [15] = 1 };

	KUNIT_EXPECT_TRUE(test, ornic_gid_is_v4(v4));
	KUNIT_EXPECT_FALSE(test, ornic_gid_is_v4(v6));
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

static struct kunit_case ornic_device_cases[] = {
	KUNIT_CASE(ornic_cmd_gid_encoding),
	KUNIT_CASE(ornic_gid_v4_detection),
	KUNIT_CASE(ornic_roce_mtu_table),
	KUNIT_CASE(ornic_speed_mapping),
	KUNIT_CASE(ornic_device_caps_to_ib),
	{}
};

static struct kunit_suite ornic_device_suite = {
	.name = "ornic_device",
	.test_cases = ornic_device_cases,
};

kunit_test_suites(&ornic_device_suite);
