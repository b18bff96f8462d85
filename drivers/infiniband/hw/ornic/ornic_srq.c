// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: SRQs.  A user SRQ's ring of 64-byte receive blocks is the
 * provider's; the kernel pins it, creates the SRQ and re-arms its limit
 * event (MODIFY_SRQ).  With ORNIC_CAP_RESIZE, modify_srq(IB_SRQ_MAX_WR)
 * moves the SRQ to a new ring the provider allocated (RESIZE_SRQ).  An XRC
 * SRQ (spec: xrc.rst) also names its XRC domain and the CQ its receives
 * complete on; requests reach it by the number the core reports as
 * ext.xrc.srq_num.  Kernel consumers' SRQs have a ring of the driver's
 * (ornic_srq_kernel.c) and share the rest.
 */
#include <kunit/visibility.h>
#include <rdma/ornic-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "ornic_res.h"

/* The SRQ type the device offers, with what an XRC SRQ must name. */
static int ornic_srq_type_check(struct ornic_dev *dev,
				const struct ib_srq_init_attr *init)
{
	if (!(dev->caps & ORNIC_CAP_SRQ))
		return -EOPNOTSUPP;
	if (init->srq_type != IB_SRQT_BASIC &&
	    (init->srq_type != IB_SRQT_XRC || !(dev->caps & ORNIC_CAP_XRC))) {
		ibdev_dbg(&dev->ibdev, "SRQ type %d not supported\n",
			  init->srq_type);
		return -EOPNOTSUPP;
	}
	if (init->srq_type == IB_SRQT_XRC &&
	    (!init->ext.xrc.xrcd || !init->ext.cq))
		return -EINVAL;
	return 0;
}

/* The work queue limits within the device's SRQ limits. */
void ornic_srq_wq_limits(struct ornic_dev *dev, struct ornic_wq_limits *lim)
{
	ornic_wq_limits(dev, lim);
	lim->max_qp_wr = min(lim->max_qp_wr,
			     le32_to_cpu(dev->attr.max_srq_wr));
	lim->max_recv_sge = min(lim->max_recv_sge,
				le32_to_cpu(dev->attr.max_srq_sge));
}

/* The ring's blocks, and the doorbell record past them if it has one. */
static size_t ornic_srq_ring_bytes(const struct ornic_srq *srq, u8 log_depth)
{
	return ((size_t)ORNIC_WQE_BLOCK_SIZE << log_depth) +
	       (srq->db_record ? sizeof(struct ornic_db_record) : 0);
}

/*
 * The provider's ring of 2^req->log_depth blocks must hold what was asked
 * for within the device's SRQ limits: @max_wr and @max_sge become what it
 * holds.
 */
static int ornic_srq_caps_check(struct ornic_dev *dev,
				const struct ib_srq_init_attr *init,
				const struct ornic_ibv_create_srq *req,
				u32 *max_wr, u32 *max_sge)
{
	struct ornic_wq_limits lim;
	int err;

	ornic_srq_wq_limits(dev, &lim);
	*max_wr = init->attr.max_wr;
	*max_sge = init->attr.max_sge;
	err = req->log_depth > ORNIC_WQ_LOG_DEPTH_MAX ? -EINVAL :
	      ornic_srq_caps(max_wr, max_sge, req->log_depth, &lim);
	if (err) {
		ibdev_dbg(&dev->ibdev,
			  "SRQ of %u WRs, %u SGEs in 2^%u blocks rejected (max_srq_wr %u blocks, max_srq_sge %u, 2^%u blocks)\n",
			  init->attr.max_wr, init->attr.max_sge, req->log_depth,
			  lim.max_qp_wr, lim.max_recv_sge,
			  ORNIC_WQ_LOG_DEPTH_MAX);
		return err;
	}
	/* The limit counts WQEs and must stay below the depth. */
	if (init->attr.srq_limit >= (1U << req->log_depth)) {
		ibdev_dbg(&dev->ibdev, "SRQ limit %u at depth 2^%u\n",
			  init->attr.srq_limit, req->log_depth);
		return -EINVAL;
	}
	return 0;
}

int ornic_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct ornic_dev *dev = to_odev(ibsrq->device);
	struct ornic_ibv_create_srq_resp resp = {};
	struct ornic_srq *srq = to_osrq(ibsrq);
	struct ornic_srq_create_args args = {};
	struct ornic_ibv_create_srq req;
	struct ornic_ucontext *uctx;
	struct ornic_admin_sqe sqe;
	struct ornic_pbl pbl;
	u32 max_wr, max_sge;
	int err;

	err = ornic_srq_type_check(dev, init);
	if (err)
		return err;
	if (!udata)
		return ornic_create_kernel_srq(srq, init);
	err = ornic_udata_in(udata, &req, sizeof(req));
	if (err)
		return err;
	if (req.comp_mask & ~ORNIC_IBV_CREATE_SRQ_DB_RECORD)
		return -EOPNOTSUPP;
	if ((req.comp_mask & ORNIC_IBV_CREATE_SRQ_DB_RECORD) &&
	    !(dev->caps & ORNIC_CAP_DB_RECORD)) {
		ibdev_dbg(&dev->ibdev,
			  "SRQ doorbell record asked, device caps %#llx lack it\n",
			  dev->caps);
		return -EOPNOTSUPP;
	}
	err = ornic_srq_caps_check(dev, init, &req, &max_wr, &max_sge);
	if (err)
		return err;

	uctx = rdma_udata_to_drv_context(udata, struct ornic_ucontext,
					 ibucontext);
	mutex_init(&srq->lock);
	srq->log_depth = req.log_depth;
	srq->db_record = req.comp_mask & ORNIC_IBV_CREATE_SRQ_DB_RECORD;
	srq->umem = ornic_ring_pin(dev, req.buf_addr, req.buf_size,
				   ornic_srq_ring_bytes(srq, srq->log_depth),
				   &args.mem, &pbl);
	if (IS_ERR(srq->umem))
		return PTR_ERR(srq->umem);

	args.pdn = to_pdn(ibsrq->pd);
	args.db_page = uctx->db_page;
	args.log_depth = srq->log_depth;
	args.limit = init->attr.srq_limit;
	if (srq->db_record) {
		args.flags = ORNIC_SRQ_FLAG_DB_RECORD;
		resp.comp_mask |= ORNIC_IBV_CREATE_SRQ_RESP_DB_RECORD;
	}
	if (init->srq_type == IB_SRQT_XRC) {
		args.srq_type = ORNIC_SRQT_XRC;
		args.xrcdn = to_oxrcd(init->ext.xrc.xrcd)->xrcdn;
		args.cqn = to_ocq(init->ext.cq)->cqn;
	}
	ornic_cmd_create_srq(&sqe, &args);
	err = ornic_admin_simple(dev, &sqe, &srq->srqn);
	ornic_pbl_free(dev, &pbl);
	if (err)
		goto err_release;
	err = xa_insert_irq(&dev->srqs, srq->srqn, srq, GFP_KERNEL);
	if (err)
		goto err_destroy;

	srq->max_wr = max_wr;
	srq->max_sge = max_sge;
	srq->limit = init->attr.srq_limit;
	if (init->srq_type == IB_SRQT_XRC)
		ibsrq->ext.xrc.srq_num = srq->srqn;
	resp.srqn = srq->srqn;
	resp.log_depth = srq->log_depth;
	err = ornic_udata_out(udata, &resp, sizeof(resp));
	if (err)
		goto err_erase;
	init->attr.max_wr = max_wr;
	init->attr.max_sge = max_sge;
	return 0;

err_erase:
	xa_erase_irq(&dev->srqs, srq->srqn);
	ornic_res_sync(dev);
err_destroy:
	ornic_admin_destroy(dev, ORNIC_ADMIN_DESTROY_SRQ, srq->srqn);
err_release:
	ib_umem_release(srq->umem);
	return err;
}

/*
 * RESIZE_SRQ under srq->lock: the provider's new ring of req->log_depth
 * blocks must hold attr->max_wr WQEs of the SRQ's SGE count.  The old ring
 * stays pinned until the device has moved the posted WQEs out of it.
 */
static int ornic_srq_resize(struct ornic_dev *dev, struct ornic_srq *srq,
			    u32 max_wr, const struct ornic_ibv_modify_srq *req)
{
	struct ornic_wq_limits lim;
	struct ornic_admin_sqe sqe;
	struct ornic_mem_desc desc;
	u32 max_sge = srq->max_sge;
	struct ib_umem *umem;
	struct ornic_pbl pbl;
	int err;

	if (req->comp_mask)
		return -EOPNOTSUPP;
	ornic_srq_wq_limits(dev, &lim);
	if (req->log_depth > ORNIC_WQ_LOG_DEPTH_MAX)
		return -EINVAL;
	err = ornic_srq_caps(&max_wr, &max_sge, req->log_depth, &lim);
	if (err) {
		ibdev_dbg(&dev->ibdev,
			  "resize SRQ %u: %u WRs do not fit 2^%u blocks\n",
			  srq->srqn, max_wr, req->log_depth);
		return err;
	}
	if (srq->limit >= (1U << req->log_depth))
		return -EINVAL;

	umem = ornic_ring_pin(dev, req->buf_addr, req->buf_size,
			      ornic_srq_ring_bytes(srq, req->log_depth),
			      &desc, &pbl);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	ornic_cmd_resize_srq(&sqe, &desc, req->log_depth, srq->srqn);
	err = ornic_admin_simple(dev, &sqe, NULL);
	ornic_pbl_free(dev, &pbl);
	if (err) {
		/* More posted blocks than the new depth holds, or bad memory. */
		ibdev_dbg(&dev->ibdev, "resize SRQ %u to 2^%u: %d\n",
			  srq->srqn, req->log_depth, err);
		ib_umem_release(umem);
		return err;
	}
	swap(srq->umem, umem);
	ib_umem_release(umem);
	srq->log_depth = req->log_depth;
	srq->max_wr = max_wr;
	return 0;
}

int ornic_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct ornic_dev *dev = to_odev(ibsrq->device);
	struct ornic_srq *srq = to_osrq(ibsrq);
	struct ornic_ibv_modify_srq req;
	struct ornic_admin_sqe sqe;
	int err = 0;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	/*
	 * A kernel SRQ is not resized: a new ring would have to take over
	 * the blocks the device has not read yet and the shadow entries of
	 * WQEs still outstanding, and no kernel consumer resizes its SRQ.
	 */
	if ((mask & IB_SRQ_MAX_WR) &&
	    (!(dev->caps & ORNIC_CAP_RESIZE) || srq->kernel))
		return -EOPNOTSUPP;
	if (mask & IB_SRQ_MAX_WR) {
		/* Only the provider knows the new ring. */
		err = ornic_udata_in(udata, &req, sizeof(req));
		if (err)
			return err;
	}

	mutex_lock(&srq->lock);
	if (mask & IB_SRQ_MAX_WR) {
		err = ornic_srq_resize(dev, srq, attr->max_wr, &req);
		if (err)
			goto out;
	}
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit >= (1U << srq->log_depth)) {
			err = -EINVAL;
			goto out;
		}
		ornic_cmd_modify_srq(&sqe, srq->srqn, attr->srq_limit);
		err = ornic_admin_simple(dev, &sqe, NULL);
		if (!err)
			srq->limit = attr->srq_limit;
	}
out:
	mutex_unlock(&srq->lock);
	return err;
}

int ornic_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct ornic_srq *srq = to_osrq(ibsrq);

	mutex_lock(&srq->lock);
	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = srq->limit;
	mutex_unlock(&srq->lock);
	return 0;
}

int ornic_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct ornic_dev *dev = to_odev(ibsrq->device);
	struct ornic_srq *srq = to_osrq(ibsrq);
	int err;

	err = ornic_admin_destroy(dev, ORNIC_ADMIN_DESTROY_SRQ, srq->srqn);
	if (err && err != -EIO)
		return err;
	xa_erase_irq(&dev->srqs, srq->srqn);
	ornic_res_sync(dev);
	if (srq->kernel)
		ornic_destroy_kernel_srq(srq);
	else
		ib_umem_release(srq->umem);
	mutex_destroy(&srq->lock);
	return 0;
}

/* Async EQ (under dev->aeq_lock): SRQ_LIMIT or SRQ_ERROR. */
void ornic_srq_async_event(struct ornic_dev *dev,
			   const struct ornic_eqe *eqe)
{
	struct ornic_srq *srq = xa_load(&dev->srqs, le32_to_cpu(eqe->object));
	enum ib_event_type type = eqe->type == ORNIC_EQE_SRQ_LIMIT ?
				  IB_EVENT_SRQ_LIMIT_REACHED :
				  IB_EVENT_SRQ_ERR;
	struct ib_event ev = {
		.device = &dev->ibdev,
		.event = type,
	};

	if (!srq || !srq->ibsrq.event_handler)
		return;
	/* The device disarmed the limit when it fired. */
	if (type == IB_EVENT_SRQ_LIMIT_REACHED)
		WRITE_ONCE(srq->limit, 0);
	ev.element.srq = &srq->ibsrq;
	srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/* --- the SRQ commands (KUnit: ornic_srq_kunit.c) -------------------------- */

void ornic_cmd_create_srq(struct ornic_admin_sqe *sqe,
			  const struct ornic_srq_create_args *args)
{
	struct ornic_admin_create_srq *c = (struct ornic_admin_create_srq *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_CREATE_SRQ);
	c->mem = args->mem;
	c->pd = cpu_to_le32(args->pdn);
	c->db_page = cpu_to_le16(args->db_page);
	c->log_depth = args->log_depth;
	c->limit = cpu_to_le32(args->limit);
	c->flags = cpu_to_le32(args->flags);
	if (args->srq_type == ORNIC_SRQT_XRC) {
		c->srq_type = ORNIC_SRQT_XRC;
		c->xrcd = cpu_to_le32(args->xrcdn);
		c->cqn = cpu_to_le32(args->cqn);
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_create_srq);

void ornic_cmd_modify_srq(struct ornic_admin_sqe *sqe, u32 srqn, u32 limit)
{
	struct ornic_admin_modify_srq *c = (struct ornic_admin_modify_srq *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_MODIFY_SRQ);
	c->srqn = cpu_to_le32(srqn);
	c->limit = cpu_to_le32(limit);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_modify_srq);

void ornic_cmd_resize_srq(struct ornic_admin_sqe *sqe,
			  const struct ornic_mem_desc *mem,
			  unsigned int log_depth, u32 srqn)
{
	struct ornic_admin_resize_srq *c = (struct ornic_admin_resize_srq *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_RESIZE_SRQ);
	c->mem = *mem;
	c->srqn = cpu_to_le32(srqn);
	c->log_depth = log_depth;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_resize_srq);
