// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: admin queue (spec: admin.rst).  Many commands in flight, each
 * waiting on its own completion; completions arrive on MSI-X vector 0 and
 * are matched by command id.  A command that does not complete within
 * ADMIN_TIMEOUT_MS declares the device dead (ornic_liveness.c), whose
 * owner then calls ornic_aq_fail_all(): the queue stops RUNNING, every
 * outstanding and later command fails with -EIO at once.
 */
#include <linux/dma-mapping.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include "ornic.h"

int ornic_aq_init(struct ornic_dev *dev)
{
	struct ornic_aq *aq = &dev->aq;
	struct device *dmadev = &dev->pdev->dev;
	u32 depth = 1U << ORNIC_AQ_LOG_DEPTH;
	u32 i;

	aq->log_depth = ORNIC_AQ_LOG_DEPTH;
	aq->state = 0;
	spin_lock_init(&aq->lock);
	sema_init(&aq->avail, depth);
	ornic_id_alloc_init(&aq->slots, aq->slot_map, depth);
	aq->sq_tail = 0;
	aq->cq_head = 0;
	aq->seq = 0;

	aq->ctx = kcalloc(depth, sizeof(*aq->ctx), GFP_KERNEL);
	if (!aq->ctx)
		return -ENOMEM;
	for (i = 0; i < depth; i++)
		init_completion(&aq->ctx[i].done);

	aq->sq = dma_alloc_coherent(dmadev, depth * ORNIC_AQ_SQE_SIZE,
				    &aq->sq_dma, GFP_KERNEL);
	if (!aq->sq)
		goto err_ctx;
	aq->cq = dma_alloc_coherent(dmadev, depth * ORNIC_AQ_CQE_SIZE,
				    &aq->cq_dma, GFP_KERNEL);
	if (!aq->cq)
		goto err_sq;

	/* Only written while DEV_CTRL.ENABLE is 0 (spec: registers.rst). */
	ornic_wr32(&dev->live, ORNIC_REG_AQ_SQ_BASE_LO,
		   lower_32_bits(aq->sq_dma));
	ornic_wr32(&dev->live, ORNIC_REG_AQ_SQ_BASE_HI,
		   upper_32_bits(aq->sq_dma));
	ornic_wr32(&dev->live, ORNIC_REG_AQ_CQ_BASE_LO,
		   lower_32_bits(aq->cq_dma));
	ornic_wr32(&dev->live, ORNIC_REG_AQ_CQ_BASE_HI,
		   upper_32_bits(aq->cq_dma));
	ornic_wr32(&dev->live, ORNIC_REG_AQ_DEPTH, depth);
	set_bit(ORNIC_AQ_STATE_RUNNING, &aq->state);
	return 0;

err_sq:
	dma_free_coherent(dmadev, depth * ORNIC_AQ_SQE_SIZE, aq->sq,
			  aq->sq_dma);
err_ctx:
	kfree(aq->ctx);
	return -ENOMEM;
}

/* Only after the device was reset: it no longer writes the rings. */
void ornic_aq_destroy(struct ornic_dev *dev)
{
	struct ornic_aq *aq = &dev->aq;
	struct device *dmadev = &dev->pdev->dev;
	u32 depth = 1U << aq->log_depth;

	clear_bit(ORNIC_AQ_STATE_RUNNING, &aq->state);
	dma_free_coherent(dmadev, depth * ORNIC_AQ_CQE_SIZE, aq->cq,
			  aq->cq_dma);
	dma_free_coherent(dmadev, depth * ORNIC_AQ_SQE_SIZE, aq->sq,
			  aq->sq_dma);
	kfree(aq->ctx);
	aq->ctx = NULL;
}

static bool ornic_aq_running(struct ornic_dev *dev)
{
	return test_bit(ORNIC_AQ_STATE_RUNNING, &dev->aq.state) &&
	       !ornic_dead(&dev->live);
}

/*
 * Consume completions; called with aq->lock held.  At most one ring's worth
 * per call: no more commands can be outstanding, so more would be a device
 * writing completions nobody asked for.  Those are counted in *@stray (the
 * last one's id in *@stray_id), for the caller to report with
 * ornic_device_error() once it dropped the lock (the device may die of it,
 * and its death takes aq->lock).  The rest waits for the next interrupt.
 */
static void ornic_aq_poll_locked(struct ornic_dev *dev, u32 *stray,
				 u16 *stray_id)
{
	struct ornic_aq *aq = &dev->aq;
	struct ornic_admin_cqe *cqe;
	struct ornic_admin_ctx *ctx;
	u32 slot, n;
	u16 id;

	*stray = 0;
	for (n = 0; n < (1U << aq->log_depth) && ornic_aq_running(dev); n++) {
		cqe = &aq->cq[ornic_ring_slot(aq->cq_head, aq->log_depth)];
		if (!ornic_ring_owned(READ_ONCE(cqe->flags), aq->cq_head,
				      aq->log_depth))
			break;
		/* The phase byte is written last: read the rest after it. */
		dma_rmb();
		id = le16_to_cpu(cqe->command_id);
		slot = ornic_cmd_id_slot(id, aq->log_depth);
		ctx = &aq->ctx[slot];
		if (ctx->busy && ctx->cmd_id == id) {
			ctx->cqe = *cqe;
			ctx->busy = false;
			complete(&ctx->done);
		} else {
			/* Stale, never issued, or already completed. */
			(*stray)++;
			*stray_id = id;
		}
		aq->cq_head++;
	}
}

/* Take the completions that arrived (vector 0, and a waiter's last look). */
void ornic_aq_process(struct ornic_dev *dev)
{
	unsigned long flags;
	u32 stray;
	u16 id = 0;

	if (!ornic_aq_running(dev))
		return;		/* reset: the rings are stale */
	spin_lock_irqsave(&dev->aq.lock, flags);
	ornic_aq_poll_locked(dev, &stray, &id);
	spin_unlock_irqrestore(&dev->aq.lock, flags);
	while (stray--)
		ornic_device_error(&dev->live, "admin completion command id",
				   id, U16_MAX);
}

/*
 * The device died (the owner's liveness handler, any context): the queue
 * stops RUNNING and every waiter returns -EIO now.
 */
void ornic_aq_fail_all(struct ornic_dev *dev)
{
	struct ornic_aq *aq = &dev->aq;
	unsigned long flags;
	u32 i;

	if (!aq->ctx)
		return;
	spin_lock_irqsave(&aq->lock, flags);
	clear_bit(ORNIC_AQ_STATE_RUNNING, &aq->state);
	for (i = 0; i < (1U << aq->log_depth); i++) {
		if (!aq->ctx[i].busy)
			continue;
		aq->ctx[i].busy = false;
		aq->ctx[i].err = -EIO;
		complete(&aq->ctx[i].done);
	}
	spin_unlock_irqrestore(&aq->lock, flags);
}

/*
 * Put @sqe on the admin SQ with a free slot's command id (the caller holds
 * one count of aq->avail): the slot, -ENODEV when the queue no longer runs
 * (the device died), -EIO when no slot is free after all.
 */
static int ornic_admin_submit(struct ornic_dev *dev,
			      struct ornic_admin_sqe *sqe)
{
	struct ornic_aq *aq = &dev->aq;
	struct ornic_admin_ctx *ctx;
	unsigned long flags;
	int slot;

	spin_lock_irqsave(&aq->lock, flags);
	if (!test_bit(ORNIC_AQ_STATE_RUNNING, &aq->state)) {
		spin_unlock_irqrestore(&aq->lock, flags);
		return -ENODEV;
	}
	slot = ornic_id_get(&aq->slots);
	if (WARN_ON_ONCE(slot < 0)) {
		spin_unlock_irqrestore(&aq->lock, flags);
		return -EIO;
	}
	ctx = &aq->ctx[slot];
	ctx->cmd_id = ornic_cmd_id_make(slot, aq->seq++, aq->log_depth);
	ctx->err = 0;
	ctx->busy = true;
	reinit_completion(&ctx->done);
	ornic_cmd_set_id(sqe, ctx->cmd_id);
	memcpy(&aq->sq[ornic_ring_slot(aq->sq_tail, aq->log_depth)], sqe,
	       sizeof(*sqe));
	aq->sq_tail++;
	/* writel() orders the SQE stores before the doorbell. */
	ornic_wr32(&dev->live, ORNIC_REG_AQ_SQ_TAIL, aq->sq_tail);
	spin_unlock_irqrestore(&aq->lock, flags);
	return slot;
}

/*
 * Wait for the completion of @sqe's command in @ctx.  False when none came
 * in time: the device is then dead.
 */
static bool ornic_admin_wait(struct ornic_dev *dev,
			     const struct ornic_admin_sqe *sqe,
			     struct ornic_admin_ctx *ctx)
{
	struct ornic_aq *aq = &dev->aq;

	if (wait_for_completion_timeout(&ctx->done,
					msecs_to_jiffies(aq->timeout_ms)))
		return true;
	/* A lost interrupt is not a dead device: look once more. */
	ornic_aq_process(dev);
	if (try_wait_for_completion(&ctx->done))
		return true;
	dev_err(&dev->pdev->dev,
		"admin command %s (id %#x) timed out after %u ms\n",
		ornic_admin_opcode_str(sqe->hdr.opcode), ctx->cmd_id,
		aq->timeout_ms);
	ornic_set_dead(&dev->live, "admin command timeout");
	/*
	 * Its death failed every waiter including us (ornic_aq_fail_all());
	 * consume that completion.  The slot is never reused: the device is
	 * dead until it is reset.
	 */
	wait_for_completion(&ctx->done);
	return false;
}

/*
 * Submit @sqe (its command id is filled in here), wait for its completion
 * and copy it to @cqe.  Returns 0 when a completion arrived (whatever its
 * status), -EIO when the device is or became dead.
 */
int ornic_admin_exec(struct ornic_dev *dev, struct ornic_admin_sqe *sqe,
		     struct ornic_admin_cqe *cqe)
{
	struct ornic_aq *aq = &dev->aq;
	struct ornic_admin_ctx *ctx;
	unsigned long flags;
	int slot, err;
	u64 start, ns;

	might_sleep();
	if (!ornic_aq_running(dev))
		goto dead;
	if (down_timeout(&aq->avail, msecs_to_jiffies(aq->timeout_ms)))
		return -EBUSY;
	start = ktime_get_ns();
	slot = ornic_admin_submit(dev, sqe);
	if (slot < 0) {
		up(&aq->avail);
		if (slot == -ENODEV)
			goto dead;
		return slot;
	}
	ctx = &aq->ctx[slot];
	if (!ornic_admin_wait(dev, sqe, ctx))
		goto dead;

	ns = ktime_get_ns() - start;
	spin_lock_irqsave(&aq->lock, flags);
	err = ctx->err;
	/* A slot failed by device death stays taken (spec: admin.rst). */
	if (!err) {
		*cqe = ctx->cqe;
		ornic_id_put(&aq->slots, slot);
		aq->completed++;
		aq->wait_ns += ns;
		aq->wait_ns_max = max(aq->wait_ns_max, ns);
	}
	spin_unlock_irqrestore(&aq->lock, flags);
	up(&aq->avail);
	if (err)
		goto dead;
	return 0;

dead:
	/*
	 * The caller frees what the command pointed to (or the object's
	 * memory) when it sees -EIO: only once the device stopped DMA.
	 */
	if (ornic_dead(&dev->live))
		ornic_wait_reset_done(&dev->live);
	return -EIO;
}

/* Execute and translate the completion status into an errno. */
int ornic_admin_simple(struct ornic_dev *dev, struct ornic_admin_sqe *sqe,
		       u32 *result0)
{
	struct ornic_admin_cqe cqe;
	u8 opcode = sqe->hdr.opcode;
	int err;

	err = ornic_admin_exec(dev, sqe, &cqe);
	if (err)
		return err;
	if (cqe.status != ORNIC_ADMIN_STATUS_SUCCESS) {
		dev_dbg(&dev->pdev->dev, "admin command %s failed: %s\n",
			ornic_admin_opcode_str(opcode),
			ornic_admin_status_str(cqe.status));
		return ornic_admin_status_errno(cqe.status);
	}
	if (result0)
		*result0 = le32_to_cpu(cqe.result0);
	return 0;
}

/* QUERY_DEVICE / QUERY_PORT into @resp (@len bytes, zero-extended). */
int ornic_admin_query(struct ornic_dev *dev, u8 opcode, void *resp, u32 len)
{
	struct device *dmadev = &dev->pdev->dev;
	struct ornic_admin_sqe sqe;
	dma_addr_t dma;
	void *buf;
	int err;

	buf = dma_alloc_coherent(dmadev, PAGE_SIZE, &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ornic_cmd_query(&sqe, opcode, dma, len);
	err = ornic_admin_simple(dev, &sqe, NULL);
	if (!err)
		memcpy(resp, buf, len);
	/*
	 * After a timeout the device was reset (ornic_admin_exec()) before we
	 * get here, so it can no longer write the buffer.
	 */
	dma_free_coherent(dmadev, PAGE_SIZE, buf, dma);
	return err;
}

/*
 * DESTROY-style commands.  A dead device owns nothing any more (it was
 * reset), so the caller may free the object's memory either way.
 */
int ornic_admin_destroy(struct ornic_dev *dev, u8 opcode, u32 handle)
{
	struct ornic_admin_sqe sqe;
	int err;

	ornic_cmd_destroy(&sqe, opcode, handle);
	err = ornic_admin_simple(dev, &sqe, NULL);
	if (err && err != -EIO)
		dev_warn(&dev->pdev->dev, "%s of handle %u failed: %d\n",
			 ornic_admin_opcode_str(opcode), handle, err);
	return err;
}
