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

/*
 * Memory windows (memory.rst, "Memory windows"): the kernel allocates the
 * key; binding is a BIND_MW WQE on the send queue, posted here for type 1
 * (ibv_bind_mw) and by ibv_post_send / ibv_wr_bind_mw for type 2.
 */
struct ibv_mw *ornic_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int err;

	if (!(to_ornic_ctx(ibpd->context)->caps & ORNIC_CAP_MW)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_alloc_mw(ibpd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		free(mw);
		errno = err;
		return NULL;
	}
	return mw;
}

int ornic_dealloc_mw(struct ibv_mw *mw)
{
	int err;

	err = ibv_cmd_dealloc_mw(mw);
	if (err)
		return err;
	free(mw);
	return 0;
}

int ornic_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {}, *bad_wr;
	int err;

	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	wr.opcode = IBV_WR_BIND_MW;
	wr.wr_id = mw_bind->wr_id;
	wr.send_flags = mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	err = ornic_post_send(ibqp, &wr, &bad_wr);
	if (err)
		return err;
	/* The key peers use from now on; an error CQE leaves it to undo. */
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}
