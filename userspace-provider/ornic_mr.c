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

int ornic_dereg_mr(struct verbs_mr *vmr)
{
	int err;

	err = ibv_cmd_dereg_mr(vmr);
	if (err)
		return err;
	free(container_of(vmr, struct ornic_mr, vmr));
	return 0;
}

/* ibv_import_mr: an MR of an imported PD; the core answers its keys. */
struct ibv_mr *ornic_import_mr(struct ibv_pd *ibpd, uint32_t mr_handle)
{
	struct ornic_mr *mr;
	int err;

	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_query_mr(ibpd, &mr->vmr, mr_handle);
	if (err) {
		free(mr);
		errno = err;
		return NULL;
	}
	return &mr->vmr.ibv_mr;
}

/* ibv_unimport_mr: forget the MR here; its owner still holds it. */
void ornic_unimport_mr(struct ibv_mr *ibmr)
{
	free(container_of(verbs_get_mr(ibmr), struct ornic_mr, vmr));
}
