// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: address handles for UD sends and the address vectors (RoCEv2's,
 * InfiniBand's) shared with RC QPs.  A user AH is the device's (CREATE_AH, an admin command that
 * sleeps; user AHs are always created and destroyed in sleepable context).
 * A kernel AH is only its address vector, which post_send puts in the WQE:
 * the CM creates AHs under a spinlock.
 */
#include <kunit/visibility.h>
#include <rdma/ib_cache.h>
#include <rdma/ornic-abi.h>

#include "ornic_res.h"

/*
 * The core resolved the destination MAC (ah_attr->roce.dmac) and the source
 * GID entry (grh.sgid_attr): check it is a RoCEv2 entry and take the UDP
 * source port from the flow label, or from the QPNs when there is none
 * (@rqpn 0 and no flow label: the device chooses).
 */
int ornic_roce_av(const struct rdma_ah_attr *ah_attr, u32 lqpn, u32 rqpn,
		  struct ornic_av *av)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid_attr;

	if (ah_attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah_attr) & IB_AH_GRH) ||
	    rdma_ah_get_port_num(ah_attr) != 1)
		return -EINVAL;
	grh = rdma_ah_read_grh(ah_attr);
	sgid_attr = grh->sgid_attr;
	if (!sgid_attr || sgid_attr->index > U8_MAX ||
	    (sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP &&
	     sgid_attr->gid_type != IB_GID_TYPE_ROCE))
		return -EINVAL;
	/*
	 * RoCEv2: source and destination of one packet are both IPv4 or both
	 * IPv6.  RoCE v1's GRH carries GIDs of either form; the device picks
	 * the framing from the source GID entry's type.
	 */
	if (sgid_attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
	    (rdma_gid_attr_network_type(sgid_attr) == RDMA_NETWORK_IPV4) !=
	    ornic_gid_is_v4(grh->dgid.raw))
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	memcpy(av->dmac, ah_attr->roce.dmac, ETH_ALEN);
	av->sgid_index = sgid_attr->index;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	/*
	 * The GRH's flow label is 20 bits; middleware passes 0xffffffff for
	 * "any".  rxe and mlx5 keep the low 20 bits (Documentation/verbs/
	 * attributes.rst), and so does ornic.
	 */
	av->flow_label = grh->flow_label & IB_GRH_FLOWLABEL_MASK;
	if (av->flow_label || rqpn)
		av->udp_sport = rdma_get_udp_sport(av->flow_label, lqpn, rqpn);
	return 0;
}

/*
 * An InfiniBand address vector (spec: infiniband.rst "Address vectors"):
 * DLID, SL, path bits and static rate, and the GRH's fields when the
 * vector has one (a global route, or a multicast group).  The port has one
 * GID (index 0).  DLID 0 is accepted, as the MAD layer makes an AH for an
 * SM it does not know yet; the device sends nothing to it (a WQE error).
 */
int ornic_ib_av(const struct rdma_ah_attr *ah_attr, struct ornic_av *av)
{
	const struct ib_global_route *grh;

	if (ah_attr->type != RDMA_AH_ATTR_TYPE_IB ||
	    rdma_ah_get_port_num(ah_attr) != 1 ||
	    rdma_ah_get_dlid(ah_attr) > U16_MAX || rdma_ah_get_sl(ah_attr) > 15)
		return -EINVAL;
	memset(av, 0, sizeof(*av));
	av->dlid = rdma_ah_get_dlid(ah_attr);
	av->sl = rdma_ah_get_sl(ah_attr);
	av->src_path_bits = rdma_ah_get_path_bits(ah_attr) & 0x7f;
	av->static_rate = rdma_ah_get_static_rate(ah_attr) & 0x3f;
	if (!(rdma_ah_get_ah_flags(ah_attr) & IB_AH_GRH))
		return 0;
	grh = rdma_ah_read_grh(ah_attr);
	if (grh->sgid_index)
		return -EINVAL;
	av->av_flags = ORNIC_AV_FLAG_GRH;
	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->flow_label = grh->flow_label & IB_GRH_FLOWLABEL_MASK;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_ib_av);

int ornic_av_from_ah_attr(struct ornic_dev *dev,
			  const struct rdma_ah_attr *ah_attr, u32 lqpn,
			  u32 rqpn, struct ornic_av *av)
{
	int err;

	if (ornic_is_ib(dev))
		return ornic_ib_av(ah_attr, av);
	err = ornic_roce_av(ah_attr, lqpn, rqpn, av);
	/*
	 * The SL is the priority (PCP) of a VLAN GID's frames (spec: roce.rst
	 * "VLANs"); RoCE has eight, so the SL's low three bits, as other RoCE
	 * NICs take them.
	 */
	if (!err && (dev->caps & ORNIC_CAP_ROCE_VLAN))
		av->sl = rdma_ah_get_sl(ah_attr) & 7;
	return err;
}

int ornic_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	struct ornic_dev *dev = to_odev(ibah->device);
	struct ornic_ibv_create_ah_resp resp = {};
	struct ornic_ah *ah = to_oah(ibah);
	struct ornic_admin_sqe sqe;
	struct ornic_av av;
	int err;

	err = ornic_av_from_ah_attr(dev, init->ah_attr, 0, 0, &av);
	if (err)
		return err;
	ah->av = av;
	if (!udata) {
		ah->kernel = true;
		return 0;
	}
	if (!(init->flags & RDMA_CREATE_AH_SLEEPABLE))
		return -EOPNOTSUPP;
	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;

	ornic_cmd_create_ah(&sqe, to_pdn(ibah->pd), &av);
	err = ornic_admin_simple(dev, &sqe, &ah->index);
	if (err)
		return err;

	resp.ah = ah->index;
	err = ornic_udata_out(udata, &resp, sizeof(resp));
	if (err) {
		ornic_admin_destroy(dev, ORNIC_ADMIN_DESTROY_AH, ah->index);
		return err;
	}
	return 0;
}

/*
 * The MAD layer matches a response to its request by asking the request's
 * AH where it went (rdma_query_ah()): the LIDs (and GRH) of an InfiniBand
 * port's vectors, the GIDs and MAC of a RoCE port's.
 */
void ornic_av_to_ah_attr(const struct ornic_av *av, bool ib,
			 struct rdma_ah_attr *attr)
{
	union ib_gid dgid;

	memset(attr, 0, sizeof(*attr));
	memcpy(dgid.raw, av->dgid, sizeof(dgid.raw));
	attr->type = ib ? RDMA_AH_ATTR_TYPE_IB : RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(attr, 1);
	if (ib) {
		rdma_ah_set_dlid(attr, av->dlid);
		rdma_ah_set_sl(attr, av->sl);
		rdma_ah_set_path_bits(attr, av->src_path_bits);
		rdma_ah_set_static_rate(attr, av->static_rate);
		if (!(av->av_flags & ORNIC_AV_FLAG_GRH))
			return;
	} else {
		memcpy(attr->roce.dmac, av->dmac, ETH_ALEN);
	}
	rdma_ah_set_grh(attr, &dgid, av->flow_label, av->sgid_index,
			av->hop_limit, av->traffic_class);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_av_to_ah_attr);

int ornic_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	ornic_av_to_ah_attr(&to_oah(ibah)->av, ornic_is_ib(to_odev(ibah->device)),
			    attr);
	return 0;
}

int ornic_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	int err;

	if (to_oah(ibah)->kernel)
		return 0;
	/* User AHs are destroyed sleepable. */
	if (WARN_ON_ONCE(!(flags & RDMA_DESTROY_AH_SLEEPABLE)))
		return -EINVAL;
	err = ornic_admin_destroy(to_odev(ibah->device),
				  ORNIC_ADMIN_DESTROY_AH, to_oah(ibah)->index);
	return err == -EIO ? 0 : err;
}

/* --- the AH command (KUnit: ornic_ah_kunit.c) ----------------------------- */

void ornic_cmd_create_ah(struct ornic_admin_sqe *sqe, u32 pdn,
			 const struct ornic_av *av)
{
	struct ornic_admin_create_ah *c = (struct ornic_admin_create_ah *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_CREATE_AH);
	c->pd = cpu_to_le32(pdn);
	c->flow_label = cpu_to_le32(av->flow_label);
	memcpy(c->dgid, av->dgid, sizeof(c->dgid));
	memcpy(c->dmac, av->dmac, sizeof(c->dmac));
	c->sgid_index = av->sgid_index;
	c->hop_limit = av->hop_limit;
	c->traffic_class = av->traffic_class;
	c->udp_sport = cpu_to_le16(av->udp_sport);
	c->dlid = cpu_to_le16(av->dlid);
	c->sl = av->sl;
	c->src_path_bits = av->src_path_bits;
	c->av_flags = av->av_flags;
	c->static_rate = av->static_rate;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_create_ah);
