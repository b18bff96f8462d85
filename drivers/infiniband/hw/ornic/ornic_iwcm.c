// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: the iw_cm provider of an iWARP port (spec: iwarp-cm.rst).
 *
 * The device runs TCP and the MPA exchange itself; this file turns the
 * iw_cm's calls into IW_* admin commands and the device's IW_* events into
 * iw_cm events.  The events arrive on the async EQ in interrupt context:
 * the EQ handler copies them onto a list and an ordered workqueue delivers
 * them in the device's order, in process context, where the admin queue
 * (IW_QUERY_CONN for the 4-tuple and private data) may sleep.
 *
 * Every connection the driver knows is an endpoint (struct ornic_iw_ep),
 * found by its connection id; it holds a reference on its iw_cm_id from
 * the moment the iw_cm handed it over (connect, accept) until the CLOSE
 * event, and on its QP while bound.  The device's id is freed with
 * IW_DISCONNECT (IW_REJECT frees its own) exactly once, when the endpoint
 * goes.
 */
#include <linux/inetdevice.h>
#include <linux/moduleparam.h>
#include <net/neighbour.h>
#include <net/route.h>
#include <rdma/iw_cm.h>

#include "ornic.h"
#include "ornic_iwcm_cmd.h"
#include "ornic_res.h"

#define ORNIC_IW_EVENT_MAX	4096	/* queued events before the device is dead */

/*
 * What a connection asks for in MPA (iwarp-cm.rst): the revision of the
 * requests this side sends, and whether its request or reply sets C.  CRCs
 * are used when either side asks, so mpa_crc=0 turns them off only with a
 * peer that does not ask either.  As responder the device answers the
 * revision of the request, 1 or 2.  Read at each connect and accept, so a
 * change applies to the connections that follow.
 */
static unsigned int ornic_iw_mpa_rev = 2;
static bool ornic_iw_mpa_crc = true;

static int ornic_iw_set_mpa_rev(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, 2);
}

static const struct kernel_param_ops ornic_iw_mpa_rev_ops = {
	.set = ornic_iw_set_mpa_rev,
	.get = param_get_uint,
};

module_param_cb(mpa_rev, &ornic_iw_mpa_rev_ops, &ornic_iw_mpa_rev, 0644);
MODULE_PARM_DESC(mpa_rev,
		 "MPA revision of the connection requests of iWARP ports: 1 or 2 (RFC 6581, the default)");
module_param_named(mpa_crc, ornic_iw_mpa_crc, bool, 0644);
MODULE_PARM_DESC(mpa_crc,
		 "ask for MPA CRC32c in iWARP connection requests and replies (default on; CRCs are used when either side asks)");

enum ornic_iw_ep_state {
	ORNIC_IW_EP_CONNECTING,		/* IW_CONNECT sent, no reply yet */
	ORNIC_IW_EP_REQUESTED,		/* CONN_REQUEST delivered, no answer */
	ORNIC_IW_EP_ACCEPTED,		/* IW_ACCEPT done, ESTABLISHED to come */
	ORNIC_IW_EP_ESTABLISHED,
	ORNIC_IW_EP_CLOSED,		/* CLOSE delivered: only the id is left */
};

struct ornic_iw_ep {
	struct ornic_dev *dev;
	u32 conn_id;
	enum ornic_iw_ep_state state;
	struct iw_cm_id *cm_id;		/* referenced while set */
	struct ornic_qp *qp;		/* referenced while set */
};

struct ornic_iw_listener {
	struct list_head entry;		/* in dev->iw.listeners */
	struct iw_cm_id *cm_id;
	unsigned int num_ids;
	u32 ids[ORNIC_IW_MAX_ADDRS];	/* the device's listeners */
};

struct ornic_iw_event {
	struct list_head entry;
	struct ornic_eqe_iw eqe;
};

static struct ornic_dev *ornic_iw_dev(struct iw_cm_id *cm_id)
{
	return to_odev(cm_id->device);
}

/* --- QP references (iw_add_ref, iw_rem_ref, iw_get_qp) --------------------- */

void ornic_iw_qp_get(struct ornic_qp *qp)
{
	refcount_inc(&qp->iw_refs);
}

void ornic_iw_qp_put(struct ornic_qp *qp)
{
	if (refcount_dec_and_test(&qp->iw_refs))
		complete(&qp->iw_released);
}

static void ornic_iw_add_ref(struct ib_qp *ibqp)
{
	ornic_iw_qp_get(to_oqp(ibqp));
}

static void ornic_iw_rem_ref(struct ib_qp *ibqp)
{
	ornic_iw_qp_put(to_oqp(ibqp));
}

static struct ib_qp *ornic_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct ornic_qp *qp = xa_load(&to_odev(ibdev)->qps, qpn);

	return qp ? &qp->ibqp : NULL;
}

/* --- endpoints ------------------------------------------------------------- */

/* Under dev->iw.lock. */
static struct ornic_iw_ep *ornic_iw_ep_alloc(struct ornic_dev *dev)
{
	struct ornic_iw_ep *ep = kzalloc_obj(*ep, GFP_KERNEL);

	if (ep)
		ep->dev = dev;
	return ep;
}

static void ornic_iw_ep_bind(struct ornic_iw_ep *ep, struct iw_cm_id *cm_id,
			     struct ornic_qp *qp)
{
	cm_id->add_ref(cm_id);
	cm_id->provider_data = ep;
	ep->cm_id = cm_id;
	ornic_iw_qp_get(qp);
	ep->qp = qp;
	WRITE_ONCE(qp->iw_conn_id, ep->conn_id);
}

/*
 * Drops the QP: it no longer names this connection, and the device moved it
 * to ERR when the connection ended.
 */
static void ornic_iw_ep_unbind_qp(struct ornic_iw_ep *ep)
{
	if (!ep->qp)
		return;
	WRITE_ONCE(ep->qp->iw_conn_id, 0);
	WRITE_ONCE(ep->qp->state, IB_QPS_ERR);
	ornic_iw_qp_put(ep->qp);
	ep->qp = NULL;
}

/*
 * The endpoint's end, under dev->iw.lock: the device's id freed (unless
 * @id_freed: IW_REJECT did it), the QP and cm_id released, the memory
 * freed.  The iw_cm hears nothing more of it.
 */
static void ornic_iw_ep_free(struct ornic_iw_ep *ep, bool id_freed, bool abrupt)
{
	struct ornic_dev *dev = ep->dev;
	struct ornic_admin_sqe sqe;

	if (!id_freed) {
		ornic_cmd_iw_conn(&sqe, ORNIC_ADMIN_IW_DISCONNECT, ep->conn_id,
				  abrupt ? ORNIC_IW_DISCONNECT_ABRUPT : 0, 0, 0);
		/* A dead device has no ids left: nothing to undo. */
		ornic_admin_simple(dev, &sqe, NULL);
	}
	xa_erase(&dev->iw.eps, ep->conn_id);
	ornic_iw_ep_unbind_qp(ep);
	if (ep->cm_id) {
		ep->cm_id->provider_data = NULL;
		ep->cm_id->rem_ref(ep->cm_id);
	}
	kfree(ep);
}

/* Hands @event to the endpoint's iw_cm_id (the iw_cm queues it). */
static void ornic_iw_upcall(struct ornic_iw_ep *ep, struct iw_cm_event *event)
{
	struct iw_cm_id *cm_id = ep->cm_id;

	if (!cm_id)
		return;
	event->local_addr = cm_id->m_local_addr;
	event->remote_addr = cm_id->m_remote_addr;
	event->provider_data = ep;
	cm_id->event_handler(cm_id, event);
}

/*
 * The connection is gone (@status 0: closed on request): the event that
 * ends it in the iw_cm's state, then the endpoint is freed.  The iw_cm takes
 * CLOSE only once established: a connection still in setup ends with the
 * CONNECT_REPLY it waits for, an accepted one is established first.
 */
static void ornic_iw_ep_close(struct ornic_iw_ep *ep, int status, bool abrupt)
{
	struct iw_cm_event event = { .status = status };

	switch (ep->state) {
	case ORNIC_IW_EP_CONNECTING:
		event.event = IW_CM_EVENT_CONNECT_REPLY;
		if (!event.status)
			event.status = -ECONNRESET;
		ornic_iw_upcall(ep, &event);
		break;
	case ORNIC_IW_EP_ACCEPTED:
		event.event = IW_CM_EVENT_ESTABLISHED;
		event.status = 0;
		ornic_iw_upcall(ep, &event);
		event.status = status;
		fallthrough;
	case ORNIC_IW_EP_ESTABLISHED:
		event.event = IW_CM_EVENT_CLOSE;
		ornic_iw_upcall(ep, &event);
		break;
	default:
		break;
	}
	ornic_iw_ep_free(ep, false, abrupt);
}

/*
 * IW_QUERY_CONN of @conn_id into the DMA buffer, checked; under
 * dev->iw.lock (the buffer is the lock's).
 */
static struct ornic_iw_conn_attr *ornic_iw_query(struct ornic_dev *dev,
						 u32 conn_id)
{
	struct ornic_iw_conn_attr *a = dev->iw.buf;
	struct ornic_admin_sqe sqe;
	u32 len;
	int err;

	memset(a, 0, sizeof(*a));
	ornic_cmd_iw_conn(&sqe, ORNIC_ADMIN_IW_QUERY_CONN, conn_id, 0,
			  dev->iw.buf_dma, sizeof(*a));
	err = ornic_admin_simple(dev, &sqe, &len);
	if (err)
		return ERR_PTR(err);
	err = ornic_iw_attr_check(a, len);
	if (err) {
		ibdev_err(&dev->ibdev,
			  "IW_QUERY_CONN of connection %#x: invalid answer\n",
			  conn_id);
		return ERR_PTR(err);
	}
	return a;
}

/* Copies @len bytes of private data into the DMA buffer for a command. */
static u64 ornic_iw_pdata(struct ornic_dev *dev, const void *pdata, u16 len)
{
	if (len)
		memcpy(dev->iw.buf, pdata, len);
	return len ? dev->iw.buf_dma : 0;
}

/* --- events ---------------------------------------------------------------- */

/*
 * The peer's IRD and ORD; MPA revision 1 carries none, and then the peer
 * may use as many as this device offers.
 */
static void ornic_iw_peer_ird_ord(const struct ornic_iw_conn_attr *a,
				  struct iw_cm_event *event)
{
	u16 ird = le16_to_cpu(a->peer_ird), ord = le16_to_cpu(a->peer_ord);

	event->ird = min_t(u16, ird ?: ORNIC_IW_MAX_IRD_ORD, U8_MAX);
	event->ord = min_t(u16, ord ?: ORNIC_IW_MAX_IRD_ORD, U8_MAX);
}

static struct ornic_iw_listener *ornic_iw_listener_of(struct ornic_dev *dev,
						      u32 id)
{
	struct ornic_iw_listener *l;
	unsigned int i;

	list_for_each_entry(l, &dev->iw.listeners, entry)
		for (i = 0; i < l->num_ids; i++)
			if (l->ids[i] == id)
				return l;
	return NULL;
}

static void ornic_iw_conn_request(struct ornic_dev *dev,
				  const struct ornic_eqe_iw *e)
{
	u32 conn_id = le32_to_cpu(e->conn_id);
	struct iw_cm_event event = { .event = IW_CM_EVENT_CONNECT_REQUEST };
	struct ornic_admin_sqe sqe;
	struct ornic_iw_conn_attr *a;
	struct ornic_iw_listener *l;
	struct ornic_iw_ep *ep;
	int err;

	l = ornic_iw_listener_of(dev, le32_to_cpu(e->listener_id));
	a = l ? ornic_iw_query(dev, conn_id) : NULL;
	ep = !IS_ERR_OR_NULL(a) ? ornic_iw_ep_alloc(dev) : NULL;
	if (ep) {
		ep->conn_id = conn_id;
		ep->state = ORNIC_IW_EP_REQUESTED;
		if (xa_insert(&dev->iw.eps, conn_id, ep, GFP_KERNEL)) {
			kfree(ep);
			ep = NULL;
		}
	}
	if (!ep) {
		/* No listener any more, or no memory: refuse it. */
		ornic_cmd_iw_conn(&sqe, ORNIC_ADMIN_IW_REJECT, conn_id, 0, 0, 0);
		ornic_admin_simple(dev, &sqe, NULL);
		return;
	}
	ornic_iw_attr_addrs(a, &event.local_addr, &event.remote_addr);
	event.private_data = a->pdata;
	event.private_data_len = le16_to_cpu(a->pdata_len);
	ornic_iw_peer_ird_ord(a, &event);
	event.provider_data = ep;
	/* The iw_cm copies the private data before it returns. */
	err = l->cm_id->event_handler(l->cm_id, &event);
	if (err) {
		ornic_cmd_iw_conn(&sqe, ORNIC_ADMIN_IW_REJECT, conn_id, 0, 0, 0);
		ornic_admin_simple(dev, &sqe, NULL);
		xa_erase(&dev->iw.eps, conn_id);
		kfree(ep);
	}
}

static void ornic_iw_connect_reply(struct ornic_dev *dev,
				   struct ornic_iw_ep *ep,
				   const struct ornic_eqe_iw *e)
{
	struct iw_cm_event event = { .event = IW_CM_EVENT_CONNECT_REPLY };
	struct ornic_iw_conn_attr *a;

	if (ep->state != ORNIC_IW_EP_CONNECTING)
		return;
	event.status = ornic_iw_status_errno(e->status);
	a = ornic_iw_query(dev, ep->conn_id);
	if (!IS_ERR(a)) {
		event.private_data = a->pdata;
		event.private_data_len = le16_to_cpu(a->pdata_len);
		ornic_iw_peer_ird_ord(a, &event);
	} else if (!event.status) {
		event.status = PTR_ERR(a);
	}
	if (event.status) {
		ornic_iw_upcall(ep, &event);
		ornic_iw_ep_free(ep, false, true);
		return;
	}
	ep->state = ORNIC_IW_EP_ESTABLISHED;
	/* The device moved the QP to RTS when MPA completed. */
	if (ep->qp)
		WRITE_ONCE(ep->qp->state, IB_QPS_RTS);
	ornic_iw_upcall(ep, &event);
}

static void ornic_iw_event(struct ornic_dev *dev, const struct ornic_eqe_iw *e)
{
	u32 conn_id = le32_to_cpu(e->conn_id);
	struct iw_cm_event event = {};
	struct ornic_iw_ep *ep;

	if (e->type == ORNIC_EQE_IW_CONN_REQUEST) {
		ornic_iw_conn_request(dev, e);
		return;
	}
	ep = xa_load(&dev->iw.eps, conn_id);
	if (!ep) {
		/* Its endpoint went first: IW_DISCONNECT ended its events. */
		ibdev_dbg(&dev->ibdev, "iWARP event %#x for unknown connection %#x\n",
			  e->type, conn_id);
		return;
	}
	switch (e->type) {
	case ORNIC_EQE_IW_CONNECT_REPLY:
		ornic_iw_connect_reply(dev, ep, e);
		break;
	case ORNIC_EQE_IW_ESTABLISHED:
		if (ep->state != ORNIC_IW_EP_ACCEPTED)
			break;
		ep->state = ORNIC_IW_EP_ESTABLISHED;
		if (ep->qp)
			WRITE_ONCE(ep->qp->state, IB_QPS_RTS);
		event.event = IW_CM_EVENT_ESTABLISHED;
		ornic_iw_upcall(ep, &event);
		break;
	case ORNIC_EQE_IW_DISCONNECT:
		/* The peer sends no more: our side closes too (FIN). */
		if (ep->state != ORNIC_IW_EP_ESTABLISHED)
			break;
		event.event = IW_CM_EVENT_DISCONNECT;
		ornic_iw_upcall(ep, &event);
		ornic_iw_ep_close(ep, 0, false);
		break;
	case ORNIC_EQE_IW_CLOSE:
		if (ep->state == ORNIC_IW_EP_REQUESTED) {
			/* Not accepted yet: the iw_cm_id is the ULP's to drop. */
			ep->state = ORNIC_IW_EP_CLOSED;
			break;
		}
		ornic_iw_ep_close(ep, ornic_iw_status_errno(e->status) ?:
				  -ECONNRESET, true);
		break;
	default:
		ibdev_err(&dev->ibdev, "unknown iWARP event %#x\n", e->type);
		break;
	}
}

static void ornic_iw_event_work(struct work_struct *work)
{
	struct ornic_dev *dev = container_of(work, struct ornic_dev,
					     iw.event_work);
	struct ornic_iw_event *ev;

	for (;;) {
		spin_lock_irq(&dev->iw.event_lock);
		ev = list_first_entry_or_null(&dev->iw.events,
					      struct ornic_iw_event, entry);
		if (ev) {
			list_del(&ev->entry);
			dev->iw.num_events--;
		}
		spin_unlock_irq(&dev->iw.event_lock);
		if (!ev)
			return;
		mutex_lock(&dev->iw.lock);
		ornic_iw_event(dev, &ev->eqe);
		mutex_unlock(&dev->iw.lock);
		kfree(ev);
	}
}

/*
 * The async EQ's handler for the IW_* types, under dev->aeq_lock with
 * interrupts off: queue the entry for the work.
 */
void ornic_iw_async_event(struct ornic_dev *dev, const struct ornic_eqe *eqe)
{
	struct ornic_iw_event *ev;

	if (!dev->iw.live) {
		ibdev_err(&dev->ibdev, "iWARP event %#x on a port without iWARP\n",
			  eqe->type);
		return;
	}
	ev = kzalloc_obj(*ev, GFP_ATOMIC);
	if (!ev) {
		ornic_set_dead(&dev->live, "no memory for an iWARP event");
		return;
	}
	static_assert(sizeof(ev->eqe) == sizeof(*eqe));
	memcpy(&ev->eqe, eqe, sizeof(ev->eqe));
	spin_lock(&dev->iw.event_lock);
	if (dev->iw.num_events >= ORNIC_IW_EVENT_MAX) {
		spin_unlock(&dev->iw.event_lock);
		kfree(ev);
		ornic_set_dead(&dev->live, "iWARP event flood");
		return;
	}
	list_add_tail(&ev->entry, &dev->iw.events);
	dev->iw.num_events++;
	spin_unlock(&dev->iw.event_lock);
	queue_work(dev->iw.wq, &dev->iw.event_work);
}

/* --- iw_cm verbs ----------------------------------------------------------- */

/* The next hop towards @dst from @src on the port's netdev, as a MAC. */
static int ornic_iw_next_hop(struct ornic_dev *dev, __be32 src, __be32 dst,
			     u8 *mac)
{
	struct net_device *netdev = dev->netdev;
	struct flowi4 fl4 = {
		.daddr = dst,
		.saddr = src,
		.flowi4_oif = netdev->ifindex,
	};
	struct neighbour *n;
	struct rtable *rt;
	int err = 0;

	rt = ip_route_output_key(dev_net(netdev), &fl4);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	if (rt->dst.dev != netdev) {
		ip_rt_put(rt);
		return -ENETUNREACH;
	}
	n = dst_neigh_lookup(&rt->dst, &dst);
	if (!n) {
		err = -EHOSTUNREACH;
	} else {
		if (READ_ONCE(n->nud_state) & NUD_VALID) {
			neigh_ha_snapshot(mac, n, netdev);
		} else {
			/* rdma_cm resolved it: ask again, fail this try. */
			neigh_event_send(n, NULL);
			err = -EHOSTUNREACH;
		}
		neigh_release(n);
	}
	ip_rt_put(rt);
	return err;
}

static u32 ornic_iw_ird_ord(u32 v)
{
	return min_t(u32, v, ORNIC_IW_MAX_IRD_ORD);
}

static int ornic_iw_connect(struct iw_cm_id *cm_id,
			    struct iw_cm_conn_param *param)
{
	struct ornic_dev *dev = ornic_iw_dev(cm_id);
	const struct sockaddr_in *laddr = (void *)&cm_id->m_local_addr;
	const struct sockaddr_in *raddr = (void *)&cm_id->m_remote_addr;
	struct ornic_iw_connect_args args = {};
	struct ornic_admin_sqe sqe;
	struct ornic_iw_ep *ep;
	struct ornic_qp *qp;
	u8 mpa_rev = READ_ONCE(ornic_iw_mpa_rev);
	u8 mac[ETH_ALEN];
	u32 id;
	int err;

	if (laddr->sin_family != AF_INET || raddr->sin_family != AF_INET)
		return -EAFNOSUPPORT;
	if (param->private_data_len > ornic_iw_max_pdata(mpa_rev))
		return -EINVAL;
	qp = xa_load(&dev->qps, param->qpn);
	if (!qp || qp->ibqp.qp_type != IB_QPT_RC)
		return -EINVAL;
	err = ornic_iw_next_hop(dev, laddr->sin_addr.s_addr,
				raddr->sin_addr.s_addr, mac);
	if (err)
		return err;

	mutex_lock(&dev->iw.lock);
	ep = ornic_iw_ep_alloc(dev);
	if (!ep) {
		err = -ENOMEM;
		goto out_unlock;
	}
	err = xa_alloc(&dev->iw.eps, &id, ep,
		       XA_LIMIT(1, ORNIC_IW_CONN_ID_DEVICE - 1), GFP_KERNEL);
	if (err)
		goto err_free;
	ep->conn_id = id;
	ep->state = ORNIC_IW_EP_CONNECTING;

	args.conn_id = id;
	args.qpn = qp->qpn;
	args.local = laddr;
	args.remote = raddr;
	args.next_hop = mac;
	args.tos = cm_id->tos;
	args.mpa_rev = mpa_rev;
	args.crc = READ_ONCE(ornic_iw_mpa_crc);
	args.ird = ornic_iw_ird_ord(param->ird);
	args.ord = ornic_iw_ird_ord(param->ord);
	args.pdata_len = param->private_data_len;
	args.pdata_addr = ornic_iw_pdata(dev, param->private_data,
					 param->private_data_len);
	err = ornic_cmd_iw_connect(&sqe, &args);
	if (!err)
		err = ornic_admin_simple(dev, &sqe, NULL);
	if (err)
		goto err_erase;
	ornic_iw_ep_bind(ep, cm_id, qp);
	mutex_unlock(&dev->iw.lock);
	return 0;

err_erase:
	xa_erase(&dev->iw.eps, id);
err_free:
	kfree(ep);
out_unlock:
	mutex_unlock(&dev->iw.lock);
	return err;
}

static int ornic_iw_accept(struct iw_cm_id *cm_id,
			   struct iw_cm_conn_param *param)
{
	struct ornic_dev *dev = ornic_iw_dev(cm_id);
	struct ornic_iw_ep *ep = cm_id->provider_data;
	struct ornic_admin_sqe sqe;
	struct ornic_qp *qp;
	int err;

	qp = xa_load(&dev->qps, param->qpn);
	if (!qp || qp->ibqp.qp_type != IB_QPT_RC)
		return -EINVAL;
	/* The device checks the request's own revision's limit. */
	if (param->private_data_len > ornic_iw_max_pdata(1))
		return -EINVAL;
	mutex_lock(&dev->iw.lock);
	if (!ep || xa_load(&dev->iw.eps, ep->conn_id) != ep ||
	    ep->state != ORNIC_IW_EP_REQUESTED) {
		err = ep && ep->state == ORNIC_IW_EP_CLOSED ? -ECONNRESET :
							       -EINVAL;
		goto out;
	}
	err = ornic_cmd_iw_accept(&sqe, ep->conn_id, qp->qpn,
				  ornic_iw_ird_ord(param->ird),
				  ornic_iw_ird_ord(param->ord),
				  READ_ONCE(ornic_iw_mpa_crc),
				  param->private_data_len,
				  ornic_iw_pdata(dev, param->private_data,
						 param->private_data_len));
	if (!err)
		err = ornic_admin_simple(dev, &sqe, NULL);
	if (err)
		goto out;
	ep->state = ORNIC_IW_EP_ACCEPTED;
	ornic_iw_ep_bind(ep, cm_id, qp);
out:
	mutex_unlock(&dev->iw.lock);
	return err;
}

static int ornic_iw_reject(struct iw_cm_id *cm_id, const void *pdata,
			   u8 pdata_len)
{
	struct ornic_dev *dev = ornic_iw_dev(cm_id);
	struct ornic_iw_ep *ep = cm_id->provider_data;
	struct ornic_admin_sqe sqe;
	int err = 0;

	mutex_lock(&dev->iw.lock);
	if (!ep || xa_load(&dev->iw.eps, ep->conn_id) != ep ||
	    (ep->state != ORNIC_IW_EP_REQUESTED &&
	     ep->state != ORNIC_IW_EP_CLOSED)) {
		err = -EINVAL;
		goto out;
	}
	if (ep->state == ORNIC_IW_EP_CLOSED) {
		/* The peer went: the id only needs freeing. */
		ornic_iw_ep_free(ep, false, true);
		goto out;
	}
	ornic_cmd_iw_conn(&sqe, ORNIC_ADMIN_IW_REJECT, ep->conn_id, 0,
			  ornic_iw_pdata(dev, pdata, pdata_len), pdata_len);
	err = ornic_admin_simple(dev, &sqe, NULL);
	/* Whatever the answer, the device forgets the connection. */
	ornic_iw_ep_free(ep, !err, true);
out:
	mutex_unlock(&dev->iw.lock);
	return err;
}

/* The device's listeners of @l stopped, @l unlinked and freed. */
static void ornic_iw_listener_free(struct ornic_dev *dev,
				   struct ornic_iw_listener *l)
{
	struct ornic_admin_sqe sqe;
	unsigned int i;

	for (i = 0; i < l->num_ids; i++) {
		ornic_cmd_iw_conn(&sqe, ORNIC_ADMIN_IW_UNLISTEN, l->ids[i], 0,
				  0, 0);
		ornic_admin_simple(dev, &sqe, NULL);
	}
	list_del(&l->entry);
	kfree(l);
}

static int ornic_iw_listen_one(struct ornic_dev *dev,
			       struct ornic_iw_listener *l, __be32 ip,
			       __be16 port, int backlog)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = ip,
		.sin_port = port,
	};
	struct ornic_admin_sqe sqe;
	u32 id;
	int err;

	if (l->num_ids == ARRAY_SIZE(l->ids))
		return -ENOSPC;
	err = ornic_cmd_iw_listen(&sqe, &sin, backlog);
	if (!err)
		err = ornic_admin_simple(dev, &sqe, &id);
	if (err)
		return err;
	l->ids[l->num_ids++] = id;
	return 0;
}

/*
 * @ips: the IPv4 addresses a listen on @sin covers, at most @max: its own,
 * or for a wildcard each of the netdev's but 127/8, which the device refuses
 * (read under RCU: rdma_cm calls with its own lock held, which it takes under
 * RTNL elsewhere).
 */
static unsigned int ornic_iw_listen_addrs(struct ornic_dev *dev,
					  const struct sockaddr_in *sin,
					  __be32 *ips, unsigned int max)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	unsigned int n = 0;

	if (sin->sin_addr.s_addr != htonl(INADDR_ANY)) {
		ips[0] = sin->sin_addr.s_addr;
		return 1;
	}
	rcu_read_lock();
	in_dev = __in_dev_get_rcu(dev->netdev);
	if (in_dev)
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			if (n == max)
				break;
			if (!ipv4_is_loopback(ifa->ifa_local))
				ips[n++] = ifa->ifa_local;
		}
	rcu_read_unlock();
	return n;
}

static int ornic_iw_create_listen(struct iw_cm_id *cm_id, int backlog)
{
	struct ornic_dev *dev = ornic_iw_dev(cm_id);
	const struct sockaddr_in *sin = (void *)&cm_id->m_local_addr;
	__be32 ips[ORNIC_IW_MAX_ADDRS];
	struct ornic_iw_listener *l;
	unsigned int i, n;
	int err = 0;

	if (sin->sin_family != AF_INET)
		return -EAFNOSUPPORT;
	backlog = clamp(backlog, 1, ORNIC_IW_MAX_BACKLOG);
	n = ornic_iw_listen_addrs(dev, sin, ips, ARRAY_SIZE(ips));
	l = kzalloc_obj(*l, GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	INIT_LIST_HEAD(&l->entry);
	l->cm_id = cm_id;

	mutex_lock(&dev->iw.lock);
	for (i = 0; i < n && !err; i++)
		err = ornic_iw_listen_one(dev, l, ips[i], sin->sin_port,
					  backlog);
	if (err) {
		ornic_iw_listener_free(dev, l);
		goto out;
	}
	list_add_tail(&l->entry, &dev->iw.listeners);
	cm_id->provider_data = l;
	cm_id->add_ref(cm_id);
out:
	mutex_unlock(&dev->iw.lock);
	return err;
}

static int ornic_iw_destroy_listen(struct iw_cm_id *cm_id)
{
	struct ornic_dev *dev = ornic_iw_dev(cm_id);
	struct ornic_iw_listener *l = cm_id->provider_data;

	if (!l)
		return 0;
	mutex_lock(&dev->iw.lock);
	ornic_iw_listener_free(dev, l);
	cm_id->provider_data = NULL;
	mutex_unlock(&dev->iw.lock);
	cm_id->rem_ref(cm_id);
	return 0;
}

/*
 * The QP leaves RTS on the iw_cm's or the ULP's word: SQD is a graceful
 * close (FIN), ERR an abrupt one (RST).  The connection's end goes up as
 * CLOSE.  Under the QP's lock.
 */
void ornic_iw_qp_disconnect(struct ornic_qp *qp, bool abrupt)
{
	struct ornic_dev *dev = to_odev(qp->ibqp.device);
	struct ornic_iw_ep *ep;
	u32 conn_id = READ_ONCE(qp->iw_conn_id);

	if (!conn_id)
		return;
	mutex_lock(&dev->iw.lock);
	ep = xa_load(&dev->iw.eps, conn_id);
	if (ep && ep->qp == qp)
		ornic_iw_ep_close(ep, 0, abrupt);
	mutex_unlock(&dev->iw.lock);
}

/*
 * The device died: it answers no command and posts no event, so every
 * connection ends here, each as its state in the iw_cm requires (a
 * connect waiting for its reply is failed, an established one closed).
 */
void ornic_iw_device_dead(struct ornic_dev *dev)
{
	struct ornic_iw_ep *ep;
	unsigned long id;

	if (!dev->iw.buf)
		return;
	mutex_lock(&dev->iw.lock);
	xa_for_each(&dev->iw.eps, id, ep)
		if (ep->cm_id)
			ornic_iw_ep_close(ep, -EIO, true);
	mutex_unlock(&dev->iw.lock);
}

static const struct ib_device_ops ornic_iw_ops = {
	.iw_accept = ornic_iw_accept,
	.iw_add_ref = ornic_iw_add_ref,
	.iw_connect = ornic_iw_connect,
	.iw_create_listen = ornic_iw_create_listen,
	.iw_destroy_listen = ornic_iw_destroy_listen,
	.iw_get_qp = ornic_iw_get_qp,
	.iw_reject = ornic_iw_reject,
	.iw_rem_ref = ornic_iw_rem_ref,
};

/* --- setup ----------------------------------------------------------------- */

int ornic_iw_init(struct ornic_dev *dev)
{
	struct ornic_iwcm *iw = &dev->iw;

	mutex_init(&iw->lock);
	xa_init_flags(&iw->eps, XA_FLAGS_ALLOC1);
	INIT_LIST_HEAD(&iw->listeners);
	spin_lock_init(&iw->event_lock);
	INIT_LIST_HEAD(&iw->events);
	INIT_WORK(&iw->event_work, ornic_iw_event_work);
	iw->buf = dma_alloc_coherent(&dev->pdev->dev,
				     sizeof(struct ornic_iw_conn_attr),
				     &iw->buf_dma, GFP_KERNEL);
	if (!iw->buf)
		return -ENOMEM;
	iw->wq = alloc_ordered_workqueue("ornic_iw", 0);
	if (!iw->wq) {
		dma_free_coherent(&dev->pdev->dev,
				  sizeof(struct ornic_iw_conn_attr), iw->buf,
				  iw->buf_dma);
		iw->buf = NULL;
		return -ENOMEM;
	}
	ib_set_device_ops(&dev->ibdev, &ornic_iw_ops);
	spin_lock_irq(&dev->aeq_lock);
	iw->live = true;
	spin_unlock_irq(&dev->aeq_lock);
	return 0;
}

/*
 * After ib_unregister_device(): the iw_cm holds no id of ours any more.
 * Events still queued (the device may post until it is reset) are dropped.
 */
void ornic_iw_fini(struct ornic_dev *dev)
{
	struct ornic_iwcm *iw = &dev->iw;
	struct ornic_iw_event *ev, *tmp;
	struct ornic_iw_ep *ep;
	unsigned long id;

	if (!iw->buf)
		return;
	spin_lock_irq(&dev->aeq_lock);
	iw->live = false;	/* the AEQ handler queues nothing more */
	spin_unlock_irq(&dev->aeq_lock);
	destroy_workqueue(iw->wq);
	list_for_each_entry_safe(ev, tmp, &iw->events, entry)
		kfree(ev);
	INIT_LIST_HEAD(&iw->events);
	xa_for_each(&iw->eps, id, ep)
		kfree(ep);
	xa_destroy(&iw->eps);
	dma_free_coherent(&dev->pdev->dev, sizeof(struct ornic_iw_conn_attr),
			  iw->buf, iw->buf_dma);
	iw->buf = NULL;
	mutex_destroy(&iw->lock);
}
