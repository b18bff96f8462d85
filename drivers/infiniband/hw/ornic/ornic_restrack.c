// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: the driver's part of `rdma res show {qp,cq,mr} -dd`: what the
 * device and the driver know of each object beyond the core's view (ring
 * sizes, the indices of the rings the driver owns, the device's own
 * per-QP counts of WQEs it retired).
 */
#include <net/netlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>
#include <uapi/rdma/rdma_netlink.h>

#include "ornic_res.h"

static const char *const ornic_qpt_names[] = {
	[ORNIC_QPT_RC] = "RC",
	[ORNIC_QPT_UD] = "UD",
	[ORNIC_QPT_GSI] = "GSI",
	[ORNIC_QPT_UC] = "UC",
	[ORNIC_QPT_XRC_INI] = "XRC_INI",
	[ORNIC_QPT_XRC_TGT] = "XRC_TGT",
};

static const char *ornic_qpt_name(u8 type)
{
	if (type < ARRAY_SIZE(ornic_qpt_names) && ornic_qpt_names[type])
		return ornic_qpt_names[type];
	return "?";
}

static int ornic_fill_kwq(struct sk_buff *msg, const char *pi_name,
			  const char *ci_name, struct ornic_kwq *wq)
{
	if (rdma_nl_put_driver_u32(msg, pi_name, READ_ONCE(wq->pi)) ||
	    rdma_nl_put_driver_u32(msg, ci_name, READ_ONCE(wq->ci)))
		return -EMSGSIZE;
	return 0;
}

static int ornic_fill_qp_attrs(struct sk_buff *msg, struct ornic_qp *qp)
{
	struct ornic_dev *dev = to_odev(qp->ibqp.device);
	u64 cnt[ORNIC_STATS_QP_COUNT];

	if (rdma_nl_put_driver_u32(msg, "hw_qpn", qp->qpn) ||
	    rdma_nl_put_driver_string(msg, "hw_type",
				      ornic_qpt_name(qp->hw_type)) ||
	    rdma_nl_put_driver_u32(msg, "hw_state", READ_ONCE(qp->state)) ||
	    rdma_nl_put_driver_string(msg, "rings",
				      qp->xrc_tgt ? "none" :
				      qp->kernel ? "kernel" : "user"))
		return -EMSGSIZE;
	if (!qp->xrc_tgt &&
	    (rdma_nl_put_driver_u32(msg, "sq_log_depth",
				    ornic_qp_sq_log_depth(qp)) ||
	     rdma_nl_put_driver_u32(msg, "rq_log_depth",
				    ornic_qp_rq_log_depth(qp))))
		return -EMSGSIZE;
	if (qp->kernel &&
	    (ornic_fill_kwq(msg, "sq_pi", "sq_ci", &qp->kern.sq) ||
	     ornic_fill_kwq(msg, "rq_pi", "rq_ci", &qp->kern.rq)))
		return -EMSGSIZE;
	/* The device's view; skipped when it cannot answer. */
	if (ornic_read_qp_counters(dev, qp->qpn, cnt))
		return 0;
	if (rdma_nl_put_driver_u64(msg, "hw_send_wqes",
				   cnt[ORNIC_STAT_QP(send_wqes) -
				       ORNIC_STAT_QP_FIRST]) ||
	    rdma_nl_put_driver_u64(msg, "hw_recv_wqes",
				   cnt[ORNIC_STAT_QP(recv_wqes) -
				       ORNIC_STAT_QP_FIRST]) ||
	    rdma_nl_put_driver_u64(msg, "hw_packets_sent",
				   cnt[ORNIC_STAT_QP(packets_sent) -
				       ORNIC_STAT_QP_FIRST]) ||
	    rdma_nl_put_driver_u64(msg, "hw_packets_received",
				   cnt[ORNIC_STAT_QP(packets_received) -
				       ORNIC_STAT_QP_FIRST]))
		return -EMSGSIZE;
	return 0;
}

static int ornic_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct nlattr *table;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (ornic_fill_qp_attrs(msg, to_oqp(ibqp))) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

static int ornic_fill_cq_attrs(struct sk_buff *msg, struct ornic_cq *cq)
{
	if (rdma_nl_put_driver_u32(msg, "hw_cqn", cq->cqn) ||
	    rdma_nl_put_driver_u32(msg, "log_depth", cq->log_depth) ||
	    rdma_nl_put_driver_u32(msg, "eqn", cq->eq ? cq->eq->eqn : 0) ||
	    rdma_nl_put_driver_string(msg, "ring",
				      cq->kernel ? "kernel" : "user"))
		return -EMSGSIZE;
	if (cq->kernel) {
		if (rdma_nl_put_driver_u32(msg, "ci",
					   READ_ONCE(cq->kern.ring.ci)) ||
		    rdma_nl_put_driver_u32(msg, "ci_reported",
					   READ_ONCE(cq->kern.ci_reported)) ||
		    rdma_nl_put_driver_u32(msg, "armed",
					   READ_ONCE(cq->kern.armed)))
			return -EMSGSIZE;
	} else if (rdma_nl_put_driver_u32(msg, "cqe_size",
					  cq->user.cqe_size)) {
		return -EMSGSIZE;
	}
	return 0;
}

static int ornic_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct nlattr *table;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (ornic_fill_cq_attrs(msg, to_ocq(ibcq))) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

static int ornic_fill_mr_attrs(struct sk_buff *msg, struct ornic_mr *mr)
{
	const char *kind = mr->odp ? "odp" : mr->umem ? "user" :
			   mr->pages ? "fast_reg" : "dma";

	if (rdma_nl_put_driver_u32_hex(msg, "hw_key", mr->key) ||
	    rdma_nl_put_driver_string(msg, "kind", kind))
		return -EMSGSIZE;
	if (mr->umem &&
	    rdma_nl_put_driver_u64(msg, "umem_pages",
				   ib_umem_num_pages(mr->umem)))
		return -EMSGSIZE;
	if (mr->pages &&
	    (rdma_nl_put_driver_u32(msg, "max_pages", mr->max_pages) ||
	     rdma_nl_put_driver_u32(msg, "npages", READ_ONCE(mr->npages))))
		return -EMSGSIZE;
	if (mr->odp &&
	    (rdma_nl_put_driver_u32(msg, "odp_pages", mr->odp_pages) ||
	     rdma_nl_put_driver_u32(msg, "odp_live", READ_ONCE(mr->odp_live))))
		return -EMSGSIZE;
	return 0;
}

static int ornic_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct nlattr *table;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (ornic_fill_mr_attrs(msg, to_omr(ibmr))) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

const struct ib_device_ops ornic_restrack_ops = {
	.fill_res_cq_entry = ornic_fill_res_cq_entry,
	.fill_res_mr_entry = ornic_fill_res_mr_entry,
	.fill_res_qp_entry = ornic_fill_res_qp_entry,
};
