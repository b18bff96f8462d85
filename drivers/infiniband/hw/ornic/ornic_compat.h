/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: every kernel-version difference the driver meets, in one place.
 * Supported: Linux 6.12 (Debian trixie) to 7.3 (trixie-backports and the
 * test kernel).  Differences are detected by feature, not version number.
 *
 * Known 6.12 -> 7.3 differences the QP/CQ/MR verbs will meet (not used
 * yet): ib_umem_get() became ib_umem_get_va(); reg_user_mr() gained a
 * struct ib_dmah * argument; resize_cq became resize_user_cq; optional
 * create_user_cq; max_* device attributes became u32.
 */
#ifndef ORNIC_COMPAT_H
#define ORNIC_COMPAT_H

#include <linux/slab.h>

/* Typed allocation helpers (7.x); plain kzalloc() before. */
#ifndef kzalloc_obj
static inline void *ornic_kzalloc_sized(size_t size, gfp_t gfp)
{
	return kzalloc(size, gfp);
}

#define kzalloc_obj(P, GFP) ornic_kzalloc_sized(sizeof(P), GFP)
#endif

#endif /* ORNIC_COMPAT_H */
