/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: what the MR and MW commands carry (spec: memory.rst, admin.rst).
 *
 * This header's one job: REG_MR (user, ODP, PHYSICAL and fast-registration
 * MRs), REREG_MR and ALLOC_MW, and the translation of the RDMA core's
 * access flags, MW types and rereg flags into the device's.  The page
 * arithmetic of pinned memory is ornic_umem.c's.  Nothing here touches
 * hardware or allocates (ornic_mr_cmd.c; KUnit: ornic_mr_kunit.c).
 */
#ifndef ORNIC_MR_CMD_H
#define ORNIC_MR_CMD_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "ornic/ornic_hw.h"

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
/* ALLOC_MW of @type (enum ornic_mw_type) in @pdn; -EINVAL for another type. */
int ornic_cmd_alloc_mw(struct ornic_admin_sqe *sqe, u32 pdn, u8 type,
		       u8 key_variant);

/*
 * IB access flags -> ORNIC_ACCESS_*; -EOPNOTSUPP for flags it lacks: remote
 * atomics without @atomics, FLUSH_GLOBAL/FLUSH_PERSISTENT without @flush
 * (ORNIC_CAP_FLUSH).  QPs take the same rights (ornic_qp_attr_from_ib()).
 */
int ornic_access_from_ib(int ib_access, bool atomics, bool flush,
			 u32 *access);
/*
 * The same for an MR, which may also take IB_ACCESS_MW_BIND when the device
 * has memory windows (@mw).
 */
int ornic_mr_access_from_ib(int ib_access, bool atomics, bool flush, bool mw,
			    u32 *access);
/* ib_mw_type -> enum ornic_mw_type; -EINVAL for a type the device lacks. */
int ornic_mw_type_from_ib(enum ib_mw_type type, u8 *hw);
int ornic_rereg_flags_from_ib(int ib_flags, u8 *flags);

#endif /* ORNIC_MR_CMD_H */
