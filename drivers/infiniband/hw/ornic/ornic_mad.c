// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: the InfiniBand port's management (spec: infiniband.rst).  The
 * device holds the port's subnet management agent (SMA) and performance
 * management agent (PMA); MAD_IFC hands one MAD to them.  The MAD layer
 * gives process_mad() every MAD it receives on QP 0 and QP 1 and every
 * directed-route SMP it answers locally; the SMA's and PMA's classes go to
 * the device, every other class back to the MAD layer's agents (the SM's
 * SMInfo, the SA, the CM).  The port attributes the RDMA core asks for are
 * the SMA's PortInfo and P_KeyTable, read the same way with the M_Key
 * check off, and what the subnet manager changes comes back as PORT_STATE
 * and PORT_CHANGE events, which become IB events here.
 */
#include <kunit/visibility.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <rdma/ib_smi.h>

#include "ornic.h"

/* PortInfo bytes the kernel's struct ib_port_info stops short of. */
#define ORNIC_PORTINFO_SPEED_EXT	62	/* ExtActive 7:4, ExtSupported 3:0 */

int ornic_mad_init(struct ornic_dev *dev)
{
	mutex_init(&dev->mad_lock);
	dev->mad_buf = dma_alloc_coherent(&dev->pdev->dev, 2 * ORNIC_MAD_SIZE,
					  &dev->mad_dma, GFP_KERNEL);
	if (!dev->mad_buf) {
		mutex_destroy(&dev->mad_lock);
		return -ENOMEM;
	}
	return 0;
}

void ornic_mad_destroy(struct ornic_dev *dev)
{
	dma_free_coherent(&dev->pdev->dev, 2 * ORNIC_MAD_SIZE, dev->mad_buf,
			  dev->mad_dma);
	mutex_destroy(&dev->mad_lock);
}

/* --- the commands (KUnit: ornic_mad_kunit.c) ------------------------------ */

void ornic_cmd_mad_ifc(struct ornic_admin_sqe *sqe, u64 in_addr, u64 out_addr,
		       bool ignore_mkey, const struct ib_wc *wc)
{
	struct ornic_admin_mad_ifc *c = (struct ornic_admin_mad_ifc *)sqe;
	u32 flags = ignore_mkey ? ORNIC_MAD_IFC_FLAG_IGNORE_MKEY : 0;

	ornic_cmd_init(sqe, ORNIC_ADMIN_MAD_IFC);
	c->in_addr = cpu_to_le64(in_addr);
	c->out_addr = cpu_to_le64(out_addr);
	c->port = 1;
	if (wc) {
		flags |= ORNIC_MAD_IFC_FLAG_HAS_WC;
		c->src_qp = cpu_to_le32(wc->src_qp & ORNIC_QPN_MASK);
		c->slid = cpu_to_le16(wc->slid);
		c->pkey_index = cpu_to_le16(wc->pkey_index);
		c->sl = wc->sl;
		c->dlid_path_bits = wc->dlid_path_bits;
	}
	c->flags = cpu_to_le32(flags);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_mad_ifc);

int ornic_cmd_modify_port(struct ornic_admin_sqe *sqe, u32 set, u32 clr,
			  bool reset_qkey_cntr)
{
	struct ornic_admin_modify_port *c =
		(struct ornic_admin_modify_port *)sqe;

	if ((set | clr) & ~ORNIC_PORT_CAP_SW_MASK || (set & clr))
		return -EINVAL;
	ornic_cmd_init(sqe, ORNIC_ADMIN_MODIFY_PORT);
	c->set_cap_mask = cpu_to_le32(set);
	c->clr_cap_mask = cpu_to_le32(clr);
	c->flags = cpu_to_le32(reset_qkey_cntr ?
			       ORNIC_MODIFY_PORT_RESET_QKEY_CNTR : 0);
	c->port = 1;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_modify_port);

/* The MAD classes the device's agents answer; the rest is the MAD layer's. */
bool ornic_mad_for_device(const struct ib_mad_hdr *hdr)
{
	switch (hdr->mgmt_class) {
	case IB_MGMT_CLASS_SUBN_LID_ROUTED:
	case IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE:
		/* SMInfo belongs to the subnet manager's own agent. */
		if (hdr->attr_id == IB_SMP_ATTR_SM_INFO)
			return false;
		fallthrough;
	case IB_MGMT_CLASS_PERF_MGMT:
		return hdr->method == IB_MGMT_METHOD_GET ||
		       hdr->method == IB_MGMT_METHOD_SET ||
		       hdr->method == IB_MGMT_METHOD_TRAP_REPRESS;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_mad_for_device);

/*
 * One MAD through the device's agents: @in (ORNIC_MAD_SIZE bytes) in, the
 * answer in @out when the result is ORNIC_MAD_IFC_REPLY.  Sleeps.
 */
static int ornic_mad_ifc(struct ornic_dev *dev, const void *in, void *out,
			 bool ignore_mkey, const struct ib_wc *wc)
{
	struct ornic_admin_sqe sqe;
	u32 result;
	int err;

	mutex_lock(&dev->mad_lock);
	memcpy(dev->mad_buf, in, ORNIC_MAD_SIZE);
	ornic_cmd_mad_ifc(&sqe, dev->mad_dma, dev->mad_dma + ORNIC_MAD_SIZE,
			  ignore_mkey, wc);
	err = ornic_admin_simple(dev, &sqe, &result);
	if (!err && result > ORNIC_MAD_IFC_CONSUMED) {
		ornic_device_error(&dev->live, "MAD_IFC result", result,
				   ORNIC_MAD_IFC_CONSUMED);
		err = -EIO;
	}
	if (!err && result == ORNIC_MAD_IFC_REPLY)
		memcpy(out, dev->mad_buf + ORNIC_MAD_SIZE, ORNIC_MAD_SIZE);
	mutex_unlock(&dev->mad_lock);
	return err ? err : result;
}

int ornic_process_mad(struct ib_device *ibdev, int mad_flags, u32 port,
		      const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	struct ornic_dev *dev = to_odev(ibdev);
	int result;

	if (port != 1 || *out_mad_size < sizeof(*out) ||
	    !ornic_mad_for_device(&in->mad_hdr))
		return IB_MAD_RESULT_SUCCESS;
	result = ornic_mad_ifc(dev, in, out, mad_flags & IB_MAD_IGNORE_MKEY,
			       in_wc);
	switch (result) {
	case ORNIC_MAD_IFC_REPLY:
		*out_mad_size = sizeof(*out);
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
	case ORNIC_MAD_IFC_CONSUMED:
		return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
	case ORNIC_MAD_IFC_NOT_HANDLED:
		return IB_MAD_RESULT_SUCCESS;
	default:
		return IB_MAD_RESULT_FAILURE;
	}
}

/* An SMP Get of @attr_id (@attr_mod) from the driver itself. */
static int ornic_smp_get(struct ornic_dev *dev, __be16 attr_id, u32 attr_mod,
			 struct ib_smp *out)
{
	struct ib_smp *in;
	int result;

	in = kzalloc_obj(*in, GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	in->base_version = IB_MGMT_BASE_VERSION;
	in->mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	in->class_version = 1;
	in->method = IB_MGMT_METHOD_GET;
	in->attr_id = attr_id;
	in->attr_mod = cpu_to_be32(attr_mod);
	result = ornic_mad_ifc(dev, in, out, true, NULL);
	kfree(in);
	if (result < 0)
		return result;
	if (result != ORNIC_MAD_IFC_REPLY || out->status) {
		ibdev_err(&dev->ibdev, "SMA Get %#x: result %d, status %#x\n",
			  be16_to_cpu(attr_id), result, be16_to_cpu(out->status));
		return -EIO;
	}
	return 0;
}

/* PortInfo's speed and width as the IB core's enums (IBA 14.2.5.6). */
void ornic_port_info_speed(const struct ib_smp *smp, u16 *speed, u8 *width)
{
	const struct ib_port_info *pi = (const struct ib_port_info *)smp->data;
	u8 ext = smp->data[ORNIC_PORTINFO_SPEED_EXT] >> 4;

	*width = pi->link_width_active;
	switch (pi->linkspeedactive_enabled >> 4) {
	case 2:
		*speed = IB_SPEED_DDR;
		break;
	case 4:
		*speed = IB_SPEED_QDR;
		break;
	default:
		*speed = IB_SPEED_SDR;
		break;
	}
	/* With CapabilityMask2 and extended speeds, they take precedence. */
	if (ext & 1)
		*speed = IB_SPEED_FDR;
	if (ext & 2)
		*speed = IB_SPEED_EDR;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_port_info_speed);

int ornic_ib_query_port(struct ornic_dev *dev, struct ib_port_attr *props)
{
	const struct ib_port_info *pi;
	struct ib_smp *out;
	int err;

	out = kzalloc_obj(*out, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	err = ornic_smp_get(dev, IB_SMP_ATTR_PORT_INFO, 1, out);
	if (err)
		goto out;
	pi = (const struct ib_port_info *)out->data;
	memset(props, 0, sizeof(*props));
	props->lid = be16_to_cpu(pi->lid);
	props->sm_lid = be16_to_cpu(pi->sm_lid);
	props->lmc = pi->mkeyprot_resv_lmc & 7;
	props->sm_sl = pi->neighbormtu_mastersmsl & 0xf;
	props->state = pi->linkspeed_portstate & 0xf;
	props->phys_state = pi->portphysstate_linkdown >> 4;
	props->port_cap_flags = be32_to_cpu(pi->cap_mask);
	props->gid_tbl_len = 1;
	props->pkey_tbl_len = ORNIC_IB_PKEY_TABLE_LEN;
	props->max_msg_sz = le32_to_cpu(dev->attr.max_msg_size);
	props->bad_pkey_cntr = be16_to_cpu(pi->pkey_violations);
	props->qkey_viol_cntr = be16_to_cpu(pi->qkey_violations);
	props->max_mtu = pi->inittypereply_mtucap & 0xf;
	props->active_mtu = pi->neighbormtu_mastersmsl >> 4;
	props->max_vl_num = pi->vlcap_inittype >> 4;
	props->init_type_reply = pi->inittypereply_mtucap >> 4;
	props->subnet_timeout = pi->clientrereg_resv_subnetto & 0x1f;
	ornic_port_info_speed(out, &props->active_speed, &props->active_width);
out:
	kfree(out);
	return err;
}

int ornic_ib_query_pkey(struct ornic_dev *dev, u16 index, u16 *pkey)
{
	struct ib_smp *out;
	int err;

	if (index >= ORNIC_IB_PKEY_TABLE_LEN)
		return -EINVAL;
	out = kzalloc_obj(*out, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	err = ornic_smp_get(dev, IB_SMP_ATTR_PKEY_TABLE, index / 32, out);
	if (!err)
		*pkey = be16_to_cpu(((__be16 *)out->data)[index % 32]);
	kfree(out);
	return err;
}

/* The SMA's NodeDescription, which the core reports as node_desc. */
int ornic_ib_node_desc(struct ornic_dev *dev, char *desc)
{
	struct ib_smp *out;
	int err;

	out = kzalloc_obj(*out, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	err = ornic_smp_get(dev, IB_SMP_ATTR_NODE_DESC, 0, out);
	if (!err)
		memcpy(desc, out->data, IB_DEVICE_NODE_DESC_MAX);
	kfree(out);
	return err;
}

/* GID 0, the port's only one: the SM's subnet prefix and the port GUID. */
int ornic_ib_query_gid(struct ornic_dev *dev, int index, union ib_gid *gid)
{
	struct ib_smp *out;
	int err;

	if (index)
		return -EINVAL;
	out = kzalloc_obj(*out, GFP_KERNEL);
	if (!out)
		return -ENOMEM;
	err = ornic_smp_get(dev, IB_SMP_ATTR_PORT_INFO, 1, out);
	if (!err) {
		gid->global.subnet_prefix =
			((const struct ib_port_info *)out->data)->gid_prefix;
		gid->global.interface_id = dev->port.port_guid;
	}
	kfree(out);
	return err;
}

int ornic_modify_port(struct ib_device *ibdev, u32 port, int mask,
		      struct ib_port_modify *props)
{
	struct ornic_dev *dev = to_odev(ibdev);
	struct ornic_admin_sqe sqe;
	int err;

	if (port != 1 || !ornic_is_ib(dev))
		return -EOPNOTSUPP;
	/* No port shutdown, no InitType: the link is the model's to bring up. */
	if (mask & ~IB_PORT_RESET_QKEY_CNTR)
		return -EOPNOTSUPP;
	err = ornic_cmd_modify_port(&sqe, props->set_port_cap_mask,
				    props->clr_port_cap_mask,
				    mask & IB_PORT_RESET_QKEY_CNTR);
	if (err)
		return err;
	return ornic_admin_simple(dev, &sqe, NULL);
}

/* --- what the subnet manager changed -------------------------------------- */

/* The IB events of a PORT_CHANGE EQE's bits (ORNIC_PORT_CHANGE_*). */
unsigned int ornic_port_change_events(u32 bits, enum ib_event_type *events)
{
	static const struct {
		u32 bit;
		enum ib_event_type event;
	} map[] = {
		{ ORNIC_PORT_CHANGE_LID, IB_EVENT_LID_CHANGE },
		{ ORNIC_PORT_CHANGE_PKEY, IB_EVENT_PKEY_CHANGE },
		{ ORNIC_PORT_CHANGE_SM, IB_EVENT_SM_CHANGE },
		{ ORNIC_PORT_CHANGE_GID, IB_EVENT_GID_CHANGE },
		{ ORNIC_PORT_CHANGE_CLIENT_REREG, IB_EVENT_CLIENT_REREGISTER },
	};
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (bits & map[i].bit)
			events[n++] = map[i].event;
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_port_change_events);

/* PORT_CHANGE (under dev->aeq_lock): ib_dispatch_event() only queues work. */
void ornic_port_change_event(struct ornic_dev *dev,
			     const struct ornic_eqe *eqe)
{
	enum ib_event_type events[ORNIC_PORT_CHANGE_EVENTS_MAX];
	u32 bits = le32_to_cpu(eqe->data);
	unsigned int i, n;

	if (!ornic_is_ib(dev) || bits & ~ORNIC_PORT_CHANGE_ALL) {
		ornic_device_error(&dev->live, "PORT_CHANGE bits", bits,
				   ORNIC_PORT_CHANGE_ALL);
		return;
	}
	n = ornic_port_change_events(bits, events);
	for (i = 0; i < n; i++)
		ornic_ib_event(dev, events[i]);
}

/* PORT_STATE of an InfiniBand port: the port entered or left Active. */
void ornic_ib_port_state_event(struct ornic_dev *dev,
			       const struct ornic_eqe *eqe)
{
	u32 state = le32_to_cpu(eqe->data);

	if (state < ORNIC_PORT_DOWN || state > ORNIC_PORT_ACTIVE) {
		ornic_device_error(&dev->live, "PORT_STATE state", state,
				   ORNIC_PORT_ACTIVE);
		return;
	}
	dev->ib_port_active = state == ORNIC_PORT_ACTIVE;
	ornic_ib_port_event(dev, dev->ib_port_active);
}
