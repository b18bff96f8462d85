/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * ornic kernel/provider ABI, version 1 (provisional).
 *
 * The uverbs driver-data layouts shared by the kernel driver and the
 * rdma-core provider, included as <rdma/ornic-abi.h>.  Rules (as efa-abi.h):
 * request and response structs only, 8-byte aligned, explicit reserved
 * fields (zero), comp_mask for extension.
 */
#ifndef ORNIC_ABI_USER_H
#define ORNIC_ABI_USER_H

#include <linux/types.h>
#include <rdma/ib_user_ioctl_cmds.h>

#define ORNIC_UVERBS_ABI_VERSION	1

/*
 * ioctl attributes and methods of the driver's namespace, for sharing a
 * context between processes (ibv_import_device, ibv_import_pd):
 * UVERBS_METHOD_QUERY_CONTEXT answers the alloc_ucontext response again,
 * ORNIC_IB_METHOD_PD_QUERY a PD handle's PDN.
 */
enum ornic_ib_query_context_attrs {
	ORNIC_IB_ATTR_QUERY_CONTEXT_RESP_UCTX = (1U << UVERBS_ID_NS_SHIFT),
};

enum ornic_ib_pd_methods {
	ORNIC_IB_METHOD_PD_QUERY = (1U << UVERBS_ID_NS_SHIFT),
};

enum ornic_ib_query_pd_attrs {
	ORNIC_IB_ATTR_QUERY_PD_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	ORNIC_IB_ATTR_QUERY_PD_RESP_PDN,
};

/* alloc_ucontext: no request fields yet. */
enum ornic_ibv_alloc_ucontext_resp_comp_mask {
	/*
	 * The kernel takes ORNIC_IBV_CREATE_QP_DB_RECORD and
	 * ORNIC_IBV_CREATE_SRQ_DB_RECORD (the device has ORNIC_CAP_DB_RECORD).
	 */
	ORNIC_IBV_ALLOC_UCTX_RESP_DB_RECORD = 1 << 0,
	/*
	 * The kernel takes ORNIC_IBV_CREATE_CQ_DB_RECORD (the device has
	 * ORNIC_CAP_CQ_DB_RECORD).
	 */
	ORNIC_IBV_ALLOC_UCTX_RESP_CQ_DB_RECORD = 1 << 1,
};

struct ornic_ibv_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 db_page;		/* doorbell page index owned by the context */
	__aligned_u64 db_mmap_key;	/* mmap() offset of that page */
	__u32 db_page_size;	/* bytes to map: ORNIC_DB_PAGE_SIZE */
	__u32 spec_version;	/* device VERSION register */
	__aligned_u64 caps;	/* ORNIC_CAP_* */
	__u32 max_inline_data;
	__u32 max_wqe_blocks;
};

struct ornic_ibv_alloc_pd_resp {
	__u32 comp_mask;
	__u32 pdn;
};

/*
 * Queues of user contexts live in user memory: the provider allocates each
 * ring page-aligned, the kernel pins it (ib_umem) and hands the device its
 * page list.  Depths are powers of two; the kernel may round a depth up and
 * returns what it programmed.  Every queue uses the context's doorbell page.
 */

/*
 * CQ consumer records (doorbells.rst, "CQ consumer records"): with this
 * request bit the ring buffer holds 64 bytes more than its entries, the
 * struct ornic_cq_db_record where the provider writes its consumer index,
 * and the response says the CQ has one (it keeps it across resize_cq, whose
 * new buffer must have room for it too).  Only when the context's response
 * carries ORNIC_IBV_ALLOC_UCTX_RESP_CQ_DB_RECORD.
 */
enum ornic_ibv_create_cq_comp_mask {
	ORNIC_IBV_CREATE_CQ_DB_RECORD = 1 << 0,
};

enum ornic_ibv_create_cq_resp_comp_mask {
	ORNIC_IBV_CREATE_CQ_RESP_DB_RECORD = 1 << 0,
};

/* create_cq */
struct ornic_ibv_create_cq {
	__u32 comp_mask;
	__u32 log_depth;	/* CQEs = 1 << log_depth */
	/*
	 * Ring of struct ornic_cqe; of struct ornic_cqe_ts (64 bytes) when
	 * the CQ is created with IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION.
	 */
	__aligned_u64 buf_addr;
	__aligned_u64 buf_size;	/* bytes, >= entry size << log_depth */
};

struct ornic_ibv_create_cq_resp {
	__u32 comp_mask;
	__u32 cqn;
	__u32 log_depth;
	__u32 reserved;
};

/*
 * resize_cq (ORNIC_CAP_RESIZE): the provider allocates the new ring and
 * passes the consumer index it has reached; the CQEs it has not polled
 * move to slots 0.. of the new ring and it continues there from index 0.
 */
struct ornic_ibv_resize_cq {
	__u32 comp_mask;
	__u32 log_depth;	/* new ring: CQEs = 1 << log_depth */
	__aligned_u64 buf_addr;
	__aligned_u64 buf_size;
	__u32 consumer_index;	/* the provider's, free-running */
	__u32 reserved;
};

struct ornic_ibv_resize_cq_resp {
	__u32 comp_mask;
	__u32 log_depth;
	__u32 moved;		/* unpolled CQEs now at slots 0..moved-1 */
	__u32 reserved;
};

/*
 * Doorbell records (doorbells.rst, "Doorbell records"): with this request
 * bit, each ring buffer holds one 64-byte block more than its ring, the
 * struct ornic_db_record at byte 64 << log_depth, and the response says
 * the QP (SRQ) has records.  Only when the context's response carries
 * ORNIC_IBV_ALLOC_UCTX_RESP_DB_RECORD; older kernels refuse any bit.
 */
enum ornic_ibv_create_qp_comp_mask {
	ORNIC_IBV_CREATE_QP_DB_RECORD = 1 << 0,
};

enum ornic_ibv_create_qp_resp_comp_mask {
	ORNIC_IBV_CREATE_QP_RESP_DB_RECORD = 1 << 0,
};

enum ornic_ibv_create_srq_comp_mask {
	ORNIC_IBV_CREATE_SRQ_DB_RECORD = 1 << 0,
};

enum ornic_ibv_create_srq_resp_comp_mask {
	ORNIC_IBV_CREATE_SRQ_RESP_DB_RECORD = 1 << 0,
};

/* create_qp: depths count 64-byte WQE blocks */
struct ornic_ibv_create_qp {
	__u32 comp_mask;
	__u8 sq_log_depth;
	__u8 rq_log_depth;	/* ignored when the QP uses an SRQ */
	__u16 reserved;
	__aligned_u64 sq_buf_addr;
	__aligned_u64 sq_buf_size;
	__aligned_u64 rq_buf_addr;	/* 0 with an SRQ */
	__aligned_u64 rq_buf_size;
};

struct ornic_ibv_create_qp_resp {
	__u32 comp_mask;
	__u32 qpn;
	__u8 sq_log_depth;
	__u8 rq_log_depth;
	__u16 reserved0;
	__u32 max_inline_data;
};

/* create_srq: depth counts 64-byte WQE blocks */
struct ornic_ibv_create_srq {
	__u32 comp_mask;
	__u32 log_depth;
	__aligned_u64 buf_addr;
	__aligned_u64 buf_size;
};

struct ornic_ibv_create_srq_resp {
	__u32 comp_mask;
	__u32 srqn;
	__u32 log_depth;
	__u32 reserved;
};

/*
 * modify_srq with IB_SRQ_MAX_WR (ORNIC_CAP_RESIZE): the new ring, which the
 * kernel programs at exactly this depth or fails.  Block indices keep
 * counting across the move (ornic_admin_resize_srq).  An SRQ with a
 * doorbell record needs room for it past the new ring too; the record
 * moves there.
 */
struct ornic_ibv_modify_srq {
	__u32 comp_mask;
	__u32 log_depth;
	__aligned_u64 buf_addr;
	__aligned_u64 buf_size;
};

/* create_ah: the device AH index a UD send WQE names (ornic_wqe_ud_seg.ah) */
struct ornic_ibv_create_ah_resp {
	__u32 comp_mask;
	__u32 ah;
};

#endif /* ORNIC_ABI_USER_H */
