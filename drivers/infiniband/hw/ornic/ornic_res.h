/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: the verbs objects below the PD.
 *
 * This header's one job: the MR, MW, CQ, XRCD, SRQ, QP and AH structs, the
 * page lists that describe pinned user memory to the device, and the entry
 * points of the files implementing them (ornic_mr.c, ornic_cq*.c,
 * ornic_qp*.c, ornic_srq.c, ornic_ah.c, ...).  The device and the PD and
 * user context structs are ornic.h's.
 *
 * Locking of event delivery.  CQs, QPs and SRQs are found by number in
 * dev->cqs/qps/srqs (xarrays with IRQ-safe locks).  Completion EQEs are
 * handled in the completion EQ's hard interrupt handler; every other event
 * in ornic_aeq_process() under dev->aeq_lock.  Destroy first destroys the
 * object in the device (no new EQEs name it), then erases it from the
 * xarray, then waits for any handler that may still hold it:
 * synchronize_irq() of the CQ's EQ vector and a lock/unlock of
 * dev->aeq_lock (ornic_res_sync()).  Only then may the core free it.
 */
#ifndef ORNIC_RES_H
#define ORNIC_RES_H

#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include "ornic.h"
#include "ornic_mr_cmd.h"
#include "ornic_qp_cmd.h"
#include "ornic_wq.h"

/* A DIRECT or INDIRECT page list, only needed until its command ran. */
struct ornic_pbl {
	__le64 *top;			/* page addresses or pointer pages */
	dma_addr_t top_dma;
	__le64 **ptr;			/* INDIRECT: the pointer pages */
	dma_addr_t *ptr_dma;
	u32 nptr;
};

struct ornic_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;		/* user MRs */
	u32 key;
	int access;			/* user MRs: IB access flags */
	/* Fast-registration MRs: the page list REG_MR WQEs point at. */
	__le64 *pages;
	dma_addr_t pages_dma;
	u32 max_pages;
	u32 npages;
	/*
	 * ODP MRs (ornic_odp.c): the page table the device reads; its
	 * entries and odp_live are written under odp->umem_mutex.
	 */
	struct ornic_dev *dev;
	struct ib_umem_odp *odp;
	struct ornic_pbl table;
	u32 odp_pages;
	bool odp_live;			/* the device has the MR */
};

struct ornic_mw {
	struct ib_mw ibmw;
	u32 key;			/* as ALLOC_MW returned it */
};

/* A kernel CQ's own part (ornic_cq_kernel.c). */
struct ornic_kernel_cq {
	/* The ring, polled by poll_cq under lock. */
	struct ornic_cq_ring ring;
	/*
	 * Protects ring.ci, ci_reported and the CQEs between them and the
	 * device's producer (poll, arm, cleaning for a destroyed QP), and
	 * armed.
	 */
	spinlock_t lock;
	u32 ci_reported;
	bool armed;		/* req_notify_cq since the last software event */
	/*
	 * RESIZE_CQ in flight (under lock): the CQ rings no doorbell, an arm
	 * asked for meanwhile waits in arm_pending (ORNIC_DB_FLAG_ARM_*).
	 */
	bool resizing;
	u64 arm_pending;
	/* Serialises resizes with each other and with cleaning out a QP. */
	struct mutex resize_lock;
};

/* A user CQ's own part: the provider's ring (ornic_cq.c). */
struct ornic_user_cq {
	struct ib_umem *umem;
	u16 cqe_size;			/* ORNIC_CQE_SIZE or ORNIC_CQE_TS_SIZE */
	bool db_record;			/* ring ends with a consumer record */
	/* Serialises resizes (umem, log_depth). */
	struct mutex resize_lock;
};

struct ornic_cq {
	struct ib_cq ibcq;
	struct ornic_eq *eq;
	u32 cqn;
	u8 log_depth;
	bool kernel;			/* kern is live, else user */
	union {
		struct ornic_kernel_cq kern;
		struct ornic_user_cq user;
	};
};

/* An XRC domain (spec: xrc.rst): XRC SRQs and XRC_TGT QPs name it. */
struct ornic_xrcd {
	struct ib_xrcd ibxrcd;
	u32 xrcdn;
};

/*
 * What the driver posted at a WQE's first block, kept out of the ring the
 * device can write: a CQE only names the block, and the wr_id, length and
 * size reported come from here (a kernel wr_id is often a pointer).
 */
struct ornic_kwq_shadow {
	u64 wr_id;
	u32 len;		/* receive: the SGEs' total length */
	u16 blocks;		/* 0: not the first block of a WQE */
	bool done;		/* SRQ: completed, waiting for those before */
};

/*
 * A kernel QP's send or receive queue, or a kernel SRQ: 2^log_depth blocks
 * of 64 bytes.
 */
struct ornic_kwq {
	void *ring;
	dma_addr_t dma;
	/*
	 * The doorbell record past the ring (ORNIC_CAP_DB_RECORD), or NULL:
	 * every post rings.  Written under lock, like pi.
	 */
	struct ornic_db_record *rec;
	struct ornic_kwq_shadow *shadow;	/* one per block */
	u8 log_depth;
	u32 max_sge;
	/*
	 * Protects pi (blocks posted), ci (blocks the device is done with,
	 * moved by the CQ poller) and the blocks between them.
	 */
	spinlock_t lock;
	u32 pi;
	u32 ci;
};

/* Block @idx (free-running) of a kernel work queue. */
static inline void *ornic_kwq_block(struct ornic_kwq *wq, u32 idx)
{
	return wq->ring + (size_t)ornic_ring_slot(idx, wq->log_depth) *
			  ORNIC_WQE_BLOCK_SIZE;
}

struct ornic_srq {
	struct ib_srq ibsrq;
	struct ib_umem *umem;		/* user SRQs: the provider's ring */
	bool kernel;			/* kern is the ring, not umem */
	u32 srqn;
	u8 log_depth;
	bool db_record;			/* the ring ends with a doorbell record */
	u32 max_wr;
	u32 max_sge;
	u32 limit;			/* under lock */
	struct mutex lock;
	/*
	 * A kernel SRQ's ring (ornic_srq_kernel.c).  Its shadow entries
	 * complete out of order: kern.ci is the first WQE not yet done.
	 */
	struct ornic_kwq kern;
};

/* A kernel QP's own part (ornic_qp_kernel.c). */
struct ornic_kernel_qp {
	struct ornic_kwq sq;
	struct ornic_kwq rq;		/* no ring with an SRQ */
	u32 max_inline;
};

/* A user QP's own part: the provider's rings (ornic_qp.c). */
struct ornic_user_qp {
	struct ib_umem *sq_umem;
	struct ib_umem *rq_umem;	/* NULL with an SRQ */
};

struct ornic_qp {
	struct ib_qp ibqp;
	bool kernel;			/* kern is live, else user (or neither) */
	/*
	 * XRC_TGT: created by the core for an XRC domain (without udata), it
	 * has no queues at all, so neither union member is used; user space
	 * reaches it through shared QPs.
	 */
	bool xrc_tgt;
	union {
		struct ornic_kernel_qp kern;
		struct ornic_user_qp user;
	};
	u32 qpn;
	u8 hw_type;			/* ORNIC_QPT_* */
	u8 sq_log_depth;
	u8 rq_log_depth;
	struct ib_qp_cap cap;
	enum ib_sig_type sq_sig_type;
	/*
	 * Last state the device confirmed; ERR also from a QP error event.
	 * Written with WRITE_ONCE: by modify/query under lock, and by the
	 * AEQ handler without it (under dev->aeq_lock).  Read with
	 * READ_ONCE: under lock by modify, locklessly by post_send and
	 * post_recv, which check it once per call (a post racing with a
	 * modify may see either state).
	 */
	u8 state;
	struct mutex lock;		/* serialises modify and query */
	/*
	 * iWARP: references of the iw_cm and of the connection the QP is
	 * bound to (iw_conn_id, 0 when none; written under dev->iw.lock);
	 * destroy waits for iw_released.
	 */
	refcount_t iw_refs;
	struct completion iw_released;
	u32 iw_conn_id;
};

struct ornic_ah {
	struct ib_ah ibah;
	u32 index;			/* user AHs: the device's AH */
	bool kernel;			/* kernel AHs: only the vector */
	struct ornic_av av;
};

/* Ring sizes (log2 of blocks): the driver's own rings for kernel QPs. */
static inline u8 ornic_qp_sq_log_depth(const struct ornic_qp *qp)
{
	return qp->kernel ? qp->kern.sq.log_depth : qp->sq_log_depth;
}

static inline u8 ornic_qp_rq_log_depth(const struct ornic_qp *qp)
{
	return qp->kernel ? qp->kern.rq.log_depth : qp->rq_log_depth;
}

static inline struct ornic_mr *to_omr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct ornic_mr, ibmr);
}

static inline struct ornic_mw *to_omw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct ornic_mw, ibmw);
}

static inline struct ornic_cq *to_ocq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct ornic_cq, ibcq);
}

static inline struct ornic_srq *to_osrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct ornic_srq, ibsrq);
}

static inline struct ornic_xrcd *to_oxrcd(struct ib_xrcd *ibxrcd)
{
	return container_of(ibxrcd, struct ornic_xrcd, ibxrcd);
}

static inline struct ornic_qp *to_oqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct ornic_qp, ibqp);
}

static inline struct ornic_ah *to_oah(struct ib_ah *ibah)
{
	return container_of(ibah, struct ornic_ah, ibah);
}

static inline u32 to_pdn(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct ornic_pd, ibpd)->pdn;
}

/* ornic_umem.c */
int ornic_pbl_build(struct ornic_dev *dev, struct ib_umem *umem,
		    unsigned long pgsz, struct ornic_mem_desc *desc,
		    struct ornic_pbl *pbl);
void ornic_pbl_free(struct ornic_dev *dev, struct ornic_pbl *pbl);
int ornic_pbl_alloc_table(struct ornic_dev *dev, struct ornic_pbl *pbl,
			  u32 nentries, unsigned int page_shift,
			  struct ornic_mem_desc *desc);
struct ib_umem *ornic_ring_pin(struct ornic_dev *dev, u64 addr, u64 buf_size,
			       size_t ring_bytes, struct ornic_mem_desc *desc,
			       struct ornic_pbl *pbl);
/* Page sizes of @page_size_cap the device can use for an MR. */
u64 ornic_mr_pgsz_bitmap(u64 page_size_cap);
/*
 * Page sizes usable for a ring that must start at a page boundary at user
 * address @addr: the sizes of @page_size_cap (bits 12..30) that @addr is
 * aligned to.
 */
u64 ornic_ring_pgsz_bitmap(u64 page_size_cap, u64 addr);
/* Which mode a list of @npages pages needs; -E2BIG when it cannot fit. */
int ornic_pbl_mode(u32 npages);
/* Number of 4 KiB pointer pages an INDIRECT list of @npages needs. */
u32 ornic_pbl_ptr_pages(u32 npages);
/*
 * Write page @i of an INDIRECT list: which pointer page (@ptr) and which
 * entry in it (@ent) hold page address number @i.
 */
void ornic_pbl_locate(u32 i, u32 *ptr, u32 *ent);
/* Pages an MR of @length bytes at @iova needs with 2^@page_shift pages. */
u64 ornic_mr_num_pages(u64 iova, u64 length, unsigned int page_shift);
int ornic_udata_in(struct ib_udata *udata, void *req, size_t len);
int ornic_udata_out(struct ib_udata *udata, void *resp, size_t len);
void ornic_res_sync(struct ornic_dev *dev);
void ornic_wq_limits(struct ornic_dev *dev, struct ornic_wq_limits *l);
void ornic_qp_caps_rejected(struct ornic_dev *dev,
			    const struct ib_qp_cap *cap, int sq_log, int rq_log);

/* ornic_mr.c */
#ifdef ORNIC_HAVE_IB_DMAH
struct ib_mr *ornic_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 virt_addr, int access,
				struct ib_dmah *dmah, struct ib_udata *udata);
#else
struct ib_mr *ornic_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 virt_addr, int access,
				struct ib_udata *udata);
#endif
int ornic_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
int ornic_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int ornic_dealloc_mw(struct ib_mw *ibmw);
struct ib_mr *ornic_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 virt_addr, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata);

/* ornic_odp.c: on-demand paging */
static inline bool ornic_odp_supported(struct ornic_dev *dev)
{
#ifdef ORNIC_HAVE_ODP
	return dev->caps & ORNIC_CAP_ODP;
#else
	return false;
#endif
}

int ornic_odp_reg_mr(struct ib_pd *ibpd, u64 start, u64 length, u64 virt_addr,
		     int access, u32 hw_access, struct ornic_mr *mr);
int ornic_odp_dereg_mr(struct ornic_mr *mr);
int ornic_advise_mr(struct ib_pd *ibpd, enum ib_uverbs_advise_mr_advice advice,
		    u32 flags, struct ib_sge *sg_list, u32 num_sge,
		    struct uverbs_attr_bundle *attrs);

/* ornic_mr.c, kernel PDs */
struct ib_mr *ornic_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *ornic_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int ornic_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);

/* ornic_cq_kernel.c: CQs of kernel consumers */
int ornic_create_kernel_cq(struct ib_cq *ibcq,
			   const struct ib_cq_init_attr *attr);
void ornic_destroy_kernel_cq(struct ornic_cq *cq);
int ornic_poll_cq(struct ib_cq *ibcq, int ne, struct ib_wc *wc);
void ornic_cqe_origin_to_wc(const struct ornic_cqe_ts *ts, struct ib_wc *wc);
enum rdma_network_type ornic_cqe_network_type(u8 flags);
u16 ornic_cqe_vlan_tci(const struct ornic_cqe *cqe);
int ornic_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
void ornic_kernel_cq_clean(struct ornic_cq *cq, u32 qpn,
			   struct ornic_kwq *srq);
void ornic_kernel_cq_kick(struct ib_cq *ibcq);
int ornic_kernel_cq_log_depth(u32 cqe, u32 max_cqe);
int ornic_resize_kernel_cq(struct ib_cq *ibcq, unsigned int cqe);

/* What a CQE's opcode says it completes (a value from the device). */
enum ornic_cqe_kind {
	ORNIC_CQE_KIND_INVALID,
	ORNIC_CQE_KIND_SEND,	/* a send queue WQE (incl. local operations) */
	ORNIC_CQE_KIND_RECV,	/* a receive WQE (RQ or SRQ) */
	ORNIC_CQE_KIND_ETH,	/* an Ethernet ring descriptor */
};

enum ornic_cqe_kind ornic_cqe_kind(u8 opcode);

/* ornic_qp_kernel.c: QPs of kernel consumers (and the GSI QP) */
int ornic_create_kernel_qp(struct ornic_qp *qp, struct ib_qp_init_attr *init);
void ornic_destroy_kernel_qp(struct ornic_qp *qp);
void ornic_kernel_qp_reset(struct ornic_qp *qp);
void ornic_kernel_qp_clean_cqs(struct ornic_qp *qp);
int ornic_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int ornic_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
/* The kernel work queue helpers kernel SRQs share with kernel QPs. */
int ornic_kwq_alloc(struct ornic_dev *dev, struct ornic_kwq *wq,
		    unsigned int log_depth, u32 max_sge,
		    struct ornic_mem_desc *desc);
void ornic_kwq_free(struct ornic_dev *dev, struct ornic_kwq *wq);
void ornic_kwq_notify(struct ornic_dev *dev, struct ornic_kwq *wq,
		      u32 offset, u32 qn);
int ornic_kwq_post_one_recv(struct ornic_kwq *wq, const struct ib_recv_wr *wr);

/* ornic_srq_kernel.c: SRQs of kernel consumers */
int ornic_create_kernel_srq(struct ornic_srq *srq,
			    struct ib_srq_init_attr *init);
void ornic_destroy_kernel_srq(struct ornic_srq *srq);
int ornic_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);
/*
 * The log2 depth (blocks) of a kernel SRQ of @max_wr WQEs of @max_sge SGEs
 * with an SRQ limit of @limit, or -EINVAL; @max_wr and @max_sge become what
 * it holds.
 */
int ornic_ksrq_log_depth(u32 *max_wr, u32 *max_sge, u32 limit,
			 const struct ornic_wq_limits *l);
/*
 * Mark the SRQ WQE a receive CQE names done and return what was posted
 * there; the consumer index moves over the WQEs done before any still
 * outstanding.  False, changing nothing, for an index that names no
 * outstanding WQE.  The caller may hold a CQ's lock.
 */
bool ornic_ksrq_retire(struct ornic_kwq *wq, u16 wqe_index,
		       struct ornic_kwq_shadow *posted);

/* ornic_cq.c */
int ornic_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct uverbs_attr_bundle *attrs);
int ornic_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int ornic_resize_user_cq(struct ib_cq *ibcq, unsigned int cqe,
			 struct ib_udata *udata);
#ifdef ORNIC_HAVE_IB_DMAH
#define ornic_resize_cq_op ornic_resize_user_cq
#else
int ornic_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
#define ornic_resize_cq_op ornic_resize_cq
#endif

/* ornic_qp.c */
int ornic_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int ornic_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		    int mask, struct ib_udata *udata);
int ornic_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		   int mask, struct ib_qp_init_attr *init);
int ornic_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);

/* ornic_srq.c */
void ornic_srq_wq_limits(struct ornic_dev *dev, struct ornic_wq_limits *lim);
int ornic_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int ornic_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int ornic_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int ornic_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);

/* CREATE_SRQ in host order; @xrcdn and @cqn are sent only for SRQT_XRC. */
struct ornic_srq_create_args {
	struct ornic_mem_desc mem;
	u32 pdn;
	u32 limit;		/* SRQ_LIMIT threshold, 0 = off */
	u32 xrcdn;
	u32 cqn;
	u16 db_page;
	u8 log_depth;
	u8 srq_type;		/* enum ornic_srq_type */
	u32 flags;		/* ORNIC_SRQ_FLAG_* */
};

void ornic_cmd_create_srq(struct ornic_admin_sqe *sqe,
			  const struct ornic_srq_create_args *args);
/* MODIFY_SRQ: (re-)arm the SRQ_LIMIT event of @srqn at @limit WQEs. */
void ornic_cmd_modify_srq(struct ornic_admin_sqe *sqe, u32 srqn, u32 limit);
void ornic_cmd_resize_srq(struct ornic_admin_sqe *sqe,
			  const struct ornic_mem_desc *mem,
			  unsigned int log_depth, u32 srqn);

/* ornic_xrc.c */
int ornic_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int ornic_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);

/* ornic_ah.c */
int ornic_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
int ornic_destroy_ah(struct ib_ah *ibah, u32 flags);
int ornic_roce_av(const struct rdma_ah_attr *ah_attr, u32 lqpn, u32 rqpn,
		  struct ornic_av *av);
int ornic_ib_av(const struct rdma_ah_attr *ah_attr, struct ornic_av *av);
void ornic_av_to_ah_attr(const struct ornic_av *av, bool ib,
			 struct rdma_ah_attr *attr);
int ornic_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
/* The vector of the port's link layer (@lqpn, @rqpn: RoCE's entropy). */
int ornic_av_from_ah_attr(struct ornic_dev *dev,
			  const struct rdma_ah_attr *ah_attr, u32 lqpn,
			  u32 rqpn, struct ornic_av *av);
void ornic_cmd_create_ah(struct ornic_admin_sqe *sqe, u32 pdn,
			 const struct ornic_av *av);

/* ornic_mcast.c */
int ornic_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int ornic_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
/* Whether @gid names a multicast group (ff00::/8 or IPv4 224.0.0.0/4). */
bool ornic_gid_is_mcast(const u8 gid[16]);
int ornic_cmd_mcast(struct ornic_admin_sqe *sqe, bool attach, u32 qpn,
		    const u8 gid[16]);

/* ornic_verbs.c */
struct ornic_ibv_alloc_ucontext_resp;
void ornic_ucontext_resp(struct ornic_ucontext *uctx,
			 struct ornic_ibv_alloc_ucontext_resp *resp);

/* ornic_uapi.c: the driver's ioctl methods and attributes */
extern const struct uapi_definition ornic_uapi_defs[];
int ornic_query_ucontext(struct ib_ucontext *ibuctx,
			 struct uverbs_attr_bundle *attrs);

#endif /* ORNIC_RES_H */
