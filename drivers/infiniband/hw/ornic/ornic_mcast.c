// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: UD multicast (spec: roce.rst "Multicast").  The device keeps the
 * group table and delivers a datagram to every attached QP, so attach and
 * detach are one admin command each.  The core (ib_attach_mcast) has
 * already checked for a UD QP and a multicast GID on the uverbs and kernel
 * paths; the checks here keep the driver safe on its own.  RoCE has no
 * multicast LIDs: @lid is ignored, as the RoCE annex says.
 */
#include <kunit/visibility.h>
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

/* --- multicast groups and their commands (KUnit: ornic_mcast_kunit.c) ----- */

/*
 * A multicast group's GID (spec: roce.rst "Multicast"): ff00::/8, or an
 * IPv4-mapped 224.0.0.0/4 address.
 */
bool ornic_gid_is_mcast(const u8 gid[16])
{
	if (ornic_gid_is_v4(gid))
		return (gid[12] & 0xf0) == 0xe0;
	return gid[0] == 0xff;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_gid_is_mcast);

/* ATTACH_MCAST / DETACH_MCAST of QP @qpn to group @gid. */
int ornic_cmd_mcast(struct ornic_admin_sqe *sqe, bool attach, u32 qpn,
		    const u8 gid[16])
{
	struct ornic_admin_mcast *m = (struct ornic_admin_mcast *)sqe;

	if (qpn & ~ORNIC_QPN_MASK || !ornic_gid_is_mcast(gid))
		return -EINVAL;
	ornic_cmd_init(sqe, attach ? ORNIC_ADMIN_ATTACH_MCAST :
				     ORNIC_ADMIN_DETACH_MCAST);
	m->qpn = cpu_to_le32(qpn);
	memcpy(m->gid, gid, sizeof(m->gid));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_mcast);
