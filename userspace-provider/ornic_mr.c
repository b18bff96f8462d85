// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic provider: memory regions, registered entirely by the kernel
 * (ib_umem pins the pages, the device gets their list).  lkey == rkey.
 */
#include <errno.h>
#include <stdlib.h>

#include "ornic.h"

struct ibv_mr *ornic_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length,
			    uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct ornic_mr *mr;
	int err;

	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_reg_mr(ibpd, addr, length, hca_va, access, &mr->vmr,
			     &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(mr);
		errno = err;
		return NULL;
	}
	return &mr->vmr.ibv_mr;
}

/*
 * ibv_rereg_mr (ORNIC_CAP_RESIZE): the kernel changes translation, PD and
 * access in one REREG_MR; the keys stay the same.
 */
int ornic_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		   void *addr, size_t length, int access)
{
	struct ornic_context *ctx = to_ornic_ctx(vmr->ibv_mr.context);
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;

	if (!(ctx->caps & ORNIC_CAP_RESIZE))
		return EOPNOTSUPP;
	return ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
				access, pd, &cmd, sizeof(cmd), &resp,
				sizeof(resp));
}

int ornic_dereg_mr(struct verbs_mr *vmr)
{
	int err;

	err = ibv_cmd_dereg_mr(vmr);
	if (err)
		return err;
	free(container_of(vmr, struct ornic_mr, vmr));
	return 0;
}
