// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: pure logic shared by the driver and its KUnit suites (no hardware
 * access, no allocation).  What the suites call is exported to them with
 * EXPORT_SYMBOL_IF_KUNIT() (only in kernels with KUnit).
 */
#include <kunit/visibility.h>
#include <linux/bitmap.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "ornic_lib.h"

unsigned int ornic_log2_depth(u32 entries)
{
	if (entries < 2)
		return 1;
	return order_base_2(entries);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_log2_depth);

/* --- identifier allocation ----------------------------------------------- */

void ornic_id_alloc_init(struct ornic_id_alloc *ida, unsigned long *map,
			 u32 size)
{
	ida->map = map;
	ida->size = size;
	ida->next = 0;
	bitmap_zero(map, size);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_id_alloc_init);

int ornic_id_get(struct ornic_id_alloc *ida)
{
	unsigned long id;

	id = find_next_zero_bit(ida->map, ida->size, ida->next);
	if (id >= ida->size)
		id = find_first_zero_bit(ida->map, ida->size);
	if (id >= ida->size)
		return -ENOSPC;
	__set_bit(id, ida->map);
	ida->next = (id + 1) % ida->size;
	return id;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_id_get);

void ornic_id_put(struct ornic_id_alloc *ida, u32 id)
{
	if (id < ida->size)
		__clear_bit(id, ida->map);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_id_put);

/* --- admin command encoding ---------------------------------------------- */

void ornic_cmd_init(struct ornic_admin_sqe *sqe, u8 opcode)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->hdr.opcode = opcode;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_init);

void ornic_cmd_set_id(struct ornic_admin_sqe *sqe, u16 cmd_id)
{
	sqe->hdr.command_id = cpu_to_le16(cmd_id);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_set_id);

void ornic_cmd_query(struct ornic_admin_sqe *sqe, u8 opcode, u64 resp_addr,
		     u32 resp_len)
{
	struct ornic_admin_query *q = (struct ornic_admin_query *)sqe;

	ornic_cmd_init(sqe, opcode);
	q->resp_addr = cpu_to_le64(resp_addr);
	q->resp_len = cpu_to_le32(resp_len);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_query);

void ornic_cmd_query_counters(struct ornic_admin_sqe *sqe, u8 scope,
			      u32 handle, u64 resp_addr, u32 resp_len)
{
	struct ornic_admin_query_counters *q =
		(struct ornic_admin_query_counters *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_QUERY_COUNTERS);
	q->resp_addr = cpu_to_le64(resp_addr);
	q->resp_len = cpu_to_le32(resp_len);
	q->scope = scope;
	q->handle = cpu_to_le32(handle);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_query_counters);

void ornic_cmd_destroy(struct ornic_admin_sqe *sqe, u8 opcode, u32 handle)
{
	struct ornic_admin_destroy *d = (struct ornic_admin_destroy *)sqe;

	ornic_cmd_init(sqe, opcode);
	d->handle = cpu_to_le32(handle);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_destroy);

void ornic_cmd_create_eq(struct ornic_admin_sqe *sqe,
			 const struct ornic_mem_desc *mem,
			 unsigned int log_depth, u16 vector)
{
	struct ornic_admin_create_eq *c = (struct ornic_admin_create_eq *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_CREATE_EQ);
	c->mem = *mem;
	c->log_depth = log_depth;
	c->msix_vector = cpu_to_le16(vector);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_create_eq);

/* @flags: ORNIC_CQ_FLAG_* (TIMESTAMP: 64-byte timestamped CQEs). */
void ornic_cmd_create_cq(struct ornic_admin_sqe *sqe,
			 const struct ornic_mem_desc *mem,
			 unsigned int log_depth, u32 eqn, u16 db_page,
			 u8 flags)
{
	struct ornic_admin_create_cq *c = (struct ornic_admin_create_cq *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_CREATE_CQ);
	c->mem = *mem;
	c->eqn = cpu_to_le32(eqn);
	c->db_page = cpu_to_le16(db_page);
	c->log_depth = log_depth;
	c->flags = flags;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_create_cq);

void ornic_cmd_resize_cq(struct ornic_admin_sqe *sqe,
			 const struct ornic_mem_desc *mem,
			 unsigned int log_depth, u32 cqn, u32 consumer)
{
	struct ornic_admin_resize_cq *c = (struct ornic_admin_resize_cq *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_RESIZE_CQ);
	c->mem = *mem;
	c->cqn = cpu_to_le32(cqn);
	c->consumer = cpu_to_le32(consumer);
	c->log_depth = log_depth;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_resize_cq);

void ornic_cmd_resize_srq(struct ornic_admin_sqe *sqe,
			  const struct ornic_mem_desc *mem,
			  unsigned int log_depth, u32 srqn)
{
	struct ornic_admin_resize_srq *c = (struct ornic_admin_resize_srq *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_RESIZE_SRQ);
	c->mem = *mem;
	c->srqn = cpu_to_le32(srqn);
	c->log_depth = log_depth;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_resize_srq);

int ornic_cmd_rereg_mr(struct ornic_admin_sqe *sqe, u32 key, u8 flags,
		       const struct ornic_mr_xlat *xlat, u32 pdn,
		       u32 access)
{
	struct ornic_admin_rereg_mr *c = (struct ornic_admin_rereg_mr *)sqe;

	if (!flags || (flags & ~ORNIC_REREG_MR_ALL) ||
	    !(flags & ORNIC_REREG_MR_TRANSLATION) != !xlat)
		return -EINVAL;
	ornic_cmd_init(sqe, ORNIC_ADMIN_REREG_MR);
	c->key = cpu_to_le32(key);
	c->flags = flags;
	/* Parts that do not change stay zero: the device checks that. */
	if (xlat) {
		c->mem = xlat->mem;
		c->iova = cpu_to_le64(xlat->iova);
		c->length = cpu_to_le64(xlat->length);
		c->first_page_offset = cpu_to_le32(xlat->first_page_offset);
	}
	if (flags & ORNIC_REREG_MR_PD)
		c->pd = cpu_to_le32(pdn);
	if (flags & ORNIC_REREG_MR_ACCESS)
		c->access = cpu_to_le32(access);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_rereg_mr);

void ornic_cmd_reg_mr(struct ornic_admin_sqe *sqe,
		      const struct ornic_mr_xlat *xlat, u32 pdn, u32 access,
		      u8 key_variant)
{
	struct ornic_admin_reg_mr *c = (struct ornic_admin_reg_mr *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_REG_MR);
	c->mem = xlat->mem;
	c->iova = cpu_to_le64(xlat->iova);
	c->length = cpu_to_le64(xlat->length);
	c->pd = cpu_to_le32(pdn);
	c->access = cpu_to_le32(access);
	c->key_variant = key_variant;
	c->first_page_offset = cpu_to_le32(xlat->first_page_offset);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_reg_mr);

void ornic_cmd_reg_mr_physical(struct ornic_admin_sqe *sqe, u32 pdn,
			       u32 access, u8 key_variant)
{
	struct ornic_admin_reg_mr *c = (struct ornic_admin_reg_mr *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_REG_MR);
	/* No page list: the device ignores mem for a PHYSICAL MR. */
	c->iova = 0;
	c->length = cpu_to_le64(U64_MAX);
	c->pd = cpu_to_le32(pdn);
	c->access = cpu_to_le32(access);
	c->key_variant = key_variant;
	c->flags = ORNIC_MR_FLAG_PHYSICAL;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_reg_mr_physical);

void ornic_cmd_reg_mr_fast(struct ornic_admin_sqe *sqe, u32 pdn,
			   u32 max_pages, u8 key_variant)
{
	struct ornic_admin_reg_mr *c = (struct ornic_admin_reg_mr *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_REG_MR);
	/* Only the capacity: REG_MR work requests bring the pages. */
	c->mem.num_pages = cpu_to_le32(max_pages);
	c->pd = cpu_to_le32(pdn);
	c->key_variant = key_variant;
	c->flags = ORNIC_MR_FLAG_FAST_REG;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_reg_mr_fast);

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

void ornic_cmd_create_srq(struct ornic_admin_sqe *sqe,
			  const struct ornic_srq_create_args *args)
{
	struct ornic_admin_create_srq *c = (struct ornic_admin_create_srq *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_CREATE_SRQ);
	c->mem = args->mem;
	c->pd = cpu_to_le32(args->pdn);
	c->db_page = cpu_to_le16(args->db_page);
	c->log_depth = args->log_depth;
	c->limit = cpu_to_le32(args->limit);
	c->flags = cpu_to_le32(args->flags);
	if (args->srq_type == ORNIC_SRQT_XRC) {
		c->srq_type = ORNIC_SRQT_XRC;
		c->xrcd = cpu_to_le32(args->xrcdn);
		c->cqn = cpu_to_le32(args->cqn);
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_create_srq);

void ornic_cmd_modify_srq(struct ornic_admin_sqe *sqe, u32 srqn, u32 limit)
{
	struct ornic_admin_modify_srq *c = (struct ornic_admin_modify_srq *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_MODIFY_SRQ);
	c->srqn = cpu_to_le32(srqn);
	c->limit = cpu_to_le32(limit);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_modify_srq);

void ornic_cmd_create_ah(struct ornic_admin_sqe *sqe, u32 pdn,
			 const struct ornic_av *av)
{
	struct ornic_admin_create_ah *c = (struct ornic_admin_create_ah *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_CREATE_AH);
	c->pd = cpu_to_le32(pdn);
	c->flow_label = cpu_to_le32(av->flow_label);
	memcpy(c->dgid, av->dgid, sizeof(c->dgid));
	memcpy(c->dmac, av->dmac, sizeof(c->dmac));
	c->sgid_index = av->sgid_index;
	c->hop_limit = av->hop_limit;
	c->traffic_class = av->traffic_class;
	c->udp_sport = cpu_to_le16(av->udp_sport);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_create_ah);

void ornic_cmd_create_eth_ring(struct ornic_admin_sqe *sqe, bool tx,
			       const struct ornic_mem_desc *mem,
			       unsigned int log_depth, u32 cqn)
{
	struct ornic_admin_create_eth_ring *c =
		(struct ornic_admin_create_eth_ring *)sqe;

	ornic_cmd_init(sqe, tx ? ORNIC_ADMIN_ETH_CREATE_TX_RING :
				 ORNIC_ADMIN_ETH_CREATE_RX_RING);
	c->mem = *mem;
	c->cqn = cpu_to_le32(cqn);
	c->log_depth = log_depth;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_create_eth_ring);

bool ornic_gid_is_v4(const u8 gid[16])
{
	static const u8 prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				       0xff, 0xff };

	return !memcmp(gid, prefix, sizeof(prefix));
}
EXPORT_SYMBOL_IF_KUNIT(ornic_gid_is_v4);

/*
 * ADD_GID carries the GID and its type; DEL_GID only the index (gid and type
 * must be zero).  An IPv4 type with a GID that is not IPv4-mapped is refused
 * here rather than by the device.
 */
int ornic_cmd_gid(struct ornic_admin_sqe *sqe, bool add, u32 index,
		  const u8 gid[16], bool ipv4)
{
	struct ornic_admin_gid *g = (struct ornic_admin_gid *)sqe;

	ornic_cmd_init(sqe, add ? ORNIC_ADMIN_ADD_GID : ORNIC_ADMIN_DEL_GID);
	g->index = cpu_to_le32(index);
	if (!add)
		return 0;
	if (ipv4 && !ornic_gid_is_v4(gid))
		return -EINVAL;
	g->type = ipv4 ? ORNIC_GID_TYPE_ROCE_V2_IPV4 :
			 ORNIC_GID_TYPE_ROCE_V2_IPV6;
	memcpy(g->gid, gid, sizeof(g->gid));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_gid);

int ornic_cmd_alloc_mw(struct ornic_admin_sqe *sqe, u32 pdn, u8 type,
		       u8 key_variant)
{
	struct ornic_admin_alloc_mw *c = (struct ornic_admin_alloc_mw *)sqe;

	if (type != ORNIC_MW_TYPE_1 && type != ORNIC_MW_TYPE_2)
		return -EINVAL;
	ornic_cmd_init(sqe, ORNIC_ADMIN_ALLOC_MW);
	c->pd = cpu_to_le32(pdn);
	c->type = type;
	c->key_variant = key_variant;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_alloc_mw);

/*
 * A multicast group's GID (spec: roce.rst "Multicast"): ff00::/8, or an
 * IPv4-mapped 224.0.0.0/4 address.
 */
bool ornic_gid_is_mcast(const u8 gid[16])
{
	if (ornic_gid_is_v4(gid))
		return (gid[12] & 0xf0) == 0xe0;
	return gid[0] == 0xff;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_gid_is_mcast);

/* ATTACH_MCAST / DETACH_MCAST of QP @qpn to group @gid. */
int ornic_cmd_mcast(struct ornic_admin_sqe *sqe, bool attach, u32 qpn,
		    const u8 gid[16])
{
	struct ornic_admin_mcast *m = (struct ornic_admin_mcast *)sqe;

	if (qpn & ~ORNIC_QPN_MASK || !ornic_gid_is_mcast(gid))
		return -EINVAL;
	ornic_cmd_init(sqe, attach ? ORNIC_ADMIN_ATTACH_MCAST :
				     ORNIC_ADMIN_DETACH_MCAST);
	m->qpn = cpu_to_le32(qpn);
	memcpy(m->gid, gid, sizeof(m->gid));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_mcast);

void ornic_cmd_set_mac(struct ornic_admin_sqe *sqe, const u8 mac[6])
{
	struct ornic_admin_eth_set_mac *c =
		(struct ornic_admin_eth_set_mac *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_ETH_SET_MAC);
	memcpy(c->mac, mac, sizeof(c->mac));
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_set_mac);

void ornic_cmd_set_mtu(struct ornic_admin_sqe *sqe, u32 mtu)
{
	struct ornic_admin_eth_set_mtu *c =
		(struct ornic_admin_eth_set_mtu *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_ETH_SET_MTU);
	c->mtu = cpu_to_le32(mtu);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_set_mtu);

void ornic_cmd_odp_invalidate(struct ornic_admin_sqe *sqe, u32 key,
			      u32 first_page, u32 num_pages)
{
	struct ornic_admin_odp_invalidate *c =
		(struct ornic_admin_odp_invalidate *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_ODP_INVALIDATE);
	c->key = cpu_to_le32(key);
	c->first_page = cpu_to_le32(first_page);
	c->num_pages = cpu_to_le32(num_pages);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_odp_invalidate);

void ornic_cmd_odp_resume(struct ornic_admin_sqe *sqe, u32 qpn)
{
	struct ornic_admin_odp_resume *c = (struct ornic_admin_odp_resume *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_ODP_RESUME);
	c->qpn = cpu_to_le32(qpn);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_odp_resume);

void ornic_cmd_cc_config(struct ornic_admin_sqe *sqe, u8 op, u64 addr)
{
	struct ornic_admin_cc_config *c = (struct ornic_admin_cc_config *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_CC_CONFIG);
	c->params_addr = cpu_to_le64(addr);
	c->params_len = cpu_to_le32(sizeof(struct ornic_cc_params));
	c->op = op;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_cc_config);

static const char *const ornic_cc_knob_names[ORNIC_CC_KNOB_COUNT] = {
	[ORNIC_CC_KNOB_NP_ENABLE] = "np_enable",
	[ORNIC_CC_KNOB_RP_ENABLE] = "rp_enable",
	[ORNIC_CC_KNOB_ECT] = "ect",
	[ORNIC_CC_KNOB_NP_CNP_DSCP] = "np_cnp_dscp",
	[ORNIC_CC_KNOB_NP_MIN_TIME_BETWEEN_CNPS] = "np_min_time_between_cnps",
	[ORNIC_CC_KNOB_RP_MAX_RATE] = "rp_max_rate",
	[ORNIC_CC_KNOB_RP_MIN_RATE] = "rp_min_rate",
	[ORNIC_CC_KNOB_RP_AI_RATE] = "rp_ai_rate",
	[ORNIC_CC_KNOB_RP_HAI_RATE] = "rp_hai_rate",
	[ORNIC_CC_KNOB_RP_BYTE_RESET] = "rp_byte_reset",
	[ORNIC_CC_KNOB_RP_TIME_RESET] = "rp_time_reset",
	[ORNIC_CC_KNOB_RP_THRESHOLD] = "rp_threshold",
	[ORNIC_CC_KNOB_RP_GD] = "rp_gd",
	[ORNIC_CC_KNOB_RP_INITIAL_ALPHA_VALUE] = "rp_initial_alpha_value",
	[ORNIC_CC_KNOB_RP_DCE_TCP_G] = "rp_dce_tcp_g",
	[ORNIC_CC_KNOB_RP_DCE_TCP_RTT] = "rp_dce_tcp_rtt",
	[ORNIC_CC_KNOB_RP_RATE_REDUCE_MONITOR_PERIOD] =
		"rp_rate_reduce_monitor_period",
};

const char *ornic_cc_knob_name(unsigned int knob)
{
	return knob < ORNIC_CC_KNOB_COUNT ? ornic_cc_knob_names[knob] : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cc_knob_name);

/* The __le32 field of @knob, or NULL for the flag bits and u8 fields. */
static __le32 *ornic_cc_knob_field(struct ornic_cc_params *p,
				   unsigned int knob)
{
	switch (knob) {
	case ORNIC_CC_KNOB_NP_MIN_TIME_BETWEEN_CNPS:
		return &p->np_min_time_between_cnps;
	case ORNIC_CC_KNOB_RP_MAX_RATE: return &p->rp_max_rate;
	case ORNIC_CC_KNOB_RP_MIN_RATE: return &p->rp_min_rate;
	case ORNIC_CC_KNOB_RP_AI_RATE: return &p->rp_ai_rate;
	case ORNIC_CC_KNOB_RP_HAI_RATE: return &p->rp_hai_rate;
	case ORNIC_CC_KNOB_RP_BYTE_RESET: return &p->rp_byte_reset;
	case ORNIC_CC_KNOB_RP_TIME_RESET: return &p->rp_time_reset;
	case ORNIC_CC_KNOB_RP_THRESHOLD: return &p->rp_threshold;
	case ORNIC_CC_KNOB_RP_GD: return &p->rp_gd;
	case ORNIC_CC_KNOB_RP_INITIAL_ALPHA_VALUE:
		return &p->rp_initial_alpha_value;
	case ORNIC_CC_KNOB_RP_DCE_TCP_G: return &p->rp_dce_tcp_g;
	case ORNIC_CC_KNOB_RP_DCE_TCP_RTT: return &p->rp_dce_tcp_rtt;
	case ORNIC_CC_KNOB_RP_RATE_REDUCE_MONITOR_PERIOD:
		return &p->rp_rate_reduce_monitor_period;
	default: return NULL;
	}
}

u32 ornic_cc_knob_get(const struct ornic_cc_params *p, unsigned int knob)
{
	u32 flags = le32_to_cpu(p->flags);
	__le32 *field;

	switch (knob) {
	case ORNIC_CC_KNOB_NP_ENABLE:
		return !!(flags & ORNIC_CC_FLAG_NP_ENABLE);
	case ORNIC_CC_KNOB_RP_ENABLE:
		return !!(flags & ORNIC_CC_FLAG_RP_ENABLE);
	case ORNIC_CC_KNOB_ECT:
		return p->ect;
	case ORNIC_CC_KNOB_NP_CNP_DSCP:
		return p->np_cnp_dscp;
	}
	field = ornic_cc_knob_field((struct ornic_cc_params *)p, knob);
	return field ? le32_to_cpu(*field) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cc_knob_get);

/* The range of @knob given the other fields of @p (as the device checks). */
static void ornic_cc_knob_range(const struct ornic_cc_params *p,
				unsigned int knob, u32 *min, u32 *max)
{
	u32 max_rate = le32_to_cpu(p->rp_max_rate);

	*min = 0;
	switch (knob) {
	case ORNIC_CC_KNOB_NP_ENABLE:
	case ORNIC_CC_KNOB_RP_ENABLE:
		*max = 1;
		break;
	case ORNIC_CC_KNOB_ECT:
		*max = ORNIC_CC_ECT_0;
		break;
	case ORNIC_CC_KNOB_NP_CNP_DSCP:
		*max = 63;
		break;
	case ORNIC_CC_KNOB_RP_MAX_RATE:
		*min = max3(le32_to_cpu(p->rp_min_rate),
			    le32_to_cpu(p->rp_ai_rate),
			    le32_to_cpu(p->rp_hai_rate));
		*min = max(*min, 1U);
		*max = ORNIC_CC_MAX_RATE_MBPS;
		break;
	case ORNIC_CC_KNOB_RP_MIN_RATE:
		*min = 1;
		*max = max_rate;
		break;
	case ORNIC_CC_KNOB_RP_AI_RATE:
	case ORNIC_CC_KNOB_RP_HAI_RATE:
		*max = max_rate;
		break;
	case ORNIC_CC_KNOB_RP_BYTE_RESET:
		*max = U32_MAX;
		break;
	case ORNIC_CC_KNOB_RP_TIME_RESET:
	case ORNIC_CC_KNOB_RP_DCE_TCP_RTT:
		*min = 1;
		*max = ORNIC_CC_MAX_TIME_US;
		break;
	case ORNIC_CC_KNOB_RP_THRESHOLD:
		*min = 1;
		*max = ORNIC_CC_MAX_THRESHOLD;
		break;
	case ORNIC_CC_KNOB_RP_GD:
		*max = ORNIC_CC_MAX_GD;
		break;
	case ORNIC_CC_KNOB_RP_INITIAL_ALPHA_VALUE:
	case ORNIC_CC_KNOB_RP_DCE_TCP_G:
		*max = ORNIC_CC_ALPHA_ONE;
		break;
	default:
		*max = ORNIC_CC_MAX_TIME_US;	/* the other times */
		break;
	}
}

int ornic_cc_knob_set(struct ornic_cc_params *p, unsigned int knob,
		      u32 value, u32 *min, u32 *max)
{
	u32 flag = knob == ORNIC_CC_KNOB_NP_ENABLE ? ORNIC_CC_FLAG_NP_ENABLE :
						     ORNIC_CC_FLAG_RP_ENABLE;
	__le32 *field;

	*min = 0;
	*max = 0;
	if (knob >= ORNIC_CC_KNOB_COUNT)
		return -EINVAL;
	ornic_cc_knob_range(p, knob, min, max);
	if (value < *min || value > *max)
		return -EINVAL;
	switch (knob) {
	case ORNIC_CC_KNOB_NP_ENABLE:
	case ORNIC_CC_KNOB_RP_ENABLE:
		if (value)
			p->flags = cpu_to_le32(le32_to_cpu(p->flags) | flag);
		else
			p->flags = cpu_to_le32(le32_to_cpu(p->flags) & ~flag);
		return 0;
	case ORNIC_CC_KNOB_ECT:
		p->ect = value;
		return 0;
	case ORNIC_CC_KNOB_NP_CNP_DSCP:
		p->np_cnp_dscp = value;
		return 0;
	}
	field = ornic_cc_knob_field(p, knob);
	*field = cpu_to_le32(value);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cc_knob_set);

int ornic_admin_status_errno(u8 status)
{
	switch (status) {
	case ORNIC_ADMIN_STATUS_SUCCESS:
		return 0;
	case ORNIC_ADMIN_STATUS_BAD_OPCODE:
		return -EOPNOTSUPP;
	case ORNIC_ADMIN_STATUS_BAD_FIELD:
	case ORNIC_ADMIN_STATUS_BAD_HANDLE:
	case ORNIC_ADMIN_STATUS_BAD_ALIGNMENT:
		return -EINVAL;
	case ORNIC_ADMIN_STATUS_NO_RESOURCES:
		return -ENOSPC;
	case ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED:
		return -E2BIG;
	case ORNIC_ADMIN_STATUS_BUSY:
		return -EBUSY;
	case ORNIC_ADMIN_STATUS_BAD_DMA:
		return -EFAULT;
	case ORNIC_ADMIN_STATUS_BAD_STATE:
		return -EINVAL;
	case ORNIC_ADMIN_STATUS_PERMISSION:
		return -EPERM;
	default:
		return -EIO;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_admin_status_errno);

const char *ornic_admin_status_str(u8 status)
{
	static const char * const names[] = {
		[ORNIC_ADMIN_STATUS_SUCCESS] = "SUCCESS",
		[ORNIC_ADMIN_STATUS_BAD_OPCODE] = "BAD_OPCODE",
		[ORNIC_ADMIN_STATUS_BAD_FIELD] = "BAD_FIELD",
		[ORNIC_ADMIN_STATUS_BAD_HANDLE] = "BAD_HANDLE",
		[ORNIC_ADMIN_STATUS_NO_RESOURCES] = "NO_RESOURCES",
		[ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED] = "LIMIT_EXCEEDED",
		[ORNIC_ADMIN_STATUS_BUSY] = "BUSY",
		[ORNIC_ADMIN_STATUS_BAD_DMA] = "BAD_DMA",
		[ORNIC_ADMIN_STATUS_BAD_STATE] = "BAD_STATE",
		[ORNIC_ADMIN_STATUS_PERMISSION] = "PERMISSION",
		[ORNIC_ADMIN_STATUS_BAD_ALIGNMENT] = "BAD_ALIGNMENT",
		[ORNIC_ADMIN_STATUS_INTERNAL] = "INTERNAL",
	};

	if (status < ARRAY_SIZE(names) && names[status])
		return names[status];
	return "UNKNOWN";
}
EXPORT_SYMBOL_IF_KUNIT(ornic_admin_status_str);

const char *ornic_admin_opcode_str(u8 opcode)
{
	switch (opcode) {
	case ORNIC_ADMIN_QUERY_DEVICE: return "QUERY_DEVICE";
	case ORNIC_ADMIN_QUERY_PORT: return "QUERY_PORT";
	case ORNIC_ADMIN_QUERY_COUNTERS: return "QUERY_COUNTERS";
	case ORNIC_ADMIN_ALLOC_DB_PAGE: return "ALLOC_DB_PAGE";
	case ORNIC_ADMIN_FREE_DB_PAGE: return "FREE_DB_PAGE";
	case ORNIC_ADMIN_CREATE_EQ: return "CREATE_EQ";
	case ORNIC_ADMIN_DESTROY_EQ: return "DESTROY_EQ";
	case ORNIC_ADMIN_CREATE_CQ: return "CREATE_CQ";
	case ORNIC_ADMIN_DESTROY_CQ: return "DESTROY_CQ";
	case ORNIC_ADMIN_RESIZE_CQ: return "RESIZE_CQ";
	case ORNIC_ADMIN_ALLOC_PD: return "ALLOC_PD";
	case ORNIC_ADMIN_DEALLOC_PD: return "DEALLOC_PD";
	case ORNIC_ADMIN_REG_MR: return "REG_MR";
	case ORNIC_ADMIN_DEREG_MR: return "DEREG_MR";
	case ORNIC_ADMIN_ALLOC_MW: return "ALLOC_MW";
	case ORNIC_ADMIN_DEALLOC_MW: return "DEALLOC_MW";
	case ORNIC_ADMIN_REREG_MR: return "REREG_MR";
	case ORNIC_ADMIN_CREATE_QP: return "CREATE_QP";
	case ORNIC_ADMIN_MODIFY_QP: return "MODIFY_QP";
	case ORNIC_ADMIN_QUERY_QP: return "QUERY_QP";
	case ORNIC_ADMIN_DESTROY_QP: return "DESTROY_QP";
	case ORNIC_ADMIN_ALLOC_XRCD: return "ALLOC_XRCD";
	case ORNIC_ADMIN_DEALLOC_XRCD: return "DEALLOC_XRCD";
	case ORNIC_ADMIN_CREATE_SRQ: return "CREATE_SRQ";
	case ORNIC_ADMIN_MODIFY_SRQ: return "MODIFY_SRQ";
	case ORNIC_ADMIN_DESTROY_SRQ: return "DESTROY_SRQ";
	case ORNIC_ADMIN_RESIZE_SRQ: return "RESIZE_SRQ";
	case ORNIC_ADMIN_CREATE_AH: return "CREATE_AH";
	case ORNIC_ADMIN_DESTROY_AH: return "DESTROY_AH";
	case ORNIC_ADMIN_ADD_GID: return "ADD_GID";
	case ORNIC_ADMIN_DEL_GID: return "DEL_GID";
	case ORNIC_ADMIN_ATTACH_MCAST: return "ATTACH_MCAST";
	case ORNIC_ADMIN_DETACH_MCAST: return "DETACH_MCAST";
	case ORNIC_ADMIN_ETH_CREATE_TX_RING: return "ETH_CREATE_TX_RING";
	case ORNIC_ADMIN_ETH_CREATE_RX_RING: return "ETH_CREATE_RX_RING";
	case ORNIC_ADMIN_ETH_DESTROY_RING: return "ETH_DESTROY_RING";
	case ORNIC_ADMIN_ETH_SET_MAC: return "ETH_SET_MAC";
	case ORNIC_ADMIN_ETH_SET_MTU: return "ETH_SET_MTU";
	case ORNIC_ADMIN_ODP_INVALIDATE: return "ODP_INVALIDATE";
	case ORNIC_ADMIN_ODP_RESUME: return "ODP_RESUME";
	case ORNIC_ADMIN_CC_CONFIG: return "CC_CONFIG";
	default: return "UNKNOWN";
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_admin_opcode_str);

/* --- memory descriptors and page lists ----------------------------------- */

void ornic_mem_desc_contig(struct ornic_mem_desc *desc, u64 dma_addr,
			   size_t size, unsigned int page_shift)
{
	memset(desc, 0, sizeof(*desc));
	/* Driver rings come from dma_alloc_coherent(): page aligned. */
	desc->addr = cpu_to_le64(dma_addr);
	desc->num_pages = cpu_to_le32(DIV_ROUND_UP_ULL((u64)size,
						       1ULL << page_shift));
	desc->page_shift = page_shift;
	desc->mode = ORNIC_MEM_MODE_CONTIG;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_mem_desc_contig);

int ornic_pbl_mode(u32 npages)
{
	if (!npages)
		return -EINVAL;
	if (npages <= ORNIC_PBL_ENTRIES_PER_PAGE)
		return ORNIC_MEM_MODE_DIRECT;
	if (npages <= ORNIC_PBL_ENTRIES_PER_PAGE * ORNIC_PBL_ENTRIES_PER_PAGE)
		return ORNIC_MEM_MODE_INDIRECT;
	return -E2BIG;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_pbl_mode);

u32 ornic_pbl_ptr_pages(u32 npages)
{
	return DIV_ROUND_UP(npages, ORNIC_PBL_ENTRIES_PER_PAGE);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_pbl_ptr_pages);

void ornic_pbl_locate(u32 i, u32 *ptr, u32 *ent)
{
	*ptr = i / ORNIC_PBL_ENTRIES_PER_PAGE;
	*ent = i % ORNIC_PBL_ENTRIES_PER_PAGE;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_pbl_locate);

u64 ornic_mr_num_pages(u64 iova, u64 length, unsigned int page_shift)
{
	u64 offset = iova & ((1ULL << page_shift) - 1);

	if (!length)
		return 0;
	return (offset + length + (1ULL << page_shift) - 1) >> page_shift;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_mr_num_pages);

/* --- link and MTU ---------------------------------------------------------- */

/*
 * RoCE payload MTU over an IP MTU: IPv4 (20) + UDP (8) + BTH (12) +
 * RETH (16) + ICRC (4) must fit too; the largest IB MTU that does, capped
 * at 4096 (spec: admin.rst ETH_SET_MTU).
 */
int ornic_roce_mtu(u32 eth_mtu)
{
	u32 room = eth_mtu > 60 ? eth_mtu - 60 : 0;

	if (room >= 4096)
		return ORNIC_MTU_4096;
	if (room >= 2048)
		return ORNIC_MTU_2048;
	if (room >= 1024)
		return ORNIC_MTU_1024;
	if (room >= 512)
		return ORNIC_MTU_512;
	return ORNIC_MTU_256;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_roce_mtu);

void ornic_speed_to_ib(u32 gbps, u16 *speed, u8 *width)
{
	if (gbps >= 400) {
		*speed = IB_SPEED_NDR;
		*width = IB_WIDTH_4X;
	} else if (gbps >= 200) {
		*speed = IB_SPEED_HDR;
		*width = IB_WIDTH_4X;
	} else if (gbps >= 100) {
		*speed = IB_SPEED_EDR;
		*width = IB_WIDTH_4X;
	} else if (gbps >= 50) {
		*speed = IB_SPEED_HDR;
		*width = IB_WIDTH_1X;
	} else if (gbps >= 40) {
		*speed = IB_SPEED_QDR;
		*width = IB_WIDTH_4X;
	} else if (gbps >= 25) {
		*speed = IB_SPEED_EDR;
		*width = IB_WIDTH_1X;
	} else if (gbps >= 10) {
		*speed = IB_SPEED_FDR10;
		*width = IB_WIDTH_1X;
	} else {
		*speed = IB_SPEED_SDR;
		*width = IB_WIDTH_1X;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_speed_to_ib);

/* --- on-demand paging (spec: memory.rst "On-demand paging") --------------- */

__le64 ornic_odp_pte(u64 dma_addr, bool writable)
{
	u64 pte = (dma_addr & ORNIC_ODP_PTE_ADDR_MASK) | ORNIC_ODP_PTE_VALID;

	if (writable)
		pte |= ORNIC_ODP_PTE_WRITE;
	return cpu_to_le64(pte);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_odp_pte);

void ornic_page_fault_decode(const struct ornic_eqe *eqe,
			     struct ornic_page_fault *pf)
{
	const struct ornic_eqe_page_fault *e = (const void *)eqe;

	pf->key = le32_to_cpu(e->key);
	pf->page = le32_to_cpu(e->page);
	pf->num_pages = le16_to_cpu(e->num_pages);
	pf->qpn = e->qpn[0] | (u32)e->qpn[1] << 8 | (u32)e->qpn[2] << 16;
	pf->write = e->flags & ORNIC_EQE_PF_WRITE;
	pf->requester = e->flags & ORNIC_EQE_PF_REQUESTER;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_page_fault_decode);

/* --- values read from the device ------------------------------------------ */

bool ornic_qp_state_valid(u32 state)
{
	return state <= ORNIC_QPS_ERR;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_qp_state_valid);

bool ornic_eqe_type_valid(u8 type)
{
	switch (type) {
	case ORNIC_EQE_COMPLETION:
	case ORNIC_EQE_QP_FATAL:
	case ORNIC_EQE_QP_REQ_ERR:
	case ORNIC_EQE_QP_ACCESS_ERR:
	case ORNIC_EQE_QP_COMM_EST:
	case ORNIC_EQE_QP_SQ_DRAINED:
	case ORNIC_EQE_QP_LAST_WQE_REACHED:
	case ORNIC_EQE_CQ_ERROR:
	case ORNIC_EQE_SRQ_ERROR:
	case ORNIC_EQE_SRQ_LIMIT:
	case ORNIC_EQE_PORT_STATE:
	case ORNIC_EQE_DEVICE_FATAL:
	case ORNIC_EQE_PAGE_FAULT:
		return true;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_eqe_type_valid);

enum ornic_cqe_kind ornic_cqe_kind(u8 opcode)
{
	switch (opcode) {
	case ORNIC_CQE_OP_SEND:
	case ORNIC_CQE_OP_RDMA_WRITE:
	case ORNIC_CQE_OP_RDMA_READ:
	case ORNIC_CQE_OP_COMP_SWAP:
	case ORNIC_CQE_OP_FETCH_ADD:
	case ORNIC_CQE_OP_REG_MR:
	case ORNIC_CQE_OP_LOCAL_INV:
	case ORNIC_CQE_OP_FLUSH:
	case ORNIC_CQE_OP_ATOMIC_WRITE:
	case ORNIC_CQE_OP_BIND_MW:
		return ORNIC_CQE_KIND_SEND;
	case ORNIC_CQE_OP_RECV:
	case ORNIC_CQE_OP_RECV_RDMA_IMM:
		return ORNIC_CQE_KIND_RECV;
	case ORNIC_CQE_OP_ETH_TX:
	case ORNIC_CQE_OP_ETH_RX:
		return ORNIC_CQE_KIND_ETH;
	default:
		return ORNIC_CQE_KIND_INVALID;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cqe_kind);

bool ornic_wq_index_resolve(u16 wqe_index, u32 ci, u32 pi, u32 *idx)
{
	u32 i = ci + (u16)(wqe_index - (u16)ci);

	if (i - ci >= pi - ci)
		return false;
	*idx = i;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_wq_index_resolve);
