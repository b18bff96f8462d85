// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic provider: XRC domains (spec: xrc.rst).  The kernel owns the domain
 * (shared between processes through the file it was opened with); the
 * provider only keeps libibverbs' handle.
 */
#include <errno.h>
#include <stdlib.h>

#include "ornic.h"

struct ibv_xrcd *ornic_open_xrcd(struct ibv_context *ibctx,
				 struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp = {};
	struct ibv_open_xrcd cmd = {};
	struct verbs_xrcd *xrcd;
	int err;

	if (!(to_ornic_ctx(ibctx)->caps & ORNIC_CAP_XRC)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_open_xrcd(ibctx, xrcd, sizeof(*xrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		free(xrcd);
		errno = err;
		return NULL;
	}
	return &xrcd->xrcd;
}

int ornic_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = container_of(ibxrcd, struct verbs_xrcd, xrcd);
	int err;

	/* EBUSY while XRC SRQs or target QPs of the domain exist. */
	err = ibv_cmd_close_xrcd(xrcd);
	if (err)
		return err;
	free(xrcd);
	return 0;
}
