/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic rdma-core provider: the objects the provider keeps next to
 * libibverbs' own, and the helpers shared by its files.
 */
#ifndef __ORNIC_H__
#define __ORNIC_H__

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <infiniband/driver.h>
#include <ccan/minmax.h>
#include <util/util.h>

#include "ornic_hw.h"

/* PCI identity of the device (include/ornic/ornic_hw.h, provisional). */
#define PCI_VENDOR_ID_ORNIC	ORNIC_PCI_VENDOR_ID
#define PCI_DEVICE_ID_ORNIC	ORNIC_PCI_DEVICE_ID

/*
 * CQEs carry the low 16 bits of a WQE's first block; a ring no deeper than
 * this lets the provider rebuild the full index without ambiguity.
 */
#define ORNIC_MAX_WQ_LOG_DEPTH	15
#define ORNIC_MIN_LOG_DEPTH	1

/* Number -> object lookup for the poll path: two levels of 4096 entries. */
#define ORNIC_TABLE_SHIFT	12
#define ORNIC_TABLE_SIZE	(1U << ORNIC_TABLE_SHIFT)
#define ORNIC_TABLE_MASK	(ORNIC_TABLE_SIZE - 1)

struct ornic_table {
	pthread_mutex_t mutex;		/* writers of leaf[] and its leaves */
	void **leaf[ORNIC_TABLE_SIZE];
};

struct ornic_qp;

struct ornic_device {
	struct verbs_device vdev;
};

struct ornic_context {
	struct verbs_context ibvctx;
	uint32_t db_page;		/* doorbell page index of the context */
	uint32_t db_page_size;		/* bytes mapped at db */
	void *db;			/* the doorbell page, or NULL */
	uint32_t spec_version;
	uint64_t caps;
	uint32_t max_inline_data;
	uint32_t max_wqe_blocks;
	/* The kernel takes doorbell records (ORNIC_CAP_DB_RECORD). */
	bool db_records;
	/* The kernel takes CQ consumer records (ORNIC_CAP_CQ_DB_RECORD). */
	bool cq_db_records;

	/* Device limits, read once at context open. */
	uint32_t max_qp_wr;		/* blocks */
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_cqe;
	uint32_t max_srq_wr;		/* blocks */
	uint32_t max_srq_sge;

	struct ornic_table qp_table;	/* QPN -> struct ornic_qp */
	/* SRQN -> struct ornic_srq of XRC SRQs: XRC receive CQEs name them. */
	struct ornic_table xrc_srq_table;
};

/*
 * A protection domain, or a parent domain (ibv_alloc_parent_domain): a PD
 * in every verb, whose queues take their ring memory from the application's
 * allocator when it gave one.  The kernel never sees a parent domain: its
 * handle is the wrapped PD's.
 */
struct ornic_pd {
	struct ibv_pd ibvpd;
	uint32_t pdn;
	/* Objects that point at this PD: parent domains over a PD; QPs, SRQs
	 * and CQs of a parent domain.  Deallocation waits for 0. */
	atomic_int users;
	/* Parent domains only: the PD it wraps, and the allocator if any. */
	struct ornic_pd *protection_domain;
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
};

/*
 * resource_type values the allocator of a parent domain is called with:
 * which ring of which queue the memory is for.
 */
enum ornic_resource_type {
	ORNIC_RES_TYPE_CQ	= 1,
	ORNIC_RES_TYPE_SQ	= 2,
	ORNIC_RES_TYPE_RQ	= 3,
	ORNIC_RES_TYPE_SRQ	= 4,
};

struct ornic_mr {
	struct verbs_mr vmr;
};

/* A ring of entries in page-aligned user memory that the kernel pins. */
struct ornic_ring {
	void *buf;
	size_t buf_size;
	uint32_t log_depth;
	uint32_t mask;			/* entries - 1 */
	/* The parent domain whose allocator gave buf, or NULL (our mmap). */
	struct ornic_pd *custom;
	uint64_t resource_type;
};

struct ornic_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;
	struct ornic_ring ring;
	uint32_t cqe_size;		/* ORNIC_CQE_SIZE or ORNIC_CQE_TS_SIZE */
	uint32_t cqn;
	uint32_t ci;			/* next CQE to look at */
	uint32_t ci_reported;		/* last consumer index rung */
	uint32_t db_batch;		/* ring the consumer index this often */
	/* Consumer record past the ring (doorbells.rst), or NULL. */
	struct ornic_cq_db_record *rec;
	struct ornic_pd *parent_domain;	/* IBV_CQ_INIT_ATTR_MASK_PD */
	/* CLOCK_REALTIME ns minus device clock, measured at creation. */
	int64_t wallclock_offset;
	/* ibv_cq_ex polling: the CQE start/next_poll stopped at. */
	struct ornic_cqe cur;
	uint64_t cur_ts;		/* its device timestamp (timestamped CQs) */
	/* InfiniBand ports: how its receive came (the wide entry's half). */
	uint16_t cur_slid;
	uint16_t cur_pkey_index;
	uint8_t cur_sl;
	uint8_t cur_dlid_path_bits;
	/* CQEs dropped as invalid (cqe.rst; index.rst "Trust"). */
	uint64_t bad_cqes;
};

/* A work queue (SQ, RQ or SRQ) of 64-byte blocks. */
struct ornic_wq {
	struct ornic_ring ring;
	uint32_t pi;			/* next block to fill */
	uint32_t ci;			/* first block not yet retired */
	uint32_t max_sge;		/* what the application was granted */
	uint32_t max_wr;
	uint32_t max_blocks;		/* blocks of the largest WQE allowed */
	/* The doorbell record past the ring, or NULL: every post rings. */
	struct ornic_db_record *rec;
	pthread_spinlock_t lock;
};

struct ornic_srq {
	struct verbs_srq vsrq;
	struct ornic_wq wq;
	uint32_t srqn;
	/* XRC SRQs: the CQ their receives complete on (spec: xrc.rst). */
	struct ornic_cq *xrc_cq;
	/* One byte per block: set when the WQE starting there completed. */
	uint8_t *done;
	struct ornic_pd *parent_domain;	/* created on one, or NULL */
};

/* The WQE being built: block 0 plus up to 7 data blocks. */
struct ornic_wqe_buf {
	union {
		struct ornic_send_wqe hdr;
		uint8_t raw[ORNIC_WQE_BLOCK_SIZE];
	} block[ORNIC_WQE_MAX_BLOCKS];
	uint32_t num_blocks;
	uint32_t inline_len;
	uint32_t num_sge;
};

/*
 * A QP.  An XRC_SEND QP has only the SQ; an XRC_RECV QP (created here or
 * opened with ibv_open_qp) has no queue at all: the device delivers its
 * messages into the XRC SRQs they name.
 */
struct ornic_qp {
	struct verbs_qp vqp;
	uint32_t qpn;
	enum ibv_qp_type type;
	enum ibv_qp_state state;	/* as last set through modify_qp */
	bool sq_sig_all;
	uint32_t max_inline_data;
	struct ornic_wq sq;
	struct ornic_wq rq;		/* unused with an SRQ */
	struct ornic_srq *srq;
	struct ornic_pd *parent_domain;	/* created on one, or NULL */

	/* ibv_qp_ex (wr_*) state between wr_start and wr_complete */
	struct ornic_wqe_buf wr;
	bool wr_open;			/* an opcode call awaits its data */
	int wr_err;			/* first error since wr_start */
	uint32_t wr_start_pi;
};

struct ornic_ah {
	struct ibv_ah ibvah;
	uint32_t ah;			/* device AH index */
};

static inline struct ornic_device *to_ornic_dev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct ornic_device, vdev.device);
}

static inline struct ornic_context *to_ornic_ctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct ornic_context, ibvctx.context);
}

static inline struct ornic_pd *to_ornic_pd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct ornic_pd, ibvpd);
}

static inline struct ornic_cq *to_ornic_cq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct ornic_cq, vcq.cq);
}

static inline struct ornic_cq *to_ornic_cq_ex(struct ibv_cq_ex *ibcqx)
{
	return container_of(ibcqx, struct ornic_cq, vcq.cq_ex);
}

static inline struct ornic_qp *to_ornic_qp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct ornic_qp, vqp.qp);
}

static inline struct ornic_qp *to_ornic_qp_ex(struct ibv_qp_ex *ibqpx)
{
	return container_of(ibqpx, struct ornic_qp, vqp.qp_ex);
}

static inline struct ornic_srq *to_ornic_srq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct ornic_srq, vsrq.srq);
}

static inline struct ornic_ah *to_ornic_ah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct ornic_ah, ibvah);
}

static inline bool ornic_qp_has_sq(const struct ornic_qp *qp)
{
	return qp->type != IBV_QPT_XRC_RECV;
}

static inline bool ornic_qp_has_rq(const struct ornic_qp *qp)
{
	return !qp->srq && qp->type != IBV_QPT_XRC_SEND &&
	       qp->type != IBV_QPT_XRC_RECV;
}

/* ornic_table.c */
void ornic_table_init(struct ornic_table *t);
void ornic_table_destroy(struct ornic_table *t);
void *ornic_table_find(struct ornic_table *t, uint32_t n);
int ornic_table_set(struct ornic_table *t, uint32_t n, void *obj);

/* The parent domain @ibpd is, or NULL for a protection domain (or none). */
static inline struct ornic_pd *ornic_parent_domain(struct ibv_pd *ibpd)
{
	struct ornic_pd *pd = ibpd ? to_ornic_pd(ibpd) : NULL;

	return pd && pd->protection_domain ? pd : NULL;
}

/* ornic.c */
void ornic_pd_get(struct ornic_pd *pd);
void ornic_pd_put(struct ornic_pd *pd);

/* ornic_ring.c */
/* tail_bytes: room after the entries (a doorbell record), zeroed. */
int ornic_ring_alloc(struct ornic_ring *ring, struct ibv_pd *pd,
		     uint64_t resource_type, uint32_t log_depth,
		     uint32_t entry_size, uint32_t tail_bytes);
void ornic_wq_notify(struct ornic_context *ctx, struct ornic_wq *wq,
		     uint32_t offset, uint32_t qn);

/* Where a ring's doorbell record is: block 2^log_depth of its buffer. */
static inline struct ornic_db_record *ornic_wq_record(struct ornic_wq *wq)
{
	return (struct ornic_db_record *)((uint8_t *)wq->ring.buf +
					  ((size_t)ORNIC_WQE_BLOCK_SIZE
					   << wq->ring.log_depth));
}
void ornic_ring_free(struct ornic_ring *ring);
void ornic_ring_doorbell(struct ornic_context *ctx, uint32_t offset,
			 uint32_t qn, uint64_t flags, uint32_t index);
/* Smallest log2 depth (ORNIC_MIN_LOG_DEPTH..31) that holds @entries. */
uint32_t ornic_log2_depth(uint32_t entries);
uint64_t ornic_read_clock(struct ornic_context *ctx);

/* ornic_cq.c */
struct ibv_cq *ornic_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector);
struct ibv_cq_ex *ornic_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr);
int ornic_destroy_cq(struct ibv_cq *ibcq);
int ornic_resize_cq(struct ibv_cq *ibcq, int cqe);
int ornic_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
int ornic_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
void ornic_cq_clean(struct ornic_cq *cq, uint32_t qpn);
void ornic_cq_clean_xrc_srq(struct ornic_cq *cq, uint32_t srqn);

/* ornic_qp.c */
struct ibv_qp *ornic_create_qp(struct ibv_pd *ibpd,
			       struct ibv_qp_init_attr *attr);
struct ibv_qp *ornic_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr);
int ornic_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask);
int ornic_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr);
int ornic_destroy_qp(struct ibv_qp *ibqp);

/* Whether a QP in @state has a send queue that takes WQEs. */
static inline bool ornic_sq_usable(enum ibv_qp_state state)
{
	return state != IBV_QPS_RESET && state != IBV_QPS_INIT &&
	       state != IBV_QPS_RTR;
}

bool ornic_sq_ready(struct ornic_qp *qp);
struct ornic_qp *ornic_find_qp(struct ornic_context *ctx, uint32_t qpn);
struct ibv_qp *ornic_open_qp(struct ibv_context *ibctx,
			     struct ibv_qp_open_attr *attr);

/* ornic_post.c */
int ornic_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
int ornic_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);
int ornic_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);
int ornic_wqe_commit(struct ornic_wq *wq, const struct ornic_wqe_buf *w);
int ornic_wqe_start(struct ornic_qp *qp, struct ornic_wqe_buf *w,
		    enum ibv_wr_opcode opcode, unsigned int send_flags,
		    uint64_t wr_id);
int ornic_wqe_add_sge(struct ornic_qp *qp, struct ornic_wqe_buf *w,
		      uint32_t lkey, uint64_t addr, uint32_t length);
int ornic_wqe_add_inline(struct ornic_qp *qp, struct ornic_wqe_buf *w,
			 const void *addr, size_t length);
int ornic_wqe_set_ud(struct ornic_qp *qp, struct ornic_wqe_buf *w,
		     struct ibv_ah *ah, uint32_t remote_qpn,
		     uint32_t remote_qkey);
int ornic_wqe_set_rdma(struct ornic_wqe_buf *w, uint64_t remote_addr,
		       uint32_t rkey);
int ornic_wqe_set_atomic(struct ornic_wqe_buf *w, uint64_t remote_addr,
			 uint32_t rkey, uint64_t compare_add, uint64_t swap);
int ornic_wqe_set_xrc_srqn(struct ornic_qp *qp, struct ornic_wqe_buf *w,
			   uint32_t remote_srqn);
int ornic_wqe_set_bind_mw(struct ornic_wqe_buf *w, struct ibv_mw *mw,
			  uint32_t rkey, const struct ibv_mw_bind_info *info);
int ornic_wqe_set_local_inv(struct ornic_wqe_buf *w, uint32_t rkey);
int ornic_wqe_set_flush(struct ornic_wqe_buf *w, uint64_t remote_addr,
			uint32_t rkey, size_t length, uint8_t type,
			uint8_t level);
void ornic_wqe_set_atomic_write(struct ornic_wqe_buf *w, uint64_t remote_addr,
				uint32_t rkey, const void *data);
int ornic_wqe_finish(struct ornic_qp *qp, struct ornic_wqe_buf *w);
void ornic_sq_doorbell(struct ornic_qp *qp);

/* ornic_qp_ex.c */
void ornic_qp_ex_init(struct ornic_qp *qp, uint64_t send_ops_flags);
bool ornic_qp_ex_ops_supported(uint64_t caps, enum ibv_qp_type type,
			       uint64_t flags);

/* ornic_srq.c */
struct ibv_srq *ornic_create_srq(struct ibv_pd *ibpd,
				 struct ibv_srq_init_attr *attr);
struct ibv_srq *ornic_create_srq_ex(struct ibv_context *ibctx,
				    struct ibv_srq_init_attr_ex *attr);
int ornic_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num);
int ornic_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask);
int ornic_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int ornic_destroy_srq(struct ibv_srq *ibsrq);
bool ornic_srq_retire(struct ornic_srq *srq, uint16_t wqe_index);

/* ornic_xrc.c */
struct ibv_xrcd *ornic_open_xrcd(struct ibv_context *ibctx,
				 struct ibv_xrcd_init_attr *attr);
int ornic_close_xrcd(struct ibv_xrcd *ibxrcd);

/* ornic_ah.c */
struct ibv_ah *ornic_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *attr);
int ornic_destroy_ah(struct ibv_ah *ibah);

/* ornic_mr.c */
struct ibv_mr *ornic_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length,
			    uint64_t hca_va, int access);
int ornic_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		    uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);
int ornic_dereg_mr(struct verbs_mr *vmr);
struct ibv_mr *ornic_import_mr(struct ibv_pd *ibpd, uint32_t mr_handle);
void ornic_unimport_mr(struct ibv_mr *ibmr);
struct ibv_mw *ornic_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type);
int ornic_dealloc_mw(struct ibv_mw *mw);
int ornic_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind);
int ornic_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		   void *addr, size_t length, int access);

#endif /* __ORNIC_H__ */
