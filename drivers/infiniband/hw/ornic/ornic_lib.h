/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: pure logic shared by the driver and its KUnit suites.
 *
 * This header's one job: the device interface as arithmetic, with no
 * ib_verbs types (those helpers are ornic_verbs_lib.h's).
 * Nothing declared here touches hardware or allocates memory: ring index and
 * phase arithmetic, admin command encoding and completion decoding, page
 * list construction and command identifier allocation.  Its KUnit suites
 * are ornic_lib_kunit.c and ornic_devval_kunit.c (ornic_kunit.ko, which
 * calls what ornic_lib.c exports with EXPORT_SYMBOL_IF_KUNIT()).
 */
#ifndef ORNIC_LIB_H
#define ORNIC_LIB_H

#include <linux/types.h>
#include <linux/bitmap.h>
#include <linux/if_ether.h>

#include "ornic/ornic_hw.h"

/* --- rings (spec: index.rst "Conventions") ----------------------------- */

/* Slot of free-running index @idx in a ring of 2^@log_depth entries. */
static inline u32 ornic_ring_slot(u32 idx, unsigned int log_depth)
{
	return idx & ((1U << log_depth) - 1);
}

/* Phase bit the device writes for entry index @idx: 1 on the first pass. */
static inline u8 ornic_ring_phase(u32 idx, unsigned int log_depth)
{
	return ((idx >> log_depth) & 1) ^ 1;
}

/* Entries between consumer @cons and producer @prod (free-running). */
static inline u32 ornic_ring_used(u32 prod, u32 cons)
{
	return prod - cons;
}

/* Free entries for a producer in a ring of 2^@log_depth entries. */
static inline u32 ornic_ring_space(u32 prod, u32 cons, unsigned int log_depth)
{
	return (1U << log_depth) - ornic_ring_used(prod, cons);
}

/*
 * Whether the device-written entry at index @idx, whose owner/flags byte is
 * @owner, belongs to software (its phase bit equals the expected phase).
 */
static inline bool ornic_ring_owned(u8 owner, u32 idx, unsigned int log_depth)
{
	return (owner & 1) == ornic_ring_phase(idx, log_depth);
}

unsigned int ornic_log2_depth(u32 entries);

/* --- admin command identifiers ------------------------------------------ */

/*
 * A command id is (sequence << log_depth) | slot: the slot finds the waiting
 * context, the sequence tells a stale completion from the current one.
 */
static inline u16 ornic_cmd_id_make(u32 slot, u32 seq, unsigned int log_depth)
{
	return (u16)((seq << log_depth) | slot);
}

static inline u32 ornic_cmd_id_slot(u16 cmd_id, unsigned int log_depth)
{
	return cmd_id & ((1U << log_depth) - 1);
}

/*
 * A small round-robin identifier allocator over a caller-owned bitmap: the
 * most recently freed id is reused last.  Not locked: callers serialise.
 */
struct ornic_id_alloc {
	unsigned long *map;
	u32 size;
	u32 next;
};

void ornic_id_alloc_init(struct ornic_id_alloc *ida, unsigned long *map,
			 u32 size);
int ornic_id_get(struct ornic_id_alloc *ida);
void ornic_id_put(struct ornic_id_alloc *ida, u32 id);

/* --- admin command encoding ---------------------------------------------- */

void ornic_cmd_init(struct ornic_admin_sqe *sqe, u8 opcode);
void ornic_cmd_set_id(struct ornic_admin_sqe *sqe, u16 cmd_id);
void ornic_cmd_query(struct ornic_admin_sqe *sqe, u8 opcode, u64 resp_addr,
		     u32 resp_len);
void ornic_cmd_query_counters(struct ornic_admin_sqe *sqe, u8 scope,
			      u32 handle, u64 resp_addr, u32 resp_len);
void ornic_cmd_destroy(struct ornic_admin_sqe *sqe, u8 opcode, u32 handle);
void ornic_cmd_create_eq(struct ornic_admin_sqe *sqe,
			 const struct ornic_mem_desc *mem,
			 unsigned int log_depth, u16 vector);
void ornic_cmd_create_cq(struct ornic_admin_sqe *sqe,
			 const struct ornic_mem_desc *mem,
			 unsigned int log_depth, u32 eqn, u16 db_page,
			 u8 flags);
void ornic_cmd_resize_cq(struct ornic_admin_sqe *sqe,
			 const struct ornic_mem_desc *mem,
			 unsigned int log_depth, u32 cqn, u32 consumer);
void ornic_cmd_resize_srq(struct ornic_admin_sqe *sqe,
			  const struct ornic_mem_desc *mem,
			  unsigned int log_depth, u32 srqn);

/*
 * A translated region: what REG_MR registers, and the new region of a
 * REREG_MR with ORNIC_REREG_MR_TRANSLATION.
 */
struct ornic_mr_xlat {
	struct ornic_mem_desc mem;
	u64 iova;
	u64 length;
	u32 first_page_offset;
};

/*
 * REREG_MR of @key: @xlat is given exactly when @flags has TRANSLATION;
 * @pdn and @access are used only with their flags.  -EINVAL otherwise.
 */
int ornic_cmd_rereg_mr(struct ornic_admin_sqe *sqe, u32 key, u8 flags,
		       const struct ornic_mr_xlat *xlat, u32 pdn,
		       u32 access);
/*
 * REG_MR of the region @xlat in @pdn with ORNIC_ACCESS_* @access (user MRs;
 * ORNIC_ACCESS_ON_DEMAND in @access for an ODP MR).  @key_variant: a new
 * one per registration, so stale keys of a reused index fail.
 */
void ornic_cmd_reg_mr(struct ornic_admin_sqe *sqe,
		      const struct ornic_mr_xlat *xlat, u32 pdn, u32 access,
		      u8 key_variant);
/* REG_MR of a PHYSICAL MR: DMA addresses, iova 0, the whole range. */
void ornic_cmd_reg_mr_physical(struct ornic_admin_sqe *sqe, u32 pdn,
			       u32 access, u8 key_variant);
/* REG_MR of a FREE fast-registration MR with room for @max_pages pages. */
void ornic_cmd_reg_mr_fast(struct ornic_admin_sqe *sqe, u32 pdn,
			   u32 max_pages, u8 key_variant);

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

/* A RoCEv2 address vector (of an AH, or a QP's ORNIC_QP_ATTR_AV). */
struct ornic_av {
	u8 dgid[16];
	u8 dmac[ETH_ALEN];
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
	u32 flow_label;
	u16 udp_sport;		/* 0: the device chooses */
};

void ornic_cmd_create_ah(struct ornic_admin_sqe *sqe, u32 pdn,
			 const struct ornic_av *av);
void ornic_cmd_create_eth_ring(struct ornic_admin_sqe *sqe, bool tx,
			       const struct ornic_mem_desc *mem,
			       unsigned int log_depth, u32 cqn);
int ornic_cmd_gid(struct ornic_admin_sqe *sqe, bool add, u32 index,
		  const u8 gid[16], bool ipv4);
int ornic_cmd_mcast(struct ornic_admin_sqe *sqe, bool attach, u32 qpn,
		    const u8 gid[16]);
void ornic_cmd_set_mac(struct ornic_admin_sqe *sqe, const u8 mac[6]);
void ornic_cmd_set_mtu(struct ornic_admin_sqe *sqe, u32 mtu);
/* ALLOC_MW of @type (enum ornic_mw_type) in @pdn; -EINVAL for another type. */
int ornic_cmd_alloc_mw(struct ornic_admin_sqe *sqe, u32 pdn, u8 type,
		       u8 key_variant);
void ornic_cmd_odp_invalidate(struct ornic_admin_sqe *sqe, u32 key,
			      u32 first_page, u32 num_pages);
void ornic_cmd_odp_resume(struct ornic_admin_sqe *sqe, u32 qpn);
/* CC_CONFIG @op (enum ornic_cc_config_op) of the params at @addr. */
void ornic_cmd_cc_config(struct ornic_admin_sqe *sqe, u8 op, u64 addr);

/*
 * The knobs of struct ornic_cc_params (spec: roce.rst "Congestion
 * control"), one debugfs file each: NP/RP enable are bits of flags, the
 * rest fields.  Ranges of rates depend on the other rates of @p.
 */
enum ornic_cc_knob {
	ORNIC_CC_KNOB_NP_ENABLE,
	ORNIC_CC_KNOB_RP_ENABLE,
	ORNIC_CC_KNOB_ECT,
	ORNIC_CC_KNOB_NP_CNP_DSCP,
	ORNIC_CC_KNOB_NP_MIN_TIME_BETWEEN_CNPS,
	ORNIC_CC_KNOB_RP_MAX_RATE,
	ORNIC_CC_KNOB_RP_MIN_RATE,
	ORNIC_CC_KNOB_RP_AI_RATE,
	ORNIC_CC_KNOB_RP_HAI_RATE,
	ORNIC_CC_KNOB_RP_BYTE_RESET,
	ORNIC_CC_KNOB_RP_TIME_RESET,
	ORNIC_CC_KNOB_RP_THRESHOLD,
	ORNIC_CC_KNOB_RP_GD,
	ORNIC_CC_KNOB_RP_INITIAL_ALPHA_VALUE,
	ORNIC_CC_KNOB_RP_DCE_TCP_G,
	ORNIC_CC_KNOB_RP_DCE_TCP_RTT,
	ORNIC_CC_KNOB_RP_RATE_REDUCE_MONITOR_PERIOD,
	ORNIC_CC_KNOB_COUNT,
};

const char *ornic_cc_knob_name(unsigned int knob);
u32 ornic_cc_knob_get(const struct ornic_cc_params *p, unsigned int knob);
/*
 * Sets @knob of @p to @value if it is within [*@min, *@max] (the range
 * given the rest of @p, filled in either way); -EINVAL otherwise, @p
 * unchanged.
 */
int ornic_cc_knob_set(struct ornic_cc_params *p, unsigned int knob,
		      u32 value, u32 *min, u32 *max);

int ornic_admin_status_errno(u8 status);
const char *ornic_admin_status_str(u8 status);
const char *ornic_admin_opcode_str(u8 opcode);

/* --- memory descriptors and page lists (spec: queues.rst) ---------------- */

void ornic_mem_desc_contig(struct ornic_mem_desc *desc, u64 dma_addr,
			   size_t size, unsigned int page_shift);

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

/* --- doorbells, link, MTU ------------------------------------------------ */

static inline u64 ornic_db_value(u32 qn, u64 flags, u32 index)
{
	return ORNIC_DB_VALUE(qn, flags, index);
}

/* IB MTU enum (1..5) for RoCE over an Ethernet IP MTU (spec: ETH_SET_MTU). */
int ornic_roce_mtu(u32 eth_mtu);
/* IB speed/width pair for a link of @gbps Gb/s. */
void ornic_speed_to_ib(u32 gbps, u16 *speed, u8 *width);
/* Whether @gid is an IPv4-mapped IPv6 address (::ffff:a.b.c.d). */
bool ornic_gid_is_v4(const u8 gid[16]);
/* Whether @gid names a multicast group (ff00::/8 or IPv4 224.0.0.0/4). */
bool ornic_gid_is_mcast(const u8 gid[16]);

/* --- on-demand paging (spec: memory.rst "On-demand paging") --------------- */

/* A PAGE_FAULT EQE in host order. */
struct ornic_page_fault {
	u32 key;
	u32 page;		/* first missing page, index within the MR */
	u32 num_pages;
	u32 qpn;
	bool write;
	bool requester;		/* the QP's send queue waits for ODP_RESUME */
};

/* The table entry of a resident page at @dma_addr. */
__le64 ornic_odp_pte(u64 dma_addr, bool writable);
void ornic_page_fault_decode(const struct ornic_eqe *eqe,
			     struct ornic_page_fault *pf);

/* --- values read from the device (spec: index.rst "Trust") --------------- */

/*
 * The driver checks every value the device writes before it indexes a
 * table, routes an event or hands it to the RDMA core with it: a broken or
 * hostile device must not make the kernel read or write out of bounds.
 */

/* Whether a QP state from MODIFY_QP/QUERY_QP is one of ORNIC_QPS_*. */
bool ornic_qp_state_valid(u32 state);
/* Whether @type is an EQE type this driver knows (ORNIC_EQE_*). */
bool ornic_eqe_type_valid(u8 type);

/* What a CQE's opcode says it completes. */
enum ornic_cqe_kind {
	ORNIC_CQE_KIND_INVALID,
	ORNIC_CQE_KIND_SEND,	/* a send queue WQE (incl. local operations) */
	ORNIC_CQE_KIND_RECV,	/* a receive WQE (RQ or SRQ) */
	ORNIC_CQE_KIND_ETH,	/* an Ethernet ring descriptor */
};

enum ornic_cqe_kind ornic_cqe_kind(u8 opcode);

/*
 * The free-running queue index a CQE's 16-bit @wqe_index names in a work
 * queue holding WQEs [@ci, @pi): true with *@idx set when it is one of them,
 * false for an index outside the posted range.
 */
bool ornic_wq_index_resolve(u16 wqe_index, u32 ci, u32 pi, u32 *idx);

#endif /* ORNIC_LIB_H */
