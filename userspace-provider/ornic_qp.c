// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic provider: queue pairs (RC, UC, UD, XRC_SEND and XRC_RECV).
 *
 * The provider sizes and allocates the SQ and RQ rings in 64-byte blocks
 * (wqe.rst), the kernel pins them and creates the QP on the device.  Every
 * QP with a queue is entered in the context's QPN table so that the poll
 * path can find the work queue a CQE retires.  An XRC_SEND QP has only the
 * SQ; an XRC_RECV QP has none (xrc.rst): the kernel creates it on its XRC
 * domain, and other contexts may open it with ibv_open_qp.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ornic.h"
#include "ornic_abi.h"

struct ornic_qp *ornic_find_qp(struct ornic_context *ctx, uint32_t qpn)
{
	return ornic_table_find(&ctx->qp_table, qpn);
}

static int ornic_qp_table_set(struct ornic_context *ctx, uint32_t qpn,
			      struct ornic_qp *qp)
{
	return ornic_table_set(&ctx->qp_table, qpn, qp);
}

/*
 * A work queue of at least max_wr WQEs of max_blocks blocks each, with room
 * for a doorbell record past the ring when the context has them.
 */
static int ornic_wq_init(struct ornic_context *ctx, struct ornic_wq *wq,
			 struct ibv_pd *pd, uint64_t resource_type,
			 uint32_t max_wr, uint32_t max_blocks,
			 uint32_t limit_blocks)
{
	uint64_t blocks = (uint64_t)(max_wr ? max_wr : 1) * max_blocks;
	uint32_t log;
	int err;

	if (blocks > limit_blocks || blocks > (1U << ORNIC_MAX_WQ_LOG_DEPTH))
		return EINVAL;
	log = ornic_log2_depth(blocks);
	err = ornic_ring_alloc(&wq->ring, pd, resource_type, log,
			       ORNIC_WQE_BLOCK_SIZE,
			       ctx->db_records ? sizeof(*wq->rec) : 0);
	if (err)
		return err;
	wq->max_blocks = max_blocks;
	wq->max_wr = (1U << log) / max_blocks;
	if (pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE)) {
		ornic_ring_free(&wq->ring);
		return ENOMEM;
	}
	return 0;
}

static void ornic_wq_destroy(struct ornic_wq *wq)
{
	if (!wq->ring.buf)
		return;
	pthread_spin_destroy(&wq->lock);
	ornic_ring_free(&wq->ring);
}

static int ornic_qp_check(struct ornic_context *ctx,
			  const struct ibv_qp_init_attr_ex *attr)
{
	const struct ibv_qp_cap *cap = &attr->cap;

	if (attr->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
					  IBV_QP_INIT_ATTR_XRCD |
					  IBV_QP_INIT_ATTR_CREATE_FLAGS |
					  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return EOPNOTSUPP;
	/* No creation flag is implemented; asking for none is fine. */
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags)
		return EOPNOTSUPP;
	switch (attr->qp_type) {
	case IBV_QPT_RC:
		if (!(ctx->caps & ORNIC_CAP_RC))
			return EOPNOTSUPP;
		break;
	case IBV_QPT_UC:
		if (!(ctx->caps & ORNIC_CAP_UC))
			return EOPNOTSUPP;
		break;
	case IBV_QPT_UD:
		if (!(ctx->caps & ORNIC_CAP_UD))
			return EOPNOTSUPP;
		break;
	case IBV_QPT_XRC_SEND:
		if (!(ctx->caps & ORNIC_CAP_XRC))
			return EOPNOTSUPP;
		/* Send only: the receive side of the caps means nothing. */
		if (attr->srq)
			return EINVAL;
		break;
	case IBV_QPT_XRC_RECV:
		if (!(ctx->caps & ORNIC_CAP_XRC))
			return EOPNOTSUPP;
		/* Only its domain: the SRQs named by requests do the rest. */
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd)
			return EINVAL;
		if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
			return EINVAL;
		return 0;
	default:
		return EOPNOTSUPP;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    !ornic_qp_ex_ops_supported(ctx->caps, attr->qp_type,
				       attr->send_ops_flags))
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
	    !attr->send_cq ||
	    (attr->qp_type != IBV_QPT_XRC_SEND && !attr->recv_cq))
		return EINVAL;
	/* An XRC SRQ is named by the sender's WQEs, never by a QP. */
	if (attr->srq && to_ornic_srq(attr->srq)->xrc_cq)
		return EINVAL;
	if (cap->max_send_sge > ctx->max_send_sge ||
	    cap->max_inline_data > ctx->max_inline_data)
		return EINVAL;
	if (!attr->srq && attr->qp_type != IBV_QPT_XRC_SEND &&
	    cap->max_recv_sge > ctx->max_recv_sge)
		return EINVAL;
	if (attr->srq && attr->srq->context != attr->pd->context)
		return EINVAL;
	if (attr->pd->context != &ctx->ibvctx.context)
		return EINVAL;
	return 0;
}

/*
 * An XRC_RECV QP: the kernel creates the device's XRC_TGT QP on the domain
 * (without driver data, as it would for another process).  No ring, no CQ,
 * no entry in the QPN table: its CQEs name the SRQ they retire.
 */
static struct ornic_qp *ornic_xrc_recv_create(struct ibv_context *ibctx,
					      struct ibv_qp_init_attr_ex *attr)
{
	struct ib_uverbs_create_qp_resp resp = {};
	struct ibv_create_qp cmd = {};
	struct ornic_qp *qp;
	int err;

	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	qp->type = IBV_QPT_XRC_RECV;
	err = ibv_cmd_create_qp_ex(ibctx, &qp->vqp, attr, &cmd, sizeof(cmd),
				   &resp, sizeof(resp));
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	qp->qpn = qp->vqp.qp.qp_num;
	qp->state = IBV_QPS_RESET;
	memset(&attr->cap, 0, sizeof(attr->cap));
	return qp;
}

struct ibv_qp *ornic_open_qp(struct ibv_context *ibctx,
			     struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp = {};
	struct ibv_open_qp cmd = {};
	struct ornic_qp *qp;
	int err;

	/* Only XRC targets are shared (the core refuses anything else). */
	if (attr->qp_type != IBV_QPT_XRC_RECV) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	qp->type = IBV_QPT_XRC_RECV;
	err = ibv_cmd_open_qp(ibctx, &qp->vqp, sizeof(qp->vqp), attr, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(qp);
		errno = err;
		return NULL;
	}
	qp->qpn = qp->vqp.qp.qp_num;
	/* Its state is its creator's business: modify_qp learns it. */
	qp->state = IBV_QPS_RESET;
	return &qp->vqp.qp;
}

static struct ornic_qp *
ornic_qp_create(struct ibv_context *ibctx, struct ibv_qp_init_attr_ex *attr)
{
	struct ornic_context *ctx = to_ornic_ctx(ibctx);
	struct ornic_create_qp_resp resp = {};
	struct ornic_create_qp cmd = {};
	struct ibv_qp_cap *cap = &attr->cap;
	uint32_t sq_blocks, rq_blocks, inl, comp_mask;
	struct ornic_qp *qp;
	int err;

	err = ornic_qp_check(ctx, attr);
	if (err) {
		errno = err;
		return NULL;
	}
	if (attr->qp_type == IBV_QPT_XRC_RECV)
		return ornic_xrc_recv_create(ibctx, attr);
	if (attr->qp_type == IBV_QPT_XRC_SEND) {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	qp->type = attr->qp_type;
	qp->sq_sig_all = attr->sq_sig_all;
	qp->srq = attr->srq ? to_ornic_srq(attr->srq) : NULL;

	/* The kernel sizes its checks from cap: give it what the rings hold. */
	cap->max_send_sge = max_t(uint32_t, cap->max_send_sge, 1);
	if (ornic_qp_has_rq(qp))
		cap->max_recv_sge = max_t(uint32_t, cap->max_recv_sge, 1);
	sq_blocks = ornic_send_wqe_blocks(cap->max_send_sge,
					  cap->max_inline_data);
	err = ornic_wq_init(ctx, &qp->sq, attr->pd, ORNIC_RES_TYPE_SQ,
			    cap->max_send_wr, sq_blocks, ctx->max_qp_wr);
	if (err)
		goto err_free;
	if (ornic_qp_has_rq(qp)) {
		rq_blocks = ornic_recv_wqe_blocks(cap->max_recv_sge);
		err = ornic_wq_init(ctx, &qp->rq, attr->pd, ORNIC_RES_TYPE_RQ,
				    cap->max_recv_wr, rq_blocks,
				    ctx->max_qp_wr);
		if (err)
			goto err_sq;
	}

	cmd.sq_log_depth = qp->sq.ring.log_depth;
	cmd.sq_buf_addr = (uintptr_t)qp->sq.ring.buf;
	cmd.sq_buf_size = qp->sq.ring.buf_size;
	if (ornic_qp_has_rq(qp)) {
		cmd.rq_log_depth = qp->rq.ring.log_depth;
		cmd.rq_buf_addr = (uintptr_t)qp->rq.ring.buf;
		cmd.rq_buf_size = qp->rq.ring.buf_size;
	}
	if (ctx->db_records)
		cmd.comp_mask |= ORNIC_IBV_CREATE_QP_DB_RECORD;
	/*
	 * The command takes PD and send-ops flags only; an empty set of
	 * creation flags (checked above) has nothing to pass on.
	 */
	comp_mask = attr->comp_mask;
	attr->comp_mask &= ~IBV_QP_INIT_ATTR_CREATE_FLAGS;
	err = ibv_cmd_create_qp_ex(ibctx, &qp->vqp, attr, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	attr->comp_mask = comp_mask;
	if (err)
		goto err_rq;
	if (resp.sq_log_depth != qp->sq.ring.log_depth ||
	    (ornic_qp_has_rq(qp) &&
	     resp.rq_log_depth != qp->rq.ring.log_depth)) {
		verbs_err(&ctx->ibvctx,
			  "ornic: kernel programmed SQ/RQ depths 2^%u/2^%u, asked 2^%u/2^%u\n",
			  resp.sq_log_depth, resp.rq_log_depth,
			  qp->sq.ring.log_depth, qp->rq.ring.log_depth);
		err = EPROTO;
		goto err_cmd;
	}
	qp->qpn = resp.qpn;
	/* Doorbell records (doorbells.rst): the block just past each ring. */
	if (resp.comp_mask & ORNIC_IBV_CREATE_QP_RESP_DB_RECORD) {
		qp->sq.rec = ornic_wq_record(&qp->sq);
		if (ornic_qp_has_rq(qp))
			qp->rq.rec = ornic_wq_record(&qp->rq);
	}

	/* What one WQE of max_blocks blocks can hold, within device limits. */
	inl = ornic_inline_fit(qp->sq.max_blocks);
	inl = min(inl, ctx->max_inline_data);
	if (resp.max_inline_data < inl)
		inl = resp.max_inline_data;
	if (inl < cap->max_inline_data) {
		err = EINVAL;
		goto err_cmd;
	}
	qp->max_inline_data = inl;
	qp->sq.max_sge = min(ornic_send_sges_fit(qp->sq.max_blocks),
			     ctx->max_send_sge);
	cap->max_send_wr = qp->sq.max_wr;
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_inline_data = qp->max_inline_data;
	if (ornic_qp_has_rq(qp)) {
		qp->rq.max_sge = min(ornic_recv_sges_fit(qp->rq.max_blocks),
				     ctx->max_recv_sge);
		cap->max_recv_wr = qp->rq.max_wr;
		cap->max_recv_sge = qp->rq.max_sge;
	} else {
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	}
	qp->state = IBV_QPS_RESET;

	err = ornic_qp_table_set(ctx, qp->qpn, qp);
	if (err)
		goto err_cmd;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		ornic_qp_ex_init(qp, attr->send_ops_flags);
	qp->parent_domain = ornic_parent_domain(attr->pd);
	if (qp->parent_domain)
		ornic_pd_get(qp->parent_domain);
	return qp;

err_cmd:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_rq:
	ornic_wq_destroy(&qp->rq);
err_sq:
	ornic_wq_destroy(&qp->sq);
err_free:
	free(qp);
	errno = err;
	return NULL;
}

struct ibv_qp *ornic_create_qp(struct ibv_pd *ibpd,
			       struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex = {};
	struct ornic_qp *qp;

	memcpy(&ex, attr, sizeof(*attr));
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = ibpd;
	qp = ornic_qp_create(ibpd->context, &ex);
	if (!qp)
		return NULL;
	attr->cap = ex.cap;
	return &qp->vqp.qp;
}

struct ibv_qp *ornic_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct ornic_qp *qp = ornic_qp_create(ibctx, attr);

	return qp ? &qp->vqp.qp : NULL;
}

/* An XRC_SEND QP has no receive CQ, an XRC_RECV QP no CQ at all. */
static void ornic_qp_clean_cqs(struct ornic_qp *qp)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;

	if (ibqp->send_cq)
		ornic_cq_clean(to_ornic_cq(ibqp->send_cq), qp->qpn);
	if (ibqp->recv_cq && ibqp->recv_cq != ibqp->send_cq)
		ornic_cq_clean(to_ornic_cq(ibqp->recv_cq), qp->qpn);
}

/*
 * Moving to RESET makes the device forget every WQE (qp.rst): the rings
 * restart at 0 and completions still queued for the QP go away.
 */
static void ornic_qp_reset_indices(struct ornic_qp *qp)
{
	if (!ornic_qp_has_sq(qp))
		return;
	ornic_qp_clean_cqs(qp);
	pthread_spin_lock(&qp->sq.lock);
	__atomic_store_n(&qp->sq.pi, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&qp->sq.ci, 0, __ATOMIC_RELEASE);
	pthread_spin_unlock(&qp->sq.lock);
	if (!ornic_qp_has_rq(qp))
		return;
	pthread_spin_lock(&qp->rq.lock);
	__atomic_store_n(&qp->rq.pi, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&qp->rq.ci, 0, __ATOMIC_RELEASE);
	pthread_spin_unlock(&qp->rq.lock);
}

int ornic_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask)
{
	struct ornic_qp *qp = to_ornic_qp(ibqp);
	struct ibv_modify_qp cmd = {};
	int err;

	err = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (err)
		return err;
	if (attr_mask & IBV_QP_STATE) {
		qp->state = attr->qp_state;
		if (attr->qp_state == IBV_QPS_RESET)
			ornic_qp_reset_indices(qp);
	}
	return 0;
}

int ornic_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ornic_qp *qp = to_ornic_qp(ibqp);
	struct ibv_query_qp cmd;
	int err;

	err = ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
			       sizeof(cmd));
	if (err)
		return err;
	/* The queue sizes are the provider's, not the kernel's. */
	attr->cap.max_send_wr = qp->sq.max_wr;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_inline_data = qp->max_inline_data;
	attr->cap.max_recv_wr = ornic_qp_has_rq(qp) ? qp->rq.max_wr : 0;
	attr->cap.max_recv_sge = ornic_qp_has_rq(qp) ? qp->rq.max_sge : 0;
	init_attr->cap = attr->cap;
	init_attr->sq_sig_all = qp->sq_sig_all;
	qp->state = attr->qp_state;
	return 0;
}

/*
 * Whether the send queue takes WQEs.  An iWARP QP reaches RTS by the
 * device's own move once its connection is established (iwarp-cm.rst,
 * "QPs on an iWARP port"), which no modify told the provider: a state that
 * would refuse is read from the kernel once more (once per connection,
 * then the cached state says RTS).
 */
bool ornic_sq_ready(struct ornic_qp *qp)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (ornic_sq_usable(qp->state))
		return true;
	if (ibqp->context->device->transport_type != IBV_TRANSPORT_IWARP)
		return false;
	if (ornic_query_qp(ibqp, &attr, IBV_QP_STATE, &init))
		return false;
	return ornic_sq_usable(qp->state);
}

int ornic_destroy_qp(struct ibv_qp *ibqp)
{
	struct ornic_context *ctx = to_ornic_ctx(ibqp->context);
	struct ornic_qp *qp = to_ornic_qp(ibqp);
	int err;

	err = ibv_cmd_destroy_qp(ibqp);
	if (err)
		return err;
	/* An XRC_RECV QP is in no table and owns no CQE. */
	if (qp->type == IBV_QPT_XRC_RECV) {
		free(qp);
		return 0;
	}
	/*
	 * Pollers drop CQEs of QPNs not in the table; hold both CQ locks so
	 * that none is using this QP while it is freed.
	 */
	pthread_spin_lock(&to_ornic_cq(ibqp->send_cq)->lock);
	if (ibqp->recv_cq && ibqp->recv_cq != ibqp->send_cq)
		pthread_spin_lock(&to_ornic_cq(ibqp->recv_cq)->lock);
	ornic_qp_table_set(ctx, qp->qpn, NULL);
	if (ibqp->recv_cq && ibqp->recv_cq != ibqp->send_cq)
		pthread_spin_unlock(&to_ornic_cq(ibqp->recv_cq)->lock);
	pthread_spin_unlock(&to_ornic_cq(ibqp->send_cq)->lock);
	/* A later QP may get the same QPN: its CQEs must not be these. */
	ornic_qp_clean_cqs(qp);

	ornic_wq_destroy(&qp->rq);
	ornic_wq_destroy(&qp->sq);
	if (qp->parent_domain)
		ornic_pd_put(qp->parent_domain);
	free(qp);
	return 0;
}
