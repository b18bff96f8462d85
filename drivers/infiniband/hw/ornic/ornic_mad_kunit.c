// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * KUnit suite ornic_mad: the InfiniBand port's management helpers
 * (ornic_mad.c) and the receive origin of a wide CQE (ornic_cq_kernel.c).
 */
#include <kunit/test.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>

#include "ornic_kunit.h"
#include "ornic_res.h"

static void ornic_cmd_mad_ifc_layout(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_mad_ifc *c = (void *)&sqe;
	struct ib_wc wc = { .src_qp = 0x1000001, .slid = 0x12,
			    .pkey_index = 3, .sl = 4, .dlid_path_bits = 1 };

	memset(&sqe, 0xff, sizeof(sqe));
	ornic_cmd_mad_ifc(&sqe, 0x1000, 0x1100, true, NULL);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_MAD_IFC);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->in_addr), 0x1000ULL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->out_addr), 0x1100ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->flags),
			ORNIC_MAD_IFC_FLAG_IGNORE_MKEY);
	KUNIT_EXPECT_EQ(test, c->port, 1);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->slid), 0);
	KUNIT_EXPECT_TRUE(test, ornic_all_zero(c->reserved1,
					       sizeof(c->reserved1)));

	ornic_cmd_mad_ifc(&sqe, 0x1000, 0x1100, false, &wc);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->flags), ORNIC_MAD_IFC_FLAG_HAS_WC);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->src_qp), 1U);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->slid), 0x12);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->pkey_index), 3);
	KUNIT_EXPECT_EQ(test, c->sl, 4);
	KUNIT_EXPECT_EQ(test, c->dlid_path_bits, 1);
}

static void ornic_cmd_modify_port_masks(struct kunit *test)
{
	struct ornic_admin_sqe sqe;
	struct ornic_admin_modify_port *c = (void *)&sqe;

	KUNIT_ASSERT_EQ(test, ornic_cmd_modify_port(&sqe, IB_PORT_SM,
						    IB_PORT_CM_SUP, true), 0);
	KUNIT_EXPECT_EQ(test, sqe.hdr.opcode, ORNIC_ADMIN_MODIFY_PORT);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->set_cap_mask), (u32)IB_PORT_SM);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->clr_cap_mask),
			(u32)IB_PORT_CM_SUP);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->flags),
			ORNIC_MODIFY_PORT_RESET_QKEY_CNTR);
	KUNIT_EXPECT_EQ(test, c->port, 1);
	/* The device's own bits, and one bit both set and cleared. */
	KUNIT_EXPECT_EQ(test, ornic_cmd_modify_port(&sqe, IB_PORT_TRAP_SUP, 0,
						    false), -EINVAL);
	KUNIT_EXPECT_EQ(test, ornic_cmd_modify_port(&sqe, IB_PORT_SM,
						    IB_PORT_SM, false),
			-EINVAL);
}

static void ornic_mad_classes_for_the_device(struct kunit *test)
{
	struct ib_mad_hdr hdr = { .mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED,
				  .method = IB_MGMT_METHOD_GET,
				  .attr_id = IB_SMP_ATTR_PORT_INFO };

	KUNIT_EXPECT_TRUE(test, ornic_mad_for_device(&hdr));
	hdr.mgmt_class = IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE;
	hdr.method = IB_MGMT_METHOD_SET;
	KUNIT_EXPECT_TRUE(test, ornic_mad_for_device(&hdr));
	hdr.attr_id = IB_SMP_ATTR_SM_INFO;
	KUNIT_EXPECT_FALSE(test, ornic_mad_for_device(&hdr));
	hdr.attr_id = IB_SMP_ATTR_PORT_INFO;
	hdr.method = IB_MGMT_METHOD_GET_RESP;
	KUNIT_EXPECT_FALSE(test, ornic_mad_for_device(&hdr));
	hdr.mgmt_class = IB_MGMT_CLASS_PERF_MGMT;
	hdr.method = IB_MGMT_METHOD_GET;
	KUNIT_EXPECT_TRUE(test, ornic_mad_for_device(&hdr));
	hdr.mgmt_class = IB_MGMT_CLASS_SUBN_ADM;
	KUNIT_EXPECT_FALSE(test, ornic_mad_for_device(&hdr));
	hdr.mgmt_class = IB_MGMT_CLASS_CM;
	KUNIT_EXPECT_FALSE(test, ornic_mad_for_device(&hdr));
}

static void ornic_port_change_to_events(struct kunit *test)
{
	enum ib_event_type ev[ORNIC_PORT_CHANGE_EVENTS_MAX];

	KUNIT_EXPECT_EQ(test, ornic_port_change_events(0, ev), 0U);
	KUNIT_ASSERT_EQ(test, ornic_port_change_events(ORNIC_PORT_CHANGE_LID |
						       ORNIC_PORT_CHANGE_CLIENT_REREG,
						       ev), 2U);
	KUNIT_EXPECT_EQ(test, ev[0], IB_EVENT_LID_CHANGE);
	KUNIT_EXPECT_EQ(test, ev[1], IB_EVENT_CLIENT_REREGISTER);
	KUNIT_EXPECT_EQ(test, ornic_port_change_events(ORNIC_PORT_CHANGE_ALL, ev),
			(unsigned int)ORNIC_PORT_CHANGE_EVENTS_MAX);
}

static void ornic_port_info_speeds(struct kunit *test)
{
	struct ib_smp smp = {};
	struct ib_port_info *pi = (void *)smp.data;
	u16 speed;
	u8 width;

	pi->link_width_active = IB_WIDTH_4X;
	pi->linkspeedactive_enabled = 0x1f;	/* SDR active */
	ornic_port_info_speed(&smp, &speed, &width);
	KUNIT_EXPECT_EQ(test, speed, (u16)IB_SPEED_SDR);
	KUNIT_EXPECT_EQ(test, width, (u8)IB_WIDTH_4X);
	smp.data[62] = 0x23;			/* extended: EDR active */
	ornic_port_info_speed(&smp, &speed, &width);
	KUNIT_EXPECT_EQ(test, speed, (u16)IB_SPEED_EDR);
	pi->linkspeedactive_enabled = 0x4f;
	smp.data[62] = 0;
	ornic_port_info_speed(&smp, &speed, &width);
	KUNIT_EXPECT_EQ(test, speed, (u16)IB_SPEED_QDR);
}

static void ornic_receive_origin(struct kunit *test)
{
	struct ornic_cqe_ts ts = { .slid = cpu_to_le16(0x21), .sl = 5,
				   .dlid_path_bits = 1,
				   .pkey_index = cpu_to_le16(2) };
	struct ib_wc wc = { .status = IB_WC_SUCCESS, .opcode = IB_WC_RECV,
			    .wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE,
			    .network_hdr_type = RDMA_NETWORK_IPV6 };

	ornic_cqe_origin_to_wc(&ts, &wc);
	KUNIT_EXPECT_EQ(test, wc.slid, 0x21U);
	KUNIT_EXPECT_EQ(test, wc.sl, 5);
	KUNIT_EXPECT_EQ(test, wc.dlid_path_bits, 1);
	KUNIT_EXPECT_EQ(test, wc.pkey_index, 2);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_GRH);
	KUNIT_EXPECT_EQ(test, wc.network_hdr_type, RDMA_NETWORK_IB);
	/* A send completion says nothing of LIDs. */
	wc = (struct ib_wc){ .status = IB_WC_SUCCESS, .opcode = IB_WC_SEND };
	ornic_cqe_origin_to_wc(&ts, &wc);
	KUNIT_EXPECT_EQ(test, wc.slid, 0U);
}

static struct kunit_case ornic_mad_cases[] = {
	KUNIT_CASE(ornic_cmd_mad_ifc_layout),
	KUNIT_CASE(ornic_cmd_modify_port_masks),
	KUNIT_CASE(ornic_mad_classes_for_the_device),
	KUNIT_CASE(ornic_port_change_to_events),
	KUNIT_CASE(ornic_port_info_speeds),
	KUNIT_CASE(ornic_receive_origin),
	{}
};

static struct kunit_suite ornic_mad_suite = {
	.name = "ornic_mad",
	.test_cases = ornic_mad_cases,
};

kunit_test_suites(&ornic_mad_suite);
