// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: work queue geometry (see ornic_wq.h).  What the KUnit suite calls
 * is exported to it with EXPORT_SYMBOL_IF_KUNIT().
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>

#include "ornic_wq.h"

int ornic_wq_log_depth(u32 wrs, u32 blocks, const struct ornic_wq_limits *l)
{
	u64 need = (u64)max(wrs, 1U) * blocks;
	unsigned int log = 1;

	while ((1ULL << log) < need)
		log++;
	if (log > ORNIC_WQ_LOG_DEPTH_MAX || (1ULL << log) > l->max_qp_wr)
		return -EINVAL;
	return log;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_wq_log_depth);

/* Whether the provider's @log_depth is legal and holds @need_log. */
static int ornic_check_log_depth(unsigned int log_depth, int need_log,
				 const struct ornic_wq_limits *l)
{
	if (need_log < 0)
		return need_log;
	if (log_depth < (unsigned int)need_log ||
	    log_depth > ORNIC_WQ_LOG_DEPTH_MAX ||
	    (1ULL << log_depth) > l->max_qp_wr)
		return -EINVAL;
	return 0;
}

int ornic_sq_caps(struct ib_qp_cap *cap, unsigned int log_depth,
		  const struct ornic_wq_limits *l)
{
	u32 blocks;
	int err;

	if (cap->max_send_sge > l->max_send_sge ||
	    cap->max_inline_data > l->max_inline_data)
		return -EINVAL;
	blocks = ornic_send_wqe_blocks(cap->max_send_sge,
				       cap->max_inline_data);
	if (blocks > l->max_wqe_blocks)
		return -EINVAL;
	err = ornic_check_log_depth(log_depth,
				    ornic_wq_log_depth(cap->max_send_wr,
						       blocks, l), l);
	if (err)
		return err;
	cap->max_send_wr = (1U << log_depth) / blocks;
	cap->max_send_sge = min(ornic_send_sges_fit(blocks), l->max_send_sge);
	cap->max_inline_data = min(ornic_inline_fit(blocks),
				   l->max_inline_data);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_sq_caps);

int ornic_rq_caps(struct ib_qp_cap *cap, unsigned int log_depth,
		  const struct ornic_wq_limits *l)
{
	u32 max_wr = cap->max_recv_wr, max_sge = cap->max_recv_sge;
	int err;

	err = ornic_srq_caps(&max_wr, &max_sge, log_depth, l);
	if (err)
		return err;
	cap->max_recv_wr = max_wr;
	cap->max_recv_sge = max_sge;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_rq_caps);

int ornic_srq_caps(u32 *max_wr, u32 *max_sge, unsigned int log_depth,
		   const struct ornic_wq_limits *l)
{
	u32 blocks;
	int err;

	if (*max_sge > l->max_recv_sge)
		return -EINVAL;
	blocks = ornic_recv_wqe_blocks(*max_sge);
	if (blocks > l->max_wqe_blocks)
		return -EINVAL;
	err = ornic_check_log_depth(log_depth,
				    ornic_wq_log_depth(*max_wr, blocks, l), l);
	if (err)
		return err;
	*max_wr = (1U << log_depth) / blocks;
	*max_sge = min(ornic_recv_sges_fit(blocks), l->max_recv_sge);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_srq_caps);

bool ornic_wq_index_resolve(u16 wqe_index, u32 ci, u32 pi, u32 *idx)
{
	u32 i = ci + (u16)(wqe_index - (u16)ci);

	if (i - ci >= pi - ci)
		return false;
	*idx = i;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_wq_index_resolve);
