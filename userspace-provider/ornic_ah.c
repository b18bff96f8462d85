// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic provider: address handles.  The kernel checks the address (and on
 * RoCE resolves the destination MAC) and creates the AH on the device; UD
 * send WQEs name the device's AH index it returns.
 */
#include <errno.h>
#include <stdlib.h>

#include "ornic.h"
#include "ornic_abi.h"

struct ibv_ah *ornic_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *attr)
{
	struct ornic_context *ctx = to_ornic_ctx(ibpd->context);
	struct ornic_create_ah_resp resp = {};
	struct ornic_ah *ah;
	int err;

	/*
	 * RoCE: every AH needs a GRH (the destination GID).  InfiniBand: a
	 * LID alone addresses a port of the subnet.
	 */
	if ((!attr->is_global && !(ctx->caps & ORNIC_CAP_IB)) ||
	    attr->port_num != 1) {
		errno = EINVAL;
		return NULL;
	}
	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	err = ibv_cmd_create_ah(ibpd, &ah->ibvah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (err) {
		free(ah);
		errno = err;
		return NULL;
	}
	ah->ah = resp.ah;
	return &ah->ibvah;
}

int ornic_destroy_ah(struct ibv_ah *ibah)
{
	int err;

	err = ibv_cmd_destroy_ah(ibah);
	if (err)
		return err;
	free(to_ornic_ah(ibah));
	return 0;
}
