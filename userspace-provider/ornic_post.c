// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic provider: ibv_post_send, ibv_post_recv and ibv_post_srq_recv.
 *
 * No system call: each WQE is written into the ring in user memory, then one
 * write barrier and one 64-bit doorbell for the whole list (doorbells.rst);
 * with doorbell records the doorbell rings only when the device asks.
 * The first WR that cannot be posted stops the list and is returned in
 * bad_wr; the ones before it are posted (the doorbell still rings).
 */
#include <errno.h>
#include <string.h>

#include <util/udma_barrier.h>

#include "ornic.h"

void ornic_sq_doorbell(struct ornic_qp *qp)
{
	ornic_wq_notify(to_ornic_ctx(qp->vqp.qp.context), &qp->sq, ORNIC_DB_SQ,
			qp->qpn);
}

static int ornic_build_send(struct ornic_qp *qp, const struct ibv_send_wr *wr,
			    struct ornic_wqe_buf *w)
{
	int err, i;

	if (wr->num_sge < 0)
		return EINVAL;
	/*
	 * struct ibv_send_wr has no room for a FLUSH's placement type and
	 * level or an ATOMIC WRITE's value: those are ibv_wr_flush() and
	 * ibv_wr_atomic_write() only.
	 */
	if (wr->opcode == IBV_WR_FLUSH || wr->opcode == IBV_WR_ATOMIC_WRITE)
		return EINVAL;
	err = ornic_wqe_start(qp, w, wr->opcode, wr->send_flags, wr->wr_id);
	if (err)
		return err;

	/* Local operations carry no data: sg_list is ignored, as in rxe. */
	if (wr->opcode == IBV_WR_BIND_MW || wr->opcode == IBV_WR_LOCAL_INV) {
		if (wr->opcode == IBV_WR_BIND_MW)
			err = ornic_wqe_set_bind_mw(w, wr->bind_mw.mw,
						    wr->bind_mw.rkey,
						    &wr->bind_mw.bind_info);
		else
			err = ornic_wqe_set_local_inv(w, wr->invalidate_rkey);
		return err ? err : ornic_wqe_finish(qp, w);
	}

	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		w->block[0].hdr.imm_data = wr->imm_data;
		break;
	case IBV_WR_SEND_WITH_INV:
		w->block[0].hdr.invalidate_rkey = htole32(wr->invalidate_rkey);
		break;
	default:
		break;
	}
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		err = ornic_wqe_set_rdma(w, wr->wr.rdma.remote_addr,
					 wr->wr.rdma.rkey);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		err = ornic_wqe_set_atomic(w, wr->wr.atomic.remote_addr,
					   wr->wr.atomic.rkey,
					   wr->wr.atomic.compare_add,
					   wr->wr.atomic.swap);
		break;
	default:
		if (qp->type == IBV_QPT_UD)
			err = ornic_wqe_set_ud(qp, w, wr->wr.ud.ah,
					       wr->wr.ud.remote_qpn,
					       wr->wr.ud.remote_qkey);
		break;
	}
	if (err)
		return err;
	if (qp->type == IBV_QPT_XRC_SEND) {
		err = ornic_wqe_set_xrc_srqn(qp, w, wr->qp_type.xrc.remote_srqn);
		if (err)
			return err;
	}

	if (wr->num_sge && !wr->sg_list)
		return EINVAL;
	for (i = 0; i < wr->num_sge && !err; i++) {
		const struct ibv_sge *sge = &wr->sg_list[i];

		if (w->block[0].hdr.flags & ORNIC_WQE_FLAG_INLINE)
			err = ornic_wqe_add_inline(qp, w,
						   (void *)(uintptr_t)sge->addr,
						   sge->length);
		else
			err = ornic_wqe_add_sge(qp, w, sge->lkey, sge->addr,
						sge->length);
	}
	if (err)
		return err;
	return ornic_wqe_finish(qp, w);
}

int ornic_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct ornic_qp *qp = to_ornic_qp(ibqp);
	struct ornic_wqe_buf w;
	uint32_t start;
	int err = 0;

	/* An XRC_RECV QP has no send queue (xrc.rst). */
	if (!ornic_qp_has_sq(qp)) {
		*bad_wr = wr;
		return EINVAL;
	}
	if (!ornic_sq_ready(qp))
		err = EINVAL;
	pthread_spin_lock(&qp->sq.lock);
	start = qp->sq.pi;
	for (; wr && !err; wr = wr->next) {
		err = ornic_build_send(qp, wr, &w);
		if (!err)
			err = ornic_wqe_commit(&qp->sq, &w);
		if (err)
			break;
	}
	if (err)
		*bad_wr = wr;
	if (qp->sq.pi != start)
		ornic_sq_doorbell(qp);
	pthread_spin_unlock(&qp->sq.lock);
	return err;
}

static int ornic_build_recv(struct ornic_wq *wq, const struct ibv_recv_wr *wr,
			    struct ornic_wqe_buf *w)
{
	struct ornic_recv_wqe *h = (struct ornic_recv_wqe *)w->block[0].raw;
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge ||
	    (wr->num_sge && !wr->sg_list))
		return EINVAL;
	w->num_blocks = ornic_recv_wqe_blocks(wr->num_sge);
	memset(w->block, 0, (size_t)w->num_blocks * ORNIC_WQE_BLOCK_SIZE);
	h->wr_id = htole64(wr->wr_id);
	h->num_blocks = w->num_blocks;
	h->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		struct ornic_sge *sge;
		int n = i - ORNIC_RECV_SGES_BLOCK0;

		/* ORNIC_RECV_SGES_BLOCK0 SGEs in block 0, then four a block. */
		if (n < 0)
			sge = &h->sge[i];
		else
			sge = (struct ornic_sge *)
				w->block[1 + n / ORNIC_SGES_PER_BLOCK].raw +
				n % ORNIC_SGES_PER_BLOCK;
		sge->addr = htole64(wr->sg_list[i].addr);
		sge->length = htole32(wr->sg_list[i].length);
		sge->lkey = htole32(wr->sg_list[i].lkey);
	}
	return 0;
}

static int ornic_post_recv_wq(struct ornic_context *ctx, struct ornic_wq *wq,
			      uint32_t db_offset, uint32_t qn,
			      struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	struct ornic_wqe_buf w;
	uint32_t start = wq->pi;
	int err = 0;

	for (; wr; wr = wr->next) {
		err = ornic_build_recv(wq, wr, &w);
		if (!err)
			err = ornic_wqe_commit(wq, &w);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	if (wq->pi != start)
		ornic_wq_notify(ctx, wq, db_offset, qn);
	return err;
}

int ornic_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct ornic_qp *qp = to_ornic_qp(ibqp);
	int err;

	/* With an SRQ, or on XRC QPs, there is no receive queue to post to. */
	if (!ornic_qp_has_rq(qp) || qp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}
	pthread_spin_lock(&qp->rq.lock);
	err = ornic_post_recv_wq(to_ornic_ctx(ibqp->context), &qp->rq,
				 ORNIC_DB_RQ, qp->qpn, wr, bad_wr);
	pthread_spin_unlock(&qp->rq.lock);
	return err;
}

int ornic_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct ornic_srq *srq = to_ornic_srq(ibsrq);
	int err;

	pthread_spin_lock(&srq->wq.lock);
	err = ornic_post_recv_wq(to_ornic_ctx(ibsrq->context), &srq->wq,
				 ORNIC_DB_SRQ, srq->srqn, wr, bad_wr);
	pthread_spin_unlock(&srq->wq.lock);
	return err;
}
