// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: UD multicast (spec: roce.rst "Multicast").  The device keeps the
 * group table and delivers a datagram to every attached QP, so attach and
 * detach are one admin command each.  The core (ib_attach_mcast) has
 * already checked for a UD QP and a multicast GID on the uverbs and kernel
 * paths; the checks here keep the driver safe on its own.  RoCE has no
 * multicast LIDs: @lid is ignored, as the RoCE annex says.
 */
#include "ornic.h"
#include "ornic_res.h"

static int ornic_mcast(struct ib_qp *ibqp, union ib_gid *gid, bool attach)
{
	struct ornic_dev *dev = to_odev(ibqp->device);
	struct ornic_qp *qp = to_oqp(ibqp);
	struct ornic_admin_sqe sqe;
	int err;

	if (ibqp->qp_type != IB_QPT_UD) {
		ibdev_dbg(&dev->ibdev, "mcast: QP %u is of type %d, not UD\n",
			  qp->qpn, ibqp->qp_type);
		return -EINVAL;
	}
	err = ornic_cmd_mcast(&sqe, attach, qp->qpn, gid->raw);
	if (err) {
		ibdev_dbg(&dev->ibdev, "mcast: %pI6 is not a multicast GID\n",
			  gid->raw);
		return err;
	}
	err = ornic_admin_simple(dev, &sqe, NULL);
	if (err)
		ibdev_dbg(&dev->ibdev, "mcast: %s of QP %u to %pI6 failed: %d\n",
			  attach ? "attach" : "detach", qp->qpn, gid->raw, err);
	return err;
}

int ornic_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return ornic_mcast(ibqp, gid, true);
}

int ornic_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	int err = ornic_mcast(ibqp, gid, false);

	/* A dead device was reset: nothing is attached any more. */
	return err == -EIO ? 0 : err;
}
