/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: driver for the ornic RoCEv2 RDMA NIC.
 *
 * This header's one job: the device.  struct ornic_dev and what it owns
 * itself (admin queue, event queues, the completion rings it polls, the
 * Ethernet rings, and the PD and user context that every verbs object hangs
 * off), register and doorbell access, what the device-level files
 * (ornic_main.c, ornic_admin.c, ornic_eq.c, ornic_eth.c, ornic_verbs.c)
 * offer each other, and the event handlers they call in the verbs objects'
 * files.  The verbs
 * objects are ornic_res.h's; logic that touches no hardware is
 * ornic_lib.h's (device interface) and ornic_verbs_lib.h's (verbs).
 */
#ifndef ORNIC_H
#define ORNIC_H

#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "ornic/ornic_hw.h"
#include "ornic_compat.h"
#include "ornic_lib.h"

#define ORNIC_DRV_NAME		"ornic"

/* Driver queue sizes (entries). */
#define ORNIC_AQ_LOG_DEPTH	6	/* 64 admin commands in flight */
#define ORNIC_AEQ_LOG_DEPTH	8
#define ORNIC_CEQ_LOG_DEPTH	10
#define ORNIC_ETH_TX_LOG_DEPTH	8
#define ORNIC_ETH_RX_LOG_DEPTH	8
#define ORNIC_ETH_CQ_LOG_DEPTH	10	/* >= TX + RX: the CQ never overflows */
#define ORNIC_NUM_GIDS_MAX	16
#define ORNIC_HEALTH_PERIOD_MS	250

/*
 * Bounds on what a broken device can make the driver do (spec: index.rst
 * "Trust"): events taken per run of an EQ handler (the rest in a work
 * item), how many runs and how long an EQ may stay non-empty run after run
 * before the device is declared dead, and how many invalid values it may
 * write before that.
 */
#define ORNIC_EQ_BUDGET		64
#define ORNIC_EQ_STORM_RUNS	256	/* 16384 events */
#define ORNIC_EQ_STORM_MS	2000
#define ORNIC_DEV_ERR_LIMIT	8

/* ornic_dev.flags */
enum ornic_dev_flag {
	ORNIC_FLAG_DEAD,	/* device gone or fatal: no more commands */
	ORNIC_FLAG_REMOVING,	/* remove() started: no new deferred work */
	ORNIC_FLAG_FATAL_EVENT,	/* DEVICE_FATAL still to be reported */
	ORNIC_FLAG_LINK_EVENT,	/* link state to be re-read */
	ORNIC_FLAG_RESET_DONE,	/* after DEAD: the reset was seen complete */
};

struct ornic_dev;

struct ornic_admin_ctx {
	struct completion done;
	struct ornic_admin_cqe cqe;
	int err;		/* -EIO when failed because the device died */
	u16 cmd_id;
	bool busy;		/* waiting for its completion */
};

struct ornic_aq {
	struct ornic_admin_sqe *sq;
	dma_addr_t sq_dma;
	struct ornic_admin_cqe *cq;
	dma_addr_t cq_dma;
	unsigned int log_depth;
	unsigned int timeout_ms;

	/*
	 * Protects sq_tail, cq_head, seq, the slot allocator and every ctx's
	 * busy/err/cqe fields: taken by submitters and by the vector 0
	 * interrupt handler.
	 */
	spinlock_t lock;
	u32 sq_tail;
	u32 cq_head;
	u32 seq;
	struct ornic_id_alloc slots;
	unsigned long slot_map[BITS_TO_LONGS(ORNIC_AQ_DEPTH_MAX)];
	struct ornic_admin_ctx *ctx;

	/* Commands that may still be submitted: at most depth outstanding. */
	struct semaphore avail;
};

/* An event queue in host memory: the async EQ or a completion EQ. */
struct ornic_eq {
	struct ornic_dev *dev;
	struct ornic_eqe *ring;
	dma_addr_t dma;
	unsigned int log_depth;
	u32 eqn;		/* 0: async EQ */
	/*
	 * CEQs: protects ci, busy_* and the delivery of events, by the
	 * IRQ handler and by poll_work (the rest of a run past its budget).
	 * The async EQ uses dev->aeq_lock instead.
	 */
	spinlock_t lock;
	u32 ci;			/* consumer index */
	/* The current streak of runs that spent their budget. */
	unsigned long busy_since;	/* jiffies at its first run */
	u32 busy_runs;			/* 0: no streak */
	struct work_struct poll_work;
	int irq;
	char name[32];
};

/*
 * A completion ring in driver memory that the driver polls itself: the
 * Ethernet function's CQ (struct ornic_eth) and the ring of every kernel
 * verbs CQ (struct ornic_cq's kern.ring).  The completion EQ handler finds
 * it by CQN in dev->cq_rings and calls comp_handler; user CQs are in
 * dev->cqs instead.
 */
struct ornic_cq_ring {
	struct ornic_dev *dev;
	struct ornic_cqe *ring;
	dma_addr_t dma;
	unsigned int log_depth;
	u32 cqn;
	u32 ci;			/* consumer index: the ring's one poller */
	struct ornic_eq *eq;
	void (*comp_handler)(struct ornic_cq_ring *cq);
	/* After death: tell the consumer if it asked to be told (or NULL). */
	void (*dead_handler)(struct ornic_cq_ring *cq);
};

struct ornic_eth_buf {
	struct sk_buff *skb;
	dma_addr_t dma;
	u32 len;
};

struct ornic_eth_ring {
	void *desc;		/* ornic_eth_tx_desc / ornic_eth_rx_desc */
	dma_addr_t dma;
	unsigned int log_depth;
	u32 id;
	u32 prod;
	u32 cons;
	struct ornic_eth_buf *bufs;
};

struct ornic_eth_stats {
	u64 packets;
	u64 bytes;
	u64 errors;
	u64 dropped;
	struct u64_stats_sync syncp;
};

/* netdev_priv() of the Ethernet function's net_device. */
struct ornic_eth {
	struct ornic_dev *dev;
	struct net_device *netdev;
	struct napi_struct napi;
	struct ornic_cq_ring cq;
	struct ornic_eth_ring tx;
	struct ornic_eth_ring rx;
	u32 rx_buf_len;
	bool rings_up;		/* under RTNL */
	/* One writer each, as u64_stats_sync requires. */
	struct ornic_eth_stats tx_stats;	/* NAPI: TX completions */
	struct ornic_eth_stats rx_stats;	/* NAPI: RX completions */
	struct ornic_eth_stats xmit_stats;	/* xmit (TX queue lock): drops */
};

struct ornic_ucontext {
	struct ib_ucontext ibucontext;
	struct rdma_user_mmap_entry *db_entry;
	u32 db_page;
};

struct ornic_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

struct ornic_user_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	u64 address;		/* bus address of the doorbell page */
};

struct ornic_dev {
	struct ib_device ibdev;		/* first: ib_alloc_device() */
	struct pci_dev *pdev;
	void __iomem *regs;		/* BAR0 */
	void __iomem *db;		/* BAR2 page 0, the kernel's */
	resource_size_t db_bar_start;	/* bus address of BAR2 */
	u32 db_pages;

	unsigned long flags;		/* enum ornic_dev_flag, atomic bitops */
	u64 caps;
	u32 version;			/* VERSION: spec major << 16 | minor */
	u32 fw_version;			/* FW_VERSION: ORNIC_FW_VERSION() */
	unsigned int reset_timeout_ms;

	struct ornic_aq aq;
	/*
	 * Protects aeq.ci and aeq.busy_*: the vector 0 handler, the
	 * health check and aeq_work poll it.
	 */
	spinlock_t aeq_lock;
	struct ornic_eq aeq;
	struct work_struct aeq_work;	/* the rest of a run past its budget */
	/* Invalid values the device wrote (ornic_device_error()). */
	atomic_t dev_errors;
	/* Serialises waiting for the reset after death. */
	struct mutex reset_lock;
	struct ornic_eq *ceqs;
	unsigned int num_ceqs;
	unsigned int num_vectors;

	struct ornic_device_attr attr;
	struct ornic_port_attr port;
	bool link_up;			/* last LINK_STATUS.UP seen */
	bool ib_port_active;		/* last port event sent; event work */

	/*
	 * Serialises doorbells on page 0 written as two 32-bit halves, which
	 * only 32-bit CPUs do (ornic_ring_db()).
	 */
	spinlock_t db_lock;

	/*
	 * The driver's own completion rings (Ethernet CQ, kernel verbs CQs)
	 * by CQN, looked up by the EQ interrupt handlers.
	 */
	struct xarray cq_rings;
	/* User objects by number, for events (locking: ornic_res.h). */
	struct xarray cqs;
	struct xarray qps;
	struct xarray srqs;
	atomic_t mr_variant;		/* key variant of the next REG_MR */
	/*
	 * ODP MRs by key index, for the page-fault handler (ornic_odp.c);
	 * IRQ-safe lock: looked up under dev->aeq_lock.
	 */
	struct xarray odp_mrs;
	/* Page faults and prefetches; NULL (under aeq_lock) once torn down. */
	struct workqueue_struct *odp_wq;

	/* Protects the counters DMA buffer (one QUERY_COUNTERS at a time). */
	struct mutex counters_lock;
	void *counters_buf;
	dma_addr_t counters_dma;
	/* RDMA counters by id (ornic_counters.c; its own lock). */
	struct xarray counters;
	struct dentry *debugfs;		/* ornic_debugfs.c, or NULL */
	/* The cc/ knob files' private data (ornic_cc.c). */
	struct ornic_cc_file {
		struct ornic_dev *dev;
		unsigned int knob;	/* enum ornic_cc_knob */
	} cc_files[ORNIC_CC_KNOB_COUNT];

	struct net_device *netdev;
	bool ib_registered;

	struct delayed_work health_work;
	struct work_struct event_work;
};

static inline struct ornic_dev *to_odev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct ornic_dev, ibdev);
}

static inline bool ornic_dead(struct ornic_dev *dev)
{
	return test_bit(ORNIC_FLAG_DEAD, &dev->flags);
}

static inline u32 ornic_rd32(struct ornic_dev *dev, u32 reg)
{
	return readl(dev->regs + reg);
}

static inline void ornic_wr32(struct ornic_dev *dev, u32 reg, u32 val)
{
	writel(val, dev->regs + reg);
}

/* ornic_main.c */
void ornic_set_dead(struct ornic_dev *dev, const char *why);
void ornic_wait_reset_done(struct ornic_dev *dev);
void ornic_device_error(struct ornic_dev *dev, const char *what, u64 value,
			u64 limit);
void ornic_ring_db(struct ornic_dev *dev, u32 offset, u64 val);
void ornic_queue_event(struct ornic_dev *dev, int flag);

/* ornic_admin.c */
int ornic_aq_init(struct ornic_dev *dev);
void ornic_aq_destroy(struct ornic_dev *dev);
void ornic_aq_fail_all(struct ornic_dev *dev);
irqreturn_t ornic_admin_irq(int irq, void *data);
int ornic_admin_exec(struct ornic_dev *dev, struct ornic_admin_sqe *sqe,
		     struct ornic_admin_cqe *cqe);
int ornic_admin_simple(struct ornic_dev *dev, struct ornic_admin_sqe *sqe,
		       u32 *result0);
int ornic_admin_query(struct ornic_dev *dev, u8 opcode, void *resp, u32 len);
int ornic_admin_destroy(struct ornic_dev *dev, u8 opcode, u32 handle);

/* ornic_eq.c */
int ornic_aeq_init(struct ornic_dev *dev);
void ornic_aeq_destroy(struct ornic_dev *dev);
void ornic_aeq_arm(struct ornic_dev *dev);
void ornic_aeq_process(struct ornic_dev *dev);
void ornic_cq_rings_kick(struct ornic_dev *dev);
void ornic_ceqs_sync(struct ornic_dev *dev);

/* ornic_odp.c */
void ornic_odp_page_fault_event(struct ornic_dev *dev,
				const struct ornic_eqe *eqe);
int ornic_ceqs_create(struct ornic_dev *dev);
void ornic_ceqs_destroy(struct ornic_dev *dev);
int ornic_cq_ring_create(struct ornic_dev *dev, struct ornic_cq_ring *cq,
			 unsigned int log_depth, struct ornic_eq *eq);
void ornic_cq_ring_destroy(struct ornic_dev *dev, struct ornic_cq_ring *cq);
void ornic_cq_ring_arm(struct ornic_cq_ring *cq);
struct ornic_cqe *ornic_cq_ring_next(struct ornic_cq_ring *cq);

/* ornic_eth.c */
int ornic_eth_register(struct ornic_dev *dev);
void ornic_eth_unregister(struct ornic_dev *dev);
void ornic_eth_link_update(struct ornic_dev *dev);

/*
 * ornic_counters.c: the port's hw statistics are the device counters
 * (enum ornic_counter_id) followed by the per-QP counters (struct
 * ornic_qp_counters, in its order) of the QPs bound to RDMA counters.
 */
#define ORNIC_STATS_QP_COUNT	14
#define ORNIC_STAT_QP_FIRST	ORNIC_CNT_COUNT
#define ORNIC_STAT_QP(field) \
	(ORNIC_STAT_QP_FIRST + \
	 offsetof(struct ornic_qp_counters, field) / sizeof(__le64))
#define ORNIC_STATS_COUNT	(ORNIC_STAT_QP_FIRST + ORNIC_STATS_QP_COUNT)
extern const struct rdma_stat_desc ornic_counter_descs[ORNIC_STATS_COUNT];
extern const struct ib_device_ops ornic_counter_ops;
int ornic_read_device_counters(struct ornic_dev *dev,
			       u64 val[ORNIC_CNT_COUNT]);
/* The QP's DCQCN current rate in Mbit/s, 0 when not rate-limited. */
int ornic_read_qp_cc_rate(struct ornic_dev *dev, u32 qpn, u64 *rate);
int ornic_read_qp_counters(struct ornic_dev *dev, u32 qpn,
			   u64 val[ORNIC_STATS_QP_COUNT]);

/* ornic_ethtool.c */
extern const struct ethtool_ops ornic_ethtool_ops;

/* ornic_restrack.c */
extern const struct ib_device_ops ornic_restrack_ops;

/* ornic_debugfs.c: /sys/kernel/debug/ornic/<ibdev>/ */
void ornic_debugfs_init(void);
void ornic_debugfs_cleanup(void);
void ornic_debugfs_add(struct ornic_dev *dev);
void ornic_debugfs_remove(struct ornic_dev *dev);
/* ornic_cc.c: the cc/ directory (ORNIC_CAP_CC only) */
void ornic_cc_debugfs_add(struct ornic_dev *dev, struct dentry *parent);

/* ornic_verbs.c */
int ornic_ib_register(struct ornic_dev *dev);
void ornic_ib_unregister(struct ornic_dev *dev);
void ornic_ib_port_event(struct ornic_dev *dev, bool active);
void ornic_ib_fatal_event(struct ornic_dev *dev);

/* Event delivery to verbs objects (ornic_cq.c, ornic_qp.c, ornic_srq.c). */
void ornic_cq_comp_event(struct ornic_dev *dev, struct ornic_eq *eq, u32 cqn);
void ornic_cq_async_event(struct ornic_dev *dev, u32 cqn, u32 code);
void ornic_qp_async_event(struct ornic_dev *dev, u32 qpn,
			  enum ib_event_type type);
void ornic_srq_async_event(struct ornic_dev *dev, u32 srqn,
			   enum ib_event_type type);

#endif /* ORNIC_H */
