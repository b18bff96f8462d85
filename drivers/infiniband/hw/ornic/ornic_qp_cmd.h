/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: what the QP commands carry (spec: qp.rst, admin.rst).
 *
 * This header's one job: CREATE_QP, MODIFY_QP and QUERY_QP, the QP types
 * and the opcodes each carries, and the translation between the RDMA
 * core's QP attributes and the device's struct ornic_qp_attr both ways,
 * with the checks of the values QUERY_QP brings back.  Nothing here touches
 * hardware or allocates (ornic_qp_cmd.c; KUnit: ornic_qp_kunit.c).
 */
#ifndef ORNIC_QP_CMD_H
#define ORNIC_QP_CMD_H

#include <linux/if_ether.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "ornic/ornic_hw.h"

/*
 * CREATE_QP in host order.  A ring left zeroed is absent (the RQ of an SRQ
 * or XRC initiator QP, both rings of an XRC target); @srqn is sent with
 * ORNIC_QP_FLAG_USE_SRQ, @xrcdn for an XRC target (the two share a field).
 */
struct ornic_qp_create_args {
	struct ornic_mem_desc sq_mem;
	struct ornic_mem_desc rq_mem;
	u32 pdn;
	u32 send_cqn;
	u32 recv_cqn;
	u32 srqn;
	u32 xrcdn;
	u16 db_page;
	u8 qp_type;		/* enum ornic_qp_type */
	u8 flags;		/* ORNIC_QP_FLAG_* */
	u8 sq_log_depth;
	u8 rq_log_depth;
};

void ornic_cmd_create_qp(struct ornic_admin_sqe *sqe,
			 const struct ornic_qp_create_args *args);
/*
 * MODIFY_QP or QUERY_QP (@opcode) of @qpn through the struct ornic_qp_attr
 * at DMA address @attr_addr; @cur_state < 0: no expected current state.
 */
void ornic_cmd_modify_qp(struct ornic_admin_sqe *sqe, u8 opcode, u32 qpn,
			 u64 attr_addr, u32 attr_len, u32 mask,
			 int cur_state);

/*
 * An address vector (of a QP's ORNIC_QP_ATTR_AV, or of an AH): RoCEv2's
 * GIDs, MAC and UDP source port, or InfiniBand's LIDs with a GRH when
 * av_flags has ORNIC_AV_FLAG_GRH (spec: infiniband.rst "Address vectors").
 */
struct ornic_av {
	u8 dgid[16];
	u8 dmac[ETH_ALEN];
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u32 flow_label;
	u16 udp_sport;		/* 0: the device chooses */
	/* InfiniBand only; 0 on RoCE */
	u16 dlid;
	u8 sl;
	u8 src_path_bits;
	u8 av_flags;		/* ORNIC_AV_FLAG_* */
	u8 static_rate;
};

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

/* A QP's ORNIC_ACCESS_* without the rights the device (@caps) cannot serve. */
u32 ornic_qp_access_for_caps(u32 access, u64 caps);

/*
 * QP access flags taken and not passed to the device: rights it does not
 * check per QP (Documentation/verbs/attributes.rst).
 */
#define ORNIC_IB_QP_ACCESS_IGNORED (IB_ACCESS_MW_BIND | IB_ACCESS_ON_DEMAND)

/* IB_QP_* mask bits the device understands (plus CUR_STATE and PORT). */
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
 * Values the device wrote (spec: index.rst "Trust"), checked before the
 * RDMA core indexes tables with them.  Whether a QP state from
 * MODIFY_QP/QUERY_QP is one of ORNIC_QPS_*:
 */
bool ornic_qp_state_valid(u32 state);
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

#endif /* ORNIC_QP_CMD_H */
