// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: the async event queue (EQ 0, vector 0), completion event queues
 * (one per vector 1..n) and the kernel's own CQs.  What an EQE names is
 * handed to the handlers ornic_main.c registered (struct
 * ornic_eq_handlers); a device writing nonsense is reported to the
 * liveness layer.
 */
#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "ornic.h"

static size_t ornic_eq_bytes(struct ornic_eq *eq)
{
	return (size_t)ORNIC_EQE_SIZE << eq->log_depth;
}

static int ornic_eq_alloc(struct ornic_dev *dev, struct ornic_eq *eq,
			  unsigned int log_depth)
{
	eq->dev = dev;
	eq->log_depth = log_depth;
	eq->ci = 0;
	eq->busy_since = 0;
	eq->busy_runs = 0;
	eq->ring = dma_alloc_coherent(&dev->pdev->dev, ornic_eq_bytes(eq),
				      &eq->dma, GFP_KERNEL);
	return eq->ring ? 0 : -ENOMEM;
}

static void ornic_eq_free(struct ornic_dev *dev, struct ornic_eq *eq)
{
	dma_free_coherent(&dev->pdev->dev, ornic_eq_bytes(eq), eq->ring,
			  eq->dma);
	eq->ring = NULL;
}

/* The next EQE software owns, or NULL. */
static struct ornic_eqe *ornic_eq_next(struct ornic_eq *eq)
{
	struct ornic_eqe *eqe = &eq->ring[ornic_ring_slot(eq->ci,
							  eq->log_depth)];

	if (!ornic_ring_owned(READ_ONCE(eqe->owner), eq->ci, eq->log_depth))
		return NULL;
	dma_rmb();
	return eqe;
}

/*
 * A run over an EQ either drained it or spent its budget with more waiting
 * (@exhausted).  A device may post events faster than one run takes them,
 * but not for long: every COMPLETION needs its CQ armed again and every
 * async event a new error.  An EQ still non-empty after ORNIC_EQ_STORM_RUNS
 * back-to-back runs, or ORNIC_EQ_STORM_MS of them, is a device writing
 * endless entries (or flipping owner bits): declare it dead.  Returns true
 * when the caller should run again (not arm), false otherwise.
 */
static bool ornic_eq_run_again(struct ornic_eq *eq, bool exhausted)
{
	struct ornic_dev *dev = eq->dev;

	if (!exhausted || ornic_dead(&dev->live)) {
		eq->busy_since = 0;
		eq->busy_runs = 0;
		return false;
	}
	if (!eq->busy_runs++) {
		eq->busy_since = jiffies;
		return true;
	}
	if (eq->busy_runs >= ORNIC_EQ_STORM_RUNS ||
	    time_after(jiffies, eq->busy_since +
		       msecs_to_jiffies(ORNIC_EQ_STORM_MS))) {
		ibdev_err(&dev->ibdev,
			  "EQ %u not empty after %u runs of %u events in %u ms: event storm\n",
			  eq->eqn, eq->busy_runs, ORNIC_EQ_BUDGET,
			  jiffies_to_msecs(jiffies - eq->busy_since));
		ornic_set_dead(&dev->live, "event storm");
		return false;
	}
	return true;
}

/* --- async EQ ----------------------------------------------------------- */

static void ornic_aeq_work(struct work_struct *work);

int ornic_aeq_init(struct ornic_dev *dev,
		   const struct ornic_eq_handlers *handlers)
{
	struct ornic_eq *eq = &dev->aeq;
	int err;

	dev->eq_handlers = handlers;
	spin_lock_init(&dev->aeq_lock);
	INIT_WORK(&dev->aeq_work, ornic_aeq_work);
	err = ornic_eq_alloc(dev, eq, ORNIC_AEQ_LOG_DEPTH);
	if (err)
		return err;
	eq->eqn = 0;
	ornic_wr32(&dev->live, ORNIC_REG_AEQ_BASE_LO, lower_32_bits(eq->dma));
	ornic_wr32(&dev->live, ORNIC_REG_AEQ_BASE_HI, upper_32_bits(eq->dma));
	ornic_wr32(&dev->live, ORNIC_REG_AEQ_DEPTH, 1U << eq->log_depth);
	return 0;
}

/* After vector 0 was freed: nothing but aeq_work itself queues aeq_work. */
void ornic_aeq_destroy(struct ornic_dev *dev)
{
	cancel_work_sync(&dev->aeq_work);
	ornic_eq_free(dev, &dev->aeq);
}

/* AEQ_DB: low 16 bits of the consumer index and an arm bit. */
void ornic_aeq_arm(struct ornic_dev *dev)
{
	u32 val = (dev->aeq.ci & ORNIC_AEQ_DB_INDEX_MASK) | ORNIC_AEQ_DB_ARM;

	ornic_wr32_alive(&dev->live, ORNIC_REG_AEQ_DB, val);
}

/* Report the consumer index without arming: the device may post again. */
static void ornic_aeq_update_ci(struct ornic_dev *dev)
{
	ornic_wr32_alive(&dev->live, ORNIC_REG_AEQ_DB,
			 dev->aeq.ci & ORNIC_AEQ_DB_INDEX_MASK);
}

static void ornic_aeq_handle(struct ornic_dev *dev, struct ornic_eqe *eqe)
{
	const struct ornic_eq_handlers *h = dev->eq_handlers;

	if (eqe->type == ORNIC_EQE_DEVICE_FATAL) {
		dev_err(&dev->pdev->dev, "device reported fatal error %u\n",
			le32_to_cpu(eqe->data));
		ornic_set_dead(&dev->live, "DEVICE_FATAL event");
		return;
	}
	/* COMPLETION belongs on a completion EQ; others are unknown. */
	if (eqe->type >= ARRAY_SIZE(h->async) || !h->async[eqe->type]) {
		ornic_device_error(&dev->live, "async EQE type", eqe->type,
				   ORNIC_EQE_PAGE_FAULT);
		return;
	}
	h->async[eqe->type](dev, eqe);
}

/*
 * At most ORNIC_EQ_BUDGET events; the rest from dev->aeq_work, so that a
 * device flooding the EQ cannot hold the CPU in interrupt context.  Called
 * from the vector 0 handler, the health check and aeq_work.
 */
void ornic_aeq_process(struct ornic_dev *dev)
{
	struct ornic_eqe *eqe;
	unsigned long flags;
	u32 n = 0;

	spin_lock_irqsave(&dev->aeq_lock, flags);
	if (!dev->aeq.ring)
		goto out;
	while (n < ORNIC_EQ_BUDGET && !ornic_dead(&dev->live) &&
	       (eqe = ornic_eq_next(&dev->aeq))) {
		ornic_aeq_handle(dev, eqe);
		dev->aeq.ci++;
		n++;
	}
	if (ornic_eq_run_again(&dev->aeq, n == ORNIC_EQ_BUDGET &&
			       ornic_eq_next(&dev->aeq))) {
		ornic_aeq_update_ci(dev);
		if (!test_bit(ORNIC_FLAG_REMOVING, &dev->flags))
			queue_work(system_wq, &dev->aeq_work);
	} else if (n) {
		ornic_aeq_arm(dev);
	}
out:
	spin_unlock_irqrestore(&dev->aeq_lock, flags);
}

static void ornic_aeq_work(struct work_struct *work)
{
	ornic_aeq_process(container_of(work, struct ornic_dev, aeq_work));
}

/* --- completion EQs ------------------------------------------------------- */

static void ornic_ceq_arm(struct ornic_eq *eq)
{
	ornic_ring_db(&eq->dev->live, ORNIC_DB_EQ,
		      ornic_db_value(eq->eqn, ORNIC_DB_FLAG_ARM_NEXT, eq->ci));
}

/* Report the consumer index without arming: the device may post again. */
static void ornic_ceq_update_ci(struct ornic_eq *eq)
{
	ornic_ring_db(&eq->dev->live, ORNIC_DB_EQ,
		      ornic_db_value(eq->eqn, 0, eq->ci));
}

/* A COMPLETION EQE: only CQs attached to this EQ are looked at. */
static void ornic_ceq_handle(struct ornic_eq *eq, const struct ornic_eqe *eqe)
{
	struct ornic_dev *dev = eq->dev;
	u32 cqn = le32_to_cpu(eqe->object);
	struct ornic_cq_ring *cq;

	if (eqe->type != ORNIC_EQE_COMPLETION) {
		ornic_device_error(&dev->live, "completion EQE type", eqe->type,
				   ORNIC_EQE_COMPLETION);
		return;
	}
	cq = xa_load(&dev->cq_rings, cqn);
	if (cq) {
		/* Alive: destroy waits for every EQ (ornic_ceqs_sync()). */
		if (cq->eq != eq)
			ornic_device_error(&dev->live, "CQN on the wrong EQ",
					   cqn, cq->eq->eqn);
		else
			cq->comp_handler(cq);
		return;
	}
	dev->eq_handlers->completion(dev, eq, cqn);
}

/* One bounded run; called with eq->lock held and interrupts off. */
static void ornic_ceq_poll_locked(struct ornic_eq *eq)
{
	struct ornic_eqe *eqe;
	u32 n = 0;

	while (n < ORNIC_EQ_BUDGET && !ornic_dead(&eq->dev->live) &&
	       (eqe = ornic_eq_next(eq))) {
		ornic_ceq_handle(eq, eqe);
		eq->ci++;
		n++;
	}
	if (ornic_eq_run_again(eq, n == ORNIC_EQ_BUDGET && ornic_eq_next(eq))) {
		ornic_ceq_update_ci(eq);
		queue_work(system_wq, &eq->poll_work);
	} else {
		ornic_ceq_arm(eq);
	}
}

static irqreturn_t ornic_ceq_irq(int irq, void *data)
{
	struct ornic_eq *eq = data;

	spin_lock(&eq->lock);
	ornic_ceq_poll_locked(eq);
	spin_unlock(&eq->lock);
	return IRQ_HANDLED;
}

/*
 * The rest of a run that spent its budget.  Interrupts off as in the
 * handler (the CQs' handlers expect it); bottom halves off so that NAPI
 * polls scheduled meanwhile run when they are enabled again.
 */
static void ornic_ceq_poll_work(struct work_struct *work)
{
	struct ornic_eq *eq = container_of(work, struct ornic_eq, poll_work);

	local_bh_disable();
	spin_lock_irq(&eq->lock);
	ornic_ceq_poll_locked(eq);
	spin_unlock_irq(&eq->lock);
	local_bh_enable();
}

/*
 * After death no completion interrupt comes: each completion ring with a
 * dead_handler (each armed kernel verbs CQ) is told once, so that its
 * consumer polls the flushes of what it had posted.  Under each EQ's lock,
 * like the interrupt handler (ornic_cq_ring_destroy() waits for it).
 */
void ornic_cq_rings_kick(struct ornic_dev *dev)
{
	struct ornic_cq_ring *cq;
	unsigned long cqn;
	unsigned int i;

	for (i = 0; i < dev->num_ceqs; i++) {
		spin_lock_irq(&dev->ceqs[i].lock);
		xa_for_each(&dev->cq_rings, cqn, cq)
			if (cq->eq == &dev->ceqs[i] && cq->dead_handler)
				cq->dead_handler(cq);
		spin_unlock_irq(&dev->ceqs[i].lock);
	}
}

/*
 * Wait until no completion EQ handler (interrupt or poll_work) is delivering
 * an event any more: a CQ removed from the tables before is unreachable.
 * Every EQ, not only the CQ's own: a device may name any CQN on any EQ.
 */
void ornic_ceqs_sync(struct ornic_dev *dev)
{
	unsigned int i;

	for (i = 0; i < dev->num_ceqs; i++) {
		synchronize_irq(dev->ceqs[i].irq);
		spin_lock_irq(&dev->ceqs[i].lock);
		spin_unlock_irq(&dev->ceqs[i].lock);
	}
}

static int ornic_ceq_create(struct ornic_dev *dev, struct ornic_eq *eq,
			    u16 vector)
{
	struct ornic_admin_sqe sqe;
	struct ornic_mem_desc mem;
	u32 eqn;
	int err;

	err = ornic_eq_alloc(dev, eq, ORNIC_CEQ_LOG_DEPTH);
	if (err)
		return err;
	eq->irq = pci_irq_vector(dev->pdev, vector);
	spin_lock_init(&eq->lock);
	INIT_WORK(&eq->poll_work, ornic_ceq_poll_work);
	snprintf(eq->name, sizeof(eq->name), "ornic-ceq%u@%s", vector,
		 pci_name(dev->pdev));

	ornic_mem_desc_contig(&mem, eq->dma, ornic_eq_bytes(eq), PAGE_SHIFT);
	ornic_cmd_create_eq(&sqe, &mem, eq->log_depth, vector);
	err = ornic_admin_simple(dev, &sqe, &eqn);
	if (err)
		goto err_free;
	eq->eqn = eqn;

	err = request_irq(eq->irq, ornic_ceq_irq, 0, eq->name, eq);
	if (err)
		goto err_destroy;
	ornic_ceq_arm(eq);
	return 0;

err_destroy:
	ornic_admin_destroy(dev, ORNIC_ADMIN_DESTROY_EQ, eq->eqn);
err_free:
	ornic_eq_free(dev, eq);
	return err;
}

static void ornic_ceq_destroy(struct ornic_dev *dev, struct ornic_eq *eq)
{
	free_irq(eq->irq, eq);
	/* The handler is gone: nothing queues the work again. */
	cancel_work_sync(&eq->poll_work);
	ornic_admin_destroy(dev, ORNIC_ADMIN_DESTROY_EQ, eq->eqn);
	ornic_eq_free(dev, eq);
}

int ornic_ceqs_create(struct ornic_dev *dev)
{
	unsigned int n, i;
	int err;

	n = min3(dev->num_vectors - 1, le32_to_cpu(dev->attr.num_comp_vectors),
		 num_online_cpus());
	if (le32_to_cpu(dev->attr.max_eq) > 1)
		n = min(n, le32_to_cpu(dev->attr.max_eq) - 1);
	if (!n)
		return -ENODEV;
	dev->ceqs = kcalloc(n, sizeof(*dev->ceqs), GFP_KERNEL);
	if (!dev->ceqs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		err = ornic_ceq_create(dev, &dev->ceqs[i], i + 1);
		if (err)
			goto err_unwind;
	}
	dev->num_ceqs = n;
	return 0;

err_unwind:
	while (i--)
		ornic_ceq_destroy(dev, &dev->ceqs[i]);
	kfree(dev->ceqs);
	dev->ceqs = NULL;
	return err;
}

void ornic_ceqs_destroy(struct ornic_dev *dev)
{
	unsigned int i = dev->num_ceqs;

	while (i--)
		ornic_ceq_destroy(dev, &dev->ceqs[i]);
	dev->num_ceqs = 0;
	kfree(dev->ceqs);
	dev->ceqs = NULL;
}

/* --- the driver's completion rings --------------------------------------- */

static size_t ornic_cq_ring_entry_bytes(const struct ornic_cq_ring *cq)
{
	return cq->wide ? ORNIC_CQE_TS_SIZE : ORNIC_CQE_SIZE;
}

static size_t ornic_cq_ring_bytes(struct ornic_cq_ring *cq)
{
	return ornic_cq_ring_entry_bytes(cq) << cq->log_depth;
}

struct ornic_cqe *ornic_cq_ring_cqe(struct ornic_cq_ring *cq, u32 slot)
{
	void *entry = cq->ring + ornic_cq_ring_entry_bytes(cq) * slot;

	return cq->wide ? &((struct ornic_cqe_ts *)entry)->cqe : entry;
}

/*
 * The zeroed ring of 2^cq->log_depth entries (cq->wide: 64-byte ones) that
 * CREATE_CQ and RESIZE_CQ hand the device, and its descriptor.
 */
int ornic_cq_ring_alloc(struct ornic_dev *dev, struct ornic_cq_ring *cq,
			struct ornic_mem_desc *mem)
{
	cq->ring = dma_alloc_coherent(&dev->pdev->dev, ornic_cq_ring_bytes(cq),
				      &cq->dma, GFP_KERNEL);
	if (!cq->ring)
		return -ENOMEM;
	ornic_mem_desc_contig(mem, cq->dma, ornic_cq_ring_bytes(cq), PAGE_SHIFT);
	return 0;
}

void ornic_cq_ring_free(struct ornic_dev *dev, struct ornic_cq_ring *cq)
{
	dma_free_coherent(&dev->pdev->dev, ornic_cq_ring_bytes(cq), cq->ring,
			  cq->dma);
	cq->ring = NULL;
}

int ornic_cq_ring_create(struct ornic_dev *dev, struct ornic_cq_ring *cq,
			 unsigned int log_depth, struct ornic_eq *eq)
{
	struct ornic_admin_sqe sqe;
	struct ornic_mem_desc mem;
	u32 cqn;
	int err;

	cq->dev = dev;
	cq->eq = eq;
	cq->log_depth = log_depth;
	cq->ci = 0;
	/* spec: infiniband.rst "Completions": every CQ of an IB port is wide. */
	cq->wide = ornic_is_ib(dev);
	err = ornic_cq_ring_alloc(dev, cq, &mem);
	if (err)
		return err;

	ornic_cmd_create_cq(&sqe, &mem, log_depth, eq->eqn,
			    ORNIC_DB_PAGE_KERNEL,
			    cq->wide ? ORNIC_CQ_FLAG_TIMESTAMP : 0);
	err = ornic_admin_simple(dev, &sqe, &cqn);
	if (err)
		goto err_free;
	cq->cqn = cqn;
	err = xa_insert_irq(&dev->cq_rings, cqn, cq, GFP_KERNEL);
	if (err)
		goto err_destroy;
	return 0;

err_destroy:
	ornic_admin_destroy(dev, ORNIC_ADMIN_DESTROY_CQ, cq->cqn);
err_free:
	ornic_cq_ring_free(dev, cq);
	return err;
}

void ornic_cq_ring_destroy(struct ornic_dev *dev, struct ornic_cq_ring *cq)
{
	ornic_admin_destroy(dev, ORNIC_ADMIN_DESTROY_CQ, cq->cqn);
	xa_erase_irq(&dev->cq_rings, cq->cqn);
	/* No EQ handler may still be looking at the CQ. */
	ornic_ceqs_sync(dev);
	ornic_cq_ring_free(dev, cq);
}

struct ornic_cqe *ornic_cq_ring_next(struct ornic_cq_ring *cq)
{
	struct ornic_cqe *cqe = ornic_cq_ring_cqe(cq, ornic_ring_slot(cq->ci,
								     cq->log_depth));

	if (!ornic_ring_owned(READ_ONCE(cqe->owner), cq->ci, cq->log_depth))
		return NULL;
	dma_rmb();
	return cqe;
}

/* Report the consumer index and ask for an event on the next CQE. */
void ornic_cq_ring_arm(struct ornic_cq_ring *cq)
{
	ornic_ring_db(&cq->dev->live, ORNIC_DB_CQ,
		      ornic_db_value(cq->cqn, ORNIC_DB_FLAG_ARM_NEXT, cq->ci));
}

/*
 * the EQ's command and the EQE types the driver knows
 * (KUnit: ornic_eq_kunit.c).
 */

void ornic_cmd_create_eq(struct ornic_admin_sqe *sqe,
			 const struct ornic_mem_desc *mem,
			 unsigned int log_depth, u16 vector)
{
	struct ornic_admin_create_eq *c = (struct ornic_admin_create_eq *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_CREATE_EQ);
	c->mem = *mem;
	c->log_depth = log_depth;
	c->msix_vector = cpu_to_le16(vector);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_create_eq);

bool ornic_eqe_type_valid(u8 type)
{
	switch (type) {
	case ORNIC_EQE_COMPLETION:
	case ORNIC_EQE_QP_FATAL:
	case ORNIC_EQE_QP_REQ_ERR:
	case ORNIC_EQE_QP_ACCESS_ERR:
	case ORNIC_EQE_QP_COMM_EST:
	case ORNIC_EQE_QP_SQ_DRAINED:
	case ORNIC_EQE_QP_LAST_WQE_REACHED:
	case ORNIC_EQE_CQ_ERROR:
	case ORNIC_EQE_SRQ_ERROR:
	case ORNIC_EQE_SRQ_LIMIT:
	case ORNIC_EQE_PORT_STATE:
	case ORNIC_EQE_DEVICE_FATAL:
	case ORNIC_EQE_PAGE_FAULT:
	case ORNIC_EQE_PORT_CHANGE:
	case ORNIC_EQE_IW_CONN_REQUEST:
	case ORNIC_EQE_IW_CONNECT_REPLY:
	case ORNIC_EQE_IW_ESTABLISHED:
	case ORNIC_EQE_IW_DISCONNECT:
	case ORNIC_EQE_IW_CLOSE:
		return true;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_eqe_type_valid);
