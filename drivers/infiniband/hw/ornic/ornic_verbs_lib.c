// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: pure logic of the data-path verbs (see ornic_verbs_lib.h).  What
 * its KUnit suites (ornic_verbs_lib_kunit.c, ornic_devval_kunit.c) call is
 * exported to them with EXPORT_SYMBOL_IF_KUNIT().
 */
#include <kunit/visibility.h>
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>

#include "ornic_verbs_lib.h"

/* --- Queue depths (WQE block arithmetic: ornic_hw.h) ------------------- */

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

/* --- page sizes ----------------------------------------------------------- */

u64 ornic_mr_pgsz_bitmap(u64 page_size_cap)
{
	return page_size_cap &
	       GENMASK_ULL(ORNIC_PAGE_SHIFT_MAX, ORNIC_PAGE_SHIFT_MIN);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_mr_pgsz_bitmap);

u64 ornic_ring_pgsz_bitmap(u64 page_size_cap, u64 addr)
{
	u64 bitmap = ornic_mr_pgsz_bitmap(page_size_cap);

	/* A page larger than addr's alignment would start before the ring. */
	if (addr)
		bitmap &= GENMASK_ULL(__ffs64(addr), 0);
	return bitmap;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_ring_pgsz_bitmap);

/* --- access flags --------------------------------------------------------- */

int ornic_access_from_ib(int ib_access, bool atomics, bool flush,
			 u32 *access)
{
	int flush_rights = IB_ACCESS_FLUSH_GLOBAL | IB_ACCESS_FLUSH_PERSISTENT;
	int known = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		    IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
		    flush_rights;

	/* Optional flags (relaxed ordering) are hints a device may ignore. */
	ib_access &= ~IB_ACCESS_OPTIONAL;
	if (ib_access & ~known)
		return -EOPNOTSUPP;
	if ((ib_access & IB_ACCESS_REMOTE_ATOMIC) && !atomics)
		return -EOPNOTSUPP;
	if ((ib_access & flush_rights) && !flush)
		return -EOPNOTSUPP;
	*access = 0;
	if (ib_access & IB_ACCESS_LOCAL_WRITE)
		*access |= ORNIC_ACCESS_LOCAL_WRITE;
	if (ib_access & IB_ACCESS_REMOTE_WRITE)
		*access |= ORNIC_ACCESS_REMOTE_WRITE;
	if (ib_access & IB_ACCESS_REMOTE_READ)
		*access |= ORNIC_ACCESS_REMOTE_READ;
	if (ib_access & IB_ACCESS_REMOTE_ATOMIC)
		*access |= ORNIC_ACCESS_REMOTE_ATOMIC;
	if (ib_access & IB_ACCESS_FLUSH_GLOBAL)
		*access |= ORNIC_ACCESS_FLUSH_GLOBAL;
	if (ib_access & IB_ACCESS_FLUSH_PERSISTENT)
		*access |= ORNIC_ACCESS_FLUSH_PERSISTENT;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_access_from_ib);

int ornic_mr_access_from_ib(int ib_access, bool atomics, bool flush, bool mw,
			    u32 *access)
{
	int err;

	if ((ib_access & IB_ACCESS_MW_BIND) && !mw)
		return -EOPNOTSUPP;
	err = ornic_access_from_ib(ib_access & ~IB_ACCESS_MW_BIND, atomics,
				   flush, access);
	if (err)
		return err;
	if (ib_access & IB_ACCESS_MW_BIND)
		*access |= ORNIC_ACCESS_MW_BIND;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_mr_access_from_ib);

int ornic_mw_type_from_ib(enum ib_mw_type type, u8 *hw)
{
	switch (type) {
	case IB_MW_TYPE_1:
		*hw = ORNIC_MW_TYPE_1;
		return 0;
	case IB_MW_TYPE_2:
		*hw = ORNIC_MW_TYPE_2;
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_mw_type_from_ib);

/*
 * The parts of an MR a rereg_user_mr changes, as REREG_MR flags; -EINVAL
 * for none, -EOPNOTSUPP for a flag this driver does not know.
 */
int ornic_rereg_flags_from_ib(int ib_flags, u8 *flags)
{
	if (!ib_flags)
		return -EINVAL;
	if (ib_flags & ~IB_MR_REREG_SUPPORTED)
		return -EOPNOTSUPP;
	*flags = 0;
	if (ib_flags & IB_MR_REREG_TRANS)
		*flags |= ORNIC_REREG_MR_TRANSLATION;
	if (ib_flags & IB_MR_REREG_PD)
		*flags |= ORNIC_REREG_MR_PD;
	if (ib_flags & IB_MR_REREG_ACCESS)
		*flags |= ORNIC_REREG_MR_ACCESS;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_rereg_flags_from_ib);

/* --- QP types -------------------------------------------------------------- */

int ornic_qp_type_to_hw(enum ib_qp_type type, u64 caps, u8 *hw)
{
	static const struct {
		enum ib_qp_type ib;
		u8 hw;
		u64 cap;
	} map[] = {
		{ IB_QPT_RC, ORNIC_QPT_RC, ORNIC_CAP_RC },
		{ IB_QPT_UC, ORNIC_QPT_UC, ORNIC_CAP_UC },
		{ IB_QPT_UD, ORNIC_QPT_UD, ORNIC_CAP_UD },
		{ IB_QPT_GSI, ORNIC_QPT_GSI, ORNIC_CAP_GSI },
		{ IB_QPT_XRC_INI, ORNIC_QPT_XRC_INI, ORNIC_CAP_XRC },
		{ IB_QPT_XRC_TGT, ORNIC_QPT_XRC_TGT, ORNIC_CAP_XRC },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		if (map[i].ib != type)
			continue;
		if (!(caps & map[i].cap))
			return -EOPNOTSUPP;
		*hw = map[i].hw;
		return 0;
	}
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_qp_type_to_hw);

bool ornic_qp_type_has_op(u8 qpt, u8 op)
{
	if (op == ORNIC_WQE_OP_REG_MR || op == ORNIC_WQE_OP_LOCAL_INV)
		return true;
	switch (qpt) {
	case ORNIC_QPT_RC:
	case ORNIC_QPT_XRC_INI:
		return op <= ORNIC_WQE_OP_ATOMIC_FETCH_ADD;
	case ORNIC_QPT_UC:
		return op == ORNIC_WQE_OP_SEND || op == ORNIC_WQE_OP_SEND_IMM ||
		       op == ORNIC_WQE_OP_RDMA_WRITE ||
		       op == ORNIC_WQE_OP_RDMA_WRITE_IMM;
	case ORNIC_QPT_UD:
	case ORNIC_QPT_GSI:
		return op == ORNIC_WQE_OP_SEND || op == ORNIC_WQE_OP_SEND_IMM;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_qp_type_has_op);

u32 ornic_qp_access_for_caps(u32 access, u64 caps)
{
	/*
	 * Permission for remote FLUSH (IBTA 1.5) grants nothing on a device
	 * that executes no FLUSH: like mlx5 and rxe, take the flags instead
	 * of refusing the QP (pyverbs asks them of every RC QP).
	 */
	if (!(caps & ORNIC_CAP_FLUSH))
		access &= ~ORNIC_ACCESS_FLUSH;
	return access;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_qp_access_for_caps);

u64 ornic_device_cap_flags(u64 caps)
{
	u64 flags = IB_DEVICE_RC_RNR_NAK_GEN | IB_DEVICE_CHANGE_PHY_PORT |
		    IB_DEVICE_SYS_IMAGE_GUID;

	/* Fast registration: kernel ULPs (nvme-rdma, iSER, ...) need it. */
	if (caps & ORNIC_CAP_FAST_REG)
		flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
	/* One device cap covers both placement types (roce.rst). */
	if (caps & ORNIC_CAP_FLUSH)
		flags |= IB_DEVICE_FLUSH_GLOBAL | IB_DEVICE_FLUSH_PERSISTENT;
	if (caps & ORNIC_CAP_ATOMIC_WRITE)
		flags |= IB_DEVICE_ATOMIC_WRITE;
	if (caps & ORNIC_CAP_MW)
		flags |= IB_DEVICE_MEM_WINDOW | IB_DEVICE_MEM_WINDOW_TYPE_2B;
	if ((caps & ORNIC_CAP_RESIZE) && (caps & ORNIC_CAP_SRQ))
		flags |= IB_DEVICE_SRQ_RESIZE;
	/* XRC domains, XRC SRQs and XRC initiator/target QPs (xrc.rst). */
	if (caps & ORNIC_CAP_XRC)
		flags |= IB_DEVICE_XRC;
	return flags;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_device_cap_flags);

/* --- QP attributes --------------------------------------------------------- */

static const struct {
	int ib;
	u32 hw;
} ornic_qp_mask_map[] = {
	{ IB_QP_STATE, ORNIC_QP_ATTR_STATE },
	{ IB_QP_ACCESS_FLAGS, ORNIC_QP_ATTR_ACCESS_FLAGS },
	{ IB_QP_PKEY_INDEX, ORNIC_QP_ATTR_PKEY_INDEX },
	{ IB_QP_QKEY, ORNIC_QP_ATTR_QKEY },
	{ IB_QP_AV, ORNIC_QP_ATTR_AV },
	{ IB_QP_PATH_MTU, ORNIC_QP_ATTR_PATH_MTU },
	{ IB_QP_TIMEOUT, ORNIC_QP_ATTR_TIMEOUT },
	{ IB_QP_RETRY_CNT, ORNIC_QP_ATTR_RETRY_CNT },
	{ IB_QP_RNR_RETRY, ORNIC_QP_ATTR_RNR_RETRY },
	{ IB_QP_RQ_PSN, ORNIC_QP_ATTR_RQ_PSN },
	{ IB_QP_MAX_QP_RD_ATOMIC, ORNIC_QP_ATTR_MAX_QP_RD_ATOMIC },
	{ IB_QP_MIN_RNR_TIMER, ORNIC_QP_ATTR_MIN_RNR_TIMER },
	{ IB_QP_SQ_PSN, ORNIC_QP_ATTR_SQ_PSN },
	{ IB_QP_MAX_DEST_RD_ATOMIC, ORNIC_QP_ATTR_MAX_DEST_RD_ATOMIC },
	{ IB_QP_DEST_QPN, ORNIC_QP_ATTR_DEST_QPN },
	{ IB_QP_EN_SQD_ASYNC_NOTIFY, ORNIC_QP_ATTR_EN_SQD_ASYNC_NOTIFY },
};

int ornic_qp_mask_from_ib(int ib_mask, u32 *mask)
{
	unsigned int i;

	if (ib_mask & ~ORNIC_IB_QP_MASK_SUPPORTED)
		return -EOPNOTSUPP;
	*mask = 0;
	for (i = 0; i < ARRAY_SIZE(ornic_qp_mask_map); i++)
		if (ib_mask & ornic_qp_mask_map[i].ib)
			*mask |= ornic_qp_mask_map[i].hw;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_qp_mask_from_ib);

#define ORNIC_PSN_MASK		0x00ffffffU
#define ORNIC_FLOW_LABEL_MASK	0x000fffffU

int ornic_qp_attr_from_ib(const struct ib_qp_attr *ia, int ib_mask,
			  struct ornic_qp_attr *oa)
{
	u32 access;
	int err;

	if (ib_mask & IB_QP_STATE) {
		if (ia->qp_state > IB_QPS_ERR)
			return -EINVAL;
		oa->state = ia->qp_state;
	}
	if (ib_mask & IB_QP_ACCESS_FLAGS) {
		/*
		 * A QP takes the flags rxe takes for it (its MR set: also
		 * MW_BIND and ON_DEMAND, which are not rights the device
		 * checks per QP and grant nothing here); unknown bits are
		 * -EINVAL, as on rxe.  ornic_qp_access_for_caps() drops the
		 * FLUSH rights on a device without FLUSH.
		 */
		err = ornic_access_from_ib(ia->qp_access_flags &
					   ~ORNIC_IB_QP_ACCESS_IGNORED,
					   true, true, &access);
		if (err)
			return -EINVAL;
		/* A QP's access flags only govern remote operations. */
		oa->access_flags = cpu_to_le32(access &
					       ~ORNIC_ACCESS_LOCAL_WRITE);
	}
	if (ib_mask & IB_QP_PKEY_INDEX) {
		if (ia->pkey_index)
			return -EINVAL;
		oa->pkey_index = 0;
	}
	if (ib_mask & IB_QP_QKEY)
		oa->qkey = cpu_to_le32(ia->qkey);
	if (ib_mask & IB_QP_PATH_MTU) {
		if (ia->path_mtu < IB_MTU_256 || ia->path_mtu > IB_MTU_4096)
			return -EINVAL;
		oa->path_mtu = ia->path_mtu;
	}
	if (ib_mask & IB_QP_TIMEOUT) {
		if (ia->timeout > 31)
			return -EINVAL;
		oa->timeout = ia->timeout;
	}
	if (ib_mask & IB_QP_RETRY_CNT) {
		if (ia->retry_cnt > 7)
			return -EINVAL;
		oa->retry_cnt = ia->retry_cnt;
	}
	if (ib_mask & IB_QP_RNR_RETRY) {
		if (ia->rnr_retry > 7)
			return -EINVAL;
		oa->rnr_retry = ia->rnr_retry;
	}
	/* PSNs and QPNs are 24 bits: rxe and mlx5 keep the low 24. */
	if (ib_mask & IB_QP_RQ_PSN)
		oa->rq_psn = cpu_to_le32(ia->rq_psn & ORNIC_PSN_MASK);
	if (ib_mask & IB_QP_SQ_PSN)
		oa->sq_psn = cpu_to_le32(ia->sq_psn & ORNIC_PSN_MASK);
	if (ib_mask & IB_QP_MAX_QP_RD_ATOMIC)
		oa->max_rd_atomic = ia->max_rd_atomic;
	if (ib_mask & IB_QP_MAX_DEST_RD_ATOMIC)
		oa->max_dest_rd_atomic = ia->max_dest_rd_atomic;
	if (ib_mask & IB_QP_MIN_RNR_TIMER) {
		if (ia->min_rnr_timer > 31)
			return -EINVAL;
		oa->min_rnr_timer = ia->min_rnr_timer;
	}
	if (ib_mask & IB_QP_DEST_QPN)
		oa->dest_qpn = cpu_to_le32(ia->dest_qp_num & ORNIC_QPN_MASK);
	if (ib_mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		oa->en_sqd_async_notify = !!ia->en_sqd_async_notify;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_qp_attr_from_ib);

void ornic_qp_av_to_hw(const struct ornic_av *av, struct ornic_qp_attr *oa)
{
	memcpy(oa->dgid, av->dgid, sizeof(oa->dgid));
	memcpy(oa->dmac, av->dmac, sizeof(oa->dmac));
	oa->sgid_index = av->sgid_index;
	oa->hop_limit = av->hop_limit;
	oa->traffic_class = av->traffic_class;
	/* 20 bits on the wire: the rest is dropped, as rxe and mlx5 do. */
	oa->flow_label = cpu_to_le32(av->flow_label & ORNIC_FLOW_LABEL_MASK);
	oa->udp_sport = cpu_to_le16(av->udp_sport);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_qp_av_to_hw);

const char *ornic_qp_attr_invalid(const struct ornic_qp_attr *oa, u32 *value,
				  u32 *limit)
{
	static const struct {
		const char *name;
		size_t off;
		u8 max;
	} fields[] = {
		{ "state", offsetof(struct ornic_qp_attr, state),
		  ORNIC_QPS_ERR },
		{ "path_mtu", offsetof(struct ornic_qp_attr, path_mtu),
		  ORNIC_MTU_4096 },
		{ "timeout", offsetof(struct ornic_qp_attr, timeout), 31 },
		{ "retry_cnt", offsetof(struct ornic_qp_attr, retry_cnt), 7 },
		{ "rnr_retry", offsetof(struct ornic_qp_attr, rnr_retry), 7 },
		{ "min_rnr_timer", offsetof(struct ornic_qp_attr,
					    min_rnr_timer), 31 },
	};
	const u8 *raw = (const u8 *)oa;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		if (raw[fields[i].off] > fields[i].max) {
			*value = raw[fields[i].off];
			*limit = fields[i].max;
			return fields[i].name;
		}
	}
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_qp_attr_invalid);

void ornic_qp_attr_to_ib(const struct ornic_qp_attr *oa,
			 struct ib_qp_attr *ia)
{
	u32 access = le32_to_cpu(oa->access_flags);
	union ib_gid dgid;

	ia->qp_state = oa->state;
	ia->cur_qp_state = oa->state;
	ia->path_mtu = oa->path_mtu;
	ia->path_mig_state = IB_MIG_MIGRATED;
	ia->qkey = le32_to_cpu(oa->qkey);
	ia->rq_psn = le32_to_cpu(oa->rq_psn);
	ia->sq_psn = le32_to_cpu(oa->sq_psn);
	ia->dest_qp_num = le32_to_cpu(oa->dest_qpn);
	ia->qp_access_flags = 0;
	if (access & ORNIC_ACCESS_REMOTE_WRITE)
		ia->qp_access_flags |= IB_ACCESS_REMOTE_WRITE;
	if (access & ORNIC_ACCESS_REMOTE_READ)
		ia->qp_access_flags |= IB_ACCESS_REMOTE_READ;
	if (access & ORNIC_ACCESS_REMOTE_ATOMIC)
		ia->qp_access_flags |= IB_ACCESS_REMOTE_ATOMIC;
	if (access & ORNIC_ACCESS_FLUSH_GLOBAL)
		ia->qp_access_flags |= IB_ACCESS_FLUSH_GLOBAL;
	if (access & ORNIC_ACCESS_FLUSH_PERSISTENT)
		ia->qp_access_flags |= IB_ACCESS_FLUSH_PERSISTENT;
	ia->pkey_index = le16_to_cpu(oa->pkey_index);
	ia->en_sqd_async_notify = oa->en_sqd_async_notify;
	ia->sq_draining = oa->sq_draining;
	ia->max_rd_atomic = oa->max_rd_atomic;
	ia->max_dest_rd_atomic = oa->max_dest_rd_atomic;
	ia->min_rnr_timer = oa->min_rnr_timer;
	ia->port_num = 1;
	ia->timeout = oa->timeout;
	ia->retry_cnt = oa->retry_cnt;
	ia->rnr_retry = oa->rnr_retry;

	memcpy(dgid.raw, oa->dgid, sizeof(dgid.raw));
	ia->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&ia->ah_attr, 1);
	rdma_ah_set_grh(&ia->ah_attr, &dgid, le32_to_cpu(oa->flow_label),
			oa->sgid_index, oa->hop_limit, oa->traffic_class);
	memcpy(ia->ah_attr.roce.dmac, oa->dmac, ETH_ALEN);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_qp_attr_to_ib);
