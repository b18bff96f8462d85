/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * ornic kernel/provider ABI, version 1 (provisional).
 *
 * The uverbs driver-data layouts shared by the kernel driver and the
 * rdma-core provider, included as <rdma/ornic-abi.h>.  Rules (as efa-abi.h):
 * request and response structs only, 8-byte aligned, explicit reserved
 * fields (zero), comp_mask for extension.
 */
#ifndef ORNIC_ABI_USER_H
#define ORNIC_ABI_USER_H

#include <linux/types.h>

#define ORNIC_UVERBS_ABI_VERSION	1

/* alloc_ucontext: no request fields yet. */
struct ornic_ibv_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 db_page;		/* doorbell page index owned by the context */
	__aligned_u64 db_mmap_key;	/* mmap() offset of that page */
	__u32 db_page_size;	/* bytes to map: ORNIC_DB_PAGE_SIZE */
	__u32 spec_version;	/* device VERSION register */
	__aligned_u64 caps;	/* ORNIC_CAP_* */
	__u32 max_inline_data;
	__u32 max_wqe_blocks;
};

struct ornic_ibv_alloc_pd_resp {
	__u32 comp_mask;
	__u32 pdn;
};

#endif /* ORNIC_ABI_USER_H */
