// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: what the QP commands carry (see ornic_qp_cmd.h).  What the KUnit
 * suite calls is exported to it with EXPORT_SYMBOL_IF_KUNIT().
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "ornic_admin_cmd.h"
#include "ornic_mr_cmd.h"
#include "ornic_qp_cmd.h"

/* --- commands ------------------------------------------------------------- */

void ornic_cmd_create_qp(struct ornic_admin_sqe *sqe,
			 const struct ornic_qp_create_args *args)
{
	struct ornic_admin_create_qp *c = (struct ornic_admin_create_qp *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_CREATE_QP);
	c->sq_mem = args->sq_mem;
	c->rq_mem = args->rq_mem;
	c->pd = cpu_to_le32(args->pdn);
	c->send_cqn = cpu_to_le32(args->send_cqn);
	c->recv_cqn = cpu_to_le32(args->recv_cqn);
	if (args->qp_type == ORNIC_QPT_XRC_TGT)
		c->xrcd = cpu_to_le32(args->xrcdn);
	else if (args->flags & ORNIC_QP_FLAG_USE_SRQ)
		c->srqn = cpu_to_le32(args->srqn);
	c->db_page = cpu_to_le16(args->db_page);
	c->qp_type = args->qp_type;
	c->flags = args->flags;
	c->sq_log_depth = args->sq_log_depth;
	c->rq_log_depth = args->rq_log_depth;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_create_qp);

void ornic_cmd_modify_qp(struct ornic_admin_sqe *sqe, u8 opcode, u32 qpn,
			 u64 attr_addr, u32 attr_len, u32 mask,
			 int cur_state)
{
	struct ornic_admin_modify_qp *c = (struct ornic_admin_modify_qp *)sqe;

	ornic_cmd_init(sqe, opcode);
	c->attr_addr = cpu_to_le64(attr_addr);
	c->attr_len = cpu_to_le32(attr_len);
	c->qpn = cpu_to_le32(qpn);
	c->attr_mask = cpu_to_le32(mask);
	if (cur_state >= 0) {
		c->cur_state = cur_state;
		c->flags = ORNIC_MODIFY_QP_FLAG_CUR_STATE;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_modify_qp);

/* --- QP types ------------------------------------------------------------- */

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
		{ IB_QPT_SMI, ORNIC_QPT_SMI, ORNIC_CAP_IB },
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
	case ORNIC_QPT_SMI:
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

/* --- QP attributes -------------------------------------------------------- */

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
	/* Below the table's length, which the device checks (1 on RoCE). */
	if (ib_mask & IB_QP_PKEY_INDEX) {
		if (ia->pkey_index >= ORNIC_IB_PKEY_TABLE_LEN)
			return -EINVAL;
		oa->pkey_index = cpu_to_le16(ia->pkey_index);
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
	oa->dlid = cpu_to_le16(av->dlid);
	oa->sl = av->sl;
	oa->src_path_bits = av->src_path_bits;
	oa->av_flags = av->av_flags;
	oa->static_rate = av->static_rate;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_qp_av_to_hw);

/* --- QUERY_QP's answer ------------------------------------------------------ */

bool ornic_qp_state_valid(u32 state)
{
	return state <= ORNIC_QPS_ERR;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_qp_state_valid);

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
	rdma_ah_set_port_num(&ia->ah_attr, 1);
	/* An InfiniBand port's vectors have a DLID; a RoCE port's never do. */
	if (oa->dlid) {
		ia->ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
		rdma_ah_set_dlid(&ia->ah_attr, le16_to_cpu(oa->dlid));
		rdma_ah_set_sl(&ia->ah_attr, oa->sl);
		rdma_ah_set_path_bits(&ia->ah_attr, oa->src_path_bits);
		rdma_ah_set_static_rate(&ia->ah_attr, oa->static_rate);
		if (oa->av_flags & ORNIC_AV_FLAG_GRH)
			rdma_ah_set_grh(&ia->ah_attr, &dgid,
					le32_to_cpu(oa->flow_label),
					oa->sgid_index, oa->hop_limit,
					oa->traffic_class);
		return;
	}
	ia->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_grh(&ia->ah_attr, &dgid, le32_to_cpu(oa->flow_label),
			oa->sgid_index, oa->hop_limit, oa->traffic_class);
	memcpy(ia->ah_attr.roce.dmac, oa->dmac, ETH_ALEN);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_qp_attr_to_ib);
