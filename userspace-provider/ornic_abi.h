/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic provider: the uverbs commands with ornic driver data.
 */
#ifndef __ORNIC_ABI_H__
#define __ORNIC_ABI_H__

#include <infiniband/kern-abi.h>
#include <rdma/ornic-abi.h>
#include <kernel-abi/ornic-abi.h>

DECLARE_DRV_CMD(ornic_alloc_ucontext, IB_USER_VERBS_CMD_GET_CONTEXT, empty,
		ornic_ibv_alloc_ucontext_resp);
DECLARE_DRV_CMD(ornic_alloc_pd, IB_USER_VERBS_CMD_ALLOC_PD, empty,
		ornic_ibv_alloc_pd_resp);

#endif /* __ORNIC_ABI_H__ */
