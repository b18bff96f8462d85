// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: the driver's own ioctl attributes and methods.  They let another
 * process share a context and its objects (ibv_import_device,
 * ibv_import_pd, ibv_import_mr): the importer learns the context's doorbell
 * page and limits again from UVERBS_METHOD_QUERY_CONTEXT, and a PD's number
 * from ORNIC_IB_METHOD_PD_QUERY.  MRs need nothing of ours: the core's
 * UVERBS_METHOD_QUERY_MR answers their keys.
 */
#include <rdma/ornic-abi.h>
#include <rdma/uverbs_ioctl.h>

#define UVERBS_MODULE_NAME ornic_ib
#include <rdma/uverbs_named_ioctl.h>

#include "ornic_res.h"

int ornic_query_ucontext(struct ib_ucontext *ibuctx,
			 struct uverbs_attr_bundle *attrs)
{
	struct ornic_ucontext *uctx = container_of(ibuctx,
						   struct ornic_ucontext,
						   ibucontext);
	struct ornic_ibv_alloc_ucontext_resp resp;

	ornic_ucontext_resp(uctx, &resp);
	/* An older provider's shorter struct gets what fits. */
	return uverbs_copy_to_struct_or_zero(attrs,
					     ORNIC_IB_ATTR_QUERY_CONTEXT_RESP_UCTX,
					     &resp, sizeof(resp));
}

static int UVERBS_HANDLER(ORNIC_IB_METHOD_PD_QUERY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_pd *ibpd = uverbs_attr_get_obj(attrs,
						 ORNIC_IB_ATTR_QUERY_PD_HANDLE);
	struct ornic_pd *pd;

	if (IS_ERR(ibpd))
		return PTR_ERR(ibpd);
	pd = container_of(ibpd, struct ornic_pd, ibpd);
	return uverbs_copy_to(attrs, ORNIC_IB_ATTR_QUERY_PD_RESP_PDN, &pd->pdn,
			      sizeof(pd->pdn));
}

DECLARE_UVERBS_NAMED_METHOD(ORNIC_IB_METHOD_PD_QUERY,
			    UVERBS_ATTR_IDR(ORNIC_IB_ATTR_QUERY_PD_HANDLE,
					    UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(ORNIC_IB_ATTR_QUERY_PD_RESP_PDN,
						UVERBS_ATTR_TYPE(u32),
						UA_MANDATORY));

ADD_UVERBS_METHODS(ornic_ib_pd, UVERBS_OBJECT_PD,
		   &UVERBS_METHOD(ORNIC_IB_METHOD_PD_QUERY));

#define ORNIC_UCTX_RESP \
	UVERBS_ATTR_STRUCT(struct ornic_ibv_alloc_ucontext_resp, max_wqe_blocks)

ADD_UVERBS_ATTRIBUTES_SIMPLE(ornic_ib_query_context, UVERBS_OBJECT_DEVICE,
			     UVERBS_METHOD_QUERY_CONTEXT,
			     UVERBS_ATTR_PTR_OUT(ORNIC_IB_ATTR_QUERY_CONTEXT_RESP_UCTX,
						 ORNIC_UCTX_RESP, UA_MANDATORY));

const struct uapi_definition ornic_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &ornic_ib_query_context),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_PD, &ornic_ib_pd),
	{},
};
