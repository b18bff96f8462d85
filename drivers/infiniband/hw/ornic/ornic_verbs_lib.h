/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: pure logic of the data-path verbs, shared with the KUnit suites.
 *
 * This header's one job: the verbs side as arithmetic, on ib_verbs types
 * (the device-only side is ornic_lib.h's, WQE geometry ornic_hw.h's):
 * queue depths (spec: queues.rst), page size choice for pinned memory, and
 * the translation between the RDMA core's QP attributes and the device's
 * struct ornic_qp_attr (spec: qp.rst).
 * Nothing here touches hardware, sleeps or allocates.
 */
#ifndef ORNIC_VERBS_LIB_H
#define ORNIC_VERBS_LIB_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "ornic/ornic_hw.h"
#include "ornic_lib.h"

/* Largest queue depths CREATE_QP/CREATE_SRQ/CREATE_CQ accept (log2). */
#define ORNIC_WQ_LOG_DEPTH_MAX		14
#define ORNIC_CQ_LOG_DEPTH_MAX		16

/* The device's limits the verbs check requests against. */
struct ornic_wq_limits {
	u32 max_wqe_blocks;	/* per WQE */
	u32 max_qp_wr;		/* queue depth in blocks */
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline_data;
};

/*
 * Smallest log2 depth (in blocks, >= 1) that holds @wrs WQEs, each
 * @blocks long; -EINVAL when it exceeds the device or spec limits.
 */
int ornic_wq_log_depth(u32 wrs, u32 blocks, const struct ornic_wq_limits *l);

/*
 * Check the send side of @cap against @l, and whether @log_depth (what the
 * provider allocated) holds the request.  On success rewrite @cap's send
 * fields with the real capacities of a queue of 2^@log_depth blocks.
 */
int ornic_sq_caps(struct ib_qp_cap *cap, unsigned int log_depth,
		  const struct ornic_wq_limits *l);
/* The same for the receive side (RQ), and for an SRQ's max_wr/max_sge. */
int ornic_rq_caps(struct ib_qp_cap *cap, unsigned int log_depth,
		  const struct ornic_wq_limits *l);
int ornic_srq_caps(u32 *max_wr, u32 *max_sge, unsigned int log_depth,
		   const struct ornic_wq_limits *l);

/*
 * Page sizes usable for a ring that must start at a page boundary at user
 * address @addr: the sizes of @page_size_cap (bits 12..30) that @addr is
 * aligned to.
 */
u64 ornic_ring_pgsz_bitmap(u64 page_size_cap, u64 addr);
/* Page sizes of @page_size_cap the device can use for an MR. */
u64 ornic_mr_pgsz_bitmap(u64 page_size_cap);

/*
 * IB access flags -> ORNIC_ACCESS_*; -EOPNOTSUPP for flags it lacks: remote
 * atomics without @atomics, FLUSH_GLOBAL/FLUSH_PERSISTENT without @flush
 * (ORNIC_CAP_FLUSH).
 */
int ornic_access_from_ib(int ib_access, bool atomics, bool flush,
			 u32 *access);
/* A QP's ORNIC_ACCESS_* without the rights the device (@caps) cannot serve. */
u32 ornic_qp_access_for_caps(u32 access, u64 caps);
/* ib_device_attr.device_cap_flags for a device with ORNIC_CAP_* @caps. */
u64 ornic_device_cap_flags(u64 caps);
/*
 * The same for an MR, which may also take IB_ACCESS_MW_BIND when the device
 * has memory windows (@mw).
 */
int ornic_mr_access_from_ib(int ib_access, bool atomics, bool flush, bool mw,
			    u32 *access);
/* ib_mw_type -> enum ornic_mw_type; -EINVAL for a type the device lacks. */
int ornic_mw_type_from_ib(enum ib_mw_type type, u8 *hw);
int ornic_rereg_flags_from_ib(int ib_flags, u8 *flags);

/*
 * IB QP type -> ORNIC_QPT_* for a device with capability bits @caps:
 * -EOPNOTSUPP for a type the device does not have (UC without ORNIC_CAP_UC,
 * XRC_INI/XRC_TGT without ORNIC_CAP_XRC, raw packet, ...).
 */
int ornic_qp_type_to_hw(enum ib_qp_type type, u64 caps, u8 *hw);

/*
 * Whether a QP of device type @qpt carries send WQE opcode @op
 * (ORNIC_WQE_OP_*, spec: wqe.rst): RC and XRC_INI everything, UD/GSI only
 * SEND(_IMM), UC SENDs and RDMA WRITEs without READ, atomics or SEND_INV; the
 * local operations go on every type.
 */
bool ornic_qp_type_has_op(u8 qpt, u8 op);

/* IB_QP_* mask bits the device understands (plus CUR_STATE and PORT). */
/*
 * QP access flags taken and not passed to the device: rights it does not
 * check per QP (Documentation/verbs/attributes.rst).
 */
#define ORNIC_IB_QP_ACCESS_IGNORED (IB_ACCESS_MW_BIND | IB_ACCESS_ON_DEMAND)

#define ORNIC_IB_QP_MASK_SUPPORTED (IB_QP_STATE | IB_QP_CUR_STATE | \
	IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY | \
	IB_QP_AV | IB_QP_PATH_MTU | IB_QP_TIMEOUT | IB_QP_RETRY_CNT | \
	IB_QP_RNR_RETRY | IB_QP_RQ_PSN | IB_QP_MAX_QP_RD_ATOMIC | \
	IB_QP_MIN_RNR_TIMER | IB_QP_SQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC | \
	IB_QP_DEST_QPN | IB_QP_EN_SQD_ASYNC_NOTIFY)

/*
 * IB_QP_* -> ORNIC_QP_ATTR_*.  CUR_STATE and PORT have no device bit (they
 * are checked by the driver); anything outside ORNIC_IB_QP_MASK_SUPPORTED
 * is -EOPNOTSUPP.
 */
int ornic_qp_mask_from_ib(int ib_mask, u32 *mask);

/*
 * Fill the non-address fields of @oa selected by @ib_mask from @ia.
 * Range errors the device would also reject are caught here (-EINVAL).
 */
int ornic_qp_attr_from_ib(const struct ib_qp_attr *ia, int ib_mask,
			  struct ornic_qp_attr *oa);

/* The RoCEv2 address vector part of a QP's attributes (ORNIC_QP_ATTR_AV). */
void ornic_qp_av_to_hw(const struct ornic_av *av, struct ornic_qp_attr *oa);

/*
 * Whether QUERY_QP's answer holds only values the spec allows: NULL if so,
 * else the name of the first field out of range, with its @value and the
 * largest allowed value @limit.  Called before ornic_qp_attr_to_ib(): the
 * RDMA core indexes tables with the state and the MTU.
 */
const char *ornic_qp_attr_invalid(const struct ornic_qp_attr *oa, u32 *value,
				  u32 *limit);

/* QUERY_QP's answer -> ib_qp_attr (port 1, RoCE address handle). */
void ornic_qp_attr_to_ib(const struct ornic_qp_attr *oa,
			 struct ib_qp_attr *ia);

#endif /* ORNIC_VERBS_LIB_H */
