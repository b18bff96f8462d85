/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: driver for the ornic RoCEv2 RDMA NIC.
 *
 * This header's one job: the device.  struct ornic_dev and what it owns
 * itself (admin queue, event queues, the completion rings it polls, the
 * Ethernet rings, and the PD and user context that every verbs object hangs
 * off), what the device-level files (ornic_admin.c, ornic_eq.c,
 * ornic_eth.c, ornic_verbs.c) offer each other and ornic_main.c, and the
 * event handlers of the verbs objects' files that ornic_main.c registers
 * with the EQs.  Layers, bottom up: ornic_liveness.h (register and doorbell
 * access, the dead state, the reset), the admin queue and the EQs, the
 * verbs objects and the netdev, and ornic_main.c on top, which nothing
 * calls.  The verbs objects are ornic_res.h's.  Helpers that touch no
 * hardware (command builders, translations, checks of what the device
 * wrote) sit in the file of the object they serve, exported to its KUnit
 * suite (ornic_<object>_kunit.c); those several files share have small
 * headers of their own: ornic_ring.h, ornic_admin_cmd.h, ornic_cc_knob.h
 * here, ornic_wq.h, ornic_qp_cmd.h and ornic_mr_cmd.h in ornic_res.h.
 */
#ifndef ORNIC_H
#define ORNIC_H

#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/dcbnl.h>
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
#include "ornic_admin_cmd.h"
#include "ornic_cc_knob.h"
#include "ornic_dcb_cmd.h"
#include "ornic_compat.h"
#include "ornic_liveness.h"
#include "ornic_ring.h"

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

/* ornic_dev.flags */
enum ornic_dev_flag {
	ORNIC_FLAG_REMOVING,	/* remove() started: no new deferred work */
};

/* ornic_aq.state */
enum ornic_aq_state {
	/*
	 * Commands may be submitted: set once the rings are programmed,
	 * cleared (under aq->lock) when the device dies or the queue is freed.
	 */
	ORNIC_AQ_STATE_RUNNING,
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
	 * Protects state's changes, sq_tail, cq_head, seq, the slot allocator,
	 * the latency figures and every ctx's busy/err/cqe fields: taken by
	 * submitters, by the vector 0 interrupt handler and when the device
	 * dies.
	 */
	spinlock_t lock;
	unsigned long state;	/* enum ornic_aq_state, atomic bitops */
	u32 sq_tail;
	u32 cq_head;
	u32 seq;
	struct ornic_id_alloc slots;
	unsigned long slot_map[BITS_TO_LONGS(ORNIC_AQ_DEPTH_MAX)];
	struct ornic_admin_ctx *ctx;
	/* Commands completed, and their time from submission to completion. */
	u64 completed;
	u64 wait_ns;
	u64 wait_ns_max;

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
	/*
	 * struct ornic_cqe entries, or on an InfiniBand port struct
	 * ornic_cqe_ts ones (wide): their first half says how a receive came.
	 */
	void *ring;
	bool wide;
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
/*
 * The DCB settings (ornic_dcb.c; the APP table is dcbnl's), kept for the
 * net_device's life and sent again whenever it comes up.  Under RTNL.
 */
struct ornic_dcb {
	struct ieee_pfc pfc;
	struct ieee_ets ets;
};

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
	struct ornic_dcb dcb;
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
	/* BAR access, the dead state and the reset (ornic_liveness.c). */
	struct ornic_liveness live;
	resource_size_t db_bar_start;	/* bus address of BAR2 */
	u32 db_pages;

	unsigned long flags;		/* enum ornic_dev_flag, atomic bitops */
	u64 caps;
	u32 version;			/* VERSION: spec major << 16 | minor */
	u32 fw_version;			/* FW_VERSION: ORNIC_FW_VERSION() */

	struct ornic_aq aq;
	/*
	 * Protects aeq.ci and aeq.busy_*: the vector 0 handler, the
	 * health check and aeq_work poll it.
	 */
	spinlock_t aeq_lock;
	struct ornic_eq aeq;
	struct work_struct aeq_work;	/* the rest of a run past its budget */
	/* Where the EQs hand their events (ornic_main.c's table). */
	const struct ornic_eq_handlers *eq_handlers;
	struct ornic_eq *ceqs;
	unsigned int num_ceqs;
	unsigned int num_vectors;

	struct ornic_device_attr attr;
	struct ornic_port_attr port;
	/*
	 * InfiniBand ports: MAD_IFC's in and out MADs (ornic_mad.c); the
	 * mutex protects the buffer, one MAD at a time.
	 */
	struct mutex mad_lock;
	void *mad_buf;
	dma_addr_t mad_dma;
	bool link_up;			/* last LINK_STATUS.UP seen */
	bool ib_port_active;		/* last port event; link_work */

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
	/* An iWARP port's connection management (ornic_iwcm.c). */
	struct ornic_iwcm {
		/*
		 * Protects eps, listeners, every endpoint's state and buf
		 * (private data out, IW_QUERY_CONN answers in).
		 */
		struct mutex lock;
		struct xarray eps;		/* by connection id */
		struct list_head listeners;
		void *buf;
		dma_addr_t buf_dma;
		/* Protects events, num_events; live also under aeq_lock. */
		spinlock_t event_lock;
		struct list_head events;	/* from the AEQ, for the work */
		unsigned int num_events;
		bool live;			/* the AEQ handler may queue */
		struct work_struct event_work;
		struct workqueue_struct *wq;	/* ordered: the device's order */
	} iw;

	struct delayed_work health_work;
	struct work_struct fatal_work;	/* reports the death upward */
	struct work_struct link_work;	/* re-reads the link (ornic_eth.c) */
};

static inline struct ornic_dev *to_odev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct ornic_dev, ibdev);
}

/* An InfiniBand port (spec: infiniband.rst) rather than an Ethernet one. */
static inline bool ornic_is_ib(const struct ornic_dev *dev)
{
	return dev->caps & ORNIC_CAP_IB;
}

/*
 * An iWARP port (ORNIC_CAP_IWARP): the device runs TCP and MPA itself; the
 * driver registers an RNIC whose connections the iw_cm sets up through
 * ornic_iwcm.c.
 */
static inline bool ornic_is_iwarp(const struct ornic_dev *dev)
{
	return dev->caps & ORNIC_CAP_IWARP;
}

/* ornic_iwcm.c: the iw_cm provider of an iWARP port */
struct ornic_qp;
int ornic_iw_init(struct ornic_dev *dev);
void ornic_iw_fini(struct ornic_dev *dev);
void ornic_iw_async_event(struct ornic_dev *dev, const struct ornic_eqe *eqe);
void ornic_iw_device_dead(struct ornic_dev *dev);
void ornic_iw_qp_disconnect(struct ornic_qp *qp, bool abrupt);
void ornic_iw_qp_get(struct ornic_qp *qp);
void ornic_iw_qp_put(struct ornic_qp *qp);

/*
 * ornic_main.c: probe and remove; nothing else calls into it.  What the
 * lower layers report reaches it through the handlers it registers:
 * struct ornic_liveness_ops (ornic_liveness.h) and struct
 * ornic_eq_handlers (below).
 */

/* ornic_admin.c */
int ornic_aq_init(struct ornic_dev *dev);
void ornic_aq_destroy(struct ornic_dev *dev);
void ornic_aq_fail_all(struct ornic_dev *dev);
void ornic_aq_process(struct ornic_dev *dev);
int ornic_admin_exec(struct ornic_dev *dev, struct ornic_admin_sqe *sqe,
		     struct ornic_admin_cqe *cqe);
int ornic_admin_simple(struct ornic_dev *dev, struct ornic_admin_sqe *sqe,
		       u32 *result0);
int ornic_admin_query(struct ornic_dev *dev, u8 opcode, void *resp, u32 len);
int ornic_admin_destroy(struct ornic_dev *dev, u8 opcode, u32 handle);

/* ornic_eq.c */

/*
 * Where the EQs hand what they read, registered by ornic_main.c with
 * ornic_aeq_init() (the EQ code knows no verbs object).  @async: one
 * handler per async EQE type, called under dev->aeq_lock with interrupts
 * off; a type without one is an invalid value from the device.
 * DEVICE_FATAL is the EQ's own: it declares the device dead.
 * @completion: a COMPLETION EQE naming none of the driver's own rings (a
 * user CQ), from the completion EQ's interrupt handler.
 */
struct ornic_eq_handlers {
	void (*async[ORNIC_EQE_IW_CLOSE + 1])(struct ornic_dev *dev,
					      const struct ornic_eqe *eqe);
	void (*completion)(struct ornic_dev *dev, struct ornic_eq *eq,
			   u32 cqn);
};

int ornic_aeq_init(struct ornic_dev *dev,
		   const struct ornic_eq_handlers *handlers);
void ornic_aeq_destroy(struct ornic_dev *dev);
void ornic_aeq_arm(struct ornic_dev *dev);
void ornic_aeq_process(struct ornic_dev *dev);
void ornic_cq_rings_kick(struct ornic_dev *dev);
void ornic_ceqs_sync(struct ornic_dev *dev);
int ornic_ceqs_create(struct ornic_dev *dev);
void ornic_ceqs_destroy(struct ornic_dev *dev);
int ornic_cq_ring_create(struct ornic_dev *dev, struct ornic_cq_ring *cq,
			 unsigned int log_depth, struct ornic_eq *eq);
void ornic_cq_ring_destroy(struct ornic_dev *dev, struct ornic_cq_ring *cq);
int ornic_cq_ring_alloc(struct ornic_dev *dev, struct ornic_cq_ring *cq,
			struct ornic_mem_desc *mem);
void ornic_cq_ring_free(struct ornic_dev *dev, struct ornic_cq_ring *cq);
void ornic_cq_ring_arm(struct ornic_cq_ring *cq);
struct ornic_cqe *ornic_cq_ring_next(struct ornic_cq_ring *cq);
/* The CQE of ring slot @slot (the second half of a wide entry). */
struct ornic_cqe *ornic_cq_ring_cqe(struct ornic_cq_ring *cq, u32 slot);

/* The first half of a wide entry, whose second half is @cqe. */
static inline const struct ornic_cqe_ts *
ornic_cqe_ts_of(const struct ornic_cqe *cqe)
{
	return container_of(cqe, const struct ornic_cqe_ts, cqe);
}

void ornic_cmd_create_eq(struct ornic_admin_sqe *sqe,
			 const struct ornic_mem_desc *mem,
			 unsigned int log_depth, u16 vector);
/* Whether @type is an EQE type this driver knows (ORNIC_EQE_*). */
bool ornic_eqe_type_valid(u8 type);

/* ornic_cq.c: CQ commands, also for the driver's own rings */
#define ORNIC_CQ_LOG_DEPTH_MAX		16	/* CREATE_CQ's largest */
void ornic_cmd_create_cq(struct ornic_admin_sqe *sqe,
			 const struct ornic_mem_desc *mem,
			 unsigned int log_depth, u32 eqn, u16 db_page,
			 u8 flags);
void ornic_cmd_resize_cq(struct ornic_admin_sqe *sqe,
			 const struct ornic_mem_desc *mem,
			 unsigned int log_depth, u32 cqn, u32 consumer);

/* ornic_odp.c: on-demand paging (spec: memory.rst "On-demand paging") */
void ornic_odp_page_fault_event(struct ornic_dev *dev,
				const struct ornic_eqe *eqe);

/* A PAGE_FAULT EQE in host order. */
struct ornic_page_fault {
	u32 key;
	u32 page;		/* first missing page, index within the MR */
	u32 num_pages;
	u32 qpn;
	bool write;
	bool requester;		/* the QP's send queue waits for ODP_RESUME */
};

void ornic_page_fault_decode(const struct ornic_eqe *eqe,
			     struct ornic_page_fault *pf);
/* The table entry of a resident page at @dma_addr. */
__le64 ornic_odp_pte(u64 dma_addr, bool writable);
void ornic_cmd_odp_invalidate(struct ornic_admin_sqe *sqe, u32 key,
			      u32 first_page, u32 num_pages);
void ornic_cmd_odp_resume(struct ornic_admin_sqe *sqe, u32 qpn);

/* ornic_eth.c */
int ornic_eth_register(struct ornic_dev *dev);
void ornic_eth_unregister(struct ornic_dev *dev);
void ornic_eth_link_init(struct ornic_dev *dev);
void ornic_eth_link_changed(struct ornic_dev *dev);
void ornic_eth_link_update(struct ornic_dev *dev);
void ornic_cmd_create_eth_ring(struct ornic_admin_sqe *sqe, bool tx,
			       const struct ornic_mem_desc *mem,
			       unsigned int log_depth, u32 cqn);
void ornic_cmd_set_mac(struct ornic_admin_sqe *sqe, const u8 mac[6]);
void ornic_cmd_set_mtu(struct ornic_admin_sqe *sqe, u32 mtu);

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
void ornic_cmd_query_counters(struct ornic_admin_sqe *sqe, u8 scope,
			      u32 handle, u64 resp_addr, u32 resp_len);

/* ornic_ethtool.c */
extern const struct ethtool_ops ornic_ethtool_ops;

/* ornic_dcb.c: DCB (ORNIC_CAP_DCB) on the net_device; none without dcbnl */
#if IS_ENABLED(CONFIG_DCB)
void ornic_dcb_init(struct ornic_eth *eth);
void ornic_dcb_apply(struct ornic_eth *eth);
int ornic_dcb_query(struct ornic_dev *dev, struct ornic_port_qos_query *out);
unsigned int ornic_dcb_stats_count(struct ornic_dev *dev);
void ornic_dcb_stats_strings(struct ornic_dev *dev, u8 **data);
void ornic_dcb_stats(struct ornic_dev *dev, u64 *data);
void ornic_dcb_debugfs_add(struct ornic_dev *dev, struct dentry *parent);
#else
static inline void ornic_dcb_init(struct ornic_eth *eth) {}
static inline void ornic_dcb_apply(struct ornic_eth *eth) {}
static inline unsigned int ornic_dcb_stats_count(struct ornic_dev *dev)
{
	return 0;
}

static inline void ornic_dcb_stats_strings(struct ornic_dev *dev, u8 **data) {}
static inline void ornic_dcb_stats(struct ornic_dev *dev, u64 *data) {}
static inline void ornic_dcb_debugfs_add(struct ornic_dev *dev,
					 struct dentry *parent) {}
#endif

/* ornic_restrack.c */
extern const struct ib_device_ops ornic_restrack_ops;

/* ornic_debugfs.c: /sys/kernel/debug/ornic/<ibdev>/ */
void ornic_debugfs_init(void);
void ornic_debugfs_cleanup(void);
void ornic_debugfs_add(struct ornic_dev *dev);
void ornic_debugfs_remove(struct ornic_dev *dev);
/* ornic_cc.c: the cc/ directory (ORNIC_CAP_CC only) */
void ornic_cc_debugfs_add(struct ornic_dev *dev, struct dentry *parent);

/* ornic_mad.c: an InfiniBand port's management (spec: infiniband.rst) */
#define ORNIC_PORT_CHANGE_EVENTS_MAX	5
int ornic_mad_init(struct ornic_dev *dev);
void ornic_mad_destroy(struct ornic_dev *dev);
void ornic_cmd_mad_ifc(struct ornic_admin_sqe *sqe, u64 in_addr, u64 out_addr,
		       bool ignore_mkey, const struct ib_wc *wc);
int ornic_cmd_modify_port(struct ornic_admin_sqe *sqe, u32 set, u32 clr,
			  bool reset_qkey_cntr);
struct ib_mad_hdr;
bool ornic_mad_for_device(const struct ib_mad_hdr *hdr);
int ornic_process_mad(struct ib_device *ibdev, int mad_flags, u32 port,
		      const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_mad_size, u16 *out_mad_pkey_index);
struct ib_smp;
void ornic_port_info_speed(const struct ib_smp *smp, u16 *speed, u8 *width);
int ornic_ib_query_port(struct ornic_dev *dev, struct ib_port_attr *props);
int ornic_ib_query_pkey(struct ornic_dev *dev, u16 index, u16 *pkey);
int ornic_ib_query_gid(struct ornic_dev *dev, int index, union ib_gid *gid);
int ornic_ib_node_desc(struct ornic_dev *dev, char *desc);
int ornic_modify_port(struct ib_device *ibdev, u32 port, int mask,
		      struct ib_port_modify *props);
unsigned int ornic_port_change_events(u32 bits, enum ib_event_type *events);
void ornic_port_change_event(struct ornic_dev *dev,
			     const struct ornic_eqe *eqe);
void ornic_ib_port_state_event(struct ornic_dev *dev,
			       const struct ornic_eqe *eqe);

/* ornic_verbs.c */
int ornic_ib_register(struct ornic_dev *dev);
void ornic_ib_unregister(struct ornic_dev *dev);
void ornic_ib_event(struct ornic_dev *dev, enum ib_event_type type);
void ornic_ib_port_event(struct ornic_dev *dev, bool active);
void ornic_ib_fatal_event(struct ornic_dev *dev);
/* Whether @gid is an IPv4-mapped IPv6 address (::ffff:a.b.c.d). */
bool ornic_gid_is_v4(const u8 gid[16]);
int ornic_cmd_gid(struct ornic_admin_sqe *sqe, bool add, u32 index,
		  const u8 gid[16], u8 type, u16 vlan_id);
/* IB MTU enum (1..5) for RoCE over an Ethernet IP MTU (spec: ETH_SET_MTU). */
int ornic_roce_mtu(u32 eth_mtu);
/* IB speed/width pair for a link of @gbps Gb/s. */
void ornic_speed_to_ib(u32 gbps, u16 *speed, u8 *width);
/* ib_device_attr.device_cap_flags for a device with ORNIC_CAP_* @caps. */
u64 ornic_device_cap_flags(u64 caps);

/*
 * Event handlers of the verbs objects (ornic_cq.c, ornic_qp.c,
 * ornic_srq.c), registered in ornic_main.c's struct ornic_eq_handlers.
 */
void ornic_cq_comp_event(struct ornic_dev *dev, struct ornic_eq *eq, u32 cqn);
void ornic_cq_async_event(struct ornic_dev *dev, const struct ornic_eqe *eqe);
void ornic_qp_async_event(struct ornic_dev *dev, const struct ornic_eqe *eqe);
void ornic_srq_async_event(struct ornic_dev *dev,
			   const struct ornic_eqe *eqe);

#endif /* ORNIC_H */
