// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: CQs of kernel consumers (the MAD layer's GSI QP, the CM, ULPs).
 * The CQE ring is DMA-coherent driver memory on the kernel doorbell page;
 * poll_cq reads CQEs under the CQ's lock, retires the WQEs they name in
 * their QP's queue (or its SRQ) and reports the consumer index back every
 * half ring and whenever the CQ is armed.  With ORNIC_CAP_RESIZE a kernel
 * CQ moves to a new ring (RESIZE_CQ) while its consumer goes on polling.
 */
#include <kunit/visibility.h>
#include <linux/if_vlan.h>
#include <rdma/ib_verbs.h>

#include "ornic_res.h"

/* Kernel CQs need no more than this (a DMA-contiguous ring of 512 KiB). */
#define ORNIC_KERNEL_CQ_LOG_DEPTH_MAX	14

static void ornic_kernel_cq_comp(struct ornic_cq_ring *ring)
{
	struct ornic_cq *cq = container_of(ring, struct ornic_cq, kern.ring);

	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

/*
 * On a dead device, work posted to a kernel QP completes (as flushes) with
 * no interrupt to say so: tell the CQ's consumer, as the device would, and
 * only if it armed the CQ (a consumer that polls directly never does and
 * must not be called).  Any context.
 */
void ornic_kernel_cq_kick(struct ib_cq *ibcq)
{
	struct ornic_cq *cq = to_ocq(ibcq);
	unsigned long flags;
	bool armed;

	spin_lock_irqsave(&cq->kern.lock, flags);
	armed = cq->kern.armed;
	cq->kern.armed = false;
	spin_unlock_irqrestore(&cq->kern.lock, flags);
	if (armed)
		ornic_kernel_cq_comp(&cq->kern.ring);
}

static void ornic_kernel_cq_dead(struct ornic_cq_ring *ring)
{
	ornic_kernel_cq_kick(&container_of(ring, struct ornic_cq,
					   kern.ring)->ibcq);
}

/*
 * The log2 depth of a kernel CQ's ring for @cqe entries on a device that
 * allows @max_cqe (KUnit: ornic_cq_kunit.c), or -EINVAL.
 */
int ornic_kernel_cq_log_depth(u32 cqe, u32 max_cqe)
{
	unsigned int log_depth;

	if (!cqe || cqe > max_cqe)
		return -EINVAL;
	log_depth = max(ornic_log2_depth(cqe), 1U);
	if (log_depth > ORNIC_KERNEL_CQ_LOG_DEPTH_MAX)
		return -EINVAL;
	return log_depth;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_kernel_cq_log_depth);

int ornic_create_kernel_cq(struct ib_cq *ibcq,
			   const struct ib_cq_init_attr *attr)
{
	struct ornic_dev *dev = to_odev(ibcq->device);
	struct ornic_cq *cq = to_ocq(ibcq);
	int log_depth, err;

	if (attr->flags) {
		ibdev_dbg(&dev->ibdev, "kernel CQ flags %#x: none supported\n",
			  attr->flags);
		return -EOPNOTSUPP;
	}
	if (!dev->num_ceqs || attr->comp_vector >= dev->num_ceqs) {
		ibdev_dbg(&dev->ibdev, "CQ comp_vector %d (device has %u)\n",
			  attr->comp_vector, dev->num_ceqs);
		return -EINVAL;
	}
	log_depth = ornic_kernel_cq_log_depth(attr->cqe,
					      le32_to_cpu(dev->attr.max_cqe));
	if (log_depth < 0) {
		ibdev_dbg(&dev->ibdev,
			  "kernel CQ of %u CQEs (device max %u, ring 2^%u)\n",
			  attr->cqe, le32_to_cpu(dev->attr.max_cqe),
			  ORNIC_KERNEL_CQ_LOG_DEPTH_MAX);
		return log_depth;
	}

	spin_lock_init(&cq->kern.lock);
	mutex_init(&cq->kern.resize_lock);
	cq->kernel = true;
	cq->kern.ring.comp_handler = ornic_kernel_cq_comp;
	cq->kern.ring.dead_handler = ornic_kernel_cq_dead;
	err = ornic_cq_ring_create(dev, &cq->kern.ring, log_depth,
				   &dev->ceqs[attr->comp_vector]);
	if (err) {
		mutex_destroy(&cq->kern.resize_lock);
		return err;
	}
	cq->eq = cq->kern.ring.eq;
	cq->cqn = cq->kern.ring.cqn;
	cq->log_depth = log_depth;
	ibcq->cqe = 1U << log_depth;
	return 0;
}

void ornic_destroy_kernel_cq(struct ornic_cq *cq)
{
	ornic_cq_ring_destroy(to_odev(cq->ibcq.device), &cq->kern.ring);
	mutex_destroy(&cq->kern.resize_lock);
}

/* Under the CQ's lock, never while RESIZE_CQ runs. */
static void ornic_cq_report_ci(struct ornic_cq *cq, u64 arm)
{
	ornic_ring_db(&cq->kern.ring.dev->live, ORNIC_DB_CQ,
		      ornic_db_value(cq->cqn, arm, cq->kern.ring.ci));
	cq->kern.ci_reported = cq->kern.ring.ci;
}

/*
 * RESIZE_CQ (spec: admin.rst) of a kernel CQ.  The command sleeps, so the
 * CQ's lock is not held across it: poll_cq goes on reading the old ring
 * meanwhile, but no doorbell is rung (one about the old ring could reach
 * the device after the new one took over) and an arm waits.  The device
 * copies the CQEs from the consumer index given to slots 0.. of the new
 * ring; those polled since are its first ones.  The old ring is freed
 * only after the completion: until then the device may still write there.
 */
int ornic_resize_kernel_cq(struct ib_cq *ibcq, unsigned int cqe)
{
	struct ornic_dev *dev = to_odev(ibcq->device);
	struct ornic_cq *cq = to_ocq(ibcq);
	struct ornic_kernel_cq *kcq = &cq->kern;
	struct ornic_cq_ring next = { .dev = dev, .wide = kcq->ring.wide };
	struct ornic_admin_sqe sqe;
	struct ornic_mem_desc mem;
	u32 consumer, moved, polled;
	unsigned long flags;
	int log_depth, err;
	bool kick;

	if (!(dev->caps & ORNIC_CAP_RESIZE))
		return -EOPNOTSUPP;
	log_depth = ornic_kernel_cq_log_depth(cqe,
					      le32_to_cpu(dev->attr.max_cqe));
	if (log_depth < 0) {
		ibdev_dbg(&dev->ibdev, "resize kernel CQ %u to %u CQEs\n",
			  cq->cqn, cqe);
		return log_depth;
	}
	next.log_depth = log_depth;

	mutex_lock(&kcq->resize_lock);
	err = ornic_cq_ring_alloc(dev, &next, &mem);
	if (err)
		goto out_unlock;
	spin_lock_irqsave(&kcq->lock, flags);
	kcq->resizing = true;
	consumer = kcq->ring.ci;
	spin_unlock_irqrestore(&kcq->lock, flags);

	ornic_cmd_resize_cq(&sqe, &mem, log_depth, cq->cqn, consumer);
	err = ornic_admin_simple(dev, &sqe, &moved);

	spin_lock_irqsave(&kcq->lock, flags);
	kcq->resizing = false;
	if (err) {
		/* More unpolled CQEs than the new depth, or a dead device. */
		ibdev_dbg(&dev->ibdev, "resize kernel CQ %u to 2^%d from %u: %d\n",
			  cq->cqn, log_depth, consumer, err);
	} else {
		polled = kcq->ring.ci - consumer;
		if (moved > (1U << log_depth) || polled > moved) {
			ornic_device_error(&dev->live, "RESIZE_CQ moved", moved,
					   min(polled, 1U << log_depth));
			polled = min(polled, moved);
		}
		swap(kcq->ring.ring, next.ring);
		swap(kcq->ring.dma, next.dma);
		swap(kcq->ring.log_depth, next.log_depth);
		kcq->ring.ci = polled;
		/* The device's consumer index starts again at 0. */
		kcq->ci_reported = 0;
		cq->log_depth = log_depth;
		ibcq->cqe = 1U << log_depth;
	}
	/*
	 * What was polled meanwhile, and an arm asked for: CQEs that came in
	 * before the device was armed raise no event, so the consumer is
	 * told now if any is waiting.
	 */
	ornic_cq_report_ci(cq, kcq->arm_pending);
	kick = kcq->arm_pending && ornic_cq_ring_next(&kcq->ring);
	kcq->arm_pending = 0;
	spin_unlock_irqrestore(&kcq->lock, flags);
	if (kick)
		ornic_kernel_cq_kick(ibcq);
	ornic_cq_ring_free(dev, &next);
out_unlock:
	mutex_unlock(&kcq->resize_lock);
	return err;
}

/*
 * The WQE a CQE names is done, and on the SQ every unsignaled WQE before
 * it: move the queue's consumer index past it and return what was posted
 * there.  An index outside the posted range moves nothing: false.
 */
static bool ornic_kwq_retire(struct ornic_kwq *wq, u16 wqe_index,
			     struct ornic_kwq_shadow *posted)
{
	bool found;
	u32 idx, nb;

	spin_lock(&wq->lock);
	found = ornic_wq_index_resolve(wqe_index, wq->ci, wq->pi, &idx);
	if (found) {
		*posted = wq->shadow[ornic_ring_slot(idx, wq->log_depth)];
		nb = posted->blocks;
		if (!nb || nb > wq->pi - idx)
			nb = 1;
		wq->ci = idx + nb;
	}
	spin_unlock(&wq->lock);
	return found;
}

static enum ib_wc_opcode ornic_wc_opcode(u8 op)
{
	switch (op) {
	case ORNIC_CQE_OP_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case ORNIC_CQE_OP_RDMA_READ:
		return IB_WC_RDMA_READ;
	case ORNIC_CQE_OP_COMP_SWAP:
		return IB_WC_COMP_SWAP;
	case ORNIC_CQE_OP_FETCH_ADD:
		return IB_WC_FETCH_ADD;
	case ORNIC_CQE_OP_REG_MR:
		return IB_WC_REG_MR;
	case ORNIC_CQE_OP_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case ORNIC_CQE_OP_RECV:
		return IB_WC_RECV;
	case ORNIC_CQE_OP_RECV_RDMA_IMM:
		return IB_WC_RECV_RDMA_WITH_IMM;
	default:
		return IB_WC_SEND;
	}
}

/*
 * What a UD receive's GRH area holds, from its CQE flags: RoCEv2's IPv6 or
 * IPv4 header, or a RoCE v1 packet's own GRH (which the core reads as IB's).
 */
/* A UD receive's 802.1Q TCI (ORNIC_CQE_FLAG_VLAN), split over two fields. */
u16 ornic_cqe_vlan_tci(const struct ornic_cqe *cqe)
{
	return (u16)cqe->vlan_tci_hi << 8 | le32_to_cpu(cqe->src_qp) >> 24;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cqe_vlan_tci);

enum rdma_network_type ornic_cqe_network_type(u8 flags)
{
	if (flags & ORNIC_CQE_FLAG_ROCE_V1)
		return RDMA_NETWORK_ROCE_V1;
	return (flags & ORNIC_CQE_FLAG_IPV4) ? RDMA_NETWORK_IPV4 :
					       RDMA_NETWORK_IPV6;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cqe_network_type);

static void ornic_cqe_to_wc(const struct ornic_cqe *cqe, struct ornic_qp *qp,
			    u64 wr_id, struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	/* The device's status codes are the IB ones (spec: cqe). */
	wc->status = cqe->status <= IB_WC_GENERAL_ERR ? cqe->status :
							IB_WC_GENERAL_ERR;
	wc->opcode = ornic_wc_opcode(cqe->opcode);
	wc->vendor_err = cqe->vendor_err;
	wc->qp = &qp->ibqp;
	wc->port_num = 1;
	if (wc->status != IB_WC_SUCCESS)
		return;
	wc->byte_len = le32_to_cpu(cqe->byte_len);
	if (cqe->flags & ORNIC_CQE_FLAG_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->imm_data;
	} else if (cqe->flags & ORNIC_CQE_FLAG_INV) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey =
			le32_to_cpu((__force __le32)cqe->imm_data);
	}
	if (cqe->flags & ORNIC_CQE_FLAG_GRH) {
		wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
		wc->network_hdr_type = ornic_cqe_network_type(cqe->flags);
	}
	wc->src_qp = le32_to_cpu(cqe->src_qp) & ORNIC_QPN_MASK;
	if (cqe->flags & ORNIC_CQE_FLAG_VLAN) {
		/*
		 * The core finds a RoCE datagram's GID by its VLAN; the PCP
		 * is the SL, as on other RoCE NICs.
		 */
		u16 tci = ornic_cqe_vlan_tci(cqe);

		wc->wc_flags |= IB_WC_WITH_VLAN;
		wc->vlan_id = tci & VLAN_VID_MASK;
		wc->sl = tci >> VLAN_PRIO_SHIFT;
	}
}

/*
 * An InfiniBand port's receive (spec: infiniband.rst "Completions"): the
 * sender's LID and SL, the path bits and P_Key index it arrived with, and a
 * GRH that is IB's own rather than an IP header.
 */
void ornic_cqe_origin_to_wc(const struct ornic_cqe_ts *ts, struct ib_wc *wc)
{
	if (wc->status != IB_WC_SUCCESS || (wc->opcode != IB_WC_RECV &&
					    wc->opcode != IB_WC_RECV_RDMA_WITH_IMM))
		return;
	wc->slid = le16_to_cpu(ts->slid);
	wc->sl = ts->sl & 0xf;
	wc->dlid_path_bits = ts->dlid_path_bits;
	wc->pkey_index = le16_to_cpu(ts->pkey_index);
	wc->wc_flags &= ~IB_WC_WITH_NETWORK_HDR_TYPE;
	wc->network_hdr_type = RDMA_NETWORK_IB;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cqe_origin_to_wc);

/*
 * Check a CQE against what this CQ can hold: a known RDMA opcode, a live
 * kernel QP that completes on this CQ in that direction, and a WQE index
 * that names a posted WQE.  Returns that QP, with what was posted, or NULL
 * (the CQE is dropped and counted as a device error).
 */
static struct ornic_qp *
ornic_kernel_cqe_check(struct ornic_dev *dev, struct ornic_cq *cq,
		       const struct ornic_cqe *cqe,
		       struct ornic_kwq_shadow *posted)
{
	enum ornic_cqe_kind kind = ornic_cqe_kind(cqe->opcode);
	u32 qpn = le32_to_cpu(cqe->qpn) & ORNIC_QPN_MASK;
	u16 wqe_index = le16_to_cpu(cqe->wqe_index);
	struct ornic_qp *qp;

	if (kind != ORNIC_CQE_KIND_SEND && kind != ORNIC_CQE_KIND_RECV) {
		ornic_device_error(&dev->live, "kernel CQE opcode", cqe->opcode,
				   ORNIC_CQE_OP_RECV_RDMA_IMM);
		return NULL;
	}
	qp = xa_load(&dev->qps, qpn);
	/*
	 * A destroyed QP's CQEs were cleaned out (under this lock) before it
	 * left the table, and only the QPs of this CQ are kept alive by the
	 * lock: a CQE may name no other.
	 */
	if (!qp || !qp->kernel ||
	    (kind == ORNIC_CQE_KIND_RECV ? qp->ibqp.recv_cq :
					   qp->ibqp.send_cq) != &cq->ibcq) {
		ornic_device_error(&dev->live, "CQE QPN not on this CQ", qpn,
				   ORNIC_QPN_MASK);
		return NULL;
	}
	/* The SRQ lives while a QP of this CQ uses it. */
	if (kind == ORNIC_CQE_KIND_RECV && qp->ibqp.srq) {
		if (!ornic_ksrq_retire(&to_osrq(qp->ibqp.srq)->kern, wqe_index,
				       posted)) {
			ornic_device_error(&dev->live,
					   "CQE SRQ wqe_index not outstanding",
					   wqe_index, U16_MAX);
			return NULL;
		}
	} else if (!ornic_kwq_retire(kind == ORNIC_CQE_KIND_RECV ?
				     &qp->kern.rq : &qp->kern.sq, wqe_index,
				     posted)) {
		ornic_device_error(&dev->live, "CQE wqe_index not posted",
				   wqe_index, U16_MAX);
		return NULL;
	}
	return qp;
}

/*
 * A dead device completes nothing, so the driver does what it would have
 * done on the QP's move to ERR: every WQE still posted completes with
 * IB_WC_WR_FLUSH_ERR, in order (ib_drain_qp() then finds its drain WR).
 * Under the CQ's lock, which keeps the QPs of this CQ alive.
 */
static int ornic_kwq_flush(struct ornic_qp *qp, struct ornic_kwq *wq,
			   enum ib_wc_opcode opcode, struct ib_wc *wc, int ne)
{
	struct ornic_kwq_shadow *posted;
	int n = 0;

	spin_lock(&wq->lock);
	while (n < ne && wq->ci != wq->pi) {
		posted = &wq->shadow[ornic_ring_slot(wq->ci, wq->log_depth)];
		memset(&wc[n], 0, sizeof(wc[n]));
		wc[n].wr_id = posted->wr_id;
		wc[n].status = IB_WC_WR_FLUSH_ERR;
		wc[n].opcode = opcode;
		wc[n].qp = &qp->ibqp;
		wq->ci += clamp_t(u32, posted->blocks, 1, wq->pi - wq->ci);
		n++;
	}
	spin_unlock(&wq->lock);
	return n;
}

static bool ornic_kwq_posted(struct ornic_kwq *wq)
{
	bool posted;

	spin_lock(&wq->lock);
	posted = wq->ci != wq->pi;
	spin_unlock(&wq->lock);
	return posted;
}

/* With wc == NULL: only whether there is anything to flush (0 or 1). */
static int ornic_kernel_cq_flush(struct ornic_dev *dev, struct ornic_cq *cq,
				 struct ib_wc *wc, int ne)
{
	struct ornic_kernel_qp *kqp;
	struct ornic_qp *qp;
	unsigned long qpn;
	int n = 0;

	xa_for_each(&dev->qps, qpn, qp) {
		if (n >= ne)
			break;
		if (!qp->kernel)
			continue;
		kqp = &qp->kern;
		if (qp->ibqp.send_cq == &cq->ibcq) {
			if (!wc && ornic_kwq_posted(&kqp->sq))
				return 1;
			if (wc)
				n += ornic_kwq_flush(qp, &kqp->sq, IB_WC_SEND,
						     wc + n, ne - n);
		}
		if (qp->ibqp.recv_cq == &cq->ibcq && !qp->ibqp.srq) {
			if (!wc && ornic_kwq_posted(&kqp->rq))
				return 1;
			if (wc && n < ne)
				n += ornic_kwq_flush(qp, &kqp->rq, IB_WC_RECV,
						     wc + n, ne - n);
		}
	}
	return n;
}

int ornic_poll_cq(struct ib_cq *ibcq, int ne, struct ib_wc *wc)
{
	struct ornic_dev *dev = to_odev(ibcq->device);
	struct ornic_cq *cq = to_ocq(ibcq);
	struct ornic_kernel_cq *kcq = &cq->kern;
	struct ornic_cqe *ring_cqe, cqe;
	struct ornic_kwq_shadow posted;
	unsigned long flags;
	struct ornic_qp *qp;
	int n = 0;

	/* uverbs' POLL_CQ reaches here too; a user CQ is the provider's. */
	if (!cq->kernel)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&kcq->lock, flags);
	while (n < ne && (ring_cqe = ornic_cq_ring_next(&kcq->ring))) {
		cqe = *ring_cqe;
		kcq->ring.ci++;
		if (!kcq->resizing &&
		    kcq->ring.ci - kcq->ci_reported >= (1U << cq->log_depth) / 2)
			ornic_cq_report_ci(cq, 0);
		qp = ornic_kernel_cqe_check(dev, cq, &cqe, &posted);
		if (!qp)
			continue;
		ornic_cqe_to_wc(&cqe, qp, posted.wr_id, &wc[n]);
		if (kcq->ring.wide)
			ornic_cqe_origin_to_wc(ornic_cqe_ts_of(ring_cqe),
					       &wc[n]);
		/* More than the receive buffers hold: not data to trust. */
		if (ornic_cqe_kind(cqe.opcode) == ORNIC_CQE_KIND_RECV &&
		    wc[n].status == IB_WC_SUCCESS && wc[n].byte_len > posted.len) {
			ornic_device_error(&dev->live, "CQE byte_len",
					   wc[n].byte_len, posted.len);
			wc[n].status = IB_WC_GENERAL_ERR;
			wc[n].byte_len = 0;
		}
		n++;
	}
	if (n < ne && ornic_dead(&dev->live))
		n += ornic_kernel_cq_flush(dev, cq, wc + n, ne - n);
	spin_unlock_irqrestore(&kcq->lock, flags);
	return n;
}

int ornic_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct ornic_cq *cq = to_ocq(ibcq);
	unsigned long irqflags;
	int missed = 0;
	u64 arm;

	/* uverbs' REQ_NOTIFY_CQ: a user CQ is armed by its provider. */
	if (!cq->kernel)
		return -EOPNOTSUPP;
	arm = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
	      ORNIC_DB_FLAG_ARM_SOLICITED : ORNIC_DB_FLAG_ARM_NEXT;
	spin_lock_irqsave(&cq->kern.lock, irqflags);
	cq->kern.armed = true;
	if (!cq->kern.resizing)
		ornic_cq_report_ci(cq, arm);
	else if (cq->kern.arm_pending != ORNIC_DB_FLAG_ARM_NEXT)
		cq->kern.arm_pending = arm;	/* NEXT covers SOLICITED */
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    (ornic_cq_ring_next(&cq->kern.ring) ||
	     (ornic_dead(&to_odev(ibcq->device)->live) &&
	      ornic_kernel_cq_flush(to_odev(ibcq->device), cq, NULL, 1))))
		missed = 1;
	spin_unlock_irqrestore(&cq->kern.lock, irqflags);
	return missed;
}

/*
 * Drop the unpolled CQEs of a QP being reset or destroyed so that they are
 * neither reported afterwards nor taken for a later QP with the same QPN.
 * Other QPs' CQEs slide up over the dropped ones, each keeping the owner
 * byte of the slot it lands in; the device only writes past the last valid
 * CQE, which does not move.  A dropped receive of a QP with SRQ @srq
 * retires its SRQ WQE, which would otherwise hold the SRQ's ring forever.
 */
void ornic_kernel_cq_clean(struct ornic_cq *cq, u32 qpn,
			   struct ornic_kwq *srq)
{
	struct ornic_kwq_shadow posted;
	u32 depth = 1U << cq->log_depth, end, i, dropped = 0;
	struct ornic_cq_ring *ring = &cq->kern.ring;
	unsigned long flags;

	/* The device reads the ring while it resizes it: nothing moves. */
	mutex_lock(&cq->kern.resize_lock);
	spin_lock_irqsave(&cq->kern.lock, flags);
	for (end = ring->ci; end - ring->ci < depth; end++) {
		struct ornic_cqe *cqe =
			ornic_cq_ring_cqe(ring, ornic_ring_slot(end,
								cq->log_depth));

		if (!ornic_ring_owned(READ_ONCE(cqe->owner), end,
				      cq->log_depth))
			break;
	}
	dma_rmb();
	for (i = end; i != ring->ci; i--) {
		struct ornic_cqe *src =
			ornic_cq_ring_cqe(ring, ornic_ring_slot(i - 1,
								cq->log_depth));
		struct ornic_cqe *dst =
			ornic_cq_ring_cqe(ring, ornic_ring_slot(i - 1 + dropped,
								cq->log_depth));

		if ((le32_to_cpu(src->qpn) & ORNIC_QPN_MASK) == qpn) {
			if (srq && ornic_cqe_kind(src->opcode) ==
			    ORNIC_CQE_KIND_RECV)
				ornic_ksrq_retire(srq,
						  le16_to_cpu(src->wqe_index),
						  &posted);
			dropped++;
		} else if (dropped) {
			/* A wide entry moves whole, its owner byte stays. */
			if (ring->wide)
				memcpy((void *)ornic_cqe_ts_of(dst),
				       ornic_cqe_ts_of(src),
				       offsetof(struct ornic_cqe_ts, cqe));
			memcpy(dst, src, offsetof(struct ornic_cqe, owner));
		}
	}
	cq->kern.ring.ci += dropped;
	spin_unlock_irqrestore(&cq->kern.lock, flags);
	mutex_unlock(&cq->kern.resize_lock);
}

/* --- what a CQE's opcode completes (KUnit: ornic_cq_kunit.c) -------------- */

enum ornic_cqe_kind ornic_cqe_kind(u8 opcode)
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
		return ORNIC_CQE_KIND_SEND;
	case ORNIC_CQE_OP_RECV:
	case ORNIC_CQE_OP_RECV_RDMA_IMM:
		return ORNIC_CQE_KIND_RECV;
	case ORNIC_CQE_OP_ETH_TX:
	case ORNIC_CQE_OP_ETH_RX:
		return ORNIC_CQE_KIND_ETH;
	default:
		return ORNIC_CQE_KIND_INVALID;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cqe_kind);
