// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic provider: completion queues.
 *
 * The CQ ring is read straight from memory by owner phase (cqe.rst); the
 * device learns the consumer index only from CQ doorbells, which are rung
 * when arming and often enough that the device never sees the ring full
 * while the application keeps within the CQ size it asked for.
 *
 * A CQ asked for completion timestamps is created timestamped: 64-byte
 * entries whose first half holds the device clock (cqe.rst, "Timestamped
 * CQs"), the ordinary CQE in the second half.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	case ORNIC_CQE_MW_BIND_ERR:
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
	case ORNIC_CQE_OP_LOCAL_INV:
		return IBV_WC_LOCAL_INV;
	case ORNIC_CQE_OP_BIND_MW:
		return IBV_WC_BIND_MW;
	case ORNIC_CQE_OP_FLUSH:
		return IBV_WC_FLUSH;
	case ORNIC_CQE_OP_ATOMIC_WRITE:
		return IBV_WC_ATOMIC_WRITE;
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
 * posted range moves nothing and returns false.
 */
static bool ornic_wq_retire(struct ornic_wq *wq, uint16_t wqe_index,
			    bool recv)
{
	/* A reset to RESET may zero both indices under the queue's lock. */
	uint32_t ci = __atomic_load_n(&wq->ci, __ATOMIC_ACQUIRE);
	uint32_t pi = __atomic_load_n(&wq->pi, __ATOMIC_ACQUIRE);
	uint32_t idx = ci + (uint16_t)(wqe_index - (uint16_t)ci);
	const uint8_t *blk;
	uint32_t nb;

	if (idx - ci >= pi - ci)
		return false;
	blk = (const uint8_t *)wq->ring.buf +
	      (size_t)(idx & wq->ring.mask) * ORNIC_WQE_BLOCK_SIZE;
	nb = recv ? ((const struct ornic_recv_wqe *)blk)->num_blocks :
		    ((const struct ornic_send_wqe *)blk)->num_blocks;
	if (nb < 1 || nb > ORNIC_WQE_MAX_BLOCKS || nb > pi - idx)
		nb = 1;
	__atomic_store_n(&wq->ci, idx + nb, __ATOMIC_RELEASE);
	return true;
}

/* A CQE opcode a work queue completes with (cqe.rst); not Ethernet. */
static bool ornic_cqe_opcode_known(uint8_t opcode)
{
	switch (opcode) {
	case ORNIC_CQE_OP_SEND:
	case ORNIC_CQE_OP_RDMA_WRITE:
	case ORNIC_CQE_OP_RDMA_READ:
	case ORNIC_CQE_OP_COMP_SWAP:
	case ORNIC_CQE_OP_FETCH_ADD:
	case ORNIC_CQE_OP_REG_MR:
	case ORNIC_CQE_OP_LOCAL_INV:
	case ORNIC_CQE_OP_FLUSH:
	case ORNIC_CQE_OP_ATOMIC_WRITE:
	case ORNIC_CQE_OP_BIND_MW:
	case ORNIC_CQE_OP_RECV:
	case ORNIC_CQE_OP_RECV_RDMA_IMM:
		return true;
	default:
		return false;
	}
}

/* The ring entry of index @idx: a CQE, or a timestamp half then a CQE. */
static uint8_t *ornic_cq_entry(struct ornic_cq *cq, uint32_t idx)
{
	return (uint8_t *)cq->ring.buf + (size_t)(idx & cq->ring.mask) *
					 cq->cqe_size;
}

static struct ornic_cqe *ornic_cq_cqe(struct ornic_cq *cq, uint32_t idx)
{
	return (struct ornic_cqe *)(ornic_cq_entry(cq, idx) + cq->cqe_size -
				    ORNIC_CQE_SIZE);
}

static bool ornic_cqe_valid(struct ornic_cq *cq, uint32_t idx)
{
	struct ornic_cqe *cqe = ornic_cq_cqe(cq, idx);
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
 * The consumer index into the CQ's record (doorbells.rst, "CQ consumer
 * records"): the device reads it when the ring looks full to it.  Our reads
 * of the entries before it come first (release), or the device could
 * overwrite one we have not read.
 */
static void ornic_cq_write_record(struct ornic_cq *cq)
{
	atomic_thread_fence(memory_order_release);
	*(volatile __le32 *)&cq->rec->consumer = htole32(cq->ci);
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
		struct ornic_cqe *src = ornic_cq_cqe(cq, i - 1);

		if (match(src, n)) {
			dropped++;
		} else if (dropped) {
			/* The whole entry but its last byte, the owner. */
			memcpy(ornic_cq_entry(cq, i - 1 + dropped),
			       ornic_cq_entry(cq, i - 1), cq->cqe_size - 1);
		}
	}
	cq->ci += dropped;
	if (dropped && cq->rec)
		ornic_cq_write_record(cq);
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

/* A CQE that completes nothing of ours: dropped, counted, logged once. */
static void ornic_cq_bad_cqe(struct ornic_cq *cq, const char *why,
			     uint32_t value)
{
	struct ornic_context *ctx = to_ornic_ctx(cq->vcq.cq.context);

	if (!cq->bad_cqes++)
		verbs_err(&ctx->ibvctx,
			  "ornic: CQ %u: dropped a CQE with %s %u (opcode %#x, QPN %u)\n",
			  cq->cqn, why, value, cq->cur.opcode,
			  le32toh(cq->cur.qpn) & ORNIC_QPN_MASK);
}

/*
 * Take the next CQE of a live QP into cq->cur, retiring its WQE.  CQEs of
 * QPs that no longer exist are consumed and dropped.  A receive from an XRC
 * SRQ retires a WQE of that SRQ, found by the number the CQE carries: its
 * QP is an XRC target, maybe another process's.  A CQE the device should
 * not have written (unknown opcode, a QP of another CQ, a WQE index outside
 * what was posted) is dropped too: it names nothing to complete, and
 * retiring on its word would corrupt another queue.  Called with the lock.
 */
static int ornic_cq_next(struct ornic_cq *cq)
{
	struct ornic_context *ctx = to_ornic_ctx(cq->vcq.cq.context);
	uint16_t wqe_index;
	struct ornic_cqe *cqe;
	struct ornic_qp *qp;
	bool recv;

	for (;;) {
		if (!ornic_cqe_valid(cq, cq->ci))
			return ENOENT;
		cqe = ornic_cq_cqe(cq, cq->ci);
		udma_from_device_barrier();
		cq->cur = *cqe;
		if (cq->cqe_size == ORNIC_CQE_TS_SIZE) {
			const struct ornic_cqe_ts *ts = (const void *)
				ornic_cq_entry(cq, cq->ci);

			cq->cur_ts = le64toh(ts->timestamp);
			cq->cur_slid = le16toh(ts->slid);
			cq->cur_pkey_index = le16toh(ts->pkey_index);
			cq->cur_sl = ts->sl & 0xf;
			cq->cur_dlid_path_bits = ts->dlid_path_bits;
		}
		cq->ci++;
		if (cq->rec) {
			ornic_cq_write_record(cq);
		} else if (cq->ci - cq->ci_reported >= cq->db_batch) {
			udma_to_device_barrier();
			ornic_cq_report_ci(cq, 0);
		}

		if (cq->cur.opcode >= ORNIC_CQE_OP_ETH_TX)
			continue;
		if (!ornic_cqe_opcode_known(cq->cur.opcode)) {
			ornic_cq_bad_cqe(cq, "opcode", cq->cur.opcode);
			continue;
		}
		wqe_index = le16toh(cq->cur.wqe_index);
		if (ornic_cqe_is_xrc(&cq->cur)) {
			struct ornic_srq *srq = ornic_table_find(
				&ctx->xrc_srq_table,
				le32toh(cq->cur.src_qp) & ORNIC_QPN_MASK);

			if (!srq)
				continue;
			if (!ornic_srq_retire(srq, wqe_index)) {
				ornic_cq_bad_cqe(cq, "XRC SRQ wqe_index",
						 wqe_index);
				continue;
			}
			return 0;
		}
		qp = ornic_find_qp(ctx, le32toh(cq->cur.qpn) & ORNIC_QPN_MASK);
		if (!qp)
			continue;
		recv = cq->cur.opcode & ORNIC_CQE_OP_RECV;
		if ((recv ? qp->vqp.qp.recv_cq : qp->vqp.qp.send_cq) !=
		    &cq->vcq.cq) {
			ornic_cq_bad_cqe(cq, "QPN of another CQ", qp->qpn);
			continue;
		}
		if (recv && qp->srq) {
			if (!ornic_srq_retire(qp->srq, wqe_index)) {
				ornic_cq_bad_cqe(cq, "SRQ wqe_index",
						 wqe_index);
				continue;
			}
		} else if (!ornic_wq_retire(recv ? &qp->rq : &qp->sq,
					    wqe_index, recv)) {
			ornic_cq_bad_cqe(cq, "wqe_index", wqe_index);
			continue;
		}
		return 0;
	}
}

static void ornic_cqe_to_wc(const struct ornic_cq *cq, struct ibv_wc *wc)
{
	const struct ornic_cqe *cqe = &cq->cur;

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
	/* Zero on RoCE; an InfiniBand port's receives fill them (cqe.rst). */
	wc->slid = cq->cur_slid;
	wc->sl = cq->cur_sl;
	wc->dlid_path_bits = cq->cur_dlid_path_bits;
	wc->pkey_index = cq->cur_pkey_index;
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
		ornic_cqe_to_wc(cq, &wc[n]);
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

/* Zero on RoCE, which has no LIDs; an InfiniBand port's receives fill them. */
static uint32_t ornic_read_slid(struct ibv_cq_ex *ibcqx)
{
	return to_ornic_cq_ex(ibcqx)->cur_slid;
}

static uint8_t ornic_read_sl(struct ibv_cq_ex *ibcqx)
{
	return to_ornic_cq_ex(ibcqx)->cur_sl;
}

static uint8_t ornic_read_dlid_path_bits(struct ibv_cq_ex *ibcqx)
{
	return to_ornic_cq_ex(ibcqx)->cur_dlid_path_bits;
}

/* Device clock ticks (ns, ORNIC_CLOCK_KHZ) when the device wrote the CQE. */
static uint64_t ornic_read_completion_ts(struct ibv_cq_ex *ibcqx)
{
	return to_ornic_cq_ex(ibcqx)->cur_ts;
}

/* The same instant on CLOCK_REALTIME, through the offset of the CQ. */
static uint64_t ornic_read_completion_wallclock_ns(struct ibv_cq_ex *ibcqx)
{
	struct ornic_cq *cq = to_ornic_cq_ex(ibcqx);

	return cq->cur_ts + cq->wallclock_offset;
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
	if (wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		x->read_completion_ts = ornic_read_completion_ts;
	if (wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		x->read_completion_wallclock_ns =
			ornic_read_completion_wallclock_ns;
}

static int64_t ornic_timespec_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/*
 * CLOCK_REALTIME minus the device clock.  The device clock is read between
 * two CLOCK_REALTIME reads; of a few tries the tightest bracket wins, and
 * its middle is taken as the instant of the device read.  The result is as
 * good as that bracket (a trapped MMIO read: microseconds) plus whatever
 * the two clocks drift apart during the CQ's life; a step of the wall clock
 * (settimeofday) after the CQ was created is not followed.
 */
static int64_t ornic_wallclock_offset(struct ornic_context *ctx)
{
	int64_t width, best_width = INT64_MAX, offset = 0;
	struct timespec t0, t1;
	uint64_t dev;
	int i;

	for (i = 0; i < 3; i++) {
		clock_gettime(CLOCK_REALTIME, &t0);
		dev = ornic_read_clock(ctx);
		clock_gettime(CLOCK_REALTIME, &t1);
		width = ornic_timespec_ns(&t1) - ornic_timespec_ns(&t0);
		if (width >= best_width)
			continue;
		best_width = width;
		offset = ornic_timespec_ns(&t0) + width / 2 - (int64_t)dev;
	}
	return offset;
}

/* The wc_flags this context's device can honour. */
static uint64_t ornic_cq_wc_flags_supported(struct ornic_context *ctx)
{
	uint64_t flags = IBV_WC_STANDARD_FLAGS;

	if (ctx->caps & ORNIC_CAP_CQE_TIMESTAMP)
		flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
	return flags;
}

/* What the provider takes of the creation attributes; errno otherwise. */
static int ornic_cq_check(struct ornic_context *ctx,
			  const struct ibv_cq_init_attr_ex *in)
{
	if (in->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					IBV_CQ_INIT_ATTR_MASK_PD) ||
	    ((in->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (in->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED)) ||
	    (in->wc_flags & ~ornic_cq_wc_flags_supported(ctx)))
		return EOPNOTSUPP;
	if (!in->cqe || in->cqe > ctx->max_cqe)
		return EINVAL;
	/* The PD of a CQ is a parent domain of this context (its memory). */
	if ((in->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	    (!ornic_parent_domain(in->parent_domain) ||
	     in->parent_domain->context != &ctx->ibvctx.context))
		return EINVAL;
	return 0;
}

/*
 * How many CQEs between consumer index doorbells: a quarter of the room the
 * ring has beyond the CQEs asked for.  With doorbell records the device can
 * read new WQEs from memory before it has taken our last CQ doorbell, a
 * posted write still on its way; every report in flight then costs room,
 * and a batch of all the room made the device see a full ring and overflow
 * the CQ under ib_write_bw -q 4.  A quarter leaves room for three.
 */
static uint32_t ornic_cq_db_batch(uint32_t depth, uint32_t cqe)
{
	uint32_t batch = (depth - cqe) / 4;

	return batch ? batch : 1;
}

/*
 * Twice the CQEs asked for (within the device limit), so that the consumer
 * index needs a doorbell only now and then (ornic_cq_db_batch).  0 if cqe
 * cannot fit.
 */
static uint32_t ornic_cq_log_depth(struct ornic_context *ctx, uint32_t cqe)
{
	uint32_t want, log;

	want = cqe * 2 > ctx->max_cqe ? ctx->max_cqe : cqe * 2;
	log = ornic_log2_depth(want);
	if ((1U << log) > ctx->max_cqe)
		log--;
	return (1U << log) < cqe ? 0 : log;
}

/* Bytes past a new CQ's ring for its consumer record, if it gets one. */
static uint32_t ornic_cq_record_bytes(struct ornic_context *ctx)
{
	return ctx->cq_db_records ? sizeof(struct ornic_cq_db_record) : 0;
}

/* The consumer record just past the CQ's entries. */
static struct ornic_cq_db_record *ornic_cq_record(struct ornic_cq *cq)
{
	return (struct ornic_cq_db_record *)((uint8_t *)cq->ring.buf +
		((size_t)cq->cqe_size << cq->ring.log_depth));
}

static struct ornic_cq *
ornic_cq_create(struct ibv_context *ibctx, const struct ibv_cq_init_attr_ex *in)
{
	struct ornic_context *ctx = to_ornic_ctx(ibctx);
	struct ornic_create_cq_resp resp = {};
	struct ornic_create_cq cmd = {};
	struct ibv_cq_init_attr_ex attr = *in;
	struct ibv_pd *pd = NULL;
	struct ornic_cq *cq;
	uint64_t ts_flags;
	uint32_t log;
	int err;

	err = ornic_cq_check(ctx, in);
	if (err) {
		errno = err;
		return NULL;
	}
	if (in->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD)
		pd = in->parent_domain;
	ts_flags = in->wc_flags & (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
				   IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);

	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	/* Every CQ of an InfiniBand port has 64-byte entries (cqe.rst). */
	cq->cqe_size = ts_flags || (ctx->caps & ORNIC_CAP_IB) ?
		       ORNIC_CQE_TS_SIZE : ORNIC_CQE_SIZE;

	log = ornic_cq_log_depth(ctx, in->cqe);
	if (!log) {
		errno = EINVAL;
		goto err_free;
	}
	err = ornic_ring_alloc(&cq->ring, pd, ORNIC_RES_TYPE_CQ, log,
			       cq->cqe_size, ornic_cq_record_bytes(ctx));
	if (err) {
		errno = err;
		goto err_free;
	}

	if (ctx->cq_db_records)
		cmd.comp_mask |= ORNIC_IBV_CREATE_CQ_DB_RECORD;
	cmd.log_depth = log;
	cmd.buf_addr = (uintptr_t)cq->ring.buf;
	cmd.buf_size = cq->ring.buf_size;
	/*
	 * Only the kernel's part of the attributes goes down: the timestamp
	 * flags become IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION, which makes
	 * the kernel create the CQ with 64-byte timestamped entries.
	 */
	attr.comp_mask = 0;
	attr.flags = 0;
	attr.wc_flags = ts_flags;
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
	if (resp.comp_mask & ORNIC_IBV_CREATE_CQ_RESP_DB_RECORD)
		cq->rec = ornic_cq_record(cq);
	cq->db_batch = ornic_cq_db_batch(1U << log, in->cqe);
	cq->vcq.cq.cqe = in->cqe;
	if (pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE)) {
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		errno = ENOMEM;
		goto err_ring;
	}
	if (in->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		cq->wallclock_offset = ornic_wallclock_offset(ctx);
	cq->parent_domain = ornic_parent_domain(pd);
	if (cq->parent_domain)
		ornic_pd_get(cq->parent_domain);
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

/*
 * Move the CQ to a new ring (ORNIC_CAP_RESIZE).  Under the CQ lock nothing
 * polls: the device moves the CQEs from our consumer index on to slots
 * 0.. of the new ring, and we continue there from index 0.  Too many
 * unpolled CQEs for the new size fail with EINVAL and change nothing.
 */
int ornic_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct ornic_context *ctx = to_ornic_ctx(ibcq->context);
	struct ornic_cq *cq = to_ornic_cq(ibcq);
	struct ornic_resize_cq_resp resp = {};
	struct ornic_resize_cq cmd = {};
	struct ornic_ring ring = {};
	uint32_t log;
	int err;

	if (!(ctx->caps & ORNIC_CAP_RESIZE))
		return EOPNOTSUPP;
	if (cqe <= 0 || (uint32_t)cqe > ctx->max_cqe)
		return EINVAL;
	log = ornic_cq_log_depth(ctx, cqe);
	if (!log)
		return EINVAL;
	/* The same kind of ring: entry size, and the parent domain's memory. */
	err = ornic_ring_alloc(&ring,
			       cq->parent_domain ? &cq->parent_domain->ibvpd :
						   NULL,
			       ORNIC_RES_TYPE_CQ, log, cq->cqe_size,
			       cq->rec ? sizeof(*cq->rec) : 0);
	if (err)
		return err;

	pthread_spin_lock(&cq->lock);
	cmd.log_depth = log;
	cmd.buf_addr = (uintptr_t)ring.buf;
	cmd.buf_size = ring.buf_size;
	cmd.consumer_index = cq->ci;
	err = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (err) {
		pthread_spin_unlock(&cq->lock);
		ornic_ring_free(&ring);
		return err;
	}
	if (resp.log_depth != log)
		verbs_err(&ctx->ibvctx,
			  "ornic: kernel resized CQ %u to 2^%u, asked 2^%u\n",
			  cq->cqn, resp.log_depth, log);
	ornic_ring_free(&cq->ring);
	cq->ring = ring;
	if (cq->rec)
		cq->rec = ornic_cq_record(cq); /* zeroed: consumer index 0 */
	cq->ci = 0;
	cq->ci_reported = 0;
	cq->db_batch = ornic_cq_db_batch(1U << log, cqe);
	ibcq->cqe = cqe;
	pthread_spin_unlock(&cq->lock);
	return 0;
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
	if (cq->parent_domain)
		ornic_pd_put(cq->parent_domain);
	free(cq);
	return 0;
}
