// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: XRC domains (spec: xrc.rst).  The RDMA core keeps the domain's
 * table of target QPs and its use count; the device holds the domain so
 * that XRC SRQs and XRC_TGT QPs can name it, and refuses to free one that
 * is still named (BUSY), which the core's use count already prevents.
 */
#include "ornic_res.h"

int ornic_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct ornic_dev *dev = to_odev(ibxrcd->device);
	struct ornic_xrcd *xrcd = to_oxrcd(ibxrcd);
	struct ornic_admin_sqe sqe;

	if (!(dev->caps & ORNIC_CAP_XRC))
		return -EOPNOTSUPP;
	ornic_cmd_init(&sqe, ORNIC_ADMIN_ALLOC_XRCD);
	return ornic_admin_simple(dev, &sqe, &xrcd->xrcdn);
}

int ornic_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct ornic_xrcd *xrcd = to_oxrcd(ibxrcd);
	int err;

	err = ornic_admin_destroy(to_odev(ibxrcd->device),
				  ORNIC_ADMIN_DEALLOC_XRCD, xrcd->xrcdn);
	/* A dead device holds no domains; only a live device's BUSY counts. */
	return err == -EIO ? 0 : err;
}
