// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic provider: building send WQEs (wqe.rst) and placing WQEs in a ring.
 *
 * Both ibv_post_send and the ibv_wr_* API build the WQE in a staging buffer
 * through these helpers, which reject what the device would fail with
 * LOC_QP_OP_ERR (the application learns it from the post, not from a CQE
 * after the QP went to ERR), then copy it into the ring block by block.
 */
#include <errno.h>
#include <string.h>

#include "ornic.h"

static int ornic_wqe_opcode(enum ibv_qp_type type, enum ibv_wr_opcode op,
			    uint8_t *hw)
{
	if (type == IBV_QPT_UD) {
		switch (op) {
		case IBV_WR_SEND:
			*hw = ORNIC_WQE_OP_SEND;
			return 0;
		case IBV_WR_SEND_WITH_IMM:
			*hw = ORNIC_WQE_OP_SEND_IMM;
			return 0;
		default:
			return EINVAL;
		}
	}
	/* Windows are bound on RC and XRC send queues only (xrc.rst). */
	if (op == IBV_WR_BIND_MW && type != IBV_QPT_RC &&
	    type != IBV_QPT_XRC_SEND)
		return EINVAL;
	/* UC carries SENDs and RDMA WRITEs only (wqe.rst). */
	if (type == IBV_QPT_UC && op != IBV_WR_SEND &&
	    op != IBV_WR_SEND_WITH_IMM && op != IBV_WR_RDMA_WRITE &&
	    op != IBV_WR_RDMA_WRITE_WITH_IMM)
		return EINVAL;
	switch (op) {
	case IBV_WR_SEND:
		*hw = ORNIC_WQE_OP_SEND;
		break;
	case IBV_WR_SEND_WITH_IMM:
		*hw = ORNIC_WQE_OP_SEND_IMM;
		break;
	case IBV_WR_SEND_WITH_INV:
		*hw = ORNIC_WQE_OP_SEND_INV;
		break;
	case IBV_WR_RDMA_WRITE:
		*hw = ORNIC_WQE_OP_RDMA_WRITE;
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		*hw = ORNIC_WQE_OP_RDMA_WRITE_IMM;
		break;
	case IBV_WR_RDMA_READ:
		*hw = ORNIC_WQE_OP_RDMA_READ;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		*hw = ORNIC_WQE_OP_ATOMIC_CMP_SWP;
		break;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		*hw = ORNIC_WQE_OP_ATOMIC_FETCH_ADD;
		break;
	case IBV_WR_LOCAL_INV:
		*hw = ORNIC_WQE_OP_LOCAL_INV;
		break;
	case IBV_WR_BIND_MW:
		*hw = ORNIC_WQE_OP_BIND_MW;
		break;
	case IBV_WR_FLUSH:
		*hw = ORNIC_WQE_OP_FLUSH;
		break;
	case IBV_WR_ATOMIC_WRITE:
		*hw = ORNIC_WQE_OP_ATOMIC_WRITE;
		break;
	default:
		return EINVAL;
	}
	return 0;
}

/* Local operations send nothing: no data, no inline, no solicited event. */
static bool ornic_op_is_local(uint8_t hw)
{
	return hw == ORNIC_WQE_OP_LOCAL_INV || hw == ORNIC_WQE_OP_BIND_MW;
}


static bool ornic_op_is_atomic(uint8_t hw)
{
	return hw == ORNIC_WQE_OP_ATOMIC_CMP_SWP ||
	       hw == ORNIC_WQE_OP_ATOMIC_FETCH_ADD;
}

/* ibv_wr_flush() arguments go to the WQE as they are. */
static_assert(IBV_FLUSH_GLOBAL == ORNIC_FLUSH_GLOBAL &&
	      IBV_FLUSH_PERSISTENT == ORNIC_FLUSH_PERSISTENT,
	      "placement type bits");

/* FLUSH and ATOMIC_WRITE: everything is in block 0, no SGE, no inline data. */
static bool ornic_op_is_bare(uint8_t hw)
{
	return hw == ORNIC_WQE_OP_FLUSH || hw == ORNIC_WQE_OP_ATOMIC_WRITE;
}

/* Opcodes that cannot take inline data. */
static bool ornic_op_reads(uint8_t hw)
{
	return hw == ORNIC_WQE_OP_RDMA_READ || ornic_op_is_atomic(hw) ||
	       ornic_op_is_bare(hw);
}

static bool ornic_op_supported(const struct ornic_context *ctx, uint8_t hw)
{
	if (ornic_op_is_atomic(hw))
		return ctx->caps & ORNIC_CAP_ATOMIC;
	if (hw == ORNIC_WQE_OP_FLUSH)
		return ctx->caps & ORNIC_CAP_FLUSH;
	if (hw == ORNIC_WQE_OP_ATOMIC_WRITE)
		return ctx->caps & ORNIC_CAP_ATOMIC_WRITE;
	return true;
}

int ornic_wqe_start(struct ornic_qp *qp, struct ornic_wqe_buf *w,
		    enum ibv_wr_opcode opcode, unsigned int send_flags,
		    uint64_t wr_id)
{
	struct ornic_send_wqe *h = &w->block[0].hdr;
	uint8_t hw;
	int err;

	/* Reserved fields and unused SGE slots must read as zero. */
	memset(w->block, 0, sizeof(w->block));
	w->num_blocks = 1;
	w->num_sge = 0;
	w->inline_len = 0;

	/*
	 * Flags with no meaning here (IBV_SEND_IP_CSUM on a RoCE QP, INLINE
	 * on a READ or an atomic, which carry no local data) are ignored, as
	 * rxe and mlx5 ignore them (Documentation/verbs/attributes.rst).
	 */
	err = ornic_wqe_opcode(qp->type, opcode, &hw);
	if (err)
		return err;
	if (ornic_op_reads(hw))
		send_flags &= ~(unsigned int)IBV_SEND_INLINE;
	if (!ornic_op_supported(to_ornic_ctx(qp->vqp.qp.context), hw))
		return EOPNOTSUPP;
	/* User QPs invalidate and bind memory windows only (wqe.rst). */
	if (ornic_op_is_local(hw)) {
		if (!(to_ornic_ctx(qp->vqp.qp.context)->caps & ORNIC_CAP_MW))
			return EOPNOTSUPP;
		if (send_flags & (IBV_SEND_INLINE | IBV_SEND_SOLICITED))
			return EINVAL;
	}

	h->opcode = hw;
	if ((send_flags & IBV_SEND_SIGNALED) || qp->sq_sig_all)
		h->flags |= ORNIC_WQE_FLAG_SIGNALED;
	if (send_flags & IBV_SEND_SOLICITED)
		h->flags |= ORNIC_WQE_FLAG_SOLICITED;
	if (send_flags & IBV_SEND_FENCE)
		h->flags |= ORNIC_WQE_FLAG_FENCE;
	if (send_flags & IBV_SEND_INLINE)
		h->flags |= ORNIC_WQE_FLAG_INLINE;
	h->wr_id = htole64(wr_id);
	return 0;
}

int ornic_wqe_set_rdma(struct ornic_wqe_buf *w, uint64_t remote_addr,
		       uint32_t rkey)
{
	struct ornic_send_wqe *h = &w->block[0].hdr;

	h->rdma.remote_addr = htole64(remote_addr);
	h->rdma.rkey = htole32(rkey);
	return 0;
}

int ornic_wqe_set_atomic(struct ornic_wqe_buf *w, uint64_t remote_addr,
			 uint32_t rkey, uint64_t compare_add, uint64_t swap)
{
	struct ornic_send_wqe *h = &w->block[0].hdr;

	/*
	 * A misaligned target is the responder's to refuse (NAK, remote
	 * invalid request), as on rxe and mlx5: the WR completes in error.
	 */
	h->atomic.remote_addr = htole64(remote_addr);
	h->atomic.rkey = htole32(rkey);
	h->atomic.compare_add = htole64(compare_add);
	if (h->opcode == ORNIC_WQE_OP_ATOMIC_CMP_SWP)
		h->atomic.swap = htole64(swap);
	return 0;
}

/* XRC_SEND QPs: the remote XRC SRQ the message is for (24 bits). */
int ornic_wqe_set_xrc_srqn(struct ornic_qp *qp, struct ornic_wqe_buf *w,
			   uint32_t remote_srqn)
{
	if (qp->type != IBV_QPT_XRC_SEND || remote_srqn > ORNIC_QPN_MASK)
		return EINVAL;
	w->block[0].hdr.xrc_srqn = htole32(remote_srqn);
	return 0;
}

int ornic_wqe_set_bind_mw(struct ornic_wqe_buf *w, struct ibv_mw *mw,
			  uint32_t rkey, const struct ibv_mw_bind_info *info)
{
	struct ornic_send_wqe *h = &w->block[0].hdr;
	const unsigned int rights = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;

	if (!mw || !info)
		return EINVAL;
	/* The new key keeps the window's index; only the variant changes. */
	if ((rkey >> ORNIC_MR_KEY_INDEX_SHIFT) !=
	    (mw->rkey >> ORNIC_MR_KEY_INDEX_SHIFT))
		return EINVAL;
	/* Zero-based windows are not implemented (memory.rst). */
	if (info->mw_access_flags & ~rights)
		return EINVAL;
	if (info->length && !info->mr)
		return EINVAL;
	h->bind_mw.mw_key = htole32(rkey);
	/* IBV_ACCESS_* rights have the ORNIC_ACCESS_* values. */
	h->bind_mw.access = htole32(info->mw_access_flags);
	if (info->length) {
		h->bind_mw.mr_key = htole32(info->mr->lkey);
		h->bind_mw.addr = htole64(info->addr);
		h->bind_mw.length = htole64(info->length);
	}
	return 0;
}

int ornic_wqe_set_local_inv(struct ornic_wqe_buf *w, uint32_t rkey)
{
	w->block[0].hdr.invalidate_rkey = htole32(rkey);
	return 0;
}

int ornic_wqe_set_flush(struct ornic_wqe_buf *w, uint64_t remote_addr,
			uint32_t rkey, size_t length, uint8_t type,
			uint8_t level)
{
	struct ornic_send_wqe *h = &w->block[0].hdr;

	/* The RETH's DMA length is 32 bits; one or both placement types. */
	if (length > UINT32_MAX || !type || (type & ~ORNIC_FLUSH_TYPE_MASK) ||
	    (level != IBV_FLUSH_RANGE && level != IBV_FLUSH_MR))
		return EINVAL;
	h->flush.remote_addr = htole64(remote_addr);
	h->flush.rkey = htole32(rkey);
	h->flush.length = htole32((uint32_t)length);
	h->flush.type = type;
	h->flush.level = level == IBV_FLUSH_MR ? ORNIC_FLUSH_MR :
						ORNIC_FLUSH_RANGE;
	return 0;
}

/*
 * The 8 bytes are stored at the target in the order they have here; the
 * alignment of remote_addr is the responder's to check (wqe.rst).
 */
void ornic_wqe_set_atomic_write(struct ornic_wqe_buf *w, uint64_t remote_addr,
				uint32_t rkey, const void *data)
{
	struct ornic_send_wqe *h = &w->block[0].hdr;

	h->atomic_write.remote_addr = htole64(remote_addr);
	h->atomic_write.rkey = htole32(rkey);
	memcpy(h->atomic_write.data, data, sizeof(h->atomic_write.data));
}

int ornic_wqe_set_ud(struct ornic_qp *qp, struct ornic_wqe_buf *w,
		     struct ibv_ah *ah, uint32_t remote_qpn,
		     uint32_t remote_qkey)
{
	struct ornic_send_wqe *h = &w->block[0].hdr;

	if (qp->type != IBV_QPT_UD)
		return EINVAL;
	if (!ah || ah->context != qp->vqp.qp.context)
		return EINVAL;
	h->ud.ah = htole32(to_ornic_ah(ah)->ah);
	/* A QPN is 24 bits: the rest is dropped, as the BTH drops it. */
	h->ud.remote_qpn = htole32(remote_qpn & ORNIC_QPN_MASK);
	/* Bit 31 means "the QP's Q_Key", as in IB and in the WQE. */
	h->ud.qkey = htole32(remote_qkey);
	return 0;
}

int ornic_wqe_add_sge(struct ornic_qp *qp, struct ornic_wqe_buf *w,
		      uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct ornic_sge *sge;
	uint32_t n = w->num_sge;

	if (w->block[0].hdr.flags & ORNIC_WQE_FLAG_INLINE)
		return EINVAL;
	if (n >= qp->sq.max_sge)
		return EINVAL;
	sge = (struct ornic_sge *)w->block[1 + n / ORNIC_SGES_PER_BLOCK].raw +
	      n % ORNIC_SGES_PER_BLOCK;
	sge->addr = htole64(addr);
	sge->length = htole32(length);
	sge->lkey = htole32(lkey);
	w->num_sge = n + 1;
	return 0;
}

int ornic_wqe_add_inline(struct ornic_qp *qp, struct ornic_wqe_buf *w,
			 const void *addr, size_t length)
{
	struct ornic_send_wqe *h = &w->block[0].hdr;
	uint8_t *data = w->block[1].raw;
	uint32_t off = w->inline_len;

	if (!(h->flags & ORNIC_WQE_FLAG_INLINE) || w->num_sge ||
	    ornic_op_reads(h->opcode))
		return EINVAL;
	if (length > qp->max_inline_data - off)
		return EINVAL;
	if (!length)
		return 0;
	memcpy(data + off, addr, length);
	w->inline_len = off + length;
	return 0;
}

int ornic_wqe_finish(struct ornic_qp *qp, struct ornic_wqe_buf *w)
{
	struct ornic_send_wqe *h = &w->block[0].hdr;

	if (ornic_op_is_atomic(h->opcode)) {
		const struct ornic_sge *sge =
			(const struct ornic_sge *)w->block[1].raw;

		/* Exactly one 8-byte SGE receives the original value. */
		if (w->num_sge != 1 || le32toh(sge->length) != 8)
			return EINVAL;
	}
	if (ornic_op_is_bare(h->opcode) && w->num_sge)
		return EINVAL;
	if (qp->type == IBV_QPT_UD && !h->ud.ah)
		return EINVAL;
	if (h->flags & ORNIC_WQE_FLAG_INLINE) {
		w->num_blocks = 1 + ornic_wqe_inline_blocks(w->inline_len);
		h->num_sge = 0;
		h->inline_len = htole16(w->inline_len);
	} else {
		w->num_blocks = 1 + ornic_wqe_sge_blocks(w->num_sge);
		h->num_sge = w->num_sge;
		h->inline_len = 0;
	}
	h->num_blocks = w->num_blocks;
	return 0;
}

/* Copy a finished WQE to the ring at pi; the caller holds the queue lock. */
int ornic_wqe_commit(struct ornic_wq *wq, const struct ornic_wqe_buf *w)
{
	uint32_t ci = __atomic_load_n(&wq->ci, __ATOMIC_ACQUIRE);
	uint32_t depth = wq->ring.mask + 1;
	uint32_t b;

	if (wq->pi - ci + w->num_blocks > depth)
		return ENOMEM;
	for (b = 0; b < w->num_blocks; b++)
		memcpy((uint8_t *)wq->ring.buf +
		       (size_t)((wq->pi + b) & wq->ring.mask) *
		       ORNIC_WQE_BLOCK_SIZE,
		       w->block[b].raw, ORNIC_WQE_BLOCK_SIZE);
	__atomic_store_n(&wq->pi, wq->pi + w->num_blocks, __ATOMIC_RELEASE);
	return 0;
}
