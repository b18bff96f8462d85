// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic provider: completion queues.
 *
 * The CQ ring is read straight from memory by owner phase (cqe.rst); the
 * device learns the consumer index only from CQ doorbells, which are rung
 * when arming and often enough that the device never sees the ring full
 * while the application keeps within the CQ size it asked for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <util/udma_barrier.h>

#include "ornic.h"
#include "ornic_abi.h"

static enum ibv_wc_status ornic_wc_status(uint8_t status)
{
	switch (status) {
	case ORNIC_CQE_SUCCESS:
	case ORNIC_CQE_LOC_LEN_ERR:
	case ORNIC_CQE_LOC_QP_OP_ERR:
	case ORNIC_CQE_LOC_PROT_ERR:
	case ORNIC_CQE_WR_FLUSH_ERR:
	case ORNIC_CQE_BAD_RESP_ERR:
	case ORNIC_CQE_LOC_ACCESS_ERR:
	case ORNIC_CQE_REM_INV_REQ_ERR:
	case ORNIC_CQE_REM_ACCESS_ERR:
	case ORNIC_CQE_REM_OP_ERR:
	case ORNIC_CQE_RETRY_EXC_ERR:
	case ORNIC_CQE_RNR_RETRY_EXC_ERR:
	case ORNIC_CQE_REM_INV_RD_REQ_ERR:
	case ORNIC_CQE_FATAL_ERR:
	case ORNIC_CQE_GENERAL_ERR:
		/* Same numbering as ibv_wc_status (cqe.rst). */
		return (enum ibv_wc_status)status;
	default:
		return IBV_WC_GENERAL_ERR;
	}
}

static enum ibv_wc_opcode ornic_wc_opcode(uint8_t opcode)
{
	switch (opcode) {
	case ORNIC_CQE_OP_RDMA_WRITE:
		return IBV_WC_RDMA_WRITE;
	case ORNIC_CQE_OP_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case ORNIC_CQE_OP_COMP_SWAP:
		return IBV_WC_COMP_SWAP;
	case ORNIC_CQE_OP_FETCH_ADD:
		return IBV_WC_FETCH_ADD;
	case ORNIC_CQE_OP_RECV:
		return IBV_WC_RECV;
	case ORNIC_CQE_OP_RECV_RDMA_IMM:
		return IBV_WC_RECV_RDMA_WITH_IMM;
	default:
		return IBV_WC_SEND;
	}
}

static unsigned int ornic_wc_flags(const struct ornic_cqe *cqe)
{
	unsigned int flags = 0;

	if (cqe->status != ORNIC_CQE_SUCCESS)
		return 0;
	if (cqe->flags & ORNIC_CQE_FLAG_IMM)
		flags |= IBV_WC_WITH_IMM;
	if (cqe->flags & ORNIC_CQE_FLAG_INV)
		flags |= IBV_WC_WITH_INV;
	if (cqe->flags & ORNIC_CQE_FLAG_GRH)
		flags |= IBV_WC_GRH;
	return flags;
}

/*
 * Retire the WQE a CQE names and, on the SQ, every unsignaled WQE before it:
 * the work queue's consumer index moves past it.  An index outside the
 * posted range (a CQE from before a reset to RESET) moves nothing.
 */
static void ornic_wq_retire(struct ornic_wq *wq, uint16_t wqe_index,
			    bool recv)
{
	/* A reset to RESET may zero both indices under the queue's lock. */
	uint32_t ci = __atomic_load_n(&wq->ci, __ATOMIC_ACQUIRE);
	uint32_t pi = __atomic_load_n(&wq->pi, __ATOMIC_ACQUIRE);
	uint32_t idx = ci + (uint16_t)(wqe_index - (uint16_t)ci);
	const uint8_t *blk;
	uint32_t nb;

	if (idx - ci >= pi - ci)
		return;
	blk = (const uint8_t *)wq->ring.buf +
	      (size_t)(idx & wq->ring.mask) * ORNIC_WQE_BLOCK_SIZE;
	nb = recv ? ((const struct ornic_recv_wqe *)blk)->num_blocks :
		    ((const struct ornic_send_wqe *)blk)->num_blocks;
	if (nb < 1 || nb > ORNIC_WQE_MAX_BLOCKS || nb > pi - idx)
		nb = 1;
	__atomic_store_n(&wq->ci, idx + nb, __ATOMIC_RELEASE);
}

static bool ornic_cqe_valid(struct ornic_cq *cq, uint32_t idx)
{
	struct ornic_cqe *cqe = (struct ornic_cqe *)cq->ring.buf +
				(idx & cq->ring.mask);
	uint8_t phase = ((idx >> cq->ring.log_depth) & 1) ^ 1;

	return (__atomic_load_n(&cqe->owner, __ATOMIC_RELAXED) &
		ORNIC_CQE_OWNER_PHASE) == phase;
}

/* A receive CQE from an XRC SRQ: it names the SRQ, not a QP of ours. */
static bool ornic_cqe_is_xrc(const struct ornic_cqe *cqe)
{
	return (cqe->opcode & ORNIC_CQE_OP_RECV) &&
	       (cqe->flags & ORNIC_CQE_FLAG_XRC);
}

static bool ornic_cqe_of_qp(const struct ornic_cqe *cqe, uint32_t qpn)
{
	return !ornic_cqe_is_xrc(cqe) &&
	       (le32toh(cqe->qpn) & ORNIC_QPN_MASK) == qpn;
}

static bool ornic_cqe_of_xrc_srq(const struct ornic_cqe *cqe, uint32_t srqn)
{
	return ornic_cqe_is_xrc(cqe) &&
	       (le32toh(cqe->src_qp) & ORNIC_QPN_MASK) == srqn;
}

/*
 * Drop the unpolled CQEs of a QP (or XRC SRQ) that is being reset or
 * destroyed, so that they are neither reported after the reset nor taken
 * for a later object with the same number.  The other CQEs slide up over the
 * dropped ones, each keeping the owner byte of the slot it lands in; the
 * device only writes past the last valid CQE, which does not move.
 */
static void ornic_cq_drop(struct ornic_cq *cq,
			  bool (*match)(const struct ornic_cqe *, uint32_t),
			  uint32_t n)
{
	uint32_t end, i, dropped = 0;

	pthread_spin_lock(&cq->lock);
	for (end = cq->ci; end - cq->ci <= cq->ring.mask &&
	     ornic_cqe_valid(cq, end); end++)
		;
	udma_from_device_barrier();
	for (i = end; i != cq->ci; i--) {
		struct ornic_cqe *src = (struct ornic_cqe *)cq->ring.buf +
					((i - 1) & cq->ring.mask);

		if (match(src, n)) {
			dropped++;
		} else if (dropped) {
			struct ornic_cqe *dst =
				(struct ornic_cqe *)cq->ring.buf +
				((i - 1 + dropped) & cq->ring.mask);

			memcpy(dst, src, offsetof(struct ornic_cqe, owner));
		}
	}
	cq->ci += dropped;
	pthread_spin_unlock(&cq->lock);
}

void ornic_cq_clean(struct ornic_cq *cq, uint32_t qpn)
{
	ornic_cq_drop(cq, ornic_cqe_of_qp, qpn);
}

void ornic_cq_clean_xrc_srq(struct ornic_cq *cq, uint32_t srqn)
{
	ornic_cq_drop(cq, ornic_cqe_of_xrc_srq, srqn);
}

static void ornic_cq_report_ci(struct ornic_cq *cq, uint64_t arm)
{
	struct ornic_context *ctx = to_ornic_ctx(cq->vcq.cq.context);

	ornic_ring_doorbell(ctx, ORNIC_DB_CQ, cq->cqn, arm, cq->ci);
	cq->ci_reported = cq->ci;
}

/*
 * Take the next CQE of a live QP into cq->cur, retiring its WQE.  CQEs of
 * QPs that no longer exist are consumed and dropped.  A receive from an XRC
 * SRQ retires a WQE of that SRQ, found by the number the CQE carries: its
 * QP is an XRC target, maybe another process's.  Called with the lock.
 */
static int ornic_cq_next(struct ornic_cq *cq)
{
	struct ornic_context *ctx = to_ornic_ctx(cq->vcq.cq.context);
	struct ornic_cqe *cqe;
	struct ornic_qp *qp;

	for (;;) {
		if (!ornic_cqe_valid(cq, cq->ci))
			return ENOENT;
		cqe = (struct ornic_cqe *)cq->ring.buf + (cq->ci & cq->ring.mask);
		udma_from_device_barrier();
		cq->cur = *cqe;
		cq->ci++;
		if (cq->ci - cq->ci_reported >= cq->db_batch) {
			udma_to_device_barrier();
			ornic_cq_report_ci(cq, 0);
		}

		if (cq->cur.opcode >= ORNIC_CQE_OP_ETH_TX)
			continue;
		if (ornic_cqe_is_xrc(&cq->cur)) {
			struct ornic_srq *srq = ornic_table_find(
				&ctx->xrc_srq_table,
				le32toh(cq->cur.src_qp) & ORNIC_QPN_MASK);

			if (!srq)
				continue;
			ornic_srq_retire(srq, le16toh(cq->cur.wqe_index));
			return 0;
		}
		qp = ornic_find_qp(ctx, le32toh(cq->cur.qpn) & ORNIC_QPN_MASK);
		if (!qp)
			continue;
		if (cq->cur.opcode & ORNIC_CQE_OP_RECV) {
			if (qp->srq)
				ornic_srq_retire(qp->srq,
						 le16toh(cq->cur.wqe_index));
			else
				ornic_wq_retire(&qp->rq,
						le16toh(cq->cur.wqe_index),
						true);
		} else {
			ornic_wq_retire(&qp->sq, le16toh(cq->cur.wqe_index),
					false);
		}
		return 0;
	}
}

static void ornic_cqe_to_wc(const struct ornic_cqe *cqe, struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = le64toh(cqe->wr_id);
	wc->status = ornic_wc_status(cqe->status);
	wc->opcode = ornic_wc_opcode(cqe->opcode);
	wc->vendor_err = cqe->vendor_err;
	wc->qp_num = le32toh(cqe->qpn) & ORNIC_QPN_MASK;
	if (wc->status != IBV_WC_SUCCESS)
		return;
	wc->byte_len = le32toh(cqe->byte_len);
	wc->wc_flags = ornic_wc_flags(cqe);
	if (cqe->flags & ORNIC_CQE_FLAG_IMM)
		wc->imm_data = cqe->imm_data;	/* wire order both sides */
	else if (cqe->flags & ORNIC_CQE_FLAG_INV)
		wc->invalidated_rkey = le32toh((__force __le32)cqe->imm_data);
	/* With FLAG_XRC the field holds the SRQ, not a source QP. */
	if (!ornic_cqe_is_xrc(cqe))
		wc->src_qp = le32toh(cqe->src_qp) & ORNIC_QPN_MASK;
}

int ornic_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct ornic_cq *cq = to_ornic_cq(ibcq);
	int n;

	if (ne < 0)
		return -EINVAL;
	pthread_spin_lock(&cq->lock);
	for (n = 0; n < ne; n++) {
		if (ornic_cq_next(cq))
			break;
		ornic_cqe_to_wc(&cq->cur, &wc[n]);
	}
	pthread_spin_unlock(&cq->lock);
	return n;
}

int ornic_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct ornic_cq *cq = to_ornic_cq(ibcq);

	pthread_spin_lock(&cq->lock);
	ornic_cq_report_ci(cq, solicited_only ? ORNIC_DB_FLAG_ARM_SOLICITED :
						ORNIC_DB_FLAG_ARM_NEXT);
	pthread_spin_unlock(&cq->lock);
	return 0;
}

/* ibv_cq_ex polling: the lock is held from a successful start to end_poll. */
static void ornic_cqx_publish(struct ornic_cq *cq)
{
	cq->vcq.cq_ex.wr_id = le64toh(cq->cur.wr_id);
	cq->vcq.cq_ex.status = ornic_wc_status(cq->cur.status);
}

static int ornic_start_poll(struct ibv_cq_ex *ibcqx,
			    struct ibv_poll_cq_attr *attr)
{
	struct ornic_cq *cq = to_ornic_cq_ex(ibcqx);

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	if (ornic_cq_next(cq)) {
		pthread_spin_unlock(&cq->lock);
		return ENOENT;
	}
	ornic_cqx_publish(cq);
	return 0;
}

static int ornic_next_poll(struct ibv_cq_ex *ibcqx)
{
	struct ornic_cq *cq = to_ornic_cq_ex(ibcqx);

	if (ornic_cq_next(cq))
		return ENOENT;
	ornic_cqx_publish(cq);
	return 0;
}

static void ornic_end_poll(struct ibv_cq_ex *ibcqx)
{
	pthread_spin_unlock(&to_ornic_cq_ex(ibcqx)->lock);
}

static enum ibv_wc_opcode ornic_read_opcode(struct ibv_cq_ex *ibcqx)
{
	return ornic_wc_opcode(to_ornic_cq_ex(ibcqx)->cur.opcode);
}

static uint32_t ornic_read_vendor_err(struct ibv_cq_ex *ibcqx)
{
	return to_ornic_cq_ex(ibcqx)->cur.vendor_err;
}

static uint32_t ornic_read_byte_len(struct ibv_cq_ex *ibcqx)
{
	return le32toh(to_ornic_cq_ex(ibcqx)->cur.byte_len);
}

static __be32 ornic_read_imm_data(struct ibv_cq_ex *ibcqx)
{
	const struct ornic_cqe *cqe = &to_ornic_cq_ex(ibcqx)->cur;

	if (cqe->flags & ORNIC_CQE_FLAG_INV)
		return htobe32(le32toh((__force __le32)cqe->imm_data));
	return cqe->imm_data;
}

static uint32_t ornic_read_qp_num(struct ibv_cq_ex *ibcqx)
{
	return le32toh(to_ornic_cq_ex(ibcqx)->cur.qpn) & ORNIC_QPN_MASK;
}

static uint32_t ornic_read_src_qp(struct ibv_cq_ex *ibcqx)
{
	const struct ornic_cqe *cqe = &to_ornic_cq_ex(ibcqx)->cur;

	if (ornic_cqe_is_xrc(cqe))
		return 0;
	return le32toh(cqe->src_qp) & ORNIC_QPN_MASK;
}

static unsigned int ornic_read_wc_flags(struct ibv_cq_ex *ibcqx)
{
	return ornic_wc_flags(&to_ornic_cq_ex(ibcqx)->cur);
}

static uint32_t ornic_read_slid(struct ibv_cq_ex *ibcqx)
{
	return 0;	/* RoCE: no LIDs */
}

static uint8_t ornic_read_sl(struct ibv_cq_ex *ibcqx)
{
	return 0;
}

static uint8_t ornic_read_dlid_path_bits(struct ibv_cq_ex *ibcqx)
{
	return 0;
}

static void ornic_cq_ex_init(struct ornic_cq *cq, uint64_t wc_flags)
{
	struct ibv_cq_ex *x = &cq->vcq.cq_ex;

	x->start_poll = ornic_start_poll;
	x->next_poll = ornic_next_poll;
	x->end_poll = ornic_end_poll;
	x->read_opcode = ornic_read_opcode;
	x->read_vendor_err = ornic_read_vendor_err;
	x->read_wc_flags = ornic_read_wc_flags;
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		x->read_byte_len = ornic_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		x->read_imm_data = ornic_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		x->read_qp_num = ornic_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		x->read_src_qp = ornic_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		x->read_slid = ornic_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		x->read_sl = ornic_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		x->read_dlid_path_bits = ornic_read_dlid_path_bits;
}

static struct ornic_cq *
ornic_cq_create(struct ibv_context *ibctx, const struct ibv_cq_init_attr_ex *in)
{
	struct ornic_context *ctx = to_ornic_ctx(ibctx);
	struct ornic_create_cq_resp resp = {};
	struct ornic_create_cq cmd = {};
	struct ibv_cq_init_attr_ex attr = *in;
	struct ornic_cq *cq;
	uint32_t want, log;
	int err;

	if (in->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS ||
	    ((in->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (in->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED)) ||
	    (in->wc_flags & ~(uint64_t)IBV_WC_STANDARD_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!in->cqe || in->cqe > ctx->max_cqe) {
		errno = EINVAL;
		return NULL;
	}

	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}

	/*
	 * Twice the CQEs asked for (within the device limit): the consumer
	 * index then needs a doorbell only every depth - cqe CQEs.
	 */
	want = in->cqe * 2 > ctx->max_cqe ? ctx->max_cqe : in->cqe * 2;
	log = ornic_log2_depth(want);
	if ((1U << log) > ctx->max_cqe)
		log--;
	if ((1U << log) < in->cqe) {
		errno = EINVAL;
		goto err_free;
	}
	err = ornic_ring_alloc(&cq->ring, log, ORNIC_CQE_SIZE);
	if (err) {
		errno = err;
		goto err_free;
	}

	cmd.log_depth = log;
	cmd.buf_addr = (uintptr_t)cq->ring.buf;
	cmd.buf_size = cq->ring.buf_size;
	/* Only the kernel's part of the attributes goes down. */
	attr.comp_mask = 0;
	attr.flags = 0;
	attr.wc_flags = 0;
	err = ibv_cmd_create_cq_ex(ibctx, &attr, &cq->vcq, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp),
				   0);
	if (err) {
		errno = err;
		goto err_ring;
	}
	if (resp.log_depth != log) {
		verbs_err(&ctx->ibvctx,
			  "ornic: kernel programmed CQ depth 2^%u, asked 2^%u\n",
			  resp.log_depth, log);
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		errno = EPROTO;
		goto err_ring;
	}
	cq->cqn = resp.cqn;
	cq->db_batch = (1U << log) - in->cqe;
	if (!cq->db_batch)
		cq->db_batch = 1;
	cq->vcq.cq.cqe = in->cqe;
	if (pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE)) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		errno = ENOMEM;
		goto err_ring;
	}
	ornic_cq_ex_init(cq, in->wc_flags);
	return cq;

err_ring:
	ornic_ring_free(&cq->ring);
err_free:
	free(cq);
	return NULL;
}

struct ibv_cq *ornic_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = cqe,
		.channel = channel,
		.comp_vector = comp_vector,
	};
	struct ornic_cq *cq;

	if (cqe <= 0 || comp_vector < 0) {
		errno = EINVAL;
		return NULL;
	}
	cq = ornic_cq_create(ibctx, &attr);
	return cq ? &cq->vcq.cq : NULL;
}

struct ibv_cq_ex *ornic_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr)
{
	struct ornic_cq *cq = ornic_cq_create(ibctx, attr);

	return cq ? &cq->vcq.cq_ex : NULL;
}

int ornic_destroy_cq(struct ibv_cq *ibcq)
{
	struct ornic_cq *cq = to_ornic_cq(ibcq);
	int err;

	err = ibv_cmd_destroy_cq(ibcq);
	if (err)
		return err;
	pthread_spin_destroy(&cq->lock);
	ornic_ring_free(&cq->ring);
	free(cq);
	return 0;
}
