/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: work queue geometry, shared by QPs and SRQs (spec: queues.rst,
 * wqe.rst).
 *
 * This header's one job: the depth a request needs, the capacities a queue
 * of a given depth really has, and which posted WQE a completion's 16-bit
 * index names.  WQE block arithmetic is ornic_hw.h's.  Nothing here touches
 * hardware or allocates (ornic_wq.c; KUnit: ornic_wq_kunit.c).
 */
#ifndef ORNIC_WQ_H
#define ORNIC_WQ_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "ornic/ornic_hw.h"

/* Largest queue depth CREATE_QP/CREATE_SRQ accept (log2, in blocks). */
#define ORNIC_WQ_LOG_DEPTH_MAX		14

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
 * The free-running queue index a CQE's 16-bit @wqe_index names in a work
 * queue holding WQEs [@ci, @pi): true with *@idx set when it is one of them,
 * false for an index outside the posted range (a value from the device:
 * spec index.rst "Trust").
 */
bool ornic_wq_index_resolve(u16 wqe_index, u32 ci, u32 pi, u32 *idx);

#endif /* ORNIC_WQ_H */
