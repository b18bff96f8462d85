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
DECLARE_DRV_CMD(ornic_create_cq, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		ornic_ibv_create_cq, ornic_ibv_create_cq_resp);
DECLARE_DRV_CMD(ornic_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		ornic_ibv_resize_cq, ornic_ibv_resize_cq_resp);
DECLARE_DRV_CMD(ornic_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		ornic_ibv_create_qp, ornic_ibv_create_qp_resp);
DECLARE_DRV_CMD(ornic_create_srq, IB_USER_VERBS_CMD_CREATE_SRQ,
		ornic_ibv_create_srq, ornic_ibv_create_srq_resp);
DECLARE_DRV_CMD(ornic_create_xsrq, IB_USER_VERBS_CMD_CREATE_XSRQ,
		ornic_ibv_create_srq, ornic_ibv_create_srq_resp);
DECLARE_DRV_CMD(ornic_modify_srq, IB_USER_VERBS_CMD_MODIFY_SRQ,
		ornic_ibv_modify_srq, empty);
DECLARE_DRV_CMD(ornic_create_ah, IB_USER_VERBS_CMD_CREATE_AH, empty,
		ornic_ibv_create_ah_resp);

#endif /* __ORNIC_ABI_H__ */
