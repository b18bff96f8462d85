// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: RC, UC, UD and XRC QPs (spec: qp.rst, wqe.rst, xrc.rst); the rings
 * of kernel QPs and the GSI QP in ornic_qp_kernel.c.  For user QPs the
 * provider allocates the SQ and RQ rings in blocks of 64 bytes; the kernel
 * checks that they hold what the QP was asked for, pins them and creates
 * the QP.  An XRC initiator has only the SQ; an XRC target has no queues
 * and is created by the core on its XRC domain without udata (user space
 * holds it through shared QPs).  MODIFY_QP and QUERY_QP pass struct
 * ornic_qp_attr through a DMA buffer.
 */
#include <linux/dma-mapping.h>
#include <rdma/ib_cache.h>
#include <rdma/ornic-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "ornic_res.h"

static int ornic_qp_check_init(struct ornic_dev *dev,
			       struct ib_qp_init_attr *init, u8 *hw_type)
{
	int err;

	if (init->create_flags)
		return -EOPNOTSUPP;
	/* iWARP connects RC QPs only: no datagrams, no UC, no XRC. */
	if (ornic_is_iwarp(dev) && init->qp_type != IB_QPT_RC)
		return -EOPNOTSUPP;
	/*
	 * RC, UC, UD and XRC as the device's caps say; GSI and SMI are the MAD
	 * layer's QP1 and QP0, never user space's.
	 */
	err = ornic_qp_type_to_hw(init->qp_type, dev->caps, hw_type);
	if (err) {
		ibdev_dbg(&dev->ibdev, "QP type %d not supported (caps %#llx)\n",
			  init->qp_type, dev->caps);
		return err;
	}
	switch (init->qp_type) {
	case IB_QPT_XRC_TGT:
		/* Only its domain: the SRQs its requests name do the rest. */
		if (!init->xrcd)
			return -EINVAL;
		return 0;
	case IB_QPT_XRC_INI:
		/* Send only: no receive CQ, RQ or SRQ. */
		if (!init->send_cq || init->srq)
			return -EINVAL;
		return 0;
	default:
		break;
	}
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	if (init->srq && !(dev->caps & ORNIC_CAP_SRQ))
		return -EOPNOTSUPP;
	/* An XRC SRQ is named by requests, never by a QP (spec: xrc.rst). */
	if (init->srq && init->srq->srq_type != IB_SRQT_BASIC)
		return -EINVAL;
	return 0;
}

/*
 * The device created @qp: its state and attributes for the verbs, and its
 * entry in dev->qps, through which events and CQEs find it.
 */
static int ornic_qp_publish(struct ornic_dev *dev, struct ornic_qp *qp,
			    struct ib_qp_init_attr *init)
{
	qp->state = IB_QPS_RESET;
	qp->cap = init->cap;
	qp->sq_sig_type = init->sq_sig_type;
	qp->ibqp.qp_num = qp->qpn;
	return xa_insert_irq(&dev->qps, qp->qpn, qp, GFP_KERNEL);
}

static void ornic_qp_unpublish(struct ornic_dev *dev, struct ornic_qp *qp)
{
	xa_erase_irq(&dev->qps, qp->qpn);
	ornic_res_sync(dev);
}

/*
 * An XRC target (the core's real QP of an XRC domain): no rings, no PD, no
 * CQs; it names the kernel's doorbell page because no doorbell ever names
 * it.
 */
static int ornic_create_xrc_tgt_qp(struct ornic_dev *dev, struct ornic_qp *qp,
				   struct ib_qp_init_attr *init)
{
	struct ornic_qp_create_args args = {
		.qp_type = ORNIC_QPT_XRC_TGT,
		.xrcdn = to_oxrcd(init->xrcd)->xrcdn,
		.db_page = ORNIC_DB_PAGE_KERNEL,
	};
	struct ornic_admin_sqe sqe;
	int err;

	ornic_cmd_create_qp(&sqe, &args);
	qp->xrc_tgt = true;
	memset(&init->cap, 0, sizeof(init->cap));
	err = ornic_admin_simple(dev, &sqe, &qp->qpn);
	if (err)
		return err;
	err = ornic_qp_publish(dev, qp, init);
	if (err)
		goto err_destroy;
	return 0;

err_destroy:
	ornic_admin_destroy(dev, ORNIC_ADMIN_DESTROY_QP, qp->qpn);
	return err;
}

/* A kernel consumer's QP: the driver owns its rings (ornic_qp_kernel.c). */
static int ornic_create_qp_kernel(struct ornic_dev *dev, struct ornic_qp *qp,
				  struct ib_qp_init_attr *init)
{
	int err;

	/* No kernel ULP uses XRC: kernel QPs have an SQ, and an RQ or an SRQ. */
	if (init->qp_type == IB_QPT_XRC_INI)
		return -EOPNOTSUPP;
	err = ornic_create_kernel_qp(qp, init);
	if (err)
		return err;
	err = ornic_qp_publish(dev, qp, init);
	if (err)
		goto err_destroy;
	return 0;

err_destroy:
	ornic_admin_destroy(dev, ORNIC_ADMIN_DESTROY_QP, qp->qpn);
	ornic_destroy_kernel_qp(qp);
	return err;
}

/*
 * A create_qp refused for its capabilities: what was asked and the limits
 * it was checked against (with the provider's ring sizes for user QPs).
 */
void ornic_qp_caps_rejected(struct ornic_dev *dev,
			    const struct ib_qp_cap *cap, int sq_log, int rq_log)
{
	struct ornic_wq_limits lim;

	ornic_wq_limits(dev, &lim);
	ibdev_dbg(&dev->ibdev,
		  "QP caps rejected: max_send_wr %u max_send_sge %u max_inline_data %u max_recv_wr %u max_recv_sge %u sq 2^%d rq 2^%d; limits: max_qp_wr %u blocks, max_send_sge %u, max_recv_sge %u, max_inline_data %u, max_wqe_blocks %u, 2^%u blocks\n",
		  cap->max_send_wr, cap->max_send_sge, cap->max_inline_data,
		  cap->max_recv_wr, cap->max_recv_sge, sq_log, rq_log,
		  lim.max_qp_wr, lim.max_send_sge, lim.max_recv_sge,
		  lim.max_inline_data, lim.max_wqe_blocks,
		  ORNIC_WQ_LOG_DEPTH_MAX);
}

/*
 * The capabilities of a user QP whose rings the provider sized as @req
 * says (@req's RQ depth is cleared for a QP without its own RQ).
 */
static int ornic_qp_user_caps(struct ornic_dev *dev,
			      struct ib_qp_init_attr *init,
			      struct ornic_ibv_create_qp *req,
			      struct ib_qp_cap *cap)
{
	struct ornic_wq_limits lim;
	int err;

	if ((req->comp_mask & ~ORNIC_IBV_CREATE_QP_DB_RECORD) || req->reserved) {
		ibdev_dbg(&dev->ibdev,
			  "QP comp_mask %#x reserved %#x: only %#x supported\n",
			  req->comp_mask, req->reserved,
			  ORNIC_IBV_CREATE_QP_DB_RECORD);
		return -EOPNOTSUPP;
	}
	if ((req->comp_mask & ORNIC_IBV_CREATE_QP_DB_RECORD) &&
	    !(dev->caps & ORNIC_CAP_DB_RECORD)) {
		ibdev_dbg(&dev->ibdev,
			  "QP doorbell record asked, device caps %#llx lack it\n",
			  dev->caps);
		return -EOPNOTSUPP;
	}
	ornic_wq_limits(dev, &lim);
	*cap = init->cap;
	err = ornic_sq_caps(cap, req->sq_log_depth, &lim);
	if (err) {
		ornic_qp_caps_rejected(dev, &init->cap, req->sq_log_depth,
				       req->rq_log_depth);
		return err;
	}
	if (init->srq || init->qp_type == IB_QPT_XRC_INI) {
		if (req->rq_buf_addr || req->rq_buf_size)
			return -EINVAL;
		req->rq_log_depth = 0;
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
		return 0;
	}
	err = ornic_rq_caps(cap, req->rq_log_depth, &lim);
	if (err)
		ornic_qp_caps_rejected(dev, &init->cap, req->sq_log_depth,
				       req->rq_log_depth);
	return err;
}

/*
 * Pin the provider's SQ ring and, for a QP with its own RQ, its RQ ring:
 * both or neither.  The page lists are the caller's to free once CREATE_QP
 * has run.
 */
static int ornic_qp_pin_rings(struct ornic_dev *dev, struct ornic_qp *qp,
			      struct ib_qp_init_attr *init,
			      const struct ornic_ibv_create_qp *req,
			      struct ornic_qp_create_args *args,
			      struct ornic_pbl *sq_pbl, struct ornic_pbl *rq_pbl)
{
	/* A doorbell record is the block just past each ring. */
	size_t rec = (req->comp_mask & ORNIC_IBV_CREATE_QP_DB_RECORD) ?
		     sizeof(struct ornic_db_record) : 0;
	struct ornic_user_qp *uqp = &qp->user;
	int err;

	uqp->sq_umem = ornic_ring_pin(dev, req->sq_buf_addr, req->sq_buf_size,
				      ((size_t)ORNIC_WQE_BLOCK_SIZE <<
				       qp->sq_log_depth) + rec,
				      &args->sq_mem, sq_pbl);
	if (IS_ERR(uqp->sq_umem))
		return PTR_ERR(uqp->sq_umem);
	if (init->srq || init->qp_type == IB_QPT_XRC_INI)
		return 0;
	uqp->rq_umem = ornic_ring_pin(dev, req->rq_buf_addr, req->rq_buf_size,
				      ((size_t)ORNIC_WQE_BLOCK_SIZE <<
				       qp->rq_log_depth) + rec,
				      &args->rq_mem, rq_pbl);
	if (IS_ERR(uqp->rq_umem)) {
		err = PTR_ERR(uqp->rq_umem);
		uqp->rq_umem = NULL;
		goto err_release_sq;
	}
	return 0;

err_release_sq:
	ornic_pbl_free(dev, sq_pbl);
	ib_umem_release(uqp->sq_umem);
	return err;
}

static void ornic_qp_unpin_rings(struct ornic_qp *qp)
{
	if (qp->user.rq_umem)
		ib_umem_release(qp->user.rq_umem);
	ib_umem_release(qp->user.sq_umem);
}

/*
 * A user QP: the provider allocated the rings; the kernel checks that they
 * hold what the QP was asked for, pins them and creates the QP.
 */
static int ornic_create_qp_user(struct ornic_dev *dev, struct ornic_qp *qp,
				struct ib_qp_init_attr *init,
				struct ib_udata *udata)
{
	struct ornic_ibv_create_qp_resp resp = {};
	struct ornic_qp_create_args args = {};
	struct ornic_pbl sq_pbl, rq_pbl = {};
	struct ornic_ibv_create_qp req;
	struct ornic_ucontext *uctx;
	struct ornic_admin_sqe sqe;
	struct ib_qp_cap cap;
	int err;

	if (init->qp_type == IB_QPT_GSI || init->qp_type == IB_QPT_SMI)
		return -EINVAL;
	err = ornic_udata_in(udata, &req, sizeof(req));
	if (err)
		return err;
	err = ornic_qp_user_caps(dev, init, &req, &cap);
	if (err)
		return err;

	uctx = rdma_udata_to_drv_context(udata, struct ornic_ucontext,
					 ibucontext);
	qp->sq_log_depth = req.sq_log_depth;
	qp->rq_log_depth = req.rq_log_depth;
	err = ornic_qp_pin_rings(dev, qp, init, &req, &args, &sq_pbl, &rq_pbl);
	if (err)
		return err;

	args.pdn = to_pdn(qp->ibqp.pd);
	args.send_cqn = to_ocq(init->send_cq)->cqn;
	if (init->recv_cq)
		args.recv_cqn = to_ocq(init->recv_cq)->cqn;
	if (init->srq) {
		args.flags = ORNIC_QP_FLAG_USE_SRQ;
		args.srqn = to_osrq(init->srq)->srqn;
	}
	args.db_page = uctx->db_page;
	args.qp_type = qp->hw_type;
	args.sq_log_depth = qp->sq_log_depth;
	args.rq_log_depth = qp->rq_log_depth;
	if (req.comp_mask & ORNIC_IBV_CREATE_QP_DB_RECORD) {
		args.flags |= ORNIC_QP_FLAG_DB_RECORD;
		resp.comp_mask |= ORNIC_IBV_CREATE_QP_RESP_DB_RECORD;
	}
	ornic_cmd_create_qp(&sqe, &args);
	err = ornic_admin_simple(dev, &sqe, &qp->qpn);
	ornic_pbl_free(dev, &sq_pbl);
	ornic_pbl_free(dev, &rq_pbl);
	if (err)
		goto err_unpin;
	init->cap = cap;
	err = ornic_qp_publish(dev, qp, init);
	if (err)
		goto err_destroy;

	resp.qpn = qp->qpn;
	resp.sq_log_depth = qp->sq_log_depth;
	resp.rq_log_depth = qp->rq_log_depth;
	resp.max_inline_data = cap.max_inline_data;
	err = ornic_udata_out(udata, &resp, sizeof(resp));
	if (err)
		goto err_unpublish;
	return 0;

err_unpublish:
	ornic_qp_unpublish(dev, qp);
err_destroy:
	ornic_admin_destroy(dev, ORNIC_ADMIN_DESTROY_QP, qp->qpn);
err_unpin:
	ornic_qp_unpin_rings(qp);
	return err;
}

int ornic_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct ornic_dev *dev = to_odev(ibqp->device);
	struct ornic_qp *qp = to_oqp(ibqp);
	int err;

	err = ornic_qp_check_init(dev, init, &qp->hw_type);
	if (err)
		return err;
	mutex_init(&qp->lock);
	/* The creator's reference; the iw_cm and connections take more. */
	refcount_set(&qp->iw_refs, 1);
	init_completion(&qp->iw_released);
	if (init->qp_type == IB_QPT_XRC_TGT)
		return ornic_create_xrc_tgt_qp(dev, qp, init);
	if (!udata)
		return ornic_create_qp_kernel(dev, qp, init);
	return ornic_create_qp_user(dev, qp, init, udata);
}

int ornic_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct ornic_dev *dev = to_odev(ibqp->device);
	struct ornic_qp *qp = to_oqp(ibqp);
	int err;

	if (ornic_is_iwarp(dev)) {
		/*
		 * Its connection goes first (RST); the iw_cm drops its
		 * reference once it has heard of the close.
		 */
		ornic_iw_qp_disconnect(qp, true);
		ornic_iw_qp_put(qp);
		wait_for_completion(&qp->iw_released);
	}
	err = ornic_admin_destroy(dev, ORNIC_ADMIN_DESTROY_QP, qp->qpn);
	if (err && err != -EIO)
		return err;
	/*
	 * The device writes no more CQEs for the QP: clean them out while it
	 * is still in the table, so that a kernel CQE naming a QP that is not
	 * there is always the device's fault (ornic_poll_cq()).
	 */
	if (qp->kernel)
		ornic_kernel_qp_clean_cqs(qp);
	xa_erase_irq(&dev->qps, qp->qpn);
	ornic_res_sync(dev);
	if (qp->kernel)
		ornic_destroy_kernel_qp(qp);
	else if (!qp->xrc_tgt)
		ornic_qp_unpin_rings(qp);
	mutex_destroy(&qp->lock);
	return 0;
}

/*
 * The device's answer to MODIFY_QP/QUERY_QP of @qpn: a state (and for
 * QUERY_QP attributes) the RDMA core will index tables with.  -EIO for a
 * value out of range; the caller's QP state stays what it was.
 */
static int ornic_qp_answer_check(struct ornic_dev *dev, u32 qpn, u8 opcode,
				 const struct ornic_qp_attr *attr, u32 state)
{
	const char *field;
	u32 value, limit;

	if (!ornic_qp_state_valid(state) ||
	    (opcode == ORNIC_ADMIN_QUERY_QP && attr->state != state)) {
		ibdev_dbg(&dev->ibdev, "QP %u: %s answered state %u\n", qpn,
			  ornic_admin_opcode_str(opcode), state);
		ornic_device_error(&dev->live, "QP state", state,
				   ORNIC_QPS_ERR);
		return -EIO;
	}
	if (opcode != ORNIC_ADMIN_QUERY_QP)
		return 0;
	field = ornic_qp_attr_invalid(attr, &value, &limit);
	if (field) {
		ibdev_dbg(&dev->ibdev, "QP %u: QUERY_QP answered %s %u\n",
			  qpn, field, value);
		ornic_device_error(&dev->live, field, value, limit);
		return -EIO;
	}
	return 0;
}

/* MODIFY_QP (@mask != 0 or a state change) or QUERY_QP through @buf. */
static int ornic_qp_cmd(struct ornic_dev *dev, u8 opcode, u32 qpn, u32 mask,
			int cur_state, struct ornic_qp_attr *attr, u32 *state)
{
	struct device *dmadev = &dev->pdev->dev;
	struct ornic_admin_sqe sqe;
	struct ornic_admin_cqe cqe;
	struct ornic_qp_attr *buf;
	dma_addr_t dma;
	int err;

	buf = dma_alloc_coherent(dmadev, sizeof(*buf), &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (opcode == ORNIC_ADMIN_MODIFY_QP)
		memcpy(buf, attr, sizeof(*buf));
	ornic_cmd_modify_qp(&sqe, opcode, qpn, dma, sizeof(*buf), mask,
			    cur_state);
	err = ornic_admin_exec(dev, &sqe, &cqe);
	if (!err && cqe.status != ORNIC_ADMIN_STATUS_SUCCESS)
		err = ornic_admin_status_errno(cqe.status);
	if (!err) {
		if (opcode == ORNIC_ADMIN_QUERY_QP) {
			memcpy(attr, buf, sizeof(*buf));
			*state = le32_to_cpu(cqe.result1);
		} else {
			*state = le32_to_cpu(cqe.result0);
		}
		err = ornic_qp_answer_check(dev, qpn, opcode, attr, *state);
	}
	/* After a timeout the device was reset before we get here. */
	dma_free_coherent(dmadev, sizeof(*buf), buf, dma);
	return err;
}

/*
 * MODIFY_QP of @qp (under its lock) from @cur to @next (@cur_state: the
 * command's current-state field, -1 for none), the driver's copy of the
 * state kept with the device's answer.
 */
static int ornic_qp_modify_locked(struct ornic_dev *dev, struct ornic_qp *qp,
				  u32 hw_mask, int cur_state,
				  enum ib_qp_state cur, enum ib_qp_state next,
				  struct ornic_qp_attr *oa)
{
	u32 state;
	int err;

	/*
	 * A dead device was reset and holds no QP: ERR is where every QP of
	 * it is, and the driver flushes kernel QPs itself (ornic_poll_cq()),
	 * so that ib_drain_qp() works during a ULP's teardown.
	 */
	if (ornic_dead(&dev->live) && next == IB_QPS_ERR) {
		WRITE_ONCE(qp->state, IB_QPS_ERR);
		return 0;
	}
	err = ornic_qp_cmd(dev, ORNIC_ADMIN_MODIFY_QP, qp->qpn, hw_mask,
			   cur_state, oa, &state);
	if (err)
		return err;
	WRITE_ONCE(qp->state, state);
	/* The device starts a reset QP's rings at index 0 again. */
	if (qp->kernel && state == IB_QPS_RESET && cur != IB_QPS_RESET)
		ornic_kernel_qp_reset(qp);
	return 0;
}

/*
 * An iWARP QP (iwarp-cm.rst, "QPs"): RTR is a no-op, RTS the device's own
 * move when MPA completes, SQD and ERR close its connection (FIN, RST) and
 * leave it in ERR.  The device hears INIT, ERR and RESET.
 */
static int ornic_iw_modify_qp(struct ornic_dev *dev, struct ornic_qp *qp,
			      struct ib_qp_attr *attr, int mask,
			      struct ornic_qp_attr *oa, u32 hw_mask)
{
	enum ib_qp_state cur, next;
	int err = 0;

	/*
	 * Without a state, what rdma_cm passes on (the port) changes nothing
	 * the device keeps for an iWARP QP.
	 */
	if (!(mask & IB_QP_STATE))
		return 0;
	mutex_lock(&qp->lock);
	cur = READ_ONCE(qp->state);
	next = attr->qp_state;
	switch (next) {
	case IB_QPS_INIT:
		if (cur != IB_QPS_RESET && cur != IB_QPS_INIT)
			err = -EINVAL;
		/* iWARP has no P_Key: the device's RC rules want index 0. */
		if (cur == IB_QPS_RESET)
			hw_mask |= ORNIC_QP_ATTR_PKEY_INDEX |
				   ORNIC_QP_ATTR_ACCESS_FLAGS;
		/*
		 * Remote READ and WRITE are always on, as on other iWARP
		 * RNICs: rdma_cm takes the active side's QP to INIT with no
		 * access flags and never sets them, and a peer's tagged
		 * access is checked against the STag's own rights.
		 */
		if (hw_mask & ORNIC_QP_ATTR_ACCESS_FLAGS)
			oa->access_flags |=
				cpu_to_le32(ORNIC_ACCESS_REMOTE_READ |
					    ORNIC_ACCESS_REMOTE_WRITE);
		break;
	case IB_QPS_RTR:
		if (cur == IB_QPS_INIT || cur == IB_QPS_RTR)
			WRITE_ONCE(qp->state, IB_QPS_RTR);
		else
			err = -EINVAL;
		goto out;
	case IB_QPS_RTS:
		/* Only the device moves it there; software may confirm. */
		if (cur != IB_QPS_RTS)
			err = -EINVAL;
		goto out;
	case IB_QPS_SQD:
	case IB_QPS_SQE:
	case IB_QPS_ERR:
		ornic_iw_qp_disconnect(qp, next != IB_QPS_SQD);
		oa->state = IB_QPS_ERR;
		hw_mask = ORNIC_QP_ATTR_STATE;
		break;
	case IB_QPS_RESET:
		break;
	default:
		err = -EINVAL;
		goto out;
	}
	if (!err)
		err = ornic_qp_modify_locked(dev, qp, hw_mask, -1, cur,
					     oa->state, oa);
out:
	mutex_unlock(&qp->lock);
	return err;
}

int ornic_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		    int mask, struct ib_udata *udata)
{
	struct ornic_dev *dev = to_odev(ibqp->device);
	struct ornic_qp *qp = to_oqp(ibqp);
	enum ib_qp_state cur, next;
	struct ornic_qp_attr oa = {};
	struct ornic_av av;
	u32 hw_mask, access;
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	err = ornic_qp_mask_from_ib(mask, &hw_mask);
	if (err)
		return err;
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	err = ornic_qp_attr_from_ib(attr, mask, &oa);
	if (err)
		return err;
	access = ornic_qp_access_for_caps(le32_to_cpu(oa.access_flags),
					  dev->caps);
	oa.access_flags = cpu_to_le32(access);
	if (ornic_is_iwarp(dev))
		return ornic_iw_modify_qp(dev, qp, attr, mask, &oa, hw_mask);
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > le32_to_cpu(dev->attr.max_qp_init_rd_atom))
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > le32_to_cpu(dev->attr.max_qp_rd_atom))
		return -EINVAL;
	if (mask & IB_QP_AV) {
		/* Connected QPs only: a UD QP's AHs address each datagram. */
		if (ibqp->qp_type != IB_QPT_RC && ibqp->qp_type != IB_QPT_UC &&
		    ibqp->qp_type != IB_QPT_XRC_INI &&
		    ibqp->qp_type != IB_QPT_XRC_TGT) {
			ibdev_dbg(&dev->ibdev, "QP %u: IB_QP_AV on QP type %d\n",
				  qp->qpn, ibqp->qp_type);
			return -EINVAL;
		}
		err = ornic_av_from_ah_attr(dev, &attr->ah_attr, qp->qpn,
					    (mask & IB_QP_DEST_QPN) ?
					    attr->dest_qp_num : 0, &av);
		if (err)
			return err;
		ornic_qp_av_to_hw(&av, &oa);
	}

	mutex_lock(&qp->lock);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state :
					 READ_ONCE(qp->state);
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask)) {
		err = -EINVAL;
		goto out;
	}
	err = ornic_qp_modify_locked(dev, qp, hw_mask,
				     (mask & IB_QP_CUR_STATE) ? (int)cur : -1,
				     cur, next, &oa);
out:
	mutex_unlock(&qp->lock);
	return err;
}

int ornic_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		   int mask, struct ib_qp_init_attr *init)
{
	struct ornic_dev *dev = to_odev(ibqp->device);
	struct ornic_qp *qp = to_oqp(ibqp);
	struct ornic_qp_attr oa = {};
	u32 state;
	int err;

	mutex_lock(&qp->lock);
	err = ornic_qp_cmd(dev, ORNIC_ADMIN_QUERY_QP, qp->qpn, 0, -1, &oa,
			   &state);
	if (!err)
		WRITE_ONCE(qp->state, state);
	mutex_unlock(&qp->lock);
	if (err)
		return err;

	memset(attr, 0, sizeof(*attr));
	ornic_qp_attr_to_ib(&oa, attr);
	attr->cap = qp->cap;
	/* A UD QP has no address vector of its own (its AHs do). */
	if (ibqp->qp_type == IB_QPT_UD || ibqp->qp_type == IB_QPT_GSI ||
	    ibqp->qp_type == IB_QPT_SMI)
		memset(&attr->ah_attr, 0, sizeof(attr->ah_attr));

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->xrcd = ibqp->xrcd;
	init->cap = qp->cap;
	init->sq_sig_type = qp->sq_sig_type;
	return 0;
}

/* The IB event of a QP's async EQE type. */
static enum ib_event_type ornic_qp_event_type(u8 type)
{
	switch (type) {
	case ORNIC_EQE_QP_FATAL:
		return IB_EVENT_QP_FATAL;
	case ORNIC_EQE_QP_REQ_ERR:
		return IB_EVENT_QP_REQ_ERR;
	case ORNIC_EQE_QP_ACCESS_ERR:
		return IB_EVENT_QP_ACCESS_ERR;
	case ORNIC_EQE_QP_COMM_EST:
		return IB_EVENT_COMM_EST;
	case ORNIC_EQE_QP_SQ_DRAINED:
		return IB_EVENT_SQ_DRAINED;
	default:
		return IB_EVENT_QP_LAST_WQE_REACHED;
	}
}

/*
 * Async EQ (under dev->aeq_lock): an event naming a QP, registered for
 * each ORNIC_EQE_QP_* type.
 */
void ornic_qp_async_event(struct ornic_dev *dev, const struct ornic_eqe *eqe)
{
	struct ornic_qp *qp = xa_load(&dev->qps, le32_to_cpu(eqe->object));
	enum ib_event_type type = ornic_qp_event_type(eqe->type);
	struct ib_event ev = {
		.device = &dev->ibdev,
		.event = type,
	};

	if (!qp)
		return;
	/* The device moved the QP to ERR on its own. */
	if (type == IB_EVENT_QP_FATAL || type == IB_EVENT_QP_REQ_ERR ||
	    type == IB_EVENT_QP_ACCESS_ERR)
		WRITE_ONCE(qp->state, IB_QPS_ERR);
	if (!qp->ibqp.event_handler)
		return;
	ev.element.qp = &qp->ibqp;
	qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}
