// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic provider: shared receive queues.
 *
 * The device takes SRQ WQEs in posting order but their completions reach
 * the CQs of several QPs in any order, so a WQE's blocks are reused only
 * once every WQE before it has completed too: done[] marks completed WQEs
 * by their first block and the consumer index advances over a done prefix.
 * XRC SRQs (xrc.rst) complete on their own CQ; their CQEs carry the SRQ's
 * number, which the context's XRC SRQ table turns back into the SRQ.
 *
 * Resizing (ORNIC_CAP_RESIZE) keeps block indices counting: every block
 * from ci to pi, taken by the device or not, is copied to the slot of the
 * same index in the new ring (with its done mark), so retiring and the
 * device's wqe_index go on unchanged.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ornic.h"
#include "ornic_abi.h"

/*
 * Mark the WQE a CQE names done and advance over the done prefix.  False,
 * changing nothing, for an index outside the posted range or a WQE already
 * done: the CQE does not complete anything of ours.
 */
bool ornic_srq_retire(struct ornic_srq *srq, uint16_t wqe_index)
{
	struct ornic_wq *wq = &srq->wq;
	uint32_t idx, nb;

	pthread_spin_lock(&wq->lock);
	idx = wq->ci + (uint16_t)(wqe_index - (uint16_t)wq->ci);
	if (idx - wq->ci >= wq->pi - wq->ci ||
	    srq->done[idx & wq->ring.mask]) {
		pthread_spin_unlock(&wq->lock);
		return false;
	}
	srq->done[idx & wq->ring.mask] = 1;
	while (wq->ci != wq->pi && srq->done[wq->ci & wq->ring.mask]) {
		const struct ornic_recv_wqe *h = (const void *)
			((uint8_t *)wq->ring.buf +
			 (size_t)(wq->ci & wq->ring.mask) * ORNIC_WQE_BLOCK_SIZE);

		nb = h->num_blocks;
		if (nb < 1 || nb > ORNIC_WQE_MAX_BLOCKS || nb > wq->pi - wq->ci)
			nb = 1;
		srq->done[wq->ci & wq->ring.mask] = 0;
		__atomic_store_n(&wq->ci, wq->ci + nb, __ATOMIC_RELEASE);
	}
	pthread_spin_unlock(&wq->lock);
	return true;
}

/*
 * A basic SRQ, or with IBV_SRQT_XRC an XRC SRQ of @attr->xrcd whose
 * receives complete on @attr->cq (xrc.rst).  @attr's PD is required.
 */
static struct ornic_srq *ornic_srq_create(struct ibv_context *ibctx,
					  struct ibv_srq_init_attr_ex *attr)
{
	struct ornic_context *ctx = to_ornic_ctx(ibctx);
	struct ornic_create_xsrq_resp resp = {};
	struct ornic_create_xsrq cmd = {};
	struct ibv_srq_attr *a = &attr->attr;
	struct ornic_srq *srq;
	struct ibv_pd *ibpd;
	bool xrc = false;
	uint64_t blocks;
	uint32_t nb, log;
	int err;

	if (!(ctx->caps & ORNIC_CAP_SRQ)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & ~(uint32_t)(IBV_SRQ_INIT_ATTR_TYPE |
					  IBV_SRQ_INIT_ATTR_PD |
					  IBV_SRQ_INIT_ATTR_XRCD |
					  IBV_SRQ_INIT_ATTR_CQ)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) {
		if (attr->srq_type == IBV_SRQT_XRC) {
			xrc = true;
		} else if (attr->srq_type != IBV_SRQT_BASIC) {
			errno = EOPNOTSUPP;
			return NULL;
		}
	}
	if (xrc && !(ctx->caps & ORNIC_CAP_XRC)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    (xrc && (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) ||
		     !attr->xrcd || !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) ||
		     !attr->cq))) {
		errno = EINVAL;
		return NULL;
	}
	/* A parent domain's allocator gives the ring (its handle is its PD's). */
	ibpd = attr->pd;
	nb = ornic_recv_wqe_blocks(max_t(uint32_t, a->max_sge, 1));
	blocks = (uint64_t)(a->max_wr ? a->max_wr : 1) * nb;
	if (!a->max_wr || a->max_sge > ctx->max_srq_sge ||
	    blocks > ctx->max_srq_wr ||
	    blocks > (1U << ORNIC_MAX_WQ_LOG_DEPTH) ||
	    a->srq_limit > a->max_wr) {
		errno = EINVAL;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	log = ornic_log2_depth(blocks);
	err = ornic_ring_alloc(&srq->wq.ring, ibpd, ORNIC_RES_TYPE_SRQ, log,
			       ORNIC_WQE_BLOCK_SIZE,
			       ctx->db_records ? sizeof(*srq->wq.rec) : 0);
	if (err)
		goto err_free;
	srq->done = calloc(1U << log, 1);
	if (!srq->done) {
		err = ENOMEM;
		goto err_ring;
	}
	if (pthread_spin_init(&srq->wq.lock, PTHREAD_PROCESS_PRIVATE)) {
		err = ENOMEM;
		goto err_done;
	}
	srq->wq.max_blocks = nb;
	srq->wq.max_wr = (1U << log) / nb;
	srq->wq.max_sge = min(ornic_recv_sges_fit(nb), ctx->max_srq_sge);

	cmd.log_depth = log;
	cmd.buf_addr = (uintptr_t)srq->wq.ring.buf;
	cmd.buf_size = srq->wq.ring.buf_size;
	if (ctx->db_records)
		cmd.comp_mask |= ORNIC_IBV_CREATE_SRQ_DB_RECORD;
	err = ibv_cmd_create_srq_ex(ibctx, &srq->vsrq, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err)
		goto err_lock;
	if (resp.log_depth != log) {
		verbs_err(&ctx->ibvctx,
			  "ornic: kernel programmed SRQ depth 2^%u, asked 2^%u\n",
			  resp.log_depth, log);
		err = EPROTO;
		goto err_cmd;
	}
	srq->srqn = resp.srqn;
	if (resp.comp_mask & ORNIC_IBV_CREATE_SRQ_RESP_DB_RECORD)
		srq->wq.rec = ornic_wq_record(&srq->wq);
	/* ibv_create_srq_ex leaves these to the provider. */
	srq->vsrq.srq.srq_context = attr->srq_context;
	srq->vsrq.srq.pd = attr->pd;
	srq->vsrq.srq.events_completed = 0;
	if (xrc) {
		srq->xrc_cq = to_ornic_cq(attr->cq);
		err = ornic_table_set(&ctx->xrc_srq_table, srq->srqn, srq);
		if (err)
			goto err_cmd;
	}
	a->max_wr = srq->wq.max_wr;
	a->max_sge = srq->wq.max_sge;
	srq->parent_domain = ornic_parent_domain(ibpd);
	if (srq->parent_domain)
		ornic_pd_get(srq->parent_domain);
	return srq;

err_cmd:
	ibv_cmd_destroy_srq(&srq->vsrq.srq);
err_lock:
	pthread_spin_destroy(&srq->wq.lock);
err_done:
	free(srq->done);
err_ring:
	ornic_ring_free(&srq->wq.ring);
err_free:
	free(srq);
	errno = err;
	return NULL;
}

struct ibv_srq *ornic_create_srq(struct ibv_pd *ibpd,
				 struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ex = {
		.srq_context = attr->srq_context,
		.attr = attr->attr,
		.comp_mask = IBV_SRQ_INIT_ATTR_PD,
		.pd = ibpd,
	};
	struct ornic_srq *srq = ornic_srq_create(ibpd->context, &ex);

	if (!srq)
		return NULL;
	attr->attr = ex.attr;
	return &srq->vsrq.srq;
}

struct ibv_srq *ornic_create_srq_ex(struct ibv_context *ibctx,
				    struct ibv_srq_init_attr_ex *attr)
{
	struct ornic_srq *srq = ornic_srq_create(ibctx, attr);

	return srq ? &srq->vsrq.srq : NULL;
}

int ornic_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	*srq_num = to_ornic_srq(ibsrq)->srqn;
	return 0;
}

/* Called with the SRQ lock: a new ring of 2^log blocks for max_wr WQEs. */
static int ornic_srq_resize(struct ornic_srq *srq, struct ibv_srq_attr *attr,
			    int attr_mask)
{
	struct ornic_wq *wq = &srq->wq;
	struct ornic_modify_srq cmd = {};
	struct ornic_ring ring = {};
	uint32_t log, max_wr, i;
	uint8_t *done;
	int err;

	log = ornic_log2_depth(attr->max_wr * wq->max_blocks);
	max_wr = (1U << log) / wq->max_blocks;
	/* Every block not yet retired keeps its index in the new ring. */
	if (wq->pi - wq->ci > (1U << log) ||
	    ((attr_mask & IBV_SRQ_LIMIT) && attr->srq_limit > max_wr))
		return EINVAL;
	/* An SRQ of a parent domain takes its new ring from there too. */
	err = ornic_ring_alloc(&ring,
			       srq->parent_domain ? &srq->parent_domain->ibvpd :
						    NULL,
			       ORNIC_RES_TYPE_SRQ, log, ORNIC_WQE_BLOCK_SIZE,
			       wq->rec ? sizeof(*wq->rec) : 0);
	if (err)
		return err;
	done = calloc(1U << log, 1);
	if (!done) {
		ornic_ring_free(&ring);
		return ENOMEM;
	}
	for (i = wq->ci; i != wq->pi; i++) {
		memcpy((uint8_t *)ring.buf +
		       (size_t)(i & ring.mask) * ORNIC_WQE_BLOCK_SIZE,
		       (uint8_t *)wq->ring.buf +
		       (size_t)(i & wq->ring.mask) * ORNIC_WQE_BLOCK_SIZE,
		       ORNIC_WQE_BLOCK_SIZE);
		done[i & ring.mask] = srq->done[i & wq->ring.mask];
	}
	cmd.log_depth = log;
	cmd.buf_addr = (uintptr_t)ring.buf;
	cmd.buf_size = ring.buf_size;
	err = ibv_cmd_modify_srq(&srq->vsrq.srq, attr, attr_mask,
				 &cmd.ibv_cmd, sizeof(cmd));
	if (err) {
		free(done);
		ornic_ring_free(&ring);
		return err;
	}
	ornic_ring_free(&wq->ring);
	free(srq->done);
	wq->ring = ring;
	/* The device moved the record past the new ring (RESIZE_SRQ). */
	if (wq->rec)
		wq->rec = ornic_wq_record(wq);
	srq->done = done;
	wq->max_wr = max_wr;
	return 0;
}

int ornic_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask)
{
	struct ornic_context *ctx = to_ornic_ctx(ibsrq->context);
	struct ornic_srq *srq = to_ornic_srq(ibsrq);
	struct ibv_modify_srq cmd;
	uint64_t blocks;
	int err;

	if (!(attr_mask & IBV_SRQ_MAX_WR)) {
		if ((attr_mask & IBV_SRQ_LIMIT) &&
		    attr->srq_limit > srq->wq.max_wr)
			return EINVAL;
		return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd,
					  sizeof(cmd));
	}
	if (!(ctx->caps & ORNIC_CAP_RESIZE))
		return EOPNOTSUPP;
	blocks = (uint64_t)attr->max_wr * srq->wq.max_blocks;
	if (!attr->max_wr || blocks > ctx->max_srq_wr ||
	    blocks > (1U << ORNIC_MAX_WQ_LOG_DEPTH))
		return EINVAL;
	/* Posting and retiring wait while the WQEs move. */
	pthread_spin_lock(&srq->wq.lock);
	err = ornic_srq_resize(srq, attr, attr_mask);
	pthread_spin_unlock(&srq->wq.lock);
	return err;
}

int ornic_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ornic_srq *srq = to_ornic_srq(ibsrq);
	struct ibv_query_srq cmd;
	int err;

	err = ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
	if (err)
		return err;
	attr->max_wr = srq->wq.max_wr;
	attr->max_sge = srq->wq.max_sge;
	return 0;
}

int ornic_destroy_srq(struct ibv_srq *ibsrq)
{
	struct ornic_srq *srq = to_ornic_srq(ibsrq);
	int err;

	err = ibv_cmd_destroy_srq(ibsrq);
	if (err)
		return err;
	if (srq->xrc_cq) {
		struct ornic_context *ctx = to_ornic_ctx(ibsrq->context);

		/* No poller may be retiring into it while it is freed. */
		pthread_spin_lock(&srq->xrc_cq->lock);
		ornic_table_set(&ctx->xrc_srq_table, srq->srqn, NULL);
		pthread_spin_unlock(&srq->xrc_cq->lock);
		/* A later SRQ may get this number: its CQEs are not these. */
		ornic_cq_clean_xrc_srq(srq->xrc_cq, srq->srqn);
	}
	pthread_spin_destroy(&srq->wq.lock);
	free(srq->done);
	ornic_ring_free(&srq->wq.ring);
	if (srq->parent_domain)
		ornic_pd_put(srq->parent_domain);
	free(srq);
	return 0;
}
