// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: QPs of kernel consumers, among them the MAD layer's GSI QP (QPN 1)
 * that carries the CM's MADs.  Their rings are DMA-coherent driver memory
 * on the kernel doorbell page; post_send and post_recv write WQEs straight
 * into them (spec: wqe.rst).  A UD or GSI send carries its address vector
 * in the WQE (ORNIC_WQE_FLAG_AV): kernel AHs are created in atomic context
 * (the CM does so under a spinlock) where no admin command can run.  Fast
 * registration (REG_MR, LOCAL_INV) is for kernel QPs only: its page lists
 * hold DMA addresses.  A QP created with an SRQ has no RQ ring of its own:
 * its receives come from the SRQ (ornic_srq_kernel.c).
 */
#include <linux/dma-mapping.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "ornic_res.h"

static bool ornic_qp_is_ud(const struct ornic_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI ||
	       qp->ibqp.qp_type == IB_QPT_SMI;
}

/* The ring's blocks, and its doorbell record after them if it has one. */
static size_t ornic_kwq_ring_bytes(unsigned int log_depth, bool record)
{
	return ((size_t)ORNIC_WQE_BLOCK_SIZE << log_depth) +
	       (record ? sizeof(struct ornic_db_record) : 0);
}

static size_t ornic_kwq_bytes(const struct ornic_kwq *wq)
{
	return ornic_kwq_ring_bytes(wq->log_depth, wq->rec);
}

/*
 * A zeroed ring of 2^@log_depth blocks with one shadow entry per block,
 * described in @desc.  With ORNIC_CAP_DB_RECORD the ring ends with a
 * doorbell record.
 */
int ornic_kwq_alloc(struct ornic_dev *dev, struct ornic_kwq *wq,
		    unsigned int log_depth, u32 max_sge,
		    struct ornic_mem_desc *desc)
{
	bool record = dev->caps & ORNIC_CAP_DB_RECORD;

	spin_lock_init(&wq->lock);
	wq->log_depth = log_depth;
	wq->rec = NULL;
	wq->max_sge = max_sge;
	wq->pi = 0;
	wq->ci = 0;
	wq->shadow = kvcalloc(1U << log_depth, sizeof(*wq->shadow),
			      GFP_KERNEL);
	if (!wq->shadow)
		return -ENOMEM;
	wq->ring = dma_alloc_coherent(&dev->pdev->dev,
				      ornic_kwq_ring_bytes(log_depth, record),
				      &wq->dma, GFP_KERNEL);
	if (!wq->ring) {
		kvfree(wq->shadow);
		wq->shadow = NULL;
		return -ENOMEM;
	}
	/* Zeroed memory: producer 0; CREATE_QP writes kick. */
	if (record)
		wq->rec = wq->ring + ((size_t)ORNIC_WQE_BLOCK_SIZE << log_depth);
	ornic_mem_desc_contig(desc, wq->dma, ornic_kwq_bytes(wq), PAGE_SHIFT);
	return 0;
}

/*
 * Tell the device that blocks up to wq->pi are ready; the caller holds
 * wq->lock.  With a doorbell record (doorbells.rst, "Doorbell records")
 * the MMIO doorbell rings only when the device set kick: the producer
 * index is in the record before kick is read (mb()), and the device sets
 * kick before it reads the record a last time, so one of the two sees
 * the other.
 */
void ornic_kwq_notify(struct ornic_dev *dev, struct ornic_kwq *wq,
		      u32 offset, u32 qn)
{
	/* The WQEs are in memory before the device hears of them. */
	dma_wmb();
	if (wq->rec) {
		WRITE_ONCE(wq->rec->producer, cpu_to_le32(wq->pi));
		/* Store-load: the record before kick is read (see above). */
		mb();
		if (le32_to_cpu(READ_ONCE(wq->rec->kick)) !=
		    ORNIC_DB_RECORD_KICK)
			return;
	}
	ornic_ring_db(&dev->live, offset, ornic_db_value(qn, 0, wq->pi));
}

void ornic_kwq_free(struct ornic_dev *dev, struct ornic_kwq *wq)
{
	if (!wq->ring)
		return;
	dma_free_coherent(&dev->pdev->dev, ornic_kwq_bytes(wq), wq->ring,
			  wq->dma);
	wq->ring = NULL;
	wq->rec = NULL;
	kvfree(wq->shadow);
	wq->shadow = NULL;
}

/*
 * Record the WQE starting at block wq->pi; the caller holds wq->lock.  Its
 * other blocks start no WQE, whatever an earlier pass left there.
 */
static void ornic_kwq_record(struct ornic_kwq *wq, u64 wr_id, u32 blocks,
			     u32 len)
{
	struct ornic_kwq_shadow *sh = &wq->shadow[ornic_ring_slot(wq->pi,
								  wq->log_depth)];
	u32 b, slot;

	sh->wr_id = wr_id;
	sh->blocks = blocks;
	sh->len = len;
	sh->done = false;
	for (b = 1; b < blocks; b++) {
		slot = ornic_ring_slot(wq->pi + b, wq->log_depth);
		wq->shadow[slot].blocks = 0;
	}
}

/*
 * Size the rings for @init->cap, rewrite the caps with what they hold and
 * allocate them.  A UD/GSI send WQE needs one more block for its address
 * vector.
 */
static int ornic_kernel_qp_rings(struct ornic_dev *dev, struct ornic_qp *qp,
				 struct ib_qp_init_attr *init,
				 struct ornic_mem_desc *sq_desc,
				 struct ornic_mem_desc *rq_desc)
{
	u32 av_blocks = ornic_qp_is_ud(qp) ? 1 : 0;
	struct ib_qp_cap cap = init->cap;
	struct ornic_wq_limits lim;
	u32 sq_blocks;
	int sq_log, rq_log = 0, err;

	ornic_wq_limits(dev, &lim);
	if (cap.max_send_sge > lim.max_send_sge ||
	    cap.max_inline_data > lim.max_inline_data)
		return -EINVAL;
	sq_blocks = ornic_send_wqe_blocks(cap.max_send_sge,
					  cap.max_inline_data) + av_blocks;
	if (sq_blocks > lim.max_wqe_blocks)
		return -EINVAL;
	sq_log = ornic_wq_log_depth(cap.max_send_wr, sq_blocks, &lim);
	if (sq_log < 0)
		return sq_log;
	/* The caps of a WQE one block smaller, then the real count. */
	lim.max_wqe_blocks -= av_blocks;
	err = ornic_sq_caps(&cap, sq_log, &lim);
	if (err)
		return err;
	cap.max_send_wr = (1U << sq_log) / sq_blocks;
	if (init->srq) {
		/* Its receives come from the SRQ: no RQ ring, no RQ caps. */
		cap.max_recv_wr = 0;
		cap.max_recv_sge = 0;
		spin_lock_init(&qp->kern.rq.lock);
	} else {
		rq_log = ornic_wq_log_depth(cap.max_recv_wr,
					    ornic_recv_wqe_blocks(cap.max_recv_sge),
					    &lim);
		if (rq_log < 0)
			return rq_log;
		err = ornic_rq_caps(&cap, rq_log, &lim);
		if (err)
			return err;
	}

	err = ornic_kwq_alloc(dev, &qp->kern.sq, sq_log, cap.max_send_sge,
			      sq_desc);
	if (err)
		return err;
	if (!init->srq) {
		err = ornic_kwq_alloc(dev, &qp->kern.rq, rq_log,
				      cap.max_recv_sge, rq_desc);
		if (err) {
			ornic_kwq_free(dev, &qp->kern.sq);
			return err;
		}
	}
	qp->kern.max_inline = cap.max_inline_data;
	init->cap = cap;
	return 0;
}

int ornic_create_kernel_qp(struct ornic_qp *qp, struct ib_qp_init_attr *init)
{
	struct ornic_dev *dev = to_odev(qp->ibqp.device);
	struct ornic_qp_create_args args = {};
	struct ornic_admin_sqe sqe;
	int err;

	/* A kernel consumer's QP takes its receives from a kernel SRQ. */
	if (init->srq && !to_osrq(init->srq)->kernel)
		return -EINVAL;
	qp->kernel = true;
	err = ornic_kernel_qp_rings(dev, qp, init, &args.sq_mem, &args.rq_mem);
	if (err == -EINVAL)
		ornic_qp_caps_rejected(dev, &init->cap, -1, -1);
	if (err)
		return err;

	args.pdn = to_pdn(qp->ibqp.pd);
	args.send_cqn = to_ocq(init->send_cq)->cqn;
	args.recv_cqn = to_ocq(init->recv_cq)->cqn;
	args.db_page = ORNIC_DB_PAGE_KERNEL;
	args.qp_type = qp->hw_type;
	args.sq_log_depth = qp->kern.sq.log_depth;
	args.rq_log_depth = qp->kern.rq.log_depth;
	if (init->srq) {
		args.flags |= ORNIC_QP_FLAG_USE_SRQ;
		args.srqn = to_osrq(init->srq)->srqn;
	}
	if (qp->kern.sq.rec)
		args.flags |= ORNIC_QP_FLAG_DB_RECORD;
	ornic_cmd_create_qp(&sqe, &args);
	err = ornic_admin_simple(dev, &sqe, &qp->qpn);
	if (err)
		goto err_free;
	if ((init->qp_type == IB_QPT_GSI && qp->qpn != ORNIC_QPN_GSI) ||
	    (init->qp_type == IB_QPT_SMI && qp->qpn != ORNIC_QPN_SMI)) {
		ibdev_err(&dev->ibdev, "management QP (type %d) created as QPN %u\n",
			  init->qp_type, qp->qpn);
		ornic_admin_destroy(dev, ORNIC_ADMIN_DESTROY_QP, qp->qpn);
		err = -EIO;
		goto err_free;
	}
	return 0;

err_free:
	ornic_kwq_free(dev, &qp->kern.rq);
	ornic_kwq_free(dev, &qp->kern.sq);
	return err;
}

/*
 * No CQE of ours stays behind for a later QP with our QPN; the SRQ WQEs
 * that the dropped receive CQEs name are done.
 */
void ornic_kernel_qp_clean_cqs(struct ornic_qp *qp)
{
	struct ornic_kwq *srq = qp->ibqp.srq ? &to_osrq(qp->ibqp.srq)->kern :
				NULL;

	ornic_kernel_cq_clean(to_ocq(qp->ibqp.send_cq), qp->qpn, srq);
	if (qp->ibqp.recv_cq != qp->ibqp.send_cq)
		ornic_kernel_cq_clean(to_ocq(qp->ibqp.recv_cq), qp->qpn, srq);
}

/* The QP is gone from the device and from dev->qps. */
void ornic_destroy_kernel_qp(struct ornic_qp *qp)
{
	struct ornic_dev *dev = to_odev(qp->ibqp.device);

	ornic_kernel_qp_clean_cqs(qp);
	ornic_kwq_free(dev, &qp->kern.rq);
	ornic_kwq_free(dev, &qp->kern.sq);
}

/* The device reset the QP: its rings start again at index 0. */
void ornic_kernel_qp_reset(struct ornic_qp *qp)
{
	unsigned long flags;

	ornic_kernel_qp_clean_cqs(qp);
	spin_lock_irqsave(&qp->kern.sq.lock, flags);
	qp->kern.sq.pi = 0;
	qp->kern.sq.ci = 0;
	spin_unlock_irqrestore(&qp->kern.sq.lock, flags);
	spin_lock_irqsave(&qp->kern.rq.lock, flags);
	qp->kern.rq.pi = 0;
	qp->kern.rq.ci = 0;
	spin_unlock_irqrestore(&qp->kern.rq.lock, flags);
}

/* --- posting ------------------------------------------------------------- */

static int ornic_wqe_opcode_of(enum ib_wr_opcode op, u8 *hw)
{
	switch (op) {
	case IB_WR_SEND:
		*hw = ORNIC_WQE_OP_SEND;
		return 0;
	case IB_WR_SEND_WITH_IMM:
		*hw = ORNIC_WQE_OP_SEND_IMM;
		return 0;
	case IB_WR_SEND_WITH_INV:
		*hw = ORNIC_WQE_OP_SEND_INV;
		return 0;
	case IB_WR_RDMA_WRITE:
		*hw = ORNIC_WQE_OP_RDMA_WRITE;
		return 0;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		*hw = ORNIC_WQE_OP_RDMA_WRITE_IMM;
		return 0;
	case IB_WR_RDMA_READ:
		*hw = ORNIC_WQE_OP_RDMA_READ;
		return 0;
	case IB_WR_RDMA_READ_WITH_INV:
		*hw = ORNIC_WQE_OP_RDMA_READ_INV;
		return 0;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		*hw = ORNIC_WQE_OP_ATOMIC_CMP_SWP;
		return 0;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		*hw = ORNIC_WQE_OP_ATOMIC_FETCH_ADD;
		return 0;
	default:
		/* REG_MR, LOCAL_INV, LSO, ...: not on this device. */
		return -EINVAL;
	}
}

/* The opcode, if the QP's type carries it (UD: SENDs; UC: no READ/atomic). */
static int ornic_wqe_opcode(const struct ornic_qp *qp, enum ib_wr_opcode op,
			    u8 *hw)
{
	int err = ornic_wqe_opcode_of(op, hw);

	if (err)
		return err;
	/*
	 * What rdma_rw posts for READ sinks on iWARP ports (wqe.rst).  The
	 * device invalidates the sink SGE's key, as iWARP RNICs do:
	 * rdma_rw's ex.invalidate_rkey is the MR's key before it bumps it.
	 */
	if (*hw == ORNIC_WQE_OP_RDMA_READ_INV)
		return qp->hw_type == ORNIC_QPT_RC &&
		       rdma_protocol_iwarp(qp->ibqp.device, 1) ? 0 : -EINVAL;
	return ornic_qp_type_has_op(qp->hw_type, *hw) ? 0 : -EINVAL;
}

static bool ornic_hw_op_reads(u8 hw)
{
	return hw == ORNIC_WQE_OP_RDMA_READ ||
	       hw == ORNIC_WQE_OP_RDMA_READ_INV ||
	       hw == ORNIC_WQE_OP_ATOMIC_CMP_SWP ||
	       hw == ORNIC_WQE_OP_ATOMIC_FETCH_ADD;
}

static bool ornic_hw_op_atomic(u8 hw)
{
	return hw == ORNIC_WQE_OP_ATOMIC_CMP_SWP ||
	       hw == ORNIC_WQE_OP_ATOMIC_FETCH_ADD;
}

/* Copy inline data (kernel virtual addresses) into blocks @first.. */
static void ornic_copy_inline(struct ornic_kwq *wq, u32 first,
			      const struct ib_send_wr *wr)
{
	u32 off = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		const u8 *src = (const u8 *)(uintptr_t)wr->sg_list[i].addr;
		u32 len = wr->sg_list[i].length;

		while (len) {
			u32 in_blk = off % ORNIC_WQE_BLOCK_SIZE;
			u32 n = min(len, ORNIC_WQE_BLOCK_SIZE - in_blk);

			memcpy(ornic_kwq_block(wq, first +
					       off / ORNIC_WQE_BLOCK_SIZE) +
			       in_blk, src, n);
			src += n;
			off += n;
			len -= n;
		}
	}
}

static void ornic_set_sge(struct ornic_sge *dst, const struct ib_sge *src)
{
	dst->addr = cpu_to_le64(src->addr);
	dst->length = cpu_to_le32(src->length);
	dst->lkey = cpu_to_le32(src->lkey);
}

static void ornic_write_sges(struct ornic_kwq *wq, u32 first,
			     const struct ib_sge *sg, int num_sge)
{
	int i;

	for (i = 0; i < num_sge; i++) {
		struct ornic_sge *sge = ornic_kwq_block(wq, first +
						i / ORNIC_SGES_PER_BLOCK);

		ornic_set_sge(sge + i % ORNIC_SGES_PER_BLOCK, &sg[i]);
	}
}

static void ornic_write_av(struct ornic_wqe_av *dst, const struct ornic_av *av)
{
	dst->flow_label = cpu_to_le32(av->flow_label);
	dst->sgid_index = av->sgid_index;
	dst->hop_limit = av->hop_limit;
	dst->traffic_class = av->traffic_class;
	memcpy(dst->dgid, av->dgid, sizeof(dst->dgid));
	memcpy(dst->dmac, av->dmac, sizeof(dst->dmac));
	dst->udp_sport = cpu_to_le16(av->udp_sport);
	dst->dlid = cpu_to_le16(av->dlid);
	dst->sl = av->sl;
	dst->src_path_bits = av->src_path_bits;
	dst->av_flags = av->av_flags;
	dst->static_rate = av->static_rate;
}

/*
 * The @blocks blocks at wq->pi, zeroed so that reserved fields and unused
 * SGE slots read as zero; NULL when the queue has no room for them.
 */
static void *ornic_kwq_reserve(struct ornic_kwq *wq, u32 blocks)
{
	u32 b;

	if (wq->pi - wq->ci + blocks > (1U << wq->log_depth))
		return NULL;
	for (b = 0; b < blocks; b++)
		memset(ornic_kwq_block(wq, wq->pi + b), 0,
		       ORNIC_WQE_BLOCK_SIZE);
	return ornic_kwq_block(wq, wq->pi);
}

/* Block 0 fields of every send WQE; the caller checked send_flags. */
static void ornic_send_hdr(struct ornic_qp *qp, const struct ib_send_wr *wr,
			   struct ornic_send_wqe *h, u8 opcode, u32 blocks)
{
	h->opcode = opcode;
	h->num_blocks = blocks;
	h->wr_id = cpu_to_le64(wr->wr_id);
	if ((wr->send_flags & IB_SEND_SIGNALED) ||
	    qp->sq_sig_type == IB_SIGNAL_ALL_WR)
		h->flags |= ORNIC_WQE_FLAG_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		h->flags |= ORNIC_WQE_FLAG_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		h->flags |= ORNIC_WQE_FLAG_FENCE;
}

/*
 * REG_MR (two blocks: the segment and where the MR's page list is) or
 * LOCAL_INV (one block) at kern.sq.pi; the caller holds kern.sq.lock.  The
 * device runs both in order with the SQ's other WQEs.
 */
static int ornic_post_local_op(struct ornic_qp *qp,
			       const struct ib_send_wr *wr)
{
	struct ornic_dev *dev = to_odev(qp->ibqp.device);
	u32 blocks = wr->opcode == IB_WR_REG_MR ? 2 : 1, access = 0;
	struct ornic_kwq *wq = &qp->kern.sq;
	struct ornic_wqe_reg_mr_ext *ext;
	struct ornic_send_wqe *h;
	struct ornic_mr *mr = NULL;
	int err;

	if (!(dev->caps & ORNIC_CAP_FAST_REG))
		return -EINVAL;
	if (wr->send_flags & ~(IB_SEND_SIGNALED | IB_SEND_FENCE))
		return -EINVAL;
	if (wr->opcode == IB_WR_REG_MR) {
		mr = to_omr(reg_wr(wr)->mr);
		if (!mr->pages || !mr->npages || !mr->ibmr.page_size)
			return -EINVAL;
		err = ornic_access_from_ib(reg_wr(wr)->access,
					   dev->attr.atomic_cap !=
					   ORNIC_ATOMIC_NONE,
					   dev->caps & ORNIC_CAP_FLUSH,
					   &access);
		if (err)
			return -EINVAL;
	}
	h = ornic_kwq_reserve(wq, blocks);
	if (!h)
		return -ENOMEM;
	ornic_send_hdr(qp, wr, h, mr ? ORNIC_WQE_OP_REG_MR :
			ORNIC_WQE_OP_LOCAL_INV, blocks);
	if (mr) {
		h->reg_mr.key = cpu_to_le32(reg_wr(wr)->key);
		h->reg_mr.access = cpu_to_le32(access);
		h->reg_mr.page_shift = ilog2(mr->ibmr.page_size);
		h->reg_mr.num_pages = cpu_to_le32(mr->npages);
		ext = ornic_kwq_block(wq, wq->pi + 1);
		ext->pbl_addr = cpu_to_le64(mr->pages_dma);
		ext->iova = cpu_to_le64(mr->ibmr.iova);
		ext->length = cpu_to_le64(mr->ibmr.length);
	} else {
		h->invalidate_rkey = cpu_to_le32(wr->ex.invalidate_rkey);
	}
	ornic_kwq_record(wq, wr->wr_id, blocks, 0);
	wq->pi += blocks;
	return 0;
}

/*
 * Check a send WR's flags, SGE list, atomic operands and, on a UD QP, its
 * address handle (*@ah: a kernel AH) before anything is written.
 */
static int ornic_send_wr_check(struct ornic_qp *qp,
			       const struct ib_send_wr *wr, u8 hw,
			       const struct ornic_ah **ah)
{
	struct ornic_dev *dev = to_odev(qp->ibqp.device);

	if (wr->send_flags & ~(IB_SEND_SIGNALED | IB_SEND_SOLICITED |
			       IB_SEND_FENCE | IB_SEND_INLINE))
		return -EINVAL;
	if (wr->num_sge < 0 || (wr->num_sge && !wr->sg_list))
		return -EINVAL;
	if (ornic_hw_op_atomic(hw) &&
	    (dev->attr.atomic_cap == ORNIC_ATOMIC_NONE ||
	     (atomic_wr(wr)->remote_addr & 7) || wr->num_sge != 1 ||
	     wr->sg_list[0].length != 8))
		return -EINVAL;
	if (!ornic_qp_is_ud(qp))
		return 0;
	if (!ud_wr(wr)->ah || ud_wr(wr)->remote_qpn > ORNIC_QPN_MASK)
		return -EINVAL;
	*ah = to_oah(ud_wr(wr)->ah);
	return (*ah)->kernel ? 0 : -EINVAL;
}

/*
 * The send header's operation fields: the immediate or the key to
 * invalidate, then the UD address (in the block after the header), the
 * atomic operands or the RDMA target.
 */
static void ornic_send_op_fields(struct ornic_kwq *wq,
				 struct ornic_send_wqe *h,
				 const struct ib_send_wr *wr, u8 hw,
				 const struct ornic_ah *ah)
{
	if (wr->opcode == IB_WR_SEND_WITH_IMM ||
	    wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		h->imm_data = wr->ex.imm_data;
	else if (wr->opcode == IB_WR_SEND_WITH_INV)
		h->invalidate_rkey = cpu_to_le32(wr->ex.invalidate_rkey);

	if (ah) {
		h->ud.remote_qpn = cpu_to_le32(ud_wr(wr)->remote_qpn);
		/* Bit 31 set: the QP's Q_Key, as in IB and in the WQE. */
		h->ud.qkey = cpu_to_le32(ud_wr(wr)->remote_qkey);
		h->flags |= ORNIC_WQE_FLAG_AV;
		ornic_write_av(ornic_kwq_block(wq, wq->pi + 1), &ah->av);
	} else if (ornic_hw_op_atomic(hw)) {
		h->atomic.remote_addr = cpu_to_le64(atomic_wr(wr)->remote_addr);
		h->atomic.rkey = cpu_to_le32(atomic_wr(wr)->rkey);
		h->atomic.compare_add = cpu_to_le64(atomic_wr(wr)->compare_add);
		if (hw == ORNIC_WQE_OP_ATOMIC_CMP_SWP)
			h->atomic.swap = cpu_to_le64(atomic_wr(wr)->swap);
	} else if (hw != ORNIC_WQE_OP_SEND && hw != ORNIC_WQE_OP_SEND_IMM &&
		   hw != ORNIC_WQE_OP_SEND_INV) {
		h->rdma.remote_addr = cpu_to_le64(rdma_wr(wr)->remote_addr);
		h->rdma.rkey = cpu_to_le32(rdma_wr(wr)->rkey);
	}
}

/* Build one send WQE at kern.sq.pi; the caller holds kern.sq.lock. */
static int ornic_post_one_send(struct ornic_qp *qp,
			       const struct ib_send_wr *wr)
{
	bool inl = wr->send_flags & IB_SEND_INLINE;
	struct ornic_kwq *wq = &qp->kern.sq;
	const struct ornic_ah *ah = NULL;
	u32 first_data = 1, data_blocks, blocks, inline_len = 0;
	struct ornic_send_wqe *h;
	u8 hw;
	int i, err;

	if (wr->opcode == IB_WR_REG_MR || wr->opcode == IB_WR_LOCAL_INV)
		return ornic_post_local_op(qp, wr);
	err = ornic_wqe_opcode(qp, wr->opcode, &hw);
	if (err)
		return err;
	err = ornic_send_wr_check(qp, wr, hw, &ah);
	if (err)
		return err;
	if (ah)
		first_data = 2;		/* the address vector's block */
	if (inl) {
		if (ornic_hw_op_reads(hw))
			return -EINVAL;
		for (i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length >
			    qp->kern.max_inline - inline_len)
				return -EINVAL;
			inline_len += wr->sg_list[i].length;
		}
		data_blocks = ornic_wqe_inline_blocks(inline_len);
	} else {
		if (wr->num_sge > wq->max_sge)
			return -EINVAL;
		data_blocks = ornic_wqe_sge_blocks(wr->num_sge);
	}
	blocks = first_data + data_blocks;
	if (blocks > ORNIC_WQE_MAX_BLOCKS)
		return -EINVAL;
	h = ornic_kwq_reserve(wq, blocks);
	if (!h)
		return -ENOMEM;
	ornic_send_hdr(qp, wr, h, hw, blocks);
	ornic_send_op_fields(wq, h, wr, hw, ah);
	/* The MAD layer's QPs name each MAD's partition (spec: wqe.rst). */
	if (ah && qp->ibqp.qp_type != IB_QPT_UD &&
	    ornic_is_ib(to_odev(qp->ibqp.device)))
		h->ud.pkey_index = cpu_to_le16(ud_wr(wr)->pkey_index);

	if (inl) {
		h->flags |= ORNIC_WQE_FLAG_INLINE;
		h->inline_len = cpu_to_le16(inline_len);
		ornic_copy_inline(wq, wq->pi + first_data, wr);
	} else {
		h->num_sge = wr->num_sge;
		ornic_write_sges(wq, wq->pi + first_data, wr->sg_list,
				 wr->num_sge);
	}
	ornic_kwq_record(wq, wr->wr_id, blocks, 0);
	wq->pi += blocks;
	return 0;
}

static bool ornic_sq_usable(u8 state)
{
	return state != IB_QPS_RESET && state != IB_QPS_INIT &&
	       state != IB_QPS_RTR;
}

int ornic_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct ornic_dev *dev = to_odev(ibqp->device);
	struct ornic_qp *qp = to_oqp(ibqp);
	unsigned long flags;
	u32 start;
	int err = 0;

	if (!qp->kernel) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->kern.sq.lock, flags);
	start = qp->kern.sq.pi;
	if (!ornic_sq_usable(READ_ONCE(qp->state)))
		err = -EINVAL;
	for (; wr && !err; wr = wr->next) {
		err = ornic_post_one_send(qp, wr);
		if (err)
			break;
	}
	if (err)
		*bad_wr = wr;
	if (qp->kern.sq.pi != start)
		ornic_kwq_notify(dev, &qp->kern.sq, ORNIC_DB_SQ, qp->qpn);
	spin_unlock_irqrestore(&qp->kern.sq.lock, flags);
	/* A dead device flushes what was posted (ornic_poll_cq()). */
	if (ornic_dead(&dev->live) && qp->kern.sq.pi != start)
		ornic_kernel_cq_kick(ibqp->send_cq);
	return err;
}

/* One receive WQE at wq->pi (an RQ or an SRQ); the caller holds wq->lock. */
int ornic_kwq_post_one_recv(struct ornic_kwq *wq, const struct ib_recv_wr *wr)
{
	struct ornic_recv_wqe *h;
	u32 blocks;
	u64 len = 0;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > wq->max_sge ||
	    (wr->num_sge && !wr->sg_list))
		return -EINVAL;
	blocks = ornic_recv_wqe_blocks(wr->num_sge);
	h = ornic_kwq_reserve(wq, blocks);
	if (!h)
		return -ENOMEM;
	h->wr_id = cpu_to_le64(wr->wr_id);
	h->num_blocks = blocks;
	h->num_sge = wr->num_sge;
	/* ORNIC_RECV_SGES_BLOCK0 SGEs in block 0, then four per block. */
	for (i = 0; i < wr->num_sge && i < ORNIC_RECV_SGES_BLOCK0; i++)
		ornic_set_sge(&h->sge[i], &wr->sg_list[i]);
	if (wr->num_sge > ORNIC_RECV_SGES_BLOCK0)
		ornic_write_sges(wq, wq->pi + 1,
				 wr->sg_list + ORNIC_RECV_SGES_BLOCK0,
				 wr->num_sge - ORNIC_RECV_SGES_BLOCK0);
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	ornic_kwq_record(wq, wr->wr_id, blocks, min_t(u64, len, U32_MAX));
	wq->pi += blocks;
	return 0;
}

int ornic_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct ornic_dev *dev = to_odev(ibqp->device);
	struct ornic_qp *qp = to_oqp(ibqp);
	unsigned long flags;
	u32 start;
	int err = 0;

	/* With an SRQ there is no receive queue to post to. */
	if (!qp->kernel || ibqp->srq ||
	    READ_ONCE(qp->state) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->kern.rq.lock, flags);
	start = qp->kern.rq.pi;
	for (; wr; wr = wr->next) {
		err = ornic_kwq_post_one_recv(&qp->kern.rq, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	if (qp->kern.rq.pi != start)
		ornic_kwq_notify(dev, &qp->kern.rq, ORNIC_DB_RQ, qp->qpn);
	spin_unlock_irqrestore(&qp->kern.rq.lock, flags);
	if (ornic_dead(&dev->live) && qp->kern.rq.pi != start)
		ornic_kernel_cq_kick(ibqp->recv_cq);
	return err;
}
