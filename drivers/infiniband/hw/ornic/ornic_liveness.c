// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: whether the device is alive (see ornic_liveness.h).  Everything
 * here works on struct ornic_liveness alone; the owner learns of a death
 * through its ops->dead handler.
 */
#include <kunit/visibility.h>
#include <linux/device.h>
#include <linux/export.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/iopoll.h>
#include <linux/pci.h>
#include <rdma/ib_verbs.h>

#include "ornic_liveness.h"

void ornic_liveness_init(struct ornic_liveness *live, struct device *dev,
			 struct ib_device *ibdev,
			 const struct ornic_liveness_ops *ops)
{
	live->dev = dev;
	live->ibdev = ibdev;
	live->ops = ops;
	live->state = 0;
	live->reason = NULL;
	atomic_set(&live->dev_errors, 0);
	mutex_init(&live->reset_lock);
	spin_lock_init(&live->db_lock);
}

void ornic_liveness_destroy(struct ornic_liveness *live)
{
	mutex_destroy(&live->reset_lock);
}

/*
 * Ring a doorbell on the kernel's page 0 (spec: doorbells.rst).  A 64-bit
 * CPU does it with one 64-bit write, which needs no lock.  A 32-bit CPU
 * writes two 32-bit halves, low first (the high write commits), which only
 * a device with ORNIC_CAP_DB_32BIT_PAIR accepts (probe refuses the others)
 * and which writers of the page must not interleave: db_lock serialises
 * them.  A dead device gets none.
 */
void ornic_ring_db(struct ornic_liveness *live, u32 offset, u64 val)
{
	unsigned long flags;

	if (ornic_dead(live))
		return;
	if (IS_ENABLED(CONFIG_64BIT)) {
		writeq(val, live->db + offset);
		return;
	}
	spin_lock_irqsave(&live->db_lock, flags);
	lo_hi_writeq(val, live->db + offset);
	spin_unlock_irqrestore(&live->db_lock, flags);
}

static void ornic_reset_request(struct ornic_liveness *live)
{
	ornic_wr32(live, ORNIC_REG_DEV_CTRL, ORNIC_DEV_CTRL_RESET);
}

int ornic_reset(struct ornic_liveness *live)
{
	u32 status;
	int err;

	ornic_reset_request(live);
	err = readl_poll_timeout(live->regs + ORNIC_REG_DEV_STATUS, status,
				 !(status & ORNIC_DEV_STATUS_RESETTING) ||
				 status == ~0U,
				 1000, live->reset_timeout_ms * 1000);
	if (err || status == ~0U) {
		dev_err(live->dev, "reset did not complete in %u ms\n",
			live->reset_timeout_ms);
		return -ETIMEDOUT;
	}
	return 0;
}

/*
 * The device is gone or fatal (spec: registers.rst "Liveness"): stop
 * touching it except to reset it, and tell the owner, which fails every
 * admin command and reports IB_EVENT_DEVICE_FATAL.  Any context;
 * idempotent.
 */
void ornic_set_dead(struct ornic_liveness *live, const char *why)
{
	if (test_and_set_bit(ORNIC_LIVE_DEAD, &live->state))
		return;
	WRITE_ONCE(live->reason, why);
	dev_err(live->dev, "device dead (%s): failing all commands\n", why);
	/* Stop any DMA to memory we are about to free (best effort). */
	ornic_reset_request(live);
	live->ops->dead(live);
}

/*
 * After ornic_set_dead(): wait until the reset it posted has taken effect,
 * so that the device no longer writes host memory, before the caller frees
 * DMA memory or unpins user pages (spec: registers.rst "Reset").  The read
 * of DEV_STATUS flushes the posted DEV_CTRL write; the reset is done when
 * READY, FATAL and RESETTING are all clear, or the device is gone (all-ones).
 * If it does not finish within RESET_TIMEOUT_MS, bus mastering is turned off
 * instead.  Process context; returns at once after the first success.
 */
void ornic_wait_reset_done(struct ornic_liveness *live)
{
	u32 status;
	int err;

	might_sleep();
	if (test_bit(ORNIC_LIVE_RESET_DONE, &live->state))
		return;
	mutex_lock(&live->reset_lock);
	if (test_bit(ORNIC_LIVE_RESET_DONE, &live->state))
		goto out;
	err = readl_poll_timeout(live->regs + ORNIC_REG_DEV_STATUS, status,
				 ornic_reset_done(status), 1000,
				 live->reset_timeout_ms * 1000);
	if (err) {
		dev_err(live->dev,
			"reset after death not done in %u ms (DEV_STATUS %#x): disabling bus mastering\n",
			live->reset_timeout_ms, status);
		pci_clear_master(to_pci_dev(live->dev));
	} else {
		dev_info(live->dev,
			 "reset after death complete (DEV_STATUS %#x)\n", status);
	}
	set_bit(ORNIC_LIVE_RESET_DONE, &live->state);
out:
	mutex_unlock(&live->reset_lock);
}

/*
 * The device wrote @what = @value where the spec allows at most @limit (or
 * something else it does not allow).  The caller has not used the value
 * and dropped or failed what it came with; after ORNIC_DEV_ERR_LIMIT such
 * values the device is declared dead.  Any context, but not under a lock
 * that ops->dead takes.
 */
void ornic_device_error(struct ornic_liveness *live, const char *what,
			u64 value, u64 limit)
{
	ibdev_err_ratelimited(live->ibdev,
			      "invalid value from the device: %s %llu (limit %llu)\n",
			      what, value, limit);
	if (atomic_inc_return(&live->dev_errors) == ORNIC_DEV_ERR_LIMIT)
		ornic_set_dead(live, "device keeps writing invalid values");
}

/* Periodic: a vanished device reads all-ones and never interrupts. */
bool ornic_liveness_check(struct ornic_liveness *live)
{
	u32 magic, status;

	if (ornic_dead(live))
		return false;
	magic = ornic_rd32(live, ORNIC_REG_MAGIC);
	status = ornic_rd32(live, ORNIC_REG_DEV_STATUS);
	if (magic != ORNIC_MAGIC) {
		ornic_set_dead(live, magic == ~0U ?
			       "device gone (reads all-ones)" : "MAGIC changed");
		return false;
	}
	if (status & ORNIC_DEV_STATUS_FATAL) {
		dev_err(live->dev, "DEV_STATUS.FATAL, code %u\n",
			ornic_rd32(live, ORNIC_REG_FATAL_CODE));
		ornic_set_dead(live, "DEV_STATUS.FATAL");
		return false;
	}
	return true;
}

bool ornic_reset_done(u32 status)
{
	return status == ~0U ||
	       !(status & (ORNIC_DEV_STATUS_READY | ORNIC_DEV_STATUS_FATAL |
			   ORNIC_DEV_STATUS_RESETTING));
}
EXPORT_SYMBOL_IF_KUNIT(ornic_reset_done);
