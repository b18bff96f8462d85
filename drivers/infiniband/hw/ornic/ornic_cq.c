// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: user CQs.  The provider allocates the CQE ring and arms the CQ
 * with doorbells on its context's page; the kernel pins the ring, creates
 * the CQ on a completion EQ chosen by comp_vector and turns its COMPLETION
 * EQEs into comp_handler calls (uverbs: completion channel events).
 * IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION (the provider asks for it when the
 * application wants completion timestamps) creates a timestamped CQ: 64-byte
 * CQEs carrying the device clock (ORNIC_CAP_CQE_TIMESTAMP).  With
 * ORNIC_CAP_RESIZE the provider can move a CQ to a new ring (RESIZE_CQ).
 * With ORNIC_IBV_CREATE_CQ_DB_RECORD (ORNIC_CAP_CQ_DB_RECORD) the ring ends
 * with a consumer record the provider writes as it polls.
 * Kernel CQs live in ornic_cq_kernel.c.
 */
#include <kunit/visibility.h>
#include <rdma/ornic-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "ornic_res.h"

/*
 * A user CQ's flags (a timestamped CQ needs ORNIC_CAP_CQE_TIMESTAMP) and
 * completion vector: the CREATE_CQ flags, or a negative errno.
 */
static int ornic_user_cq_flags(struct ornic_dev *dev,
			       const struct ib_cq_init_attr *attr)
{
	int flags = 0;

	if (attr->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION) {
		ibdev_dbg(&dev->ibdev, "CQ flags %#x: only %#x supported\n",
			  attr->flags, IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION);
		return -EOPNOTSUPP;
	}
	if (attr->flags & IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION) {
		if (!(dev->caps & ORNIC_CAP_CQE_TIMESTAMP)) {
			ibdev_dbg(&dev->ibdev,
				  "CQ timestamps: device lacks CQE_TIMESTAMP\n");
			return -EOPNOTSUPP;
		}
		flags |= ORNIC_CQ_FLAG_TIMESTAMP;
	}
	/*
	 * Every CQ of an InfiniBand port has 64-byte entries (spec:
	 * infiniband.rst "Completions"); the provider sizes its ring so.
	 */
	if (ornic_is_ib(dev))
		flags |= ORNIC_CQ_FLAG_TIMESTAMP;
	if (!dev->num_ceqs || attr->comp_vector >= dev->num_ceqs) {
		ibdev_dbg(&dev->ibdev, "CQ comp_vector %d (device has %u)\n",
			  attr->comp_vector, dev->num_ceqs);
		return -EINVAL;
	}
	return flags;
}

/* Bytes of a user CQ's ring of 2^log_depth entries, with its record. */
static size_t ornic_user_cq_bytes(const struct ornic_user_cq *ucq,
				  u32 log_depth)
{
	return ((size_t)ucq->cqe_size << log_depth) +
	       (ucq->db_record ? sizeof(struct ornic_cq_db_record) : 0);
}

/* The provider's ring must hold the CQEs asked for, within the limits. */
static int ornic_user_cq_check(struct ornic_dev *dev,
			       const struct ib_cq_init_attr *attr,
			       const struct ornic_ibv_create_cq *req)
{
	u32 max_cqe = le32_to_cpu(dev->attr.max_cqe);

	u32 known = 0;

	if (dev->caps & ORNIC_CAP_CQ_DB_RECORD)
		known |= ORNIC_IBV_CREATE_CQ_DB_RECORD;
	if (req->comp_mask & ~known) {
		ibdev_dbg(&dev->ibdev, "CQ comp_mask %#x: only %#x supported\n",
			  req->comp_mask, known);
		return -EOPNOTSUPP;
	}
	if (req->log_depth < 1 || req->log_depth > ORNIC_CQ_LOG_DEPTH_MAX ||
	    (1ULL << req->log_depth) > max_cqe || !attr->cqe ||
	    attr->cqe > (1U << req->log_depth)) {
		ibdev_dbg(&dev->ibdev,
			  "CQ of %u CQEs in 2^%u (device max %u CQEs, 2^%u)\n",
			  attr->cqe, req->log_depth, max_cqe,
			  ORNIC_CQ_LOG_DEPTH_MAX);
		return -EINVAL;
	}
	return 0;
}

static int ornic_create_user_cq(struct ib_cq *ibcq,
				const struct ib_cq_init_attr *attr,
				struct ib_udata *udata)
{
	struct ornic_dev *dev = to_odev(ibcq->device);
	struct ornic_ibv_create_cq_resp resp = {};
	struct ornic_cq *cq = to_ocq(ibcq);
	struct ornic_user_cq *ucq = &cq->user;
	struct ornic_ibv_create_cq req;
	struct ornic_ucontext *uctx;
	struct ornic_admin_sqe sqe;
	struct ornic_mem_desc desc;
	struct ornic_pbl pbl;
	int flags, err;

	flags = ornic_user_cq_flags(dev, attr);
	if (flags < 0)
		return flags;
	err = ornic_udata_in(udata, &req, sizeof(req));
	if (err)
		return err;
	err = ornic_user_cq_check(dev, attr, &req);
	if (err)
		return err;
	uctx = rdma_udata_to_drv_context(udata, struct ornic_ucontext,
					 ibucontext);
	ucq->cqe_size = flags & ORNIC_CQ_FLAG_TIMESTAMP ? ORNIC_CQE_TS_SIZE :
							   ORNIC_CQE_SIZE;
	ucq->db_record = req.comp_mask & ORNIC_IBV_CREATE_CQ_DB_RECORD;
	if (ucq->db_record)
		flags |= ORNIC_CQ_FLAG_DB_RECORD;
	ucq->umem = ornic_ring_pin(dev, req.buf_addr, req.buf_size,
				   ornic_user_cq_bytes(ucq, req.log_depth),
				   &desc, &pbl);
	if (IS_ERR(ucq->umem))
		return PTR_ERR(ucq->umem);
	cq->eq = &dev->ceqs[attr->comp_vector];
	cq->log_depth = req.log_depth;
	mutex_init(&ucq->resize_lock);

	ornic_cmd_create_cq(&sqe, &desc, cq->log_depth, cq->eq->eqn,
			    uctx->db_page, flags);
	err = ornic_admin_simple(dev, &sqe, &cq->cqn);
	ornic_pbl_free(dev, &pbl);
	if (err)
		goto err_release;
	err = xa_insert_irq(&dev->cqs, cq->cqn, cq, GFP_KERNEL);
	if (err)
		goto err_destroy;

	ibcq->cqe = 1U << cq->log_depth;
	resp.cqn = cq->cqn;
	resp.log_depth = cq->log_depth;
	if (ucq->db_record)
		resp.comp_mask |= ORNIC_IBV_CREATE_CQ_RESP_DB_RECORD;
	err = ornic_udata_out(udata, &resp, sizeof(resp));
	if (err)
		goto err_erase;
	return 0;

err_erase:
	xa_erase_irq(&dev->cqs, cq->cqn);
	ornic_ceqs_sync(dev);
	ornic_res_sync(dev);
err_destroy:
	ornic_admin_destroy(dev, ORNIC_ADMIN_DESTROY_CQ, cq->cqn);
err_release:
	mutex_destroy(&ucq->resize_lock);
	ib_umem_release(ucq->umem);
	return err;
}

/* Kernel consumers create CQs without uverbs attributes. */
int ornic_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct uverbs_attr_bundle *attrs)
{
	if (!attrs)
		return ornic_create_kernel_cq(ibcq, attr);
	return ornic_create_user_cq(ibcq, attr, &attrs->driver_udata);
}

/*
 * RESIZE_CQ: the provider allocated the new ring and holds its CQ lock, so
 * nothing polls while the device moves the unpolled CQEs.  The old ring
 * stays pinned until the command completed (the device may write CQEs
 * into it until then, and moves them with the others).
 *
 * The device op for both kinds of CQ: a kernel CQ (no udata) comes from
 * ib_resize_cq() on kernels that have it; from 7.x, whose core has none
 * and whose uverbs only names user CQs, from a caller of the op itself.
 */
int ornic_resize_user_cq(struct ib_cq *ibcq, unsigned int cqe,
			 struct ib_udata *udata)
{
	struct ornic_dev *dev = to_odev(ibcq->device);
	struct ornic_ibv_resize_cq_resp resp = {};
	struct ornic_cq *cq = to_ocq(ibcq);
	struct ornic_ibv_resize_cq req;
	struct ornic_admin_sqe sqe;
	struct ornic_mem_desc desc;
	struct ib_umem *umem;
	struct ornic_pbl pbl;
	u32 max_cqe, moved;
	int err;

	if (cq->kernel)
		return ornic_resize_kernel_cq(ibcq, cqe);
	if (!(dev->caps & ORNIC_CAP_RESIZE))
		return -EOPNOTSUPP;
	err = ornic_udata_in(udata, &req, sizeof(req));
	if (err)
		return err;
	if (req.comp_mask || req.reserved)
		return -EOPNOTSUPP;
	max_cqe = le32_to_cpu(dev->attr.max_cqe);
	if (req.log_depth < 1 || req.log_depth > ORNIC_CQ_LOG_DEPTH_MAX ||
	    (1ULL << req.log_depth) > max_cqe || !cqe ||
	    cqe > (1U << req.log_depth)) {
		ibdev_dbg(&dev->ibdev,
			  "resize CQ %u: %u CQEs in 2^%u (device max %u)\n",
			  cq->cqn, cqe, req.log_depth, max_cqe);
		return -EINVAL;
	}

	/*
	 * A timestamped CQ stays one: its new ring has 64-byte entries too;
	 * one with a consumer record has its record past the new ring.
	 */
	umem = ornic_ring_pin(dev, req.buf_addr, req.buf_size,
			      ornic_user_cq_bytes(&cq->user, req.log_depth),
			      &desc, &pbl);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	mutex_lock(&cq->user.resize_lock);
	ornic_cmd_resize_cq(&sqe, &desc, req.log_depth, cq->cqn,
			    req.consumer_index);
	err = ornic_admin_simple(dev, &sqe, &moved);
	ornic_pbl_free(dev, &pbl);
	if (err) {
		/* More unpolled CQEs than the new depth, or a bad index. */
		ibdev_dbg(&dev->ibdev, "resize CQ %u to 2^%u from %u: %d\n",
			  cq->cqn, req.log_depth, req.consumer_index, err);
		mutex_unlock(&cq->user.resize_lock);
		ib_umem_release(umem);
		return err;
	}
	swap(cq->user.umem, umem);
	cq->log_depth = req.log_depth;
	ibcq->cqe = 1U << cq->log_depth;
	mutex_unlock(&cq->user.resize_lock);
	ib_umem_release(umem);

	resp.log_depth = req.log_depth;
	resp.moved = moved;
	return ornic_udata_out(udata, &resp, sizeof(resp));
}

#ifndef ORNIC_HAVE_IB_DMAH
/* resize_cq: ib_resize_cq() passes a kernel consumer's int unchecked. */
int ornic_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	if (cqe <= 0)
		return -EINVAL;
	return ornic_resize_user_cq(ibcq, cqe, udata);
}
#endif

static int ornic_destroy_user_cq(struct ornic_dev *dev, struct ornic_cq *cq)
{
	int err;

	err = ornic_admin_destroy(dev, ORNIC_ADMIN_DESTROY_CQ, cq->cqn);
	if (err && err != -EIO)
		return err;
	xa_erase_irq(&dev->cqs, cq->cqn);
	ornic_ceqs_sync(dev);
	ornic_res_sync(dev);
	mutex_destroy(&cq->user.resize_lock);
	ib_umem_release(cq->user.umem);
	return 0;
}

int ornic_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct ornic_cq *cq = to_ocq(ibcq);

	if (!cq->kernel)
		return ornic_destroy_user_cq(to_odev(ibcq->device), cq);
	ornic_destroy_kernel_cq(cq);
	return 0;
}

/* Completion EQ interrupt handler: a COMPLETION EQE for a user CQ. */
void ornic_cq_comp_event(struct ornic_dev *dev, struct ornic_eq *eq, u32 cqn)
{
	struct ornic_cq *cq = xa_load(&dev->cqs, cqn);

	if (!cq)
		return;		/* destroyed meanwhile, or never existed */
	/* Alive: destroy waits for every EQ (ornic_ceqs_sync()). */
	if (cq->eq != eq) {
		ornic_device_error(&dev->live, "CQN on the wrong EQ", cqn,
				   cq->eq->eqn);
		return;
	}
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

/* Async EQ (under dev->aeq_lock): CQ_ERROR, its code in data. */
void ornic_cq_async_event(struct ornic_dev *dev, const struct ornic_eqe *eqe)
{
	u32 cqn = le32_to_cpu(eqe->object);
	struct ornic_cq *cq = xa_load(&dev->cqs, cqn);
	struct ib_event ev = {
		.device = &dev->ibdev,
		.event = IB_EVENT_CQ_ERR,
	};

	dev_err_ratelimited(&dev->pdev->dev, "CQ %u error %u\n", cqn,
			    le32_to_cpu(eqe->data));
	if (!cq || !cq->ibcq.event_handler)
		return;
	ev.element.cq = &cq->ibcq;
	cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/*
 * the CQ commands (also for the driver's own rings)
 * (KUnit: ornic_cq_kunit.c).
 */

/* @flags: ORNIC_CQ_FLAG_* (TIMESTAMP: 64-byte timestamped CQEs). */
void ornic_cmd_create_cq(struct ornic_admin_sqe *sqe,
			 const struct ornic_mem_desc *mem,
			 unsigned int log_depth, u32 eqn, u16 db_page,
			 u8 flags)
{
	struct ornic_admin_create_cq *c = (struct ornic_admin_create_cq *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_CREATE_CQ);
	c->mem = *mem;
	c->eqn = cpu_to_le32(eqn);
	c->db_page = cpu_to_le16(db_page);
	c->log_depth = log_depth;
	c->flags = flags;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_create_cq);

void ornic_cmd_resize_cq(struct ornic_admin_sqe *sqe,
			 const struct ornic_mem_desc *mem,
			 unsigned int log_depth, u32 cqn, u32 consumer)
{
	struct ornic_admin_resize_cq *c = (struct ornic_admin_resize_cq *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_RESIZE_CQ);
	c->mem = *mem;
	c->cqn = cpu_to_le32(cqn);
	c->consumer = cpu_to_le32(consumer);
	c->log_depth = log_depth;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_resize_cq);
