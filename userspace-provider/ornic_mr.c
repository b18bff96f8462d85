// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic provider: memory regions, registered entirely by the kernel
 * (ib_umem pins the pages, the device gets their list; with
 * IBV_ACCESS_ON_DEMAND nothing is pinned and pages fault in on use).
 * lkey == rkey.
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
 * ibv_advise_mr() prefetch of ODP MRs (IBV_ACCESS_ON_DEMAND pages fault in
 * through the kernel, which writes the device's page table): the kernel
 * checks the ranges and does the work.
 */
int ornic_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		    uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge)
{
	return ibv_cmd_advise_mr(pd, advice, flags, sg_list, num_sge);
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
