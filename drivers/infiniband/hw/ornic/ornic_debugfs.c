// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: /sys/kernel/debug/ornic/<ibdev>/, the driver's view of the rings
 * it shares with the device, for whoever debugs a stuck queue: the admin
 * queue ("aq"), the event queues ("eqs"), the QPs ("qps", with the ring
 * indices of kernel QPs), the CQs ("cqs"), the Ethernet rings ("eth") and
 * the congestion control knobs ("cc/", ornic_cc.c).
 * Values are snapshots taken under the lock that protects them where that
 * lock may be taken here; ring indices of kernel QPs and CQs are read
 * without their locks (a dump must never stall the data path).
 */
#include <linux/debugfs.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>

#include "ornic_res.h"

static struct dentry *ornic_debugfs_root;

#ifdef ORNIC_DEBUG_PARAM
bool ornic_debug;
module_param_named(debug, ornic_debug, bool, 0644);
MODULE_PARM_DESC(debug,
		 "print the driver's debug messages (rejected requests with the value and the limit), for kernels without dynamic debug");
#endif

static int ornic_aq_show(struct seq_file *s, void *unused)
{
	struct ornic_dev *dev = s->private;
	struct ornic_aq *aq = &dev->aq;
	u32 depth = 1U << aq->log_depth, busy = 0, i;
	const char *reason;

	spin_lock_irq(&aq->lock);
	for (i = 0; i < depth; i++)
		busy += aq->ctx[i].busy;
	seq_printf(s, "depth %u sq_tail %u cq_head %u seq %u outstanding %u timeout_ms %u dead %d\n",
		   depth, aq->sq_tail, aq->cq_head, aq->seq, busy,
		   aq->timeout_ms, ornic_dead(&dev->live));
	seq_printf(s, "completed %llu wait_us %llu mean_us %llu max_us %llu\n",
		   aq->completed, div_u64(aq->wait_ns, 1000),
		   aq->completed ? div64_u64(aq->wait_ns, aq->completed) / 1000 : 0,
		   div_u64(aq->wait_ns_max, 1000));
	spin_unlock_irq(&aq->lock);
	reason = READ_ONCE(dev->live.reason);
	if (reason)
		seq_printf(s, "dead because: %s\n", reason);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ornic_aq);

static void ornic_eq_show_one(struct seq_file *s, struct ornic_eq *eq)
{
	seq_printf(s, "eqn %u log_depth %u ci %u irq %d busy_runs %u\n",
		   eq->eqn, eq->log_depth, eq->ci, eq->irq, eq->busy_runs);
}

static int ornic_eqs_show(struct seq_file *s, void *unused)
{
	struct ornic_dev *dev = s->private;
	unsigned int i;

	spin_lock_irq(&dev->aeq_lock);
	ornic_eq_show_one(s, &dev->aeq);
	spin_unlock_irq(&dev->aeq_lock);
	for (i = 0; i < dev->num_ceqs; i++) {
		spin_lock_irq(&dev->ceqs[i].lock);
		ornic_eq_show_one(s, &dev->ceqs[i]);
		spin_unlock_irq(&dev->ceqs[i].lock);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ornic_eqs);

/* Under the xarray's lock: a QP found there is not freed meanwhile. */
static int ornic_qps_show(struct seq_file *s, void *unused)
{
	struct ornic_dev *dev = s->private;
	struct ornic_qp *qp;
	unsigned long qpn;

	xa_lock_irq(&dev->qps);
	xa_for_each(&dev->qps, qpn, qp) {
		seq_printf(s, "qpn %u type %u state %u", qp->qpn, qp->hw_type,
			   READ_ONCE(qp->state));
		if (qp->xrc_tgt) {
			seq_puts(s, " rings none\n");
			continue;
		}
		seq_printf(s, " sq_log_depth %u rq_log_depth %u",
			   ornic_qp_sq_log_depth(qp), ornic_qp_rq_log_depth(qp));
		if (qp->kernel)
			seq_printf(s, " sq_pi %u sq_ci %u rq_pi %u rq_ci %u\n",
				   READ_ONCE(qp->kern.sq.pi),
				   READ_ONCE(qp->kern.sq.ci),
				   READ_ONCE(qp->kern.rq.pi),
				   READ_ONCE(qp->kern.rq.ci));
		else
			seq_puts(s, " rings user\n");
	}
	xa_unlock_irq(&dev->qps);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ornic_qps);

/* The driver's own rings (kernel CQs, Ethernet CQ), then user CQs. */
static int ornic_cqs_show(struct seq_file *s, void *unused)
{
	struct ornic_dev *dev = s->private;
	struct ornic_cq_ring *ring;
	struct ornic_cq *cq;
	unsigned long cqn;

	xa_lock_irq(&dev->cq_rings);
	xa_for_each(&dev->cq_rings, cqn, ring)
		seq_printf(s, "cqn %u ring kernel log_depth %u ci %u eqn %u\n",
			   ring->cqn, ring->log_depth, READ_ONCE(ring->ci),
			   ring->eq ? ring->eq->eqn : 0);
	xa_unlock_irq(&dev->cq_rings);
	xa_lock_irq(&dev->cqs);
	xa_for_each(&dev->cqs, cqn, cq)
		seq_printf(s, "cqn %u ring user log_depth %u eqn %u\n",
			   cq->cqn, cq->log_depth, cq->eq ? cq->eq->eqn : 0);
	xa_unlock_irq(&dev->cqs);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ornic_cqs);

static void ornic_eth_ring_show(struct seq_file *s, const char *name,
				struct ornic_eth_ring *r)
{
	seq_printf(s, "%s id %u log_depth %u prod %u cons %u\n", name, r->id,
		   r->log_depth, READ_ONCE(r->prod), READ_ONCE(r->cons));
}

/* The netdev outlives this file: debugfs goes first on remove. */
static int ornic_eth_show(struct seq_file *s, void *unused)
{
	struct ornic_dev *dev = s->private;
	struct ornic_eth *eth;

	if (!dev->netdev)
		return 0;
	eth = netdev_priv(dev->netdev);
	rtnl_lock();
	if (eth->rings_up) {
		ornic_eth_ring_show(s, "tx", &eth->tx);
		ornic_eth_ring_show(s, "rx", &eth->rx);
		seq_printf(s, "cq cqn %u log_depth %u ci %u\n", eth->cq.cqn,
			   eth->cq.log_depth, READ_ONCE(eth->cq.ci));
	} else {
		seq_puts(s, "down\n");
	}
	rtnl_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ornic_eth);

/* After ib_register_device(): the directory takes the ib_device's name. */
void ornic_debugfs_add(struct ornic_dev *dev)
{
	struct dentry *d;

	if (!ornic_debugfs_root)
		return;
	d = debugfs_create_dir(dev_name(&dev->ibdev.dev), ornic_debugfs_root);
	debugfs_create_file("aq", 0400, d, dev, &ornic_aq_fops);
	debugfs_create_file("eqs", 0400, d, dev, &ornic_eqs_fops);
	debugfs_create_file("qps", 0400, d, dev, &ornic_qps_fops);
	debugfs_create_file("cqs", 0400, d, dev, &ornic_cqs_fops);
	debugfs_create_file("eth", 0400, d, dev, &ornic_eth_fops);
	ornic_cc_debugfs_add(dev, d);
	ornic_dcb_debugfs_add(dev, d);
	dev->debugfs = d;
}

/* First on remove: readers are gone when this returns. */
void ornic_debugfs_remove(struct ornic_dev *dev)
{
	debugfs_remove_recursive(dev->debugfs);
	dev->debugfs = NULL;
}

void ornic_debugfs_init(void)
{
	ornic_debugfs_root = debugfs_create_dir(ORNIC_DRV_NAME, NULL);
}

void ornic_debugfs_cleanup(void)
{
	debugfs_remove_recursive(ornic_debugfs_root);
	ornic_debugfs_root = NULL;
}
