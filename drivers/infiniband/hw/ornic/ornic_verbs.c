// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: the ib_device.  One RoCEv2 port on the Ethernet function's
 * net_device; GIDs are programmed into the device with ADD_GID/DEL_GID;
 * every user context owns one doorbell page, mapped with
 * rdma_user_mmap_entry.
 */
#include <kunit/visibility.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_mad.h>
#include <rdma/iw_cm.h>
#include <rdma/ornic-abi.h>

#include "ornic.h"
#include "ornic_res.h"

/* --- device and port ------------------------------------------------------ */

/*
 * On-demand paging (ornic_odp.c): explicit MRs only, every RC, UD and XRC
 * operation with ODP memory on either side, SRQ receives included (an XRC
 * target receives only through its domain's SRQs).
 */
static void ornic_query_odp_caps(struct ornic_dev *dev,
				 struct ib_device_attr *props)
{
	struct ib_odp_caps *odp = &props->odp_caps;

	props->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
	odp->general_caps = IB_ODP_SUPPORT;
	odp->per_transport_caps.rc_odp_caps =
		IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
		IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV;
	odp->per_transport_caps.ud_odp_caps =
		IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
		IB_ODP_SUPPORT_SRQ_RECV;
	if (dev->caps & ORNIC_CAP_XRC)
		odp->per_transport_caps.xrc_odp_caps =
			IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_WRITE |
			IB_ODP_SUPPORT_READ | IB_ODP_SUPPORT_ATOMIC |
			IB_ODP_SUPPORT_SRQ_RECV;
}

/* Long only because it fills struct ib_device_attr field by field. */
static int ornic_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *props,
			      struct ib_udata *udata)
{
	struct ornic_dev *dev = to_odev(ibdev);
	const struct ornic_device_attr *a = &dev->attr;
	struct ornic_wq_limits lim;

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	ornic_wq_limits(dev, &lim);

	memset(props, 0, sizeof(*props));
	/* The provider formats it as ibv_devinfo's fw_ver (ornic.c). */
	props->fw_ver = dev->fw_version;
	props->vendor_id = dev->pdev->vendor;
	props->vendor_part_id = dev->pdev->device;
	props->hw_ver = dev->pdev->revision;
	props->sys_image_guid = ibdev->node_guid;
	props->max_mr_size = le64_to_cpu(a->max_mr_size);
	props->page_size_cap = le64_to_cpu(a->page_size_cap);
	props->max_qp = le32_to_cpu(a->max_qp);
	/* Depths are also bounded by the log_depth fields of the commands. */
	props->max_qp_wr = min_t(u32, le32_to_cpu(a->max_qp_wr),
				 1U << ORNIC_WQ_LOG_DEPTH_MAX);
	/* What one WQE of max_wqe_blocks can carry caps the device's. */
	props->max_send_sge = min(lim.max_send_sge,
				  ornic_send_sges_fit(lim.max_wqe_blocks));
	props->max_recv_sge = min(lim.max_recv_sge,
				  ornic_recv_sges_fit(lim.max_wqe_blocks));
	props->max_sge_rd = props->max_send_sge;
	props->max_cq = le32_to_cpu(a->max_cq);
	props->max_cqe = min_t(u32, le32_to_cpu(a->max_cqe),
			       1U << ORNIC_CQ_LOG_DEPTH_MAX);
	props->max_mr = le32_to_cpu(a->max_mr);
	props->max_pd = le32_to_cpu(a->max_pd);
	props->max_qp_rd_atom = le32_to_cpu(a->max_qp_rd_atom);
	props->max_qp_init_rd_atom = le32_to_cpu(a->max_qp_init_rd_atom);
	props->max_res_rd_atom = props->max_qp * props->max_qp_rd_atom;
	props->max_srq = le32_to_cpu(a->max_srq);
	props->max_srq_wr = min_t(u32, le32_to_cpu(a->max_srq_wr),
				  1U << ORNIC_WQ_LOG_DEPTH_MAX);
	props->max_srq_sge = min_t(u32, le32_to_cpu(a->max_srq_sge),
				   props->max_recv_sge);
	props->max_ah = le32_to_cpu(a->max_ah);
	props->max_pkeys = ornic_is_ib(dev) ? ORNIC_IB_PKEY_TABLE_LEN : 1;
	props->device_cap_flags = ornic_device_cap_flags(dev->caps);
	if (dev->caps & ORNIC_CAP_FAST_REG)
		props->max_fast_reg_page_list_len =
			le32_to_cpu(a->max_fast_reg_pages);
	/* Windows share the MR key table (spec: identity.rst). */
	if (dev->caps & ORNIC_CAP_MW)
		props->max_mw = props->max_mr;
	/* Completion timestamps: the device clock counts nanoseconds. */
	if (dev->caps & ORNIC_CAP_CQE_TIMESTAMP) {
		props->hca_core_clock = ORNIC_CLOCK_KHZ;
		props->timestamp_mask = U64_MAX;
	}
	if (dev->caps & ORNIC_CAP_MCAST) {
		props->max_mcast_grp = le32_to_cpu(a->max_mcast_grp);
		props->max_mcast_qp_attach =
			le32_to_cpu(a->max_mcast_qp_attach);
		props->max_total_mcast_qp_attach =
			le32_to_cpu(a->max_total_mcast_qp_attach);
	}
	if (ornic_odp_supported(dev))
		ornic_query_odp_caps(dev, props);
	props->local_ca_ack_delay = a->local_ca_ack_delay;
	props->atomic_cap = a->atomic_cap == ORNIC_ATOMIC_GLOB ?
			    IB_ATOMIC_GLOB :
			    a->atomic_cap == ORNIC_ATOMIC_HCA ? IB_ATOMIC_HCA :
			    IB_ATOMIC_NONE;
	/* iWARP has no atomics, and a READ's sink is one tagged buffer. */
	if (ornic_is_iwarp(dev)) {
		props->atomic_cap = IB_ATOMIC_NONE;
		props->masked_atomic_cap = IB_ATOMIC_NONE;
		props->max_sge_rd = 1;
	}
	return 0;
}

/* Whether @netdev has an IPv4 address (an iWARP port's ACTIVE needs one). */
static bool ornic_iw_has_ipv4(struct net_device *netdev)
{
	const struct in_device *in_dev;
	bool has;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(netdev);
	has = in_dev && rcu_access_pointer(in_dev->ifa_list);
	rcu_read_unlock();
	return has;
}

static int ornic_query_port(struct ib_device *ibdev, u32 port,
			    struct ib_port_attr *props)
{
	struct ornic_dev *dev = to_odev(ibdev);
	struct net_device *netdev = dev->netdev;
	u32 mtu = netdev ? READ_ONCE(netdev->mtu) : 1500;

	/* The subnet manager's view of an InfiniBand port: its PortInfo. */
	if (ornic_is_ib(dev))
		return ornic_ib_query_port(dev, props);
	memset(props, 0, sizeof(*props));
	props->gid_tbl_len = min_t(u32, le32_to_cpu(dev->port.gid_tbl_len),
				   ORNIC_NUM_GIDS_MAX);
	props->pkey_tbl_len = 1;
	props->ip_gids = true;
	props->port_cap_flags = IB_PORT_CM_SUP;
	if (ornic_is_iwarp(dev)) {
		props->gid_tbl_len = 1;
		props->ip_gids = false;
	}
	props->max_msg_sz = le32_to_cpu(dev->attr.max_msg_size);
	props->max_mtu = IB_MTU_4096;
	props->active_mtu = ornic_roce_mtu(mtu);
	ornic_speed_to_ib(le32_to_cpu(dev->port.speed_gbps),
			  &props->active_speed, &props->active_width);
	/*
	 * A RoCE port is active while its netdev is up with carrier; an
	 * iWARP port also needs an IPv4 address to connect from.
	 */
	if (netdev && !ornic_dead(&dev->live) && netif_running(netdev) &&
	    netif_carrier_ok(netdev) &&
	    (!ornic_is_iwarp(dev) || ornic_iw_has_ipv4(netdev)))
		props->state = IB_PORT_ACTIVE;
	else
		props->state = IB_PORT_DOWN;
	props->phys_state = props->state == IB_PORT_ACTIVE ?
			    IB_PORT_PHYS_STATE_LINK_UP :
			    IB_PORT_PHYS_STATE_DISABLED;
	return 0;
}

static int ornic_get_port_immutable(struct ib_device *ibdev, u32 port,
				    struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr;
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	if (ornic_is_ib(to_odev(ibdev)))
		immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	else if (ornic_is_iwarp(to_odev(ibdev)))
		immutable->core_cap_flags = RDMA_CORE_PORT_IWARP;
	else if (to_odev(ibdev)->caps & ORNIC_CAP_ROCE_V1)
		/* The core then adds a RoCE v1 and a RoCE v2 GID per address. */
		immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE |
					    RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	else
		immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	if (!ornic_is_iwarp(to_odev(ibdev)))
		immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer ornic_get_link_layer(struct ib_device *ibdev,
						 u32 port)
{
	return ornic_is_ib(to_odev(ibdev)) ? IB_LINK_LAYER_INFINIBAND :
					     IB_LINK_LAYER_ETHERNET;
}

static int ornic_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			    u16 *pkey)
{
	struct ornic_dev *dev = to_odev(ibdev);

	if (ornic_is_ib(dev))
		return ornic_ib_query_pkey(dev, index, pkey);
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

/* InfiniBand ports only: a RoCE port's GIDs are the core's table. */
static int ornic_query_gid(struct ib_device *ibdev, u32 port, int index,
			   union ib_gid *gid)
{
	return ornic_ib_query_gid(to_odev(ibdev), index, gid);
}

/* An iWARP port's one GID: the netdev's MAC, then zeros. */
static int ornic_iw_query_gid(struct ib_device *ibdev, u32 port, int index,
			      union ib_gid *gid)
{
	struct net_device *netdev = to_odev(ibdev)->netdev;

	if (index)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	memcpy(gid->raw, netdev->dev_addr, ETH_ALEN);
	return 0;
}

/* sysfs fw_ver: the device's FW_VERSION (identity.rst, "Versioning"). */
static void ornic_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	struct ornic_dev *dev = to_odev(ibdev);

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%u",
		 ORNIC_FW_VERSION_MAJOR(dev->fw_version),
		 ORNIC_FW_VERSION_MINOR(dev->fw_version),
		 ORNIC_FW_VERSION_PATCH(dev->fw_version));
}

/* --- GIDs ------------------------------------------------------------------- */

static int ornic_add_gid(const struct ib_gid_attr *attr, void **context)
{
	struct ornic_dev *dev = to_odev(attr->device);
	enum rdma_network_type net = rdma_gid_attr_network_type(attr);
	struct ornic_admin_sqe sqe;
	u16 vlan_id = 0xffff;
	u8 type;
	int err;

	/* A VLAN device's GID: its frames are tagged (spec: roce.rst "VLANs"). */
	err = rdma_read_gid_l2_fields(attr, &vlan_id, NULL);
	if (err)
		return err;
	if (vlan_id != 0xffff && !(dev->caps & ORNIC_CAP_ROCE_VLAN))
		return -EOPNOTSUPP;
	if (attr->gid_type == IB_GID_TYPE_ROCE) {
		if (!(dev->caps & ORNIC_CAP_ROCE_V1))
			return -EOPNOTSUPP;
		type = ORNIC_GID_TYPE_ROCE_V1;
	} else if (net == RDMA_NETWORK_IPV4) {
		type = ORNIC_GID_TYPE_ROCE_V2_IPV4;
	} else if (net == RDMA_NETWORK_IPV6) {
		if (!(dev->caps & ORNIC_CAP_IPV6_GID))
			return -EOPNOTSUPP;
		type = ORNIC_GID_TYPE_ROCE_V2_IPV6;
	} else {
		return -EINVAL;
	}
	err = ornic_cmd_gid(&sqe, true, attr->index, attr->gid.raw, type,
			    vlan_id);
	if (err)
		return err;
	err = ornic_admin_simple(dev, &sqe, NULL);
	if (err)
		ibdev_warn(&dev->ibdev, "ADD_GID %u %pI6 failed: %d\n",
			   attr->index, attr->gid.raw, err);
	return err;
}

static int ornic_del_gid(const struct ib_gid_attr *attr, void **context)
{
	struct ornic_dev *dev = to_odev(attr->device);
	struct ornic_admin_sqe sqe;
	int err;

	ornic_cmd_gid(&sqe, false, attr->index, NULL, 0, 0xffff);
	err = ornic_admin_simple(dev, &sqe, NULL);
	/* A dead device holds no GIDs: deleting succeeds. */
	return err == -EIO ? 0 : err;
}

/* --- user contexts ------------------------------------------------------ */

/*
 * What a provider needs to drive a context: given at alloc_ucontext and
 * again to a process importing the context (ornic_query_ucontext).
 */
void ornic_ucontext_resp(struct ornic_ucontext *uctx,
			 struct ornic_ibv_alloc_ucontext_resp *resp)
{
	struct ornic_dev *dev = to_odev(uctx->ibucontext.device);

	memset(resp, 0, sizeof(*resp));
	resp->db_page = uctx->db_page;
	resp->db_mmap_key = rdma_user_mmap_get_offset(uctx->db_entry);
	resp->db_page_size = ORNIC_DB_PAGE_SIZE;
	resp->spec_version = dev->version;
	resp->caps = dev->caps;
	resp->max_inline_data = le32_to_cpu(dev->attr.max_inline_data);
	resp->max_wqe_blocks = le32_to_cpu(dev->attr.max_wqe_blocks);
	if (dev->caps & ORNIC_CAP_DB_RECORD)
		resp->comp_mask |= ORNIC_IBV_ALLOC_UCTX_RESP_DB_RECORD;
	if (dev->caps & ORNIC_CAP_CQ_DB_RECORD)
		resp->comp_mask |= ORNIC_IBV_ALLOC_UCTX_RESP_CQ_DB_RECORD;
}

static int ornic_alloc_ucontext(struct ib_ucontext *ibuctx,
				struct ib_udata *udata)
{
	struct ornic_ucontext *uctx = container_of(ibuctx,
						   struct ornic_ucontext,
						   ibucontext);
	struct ornic_dev *dev = to_odev(ibuctx->device);
	struct ornic_ibv_alloc_ucontext_resp resp;
	struct ornic_user_mmap_entry *entry;
	struct ornic_admin_sqe sqe;
	u32 page;
	int err;

	/* One doorbell page per mapping: the CPU page must not cover more. */
	if (PAGE_SIZE != ORNIC_DB_PAGE_SIZE)
		return -EOPNOTSUPP;

	ornic_cmd_init(&sqe, ORNIC_ADMIN_ALLOC_DB_PAGE);
	err = ornic_admin_simple(dev, &sqe, &page);
	if (err)
		return err;
	if (!page || page >= dev->db_pages) {
		ibdev_err(&dev->ibdev, "ALLOC_DB_PAGE returned page %u\n",
			  page);
		err = -EIO;
		goto err_free_page;
	}
	uctx->db_page = page;

	entry = kzalloc_obj(*entry, GFP_KERNEL);
	if (!entry) {
		err = -ENOMEM;
		goto err_free_page;
	}
	entry->address = dev->db_bar_start + (u64)page * ORNIC_DB_PAGE_SIZE;
	err = rdma_user_mmap_entry_insert(ibuctx, &entry->rdma_entry,
					  ORNIC_DB_PAGE_SIZE);
	if (err) {
		kfree(entry);
		goto err_free_page;
	}
	uctx->db_entry = &entry->rdma_entry;

	ornic_ucontext_resp(uctx, &resp);
	if (udata->outlen) {
		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (err)
			goto err_remove_entry;
	}
	return 0;

err_remove_entry:
	rdma_user_mmap_entry_remove(uctx->db_entry);
err_free_page:
	ornic_admin_destroy(dev, ORNIC_ADMIN_FREE_DB_PAGE, page);
	return err;
}

static void ornic_dealloc_ucontext(struct ib_ucontext *ibuctx)
{
	struct ornic_ucontext *uctx = container_of(ibuctx,
						   struct ornic_ucontext,
						   ibucontext);
	struct ornic_dev *dev = to_odev(ibuctx->device);

	rdma_user_mmap_entry_remove(uctx->db_entry);
	ornic_admin_destroy(dev, ORNIC_ADMIN_FREE_DB_PAGE, uctx->db_page);
}

/*
 * Nothing to do: when the device goes away the core zaps every mapping
 * (rdma_user_mmap_disassociate) and later calls dealloc_ucontext.
 */
static void ornic_disassociate_ucontext(struct ib_ucontext *ibuctx)
{
}

static int ornic_mmap(struct ib_ucontext *ibuctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct ornic_user_mmap_entry *entry;
	int err;

	rdma_entry = rdma_user_mmap_entry_get(ibuctx, vma);
	if (!rdma_entry)
		return -EINVAL;
	entry = container_of(rdma_entry, struct ornic_user_mmap_entry,
			     rdma_entry);
	err = rdma_user_mmap_io(ibuctx, vma, PFN_DOWN(entry->address),
				ORNIC_DB_PAGE_SIZE,
				pgprot_noncached(vma->vm_page_prot),
				rdma_entry);
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

static void ornic_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	kfree(container_of(rdma_entry, struct ornic_user_mmap_entry,
			   rdma_entry));
}

/* --- protection domains ------------------------------------------------- */

static int ornic_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct ornic_pd *pd = container_of(ibpd, struct ornic_pd, ibpd);
	struct ornic_dev *dev = to_odev(ibpd->device);
	struct ornic_ibv_alloc_pd_resp resp = {};
	struct ornic_admin_sqe sqe;
	int err;

	ornic_cmd_init(&sqe, ORNIC_ADMIN_ALLOC_PD);
	err = ornic_admin_simple(dev, &sqe, &pd->pdn);
	if (err)
		return err;
	if (udata && udata->outlen) {
		resp.pdn = pd->pdn;
		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (err) {
			ornic_admin_destroy(dev, ORNIC_ADMIN_DEALLOC_PD,
					    pd->pdn);
			return err;
		}
	}
	return 0;
}

static int ornic_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct ornic_pd *pd = container_of(ibpd, struct ornic_pd, ibpd);
	int err;

	err = ornic_admin_destroy(to_odev(ibpd->device),
				  ORNIC_ADMIN_DEALLOC_PD, pd->pdn);
	/* The core frees the PD anyway; only a live device's BUSY matters. */
	return err == -EIO ? 0 : err;
}

/* --- registration and events -------------------------------------------- */

/*
 * User verbs (the provider posts WQEs and polls CQEs itself) and kernel
 * verbs: post_send, post_recv, post_srq_recv, poll_cq, req_notify_cq and
 * get_dma_mr make the device a kernel verbs provider, so the MAD layer
 * opens its GSI QP and the CM (rdma_cm) and kernel ULPs can use it.
 */
static const struct ib_device_ops ornic_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = ORNIC_UVERBS_ABI_VERSION,

	.add_gid = ornic_add_gid,
	.alloc_mr = ornic_alloc_mr,
	.alloc_mw = ornic_alloc_mw,
	.alloc_pd = ornic_alloc_pd,
	.alloc_ucontext = ornic_alloc_ucontext,
	.alloc_xrcd = ornic_alloc_xrcd,
	.create_ah = ornic_create_ah,
	.create_cq = ornic_create_cq,
	.create_qp = ornic_create_qp,
	.create_srq = ornic_create_srq,
	.create_user_ah = ornic_create_ah,
	.dealloc_mw = ornic_dealloc_mw,
	.dealloc_pd = ornic_dealloc_pd,
	.dealloc_ucontext = ornic_dealloc_ucontext,
	.dealloc_xrcd = ornic_dealloc_xrcd,
	.del_gid = ornic_del_gid,
	.dereg_mr = ornic_dereg_mr,
	.destroy_ah = ornic_destroy_ah,
	.destroy_cq = ornic_destroy_cq,
	.destroy_qp = ornic_destroy_qp,
	.destroy_srq = ornic_destroy_srq,
	.disassociate_ucontext = ornic_disassociate_ucontext,
	.get_dev_fw_str = ornic_get_dev_fw_str,
	.get_dma_mr = ornic_get_dma_mr,
	.get_link_layer = ornic_get_link_layer,
	.get_port_immutable = ornic_get_port_immutable,
	.map_mr_sg = ornic_map_mr_sg,
	.mmap = ornic_mmap,
	.mmap_free = ornic_mmap_free,
	.modify_qp = ornic_modify_qp,
	.modify_srq = ornic_modify_srq,
	.poll_cq = ornic_poll_cq,
	.post_recv = ornic_post_recv,
	.post_send = ornic_post_send,
	.post_srq_recv = ornic_post_srq_recv,
	.query_ah = ornic_query_ah,
	.query_device = ornic_query_device,
	.query_pkey = ornic_query_pkey,
	.query_port = ornic_query_port,
	.query_qp = ornic_query_qp,
	.query_srq = ornic_query_srq,
	.query_ucontext = ornic_query_ucontext,
	.reg_user_mr = ornic_reg_user_mr,
	.req_notify_cq = ornic_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, ornic_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, ornic_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, ornic_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, ornic_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, ornic_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, ornic_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, ornic_ucontext, ibucontext),
	INIT_RDMA_OBJ_SIZE(ib_xrcd, ornic_xrcd, ibxrcd),
};

/* Changing objects after creation: only when the device implements it. */
static const struct ib_device_ops ornic_resize_ops = {
	.ORNIC_RESIZE_CQ_OP = ornic_resize_cq_op,
	.rereg_user_mr = ornic_rereg_user_mr,
};

/*
 * An InfiniBand port: its SMA and PMA answer MADs, the driver reports its
 * GIDs, and the MAD layer sets software's capability bits (IsSM, IsCM).
 */
static const struct ib_device_ops ornic_ib_port_ops = {
	.modify_port = ornic_modify_port,
	.process_mad = ornic_process_mad,
	.query_gid = ornic_query_gid,
};

/* An iWARP port: one GID (the MAC) the driver reports, no MADs. */
static const struct ib_device_ops ornic_iw_port_ops = {
	.query_gid = ornic_iw_query_gid,
};

/* Multicast verbs, only when the device has ORNIC_CAP_MCAST. */
static const struct ib_device_ops ornic_mcast_ops = {
	.attach_mcast = ornic_attach_mcast,
	.detach_mcast = ornic_detach_mcast,
};

static const struct ib_device_ops ornic_odp_ops = {
	.advise_mr = ornic_advise_mr,
};

/* Torn down under aeq_lock: the async EQ handler queues page faults on it. */
static void ornic_odp_wq_destroy(struct ornic_dev *dev)
{
	struct workqueue_struct *wq;

	spin_lock_irq(&dev->aeq_lock);
	wq = dev->odp_wq;
	dev->odp_wq = NULL;
	spin_unlock_irq(&dev->aeq_lock);
	if (wq)
		destroy_workqueue(wq);
}

int ornic_ib_register(struct ornic_dev *dev)
{
	struct ib_device *ibdev = &dev->ibdev;
	struct workqueue_struct *wq;
	int err;

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = dev->num_ceqs;
	ibdev->dev.parent = &dev->pdev->dev;
	ib_set_device_ops(ibdev, &ornic_dev_ops);
	if (ornic_is_ib(dev)) {
		/* The SMA's NodeInfo and NodeDescription are the device's. */
		err = ornic_ib_node_desc(dev, ibdev->node_desc);
		if (err)
			return err;
		ibdev->node_guid = dev->attr.node_guid;
		ib_set_device_ops(ibdev, &ornic_ib_port_ops);
	} else {
		strscpy(ibdev->node_desc, "ornic RoCEv2 RNIC",
			sizeof(ibdev->node_desc));
		addrconf_addr_eui48((u8 *)&ibdev->node_guid,
				    dev->netdev->perm_addr);
	}
	if (ornic_is_iwarp(dev)) {
		/*
		 * rdma_cm finds an iWARP port by its one GID (the MAC); the
		 * device's connections need no port mapper.
		 */
		ibdev->node_type = RDMA_NODE_RNIC;
		strscpy(ibdev->node_desc, "ornic iWARP RNIC",
			sizeof(ibdev->node_desc));
		memcpy(ibdev->iw_ifname, dev->netdev->name,
		       sizeof(ibdev->iw_ifname));
		ibdev->iw_driver_flags = IW_F_NO_PORT_MAP;
		ib_set_device_ops(ibdev, &ornic_iw_port_ops);
		err = ornic_iw_init(dev);
		if (err)
			return err;
	}
	ib_set_device_ops(ibdev, &ornic_counter_ops);
	ib_set_device_ops(ibdev, &ornic_restrack_ops);
	ibdev->driver_def = ornic_uapi_defs;
	if (dev->caps & ORNIC_CAP_RESIZE)
		ib_set_device_ops(ibdev, &ornic_resize_ops);
	if (dev->caps & ORNIC_CAP_MCAST)
		ib_set_device_ops(ibdev, &ornic_mcast_ops);
	if (ornic_odp_supported(dev)) {
		ib_set_device_ops(ibdev, &ornic_odp_ops);
		wq = alloc_workqueue("ornic_odp", WQ_UNBOUND, 0);
		if (!wq) {
			err = -ENOMEM;
			goto err_iw;
		}
		spin_lock_irq(&dev->aeq_lock);
		dev->odp_wq = wq;
		spin_unlock_irq(&dev->aeq_lock);
	}

	if (dev->netdev) {
		err = ib_device_set_netdev(ibdev, dev->netdev, 1);
		if (err)
			goto err_odp;
	}
	err = ib_register_device(ibdev, "ornic_%d", &dev->pdev->dev);
	if (err) {
		dev_err(&dev->pdev->dev, "ib_register_device failed: %d\n",
			err);
		/* Drop the netdev reference, or unregister_netdev() waits. */
		if (dev->netdev)
			ib_device_set_netdev(ibdev, NULL, 1);
		goto err_odp;
	}
	WRITE_ONCE(dev->ib_registered, true);
	return 0;

err_odp:
	ornic_odp_wq_destroy(dev);
err_iw:
	ornic_iw_fini(dev);
	return err;
}

void ornic_ib_unregister(struct ornic_dev *dev)
{
	WRITE_ONCE(dev->ib_registered, false);
	ib_unregister_device(&dev->ibdev);
	ornic_odp_wq_destroy(dev);
	ornic_iw_fini(dev);
}

void ornic_ib_event(struct ornic_dev *dev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &dev->ibdev,
		.element.port_num = 1,
		.event = type,
	};

	if (READ_ONCE(dev->ib_registered))
		ib_dispatch_event(&ev);
}

void ornic_ib_port_event(struct ornic_dev *dev, bool active)
{
	ornic_ib_event(dev, active ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
}

void ornic_ib_fatal_event(struct ornic_dev *dev)
{
	ibdev_err(&dev->ibdev, "reporting IB_EVENT_DEVICE_FATAL\n");
	ornic_ib_event(dev, IB_EVENT_DEVICE_FATAL);
}

/*
 * the port and the device: GIDs, MTU, speed, capabilities
 * (KUnit: ornic_verbs_kunit.c).
 */

bool ornic_gid_is_v4(const u8 gid[16])
{
	static const u8 prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				       0xff, 0xff };

	return !memcmp(gid, prefix, sizeof(prefix));
}
EXPORT_SYMBOL_IF_KUNIT(ornic_gid_is_v4);

/*
 * ADD_GID carries the GID and its type (enum ornic_gid_type); DEL_GID only
 * the index (gid and type must be zero).  A RoCEv2 type whose IP family is
 * not the GID's form is refused here rather than by the device.
 */
int ornic_cmd_gid(struct ornic_admin_sqe *sqe, bool add, u32 index,
		  const u8 gid[16], u8 type, u16 vlan_id)
{
	struct ornic_admin_gid *g = (struct ornic_admin_gid *)sqe;

	ornic_cmd_init(sqe, add ? ORNIC_ADMIN_ADD_GID : ORNIC_ADMIN_DEL_GID);
	g->index = cpu_to_le32(index);
	if (!add)
		return 0;
	switch (type) {
	case ORNIC_GID_TYPE_ROCE_V2_IPV4:
		if (!ornic_gid_is_v4(gid))
			return -EINVAL;
		break;
	case ORNIC_GID_TYPE_ROCE_V2_IPV6:
		if (ornic_gid_is_v4(gid))
			return -EINVAL;
		break;
	case ORNIC_GID_TYPE_ROCE_V1:
		break;
	default:
		return -EINVAL;
	}
	g->type = type;
	memcpy(g->gid, gid, sizeof(g->gid));
	/* 0xffff: no VLAN (rdma_read_gid_l2_fields); 0 and 4095 name none. */
	if (vlan_id != 0xffff) {
		if (!vlan_id || vlan_id >= VLAN_N_VID - 1)
			return -EINVAL;
		g->flags = ORNIC_GID_FLAG_VLAN;
		g->vlan_id = cpu_to_le16(vlan_id);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_gid);

/*
 * RoCE payload MTU over an IP MTU: IPv4 (20) + UDP (8) + BTH (12) +
 * RETH (16) + ICRC (4) must fit too; the largest IB MTU that does, capped
 * at 4096 (spec: admin.rst ETH_SET_MTU).
 */
int ornic_roce_mtu(u32 eth_mtu)
{
	u32 room = eth_mtu > 60 ? eth_mtu - 60 : 0;

	if (room >= 4096)
		return ORNIC_MTU_4096;
	if (room >= 2048)
		return ORNIC_MTU_2048;
	if (room >= 1024)
		return ORNIC_MTU_1024;
	if (room >= 512)
		return ORNIC_MTU_512;
	return ORNIC_MTU_256;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_roce_mtu);

void ornic_speed_to_ib(u32 gbps, u16 *speed, u8 *width)
{
	if (gbps >= 400) {
		*speed = IB_SPEED_NDR;
		*width = IB_WIDTH_4X;
	} else if (gbps >= 200) {
		*speed = IB_SPEED_HDR;
		*width = IB_WIDTH_4X;
	} else if (gbps >= 100) {
		*speed = IB_SPEED_EDR;
		*width = IB_WIDTH_4X;
	} else if (gbps >= 50) {
		*speed = IB_SPEED_HDR;
		*width = IB_WIDTH_1X;
	} else if (gbps >= 40) {
		*speed = IB_SPEED_QDR;
		*width = IB_WIDTH_4X;
	} else if (gbps >= 25) {
		*speed = IB_SPEED_EDR;
		*width = IB_WIDTH_1X;
	} else if (gbps >= 10) {
		*speed = IB_SPEED_FDR10;
		*width = IB_WIDTH_1X;
	} else {
		*speed = IB_SPEED_SDR;
		*width = IB_WIDTH_1X;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_speed_to_ib);

u64 ornic_device_cap_flags(u64 caps)
{
	u64 flags = IB_DEVICE_RC_RNR_NAK_GEN | IB_DEVICE_CHANGE_PHY_PORT |
		    IB_DEVICE_SYS_IMAGE_GUID;

	/* Fast registration: kernel ULPs (nvme-rdma, iSER, ...) need it. */
	if (caps & ORNIC_CAP_FAST_REG)
		flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
	/* One device cap covers both placement types (roce.rst). */
	if (caps & ORNIC_CAP_FLUSH)
		flags |= IB_DEVICE_FLUSH_GLOBAL | IB_DEVICE_FLUSH_PERSISTENT;
	if (caps & ORNIC_CAP_ATOMIC_WRITE)
		flags |= IB_DEVICE_ATOMIC_WRITE;
	if (caps & ORNIC_CAP_MW)
		flags |= IB_DEVICE_MEM_WINDOW | IB_DEVICE_MEM_WINDOW_TYPE_2B;
	if ((caps & ORNIC_CAP_RESIZE) && (caps & ORNIC_CAP_SRQ))
		flags |= IB_DEVICE_SRQ_RESIZE;
	/* XRC domains, XRC SRQs and XRC initiator/target QPs (xrc.rst). */
	if (caps & ORNIC_CAP_XRC)
		flags |= IB_DEVICE_XRC;
	return flags;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_device_cap_flags);
