// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: SRQs of kernel consumers (IPoIB's connected mode, NVMe-oF targets).
 * As for a kernel QP's RQ, the ring of 64-byte receive blocks is
 * DMA-coherent driver memory on the kernel doorbell page and
 * post_srq_recv writes WQEs straight into it (spec: wqe.rst); the shadow
 * entries keep each WQE's wr_id out of the device's reach.
 *
 * The device takes SRQ WQEs in posting order, but the QPs sharing the SRQ
 * complete them in any order.  A polled receive CQE marks its WQE done and
 * the consumer index moves over the done WQEs at its head, so a block is
 * written again only once every WQE posted before it has completed too.
 * An SRQ's WQEs are not flushed when one of its QPs enters ERR (IBTA): the
 * consumer takes its buffers back itself when it destroys the SRQ.
 */
#include <kunit/visibility.h>
#include <rdma/ib_verbs.h>

#include "ornic_res.h"

int ornic_ksrq_log_depth(u32 *max_wr, u32 *max_sge, u32 limit,
			 const struct ornic_wq_limits *l)
{
	int log, err;

	if (*max_sge > l->max_recv_sge)
		return -EINVAL;
	log = ornic_wq_log_depth(*max_wr, ornic_recv_wqe_blocks(*max_sge), l);
	if (log < 0)
		return log;
	err = ornic_srq_caps(max_wr, max_sge, log, l);
	if (err)
		return err;
	/* CREATE_SRQ wants the limit below the depth (spec: admin.rst). */
	if (limit >= (1U << log))
		return -EINVAL;
	return log;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_ksrq_log_depth);

bool ornic_ksrq_retire(struct ornic_kwq *wq, u16 wqe_index,
		       struct ornic_kwq_shadow *posted)
{
	struct ornic_kwq_shadow *sh = NULL;
	unsigned long flags;
	bool found;
	u32 idx;

	spin_lock_irqsave(&wq->lock, flags);
	found = ornic_wq_index_resolve(wqe_index, wq->ci, wq->pi, &idx);
	if (found) {
		sh = &wq->shadow[ornic_ring_slot(idx, wq->log_depth)];
		/* A WQE's first block, not completed before. */
		found = sh->blocks && !sh->done;
	}
	if (found) {
		*posted = *sh;
		sh->done = true;
		/* Posted by the driver: blocks is the WQE's real size. */
		while (wq->ci != wq->pi) {
			sh = &wq->shadow[ornic_ring_slot(wq->ci, wq->log_depth)];
			if (!sh->done)
				break;
			sh->done = false;
			wq->ci += sh->blocks;
		}
	}
	spin_unlock_irqrestore(&wq->lock, flags);
	return found;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_ksrq_retire);

int ornic_create_kernel_srq(struct ornic_srq *srq,
			    struct ib_srq_init_attr *init)
{
	struct ornic_dev *dev = to_odev(srq->ibsrq.device);
	struct ornic_srq_create_args args = {};
	u32 max_wr = init->attr.max_wr;
	u32 max_sge = init->attr.max_sge;
	struct ornic_wq_limits lim;
	struct ornic_admin_sqe sqe;
	int log, err;

	/* No kernel consumer uses XRC. */
	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	ornic_srq_wq_limits(dev, &lim);
	log = ornic_ksrq_log_depth(&max_wr, &max_sge, init->attr.srq_limit,
				   &lim);
	if (log < 0) {
		ibdev_dbg(&dev->ibdev,
			  "kernel SRQ of %u WRs, %u SGEs, limit %u rejected (max_srq_wr %u blocks, max_srq_sge %u)\n",
			  init->attr.max_wr, init->attr.max_sge,
			  init->attr.srq_limit, lim.max_qp_wr,
			  lim.max_recv_sge);
		return log;
	}

	mutex_init(&srq->lock);
	srq->kernel = true;
	err = ornic_kwq_alloc(dev, &srq->kern, log, max_sge, &args.mem);
	if (err)
		return err;
	srq->log_depth = log;
	srq->db_record = srq->kern.rec;
	args.pdn = to_pdn(srq->ibsrq.pd);
	args.db_page = ORNIC_DB_PAGE_KERNEL;
	args.log_depth = log;
	args.limit = init->attr.srq_limit;
	if (srq->kern.rec)
		args.flags = ORNIC_SRQ_FLAG_DB_RECORD;
	ornic_cmd_create_srq(&sqe, &args);
	err = ornic_admin_simple(dev, &sqe, &srq->srqn);
	if (err)
		goto err_free;
	err = xa_insert_irq(&dev->srqs, srq->srqn, srq, GFP_KERNEL);
	if (err)
		goto err_destroy;

	srq->max_wr = max_wr;
	srq->max_sge = max_sge;
	srq->limit = init->attr.srq_limit;
	init->attr.max_wr = max_wr;
	init->attr.max_sge = max_sge;
	return 0;

err_destroy:
	ornic_admin_destroy(dev, ORNIC_ADMIN_DESTROY_SRQ, srq->srqn);
err_free:
	ornic_kwq_free(dev, &srq->kern);
	return err;
}

/*
 * The SRQ is gone from the device and from dev->srqs, and no QP uses it:
 * no CQE names its WQEs any more.
 */
void ornic_destroy_kernel_srq(struct ornic_srq *srq)
{
	ornic_kwq_free(to_odev(srq->ibsrq.device), &srq->kern);
}

/*
 * With a doorbell record the device reads the producer index when it needs
 * a WQE and no doorbell is rung; without one each post rings the SRQ
 * doorbell (spec: doorbells.rst).  On a dead device the WQEs stay posted:
 * an SRQ's receives are not flushed, and destroy frees them.
 */
int ornic_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct ornic_dev *dev = to_odev(ibsrq->device);
	struct ornic_srq *srq = to_osrq(ibsrq);
	struct ornic_kwq *wq = &srq->kern;
	unsigned long flags;
	int err = 0;
	u32 start;

	/* uverbs' POST_SRQ_RECV reaches here too; a user SRQ is the provider's. */
	if (!srq->kernel) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&wq->lock, flags);
	start = wq->pi;
	for (; wr; wr = wr->next) {
		err = ornic_kwq_post_one_recv(wq, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	if (wq->pi != start)
		ornic_kwq_notify(dev, wq, ORNIC_DB_SRQ, srq->srqn);
	spin_unlock_irqrestore(&wq->lock, flags);
	return err;
}
