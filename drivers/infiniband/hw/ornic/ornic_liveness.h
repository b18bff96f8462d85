/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: whether the device is alive (spec: registers.rst "Liveness",
 * "Reset"), the layer under the admin queue and the event queues.
 *
 * This header's one job: the device-dead state and its reason, posting a
 * reset and waiting for it, register and doorbell access (the doorbell and
 * the "alive" writes refuse a dead device), and the count of invalid
 * values the device wrote.  It knows nothing above it: the one thing it
 * reports upward, that the device just died, goes to the handler its owner
 * (ornic_main.c) registered with ornic_liveness_init().
 */
#ifndef ORNIC_LIVENESS_H
#define ORNIC_LIVENESS_H

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "ornic/ornic_hw.h"

struct device;
struct ib_device;
struct ornic_liveness;

/*
 * How many invalid values the device may write (ornic_device_error())
 * before it is declared dead (spec: index.rst "Trust").
 */
#define ORNIC_DEV_ERR_LIMIT	8

/* ornic_liveness.state: atomic bitops */
enum ornic_liveness_bit {
	ORNIC_LIVE_DEAD,	/* device gone or fatal: no more commands */
	ORNIC_LIVE_RESET_DONE,	/* after DEAD: the reset was seen complete */
};

struct ornic_liveness_ops {
	/*
	 * The device was just declared dead and its reset posted: fail what
	 * waits for it and report it.  Called once, from any context
	 * (interrupt handlers, with their locks held, included).
	 */
	void (*dead)(struct ornic_liveness *live);
};

struct ornic_liveness {
	struct device *dev;		/* the PCI function, for messages */
	struct ib_device *ibdev;	/* its ib_device, for messages */
	void __iomem *regs;		/* BAR0 */
	void __iomem *db;		/* BAR2 page 0, the kernel's */
	const struct ornic_liveness_ops *ops;

	unsigned long state;		/* enum ornic_liveness_bit */
	const char *reason;		/* why it died; set once, after DEAD */
	/* Invalid values the device wrote (ornic_device_error()). */
	atomic_t dev_errors;
	unsigned int reset_timeout_ms;
	/* Serialises waiting for the reset after death. */
	struct mutex reset_lock;
	/*
	 * Serialises doorbells on page 0 written as two 32-bit halves, which
	 * only 32-bit CPUs do (ornic_ring_db()).
	 */
	spinlock_t db_lock;
};

static inline bool ornic_dead(const struct ornic_liveness *live)
{
	return test_bit(ORNIC_LIVE_DEAD, &live->state);
}

/* Raw BAR0 access: bring-up, teardown and reads whose value is checked. */
static inline u32 ornic_rd32(const struct ornic_liveness *live, u32 reg)
{
	return readl(live->regs + reg);
}

static inline void ornic_wr32(const struct ornic_liveness *live, u32 reg,
			      u32 val)
{
	writel(val, live->regs + reg);
}

/* A register write that only an alive device gets (queue doorbells). */
static inline void ornic_wr32_alive(const struct ornic_liveness *live,
				    u32 reg, u32 val)
{
	if (!ornic_dead(live))
		ornic_wr32(live, reg, val);
}

void ornic_liveness_init(struct ornic_liveness *live, struct device *dev,
			 struct ib_device *ibdev,
			 const struct ornic_liveness_ops *ops);
void ornic_liveness_destroy(struct ornic_liveness *live);

void ornic_ring_db(struct ornic_liveness *live, u32 offset, u64 val);

/* Reset at probe: post it and wait until RESETTING is clear. */
int ornic_reset(struct ornic_liveness *live);
/*
 * The periodic check: false (the device declared dead) when BAR0 no
 * longer reads MAGIC or DEV_STATUS shows FATAL.
 */
bool ornic_liveness_check(struct ornic_liveness *live);

void ornic_set_dead(struct ornic_liveness *live, const char *why);
void ornic_wait_reset_done(struct ornic_liveness *live);
void ornic_device_error(struct ornic_liveness *live, const char *what,
			u64 value, u64 limit);

/*
 * Whether DEV_STATUS @status shows a completed reset (READY, FATAL and
 * RESETTING all clear) or a device that is gone (all-ones): either way it
 * no longer writes host memory (spec: registers.rst "Reset").
 */
bool ornic_reset_done(u32 status);

#endif /* ORNIC_LIVENESS_H */
