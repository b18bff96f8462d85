// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: the Ethernet function (spec: ethernet.rst).  One TX and one RX ring
 * of 16-byte descriptors share one CQ on the first completion EQ; NAPI polls
 * that CQ.  Rings exist while the interface is up.
 */
#include <kunit/visibility.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/slab.h>

#include "ornic.h"

#define ORNIC_ETH_NAPI_WEIGHT	64
/* Room for a VLAN tag in receive buffers, though 1.0 sends none. */
#define ORNIC_ETH_RX_SLACK	4

static size_t ornic_ring_bytes(struct ornic_eth_ring *r)
{
	return (size_t)ORNIC_ETH_DESC_SIZE << r->log_depth;
}

static int ornic_ring_alloc(struct ornic_dev *dev, struct ornic_eth_ring *r,
			    unsigned int log_depth)
{
	r->log_depth = log_depth;
	r->prod = 0;
	r->cons = 0;
	r->bufs = kcalloc(1U << log_depth, sizeof(*r->bufs), GFP_KERNEL);
	if (!r->bufs)
		return -ENOMEM;
	r->desc = dma_alloc_coherent(&dev->pdev->dev, ornic_ring_bytes(r),
				     &r->dma, GFP_KERNEL);
	if (!r->desc) {
		kfree(r->bufs);
		r->bufs = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void ornic_ring_free(struct ornic_dev *dev, struct ornic_eth_ring *r)
{
	dma_free_coherent(&dev->pdev->dev, ornic_ring_bytes(r), r->desc,
			  r->dma);
	kfree(r->bufs);
	r->desc = NULL;
	r->bufs = NULL;
}

static int ornic_ring_create_hw(struct ornic_eth *eth,
				struct ornic_eth_ring *r, bool tx)
{
	struct ornic_admin_sqe sqe;
	struct ornic_mem_desc mem;

	ornic_mem_desc_contig(&mem, r->dma, ornic_ring_bytes(r), PAGE_SHIFT);
	ornic_cmd_create_eth_ring(&sqe, tx, &mem, r->log_depth, eth->cq.cqn);
	return ornic_admin_simple(eth->dev, &sqe, &r->id);
}

/* --- receive -------------------------------------------------------------- */

static int ornic_rx_post_one(struct ornic_eth *eth)
{
	struct ornic_eth_ring *r = &eth->rx;
	struct device *dmadev = &eth->dev->pdev->dev;
	u32 slot = ornic_ring_slot(r->prod, r->log_depth);
	struct ornic_eth_rx_desc *desc = (struct ornic_eth_rx_desc *)r->desc +
					 slot;
	struct ornic_eth_buf *buf = &r->bufs[slot];
	struct sk_buff *skb;
	dma_addr_t dma;

	skb = netdev_alloc_skb_ip_align(eth->netdev, eth->rx_buf_len);
	if (!skb)
		return -ENOMEM;
	dma = dma_map_single(dmadev, skb->data, eth->rx_buf_len,
			     DMA_FROM_DEVICE);
	if (dma_mapping_error(dmadev, dma)) {
		dev_kfree_skb_any(skb);
		return -ENOMEM;
	}
	buf->skb = skb;
	buf->dma = dma;
	buf->len = eth->rx_buf_len;
	desc->addr = cpu_to_le64(dma);
	desc->length = cpu_to_le16(eth->rx_buf_len);
	desc->reserved0 = 0;
	desc->reserved1 = 0;
	r->prod++;
	return 0;
}

static void ornic_rx_refill(struct ornic_eth *eth)
{
	struct ornic_eth_ring *r = &eth->rx;
	u32 before = r->prod;

	while (ornic_ring_space(r->prod, r->cons, r->log_depth)) {
		if (ornic_rx_post_one(eth))
			break;
	}
	if (r->prod == before)
		return;
	/* Descriptors visible before the doorbell. */
	dma_wmb();
	ornic_ring_db(&eth->dev->live, ORNIC_DB_ETH_RX,
		      ornic_db_value(r->id, 0, r->prod));
}

static void ornic_rx_complete(struct ornic_eth *eth, struct ornic_cqe *cqe)
{
	struct ornic_eth_ring *r = &eth->rx;
	struct device *dmadev = &eth->dev->pdev->dev;
	u32 idx = (u32)le64_to_cpu(cqe->wr_id);
	struct ornic_eth_buf *buf = &r->bufs[ornic_ring_slot(idx, r->log_depth)];
	u32 len = le32_to_cpu(cqe->byte_len);
	struct sk_buff *skb = buf->skb;

	/* The device consumes descriptors in order. */
	if (unlikely(idx != r->cons || !skb)) {
		netdev_err_once(eth->netdev, "RX completion %u, expected %u\n",
				idx, r->cons);
		ornic_device_error(&eth->dev->live, "RX completion index", idx,
				   r->cons);
		return;
	}
	dma_unmap_single(dmadev, buf->dma, buf->len, DMA_FROM_DEVICE);
	buf->skb = NULL;
	r->cons++;

	if (unlikely(cqe->status != ORNIC_CQE_SUCCESS || len > buf->len ||
		     len < ETH_HLEN)) {
		u64_stats_update_begin(&eth->rx_stats.syncp);
		eth->rx_stats.errors++;
		u64_stats_update_end(&eth->rx_stats.syncp);
		dev_kfree_skb_any(skb);
		return;
	}
	skb_put(skb, len);
	skb->protocol = eth_type_trans(skb, eth->netdev);
	u64_stats_update_begin(&eth->rx_stats.syncp);
	eth->rx_stats.packets++;
	eth->rx_stats.bytes += len;
	u64_stats_update_end(&eth->rx_stats.syncp);
	napi_gro_receive(&eth->napi, skb);
}

static void ornic_rx_drain(struct ornic_eth *eth)
{
	struct ornic_eth_ring *r = &eth->rx;
	struct device *dmadev = &eth->dev->pdev->dev;
	u32 i;

	for (i = 0; i < (1U << r->log_depth); i++) {
		struct ornic_eth_buf *buf = &r->bufs[i];

		if (!buf->skb)
			continue;
		dma_unmap_single(dmadev, buf->dma, buf->len, DMA_FROM_DEVICE);
		dev_kfree_skb_any(buf->skb);
		buf->skb = NULL;
	}
}

/* --- transmit ------------------------------------------------------------- */

static void ornic_tx_complete(struct ornic_eth *eth, struct ornic_cqe *cqe,
			      int budget)
{
	struct ornic_eth_ring *r = &eth->tx;
	struct device *dmadev = &eth->dev->pdev->dev;
	u32 idx = (u32)le64_to_cpu(cqe->wr_id);
	struct ornic_eth_buf *buf = &r->bufs[ornic_ring_slot(idx, r->log_depth)];

	if (unlikely(idx != r->cons || !buf->skb)) {
		netdev_err_once(eth->netdev, "TX completion %u, expected %u\n",
				idx, r->cons);
		ornic_device_error(&eth->dev->live, "TX completion index", idx,
				   r->cons);
		return;
	}
	dma_unmap_single(dmadev, buf->dma, buf->len, DMA_TO_DEVICE);
	u64_stats_update_begin(&eth->tx_stats.syncp);
	if (cqe->status == ORNIC_CQE_SUCCESS) {
		eth->tx_stats.packets++;
		eth->tx_stats.bytes += buf->len;
	} else {
		eth->tx_stats.errors++;
	}
	u64_stats_update_end(&eth->tx_stats.syncp);
	napi_consume_skb(buf->skb, budget);
	buf->skb = NULL;
	/* Publish the slot before xmit looks at cons. */
	smp_store_release(&r->cons, r->cons + 1);
}

static void ornic_tx_drain(struct ornic_eth *eth)
{
	struct ornic_eth_ring *r = &eth->tx;
	struct device *dmadev = &eth->dev->pdev->dev;
	u32 i;

	for (i = 0; i < (1U << r->log_depth); i++) {
		struct ornic_eth_buf *buf = &r->bufs[i];

		if (!buf->skb)
			continue;
		dma_unmap_single(dmadev, buf->dma, buf->len, DMA_TO_DEVICE);
		dev_kfree_skb_any(buf->skb);
		buf->skb = NULL;
	}
}

static netdev_tx_t ornic_start_xmit(struct sk_buff *skb,
				    struct net_device *netdev)
{
	struct ornic_eth *eth = netdev_priv(netdev);
	struct ornic_eth_ring *r = &eth->tx;
	struct device *dmadev = &eth->dev->pdev->dev;
	struct ornic_eth_tx_desc *desc;
	struct ornic_eth_buf *buf;
	dma_addr_t dma;
	u32 slot;

	if (skb_put_padto(skb, ETH_ZLEN))
		goto dropped;
	if (skb_linearize(skb))
		goto drop;
	if (ornic_dead(&eth->dev->live))
		goto drop;

	dma = dma_map_single(dmadev, skb->data, skb->len, DMA_TO_DEVICE);
	if (dma_mapping_error(dmadev, dma))
		goto drop;

	slot = ornic_ring_slot(r->prod, r->log_depth);
	buf = &r->bufs[slot];
	buf->skb = skb;
	buf->dma = dma;
	buf->len = skb->len;
	desc = (struct ornic_eth_tx_desc *)r->desc + slot;
	desc->addr = cpu_to_le64(dma);
	desc->length = cpu_to_le16(skb->len);
	desc->flags = 0;
	desc->reserved = 0;
	r->prod++;
	skb_tx_timestamp(skb);
	dma_wmb();
	ornic_ring_db(&eth->dev->live, ORNIC_DB_ETH_TX,
		      ornic_db_value(r->id, 0, r->prod));

	/* Pairs with smp_store_release() in ornic_tx_complete(). */
	if (!ornic_ring_space(r->prod, smp_load_acquire(&r->cons),
			      r->log_depth)) {
		netif_stop_queue(netdev);
		/*
		 * Order the stop before re-reading cons: a completion may have
		 * freed space meanwhile and seen the queue still running.
		 */
		smp_mb();
		/* Pairs with smp_store_release() in ornic_tx_complete(). */
		if (ornic_ring_space(r->prod, smp_load_acquire(&r->cons),
				     r->log_depth))
			netif_wake_queue(netdev);
	}
	return NETDEV_TX_OK;

drop:
	dev_kfree_skb_any(skb);
dropped:
	u64_stats_update_begin(&eth->xmit_stats.syncp);
	eth->xmit_stats.dropped++;
	u64_stats_update_end(&eth->xmit_stats.syncp);
	return NETDEV_TX_OK;
}

/* --- NAPI ------------------------------------------------------------------- */

static void ornic_eth_cq_event(struct ornic_cq_ring *cq)
{
	struct ornic_eth *eth = container_of(cq, struct ornic_eth, cq);

	napi_schedule_irqoff(&eth->napi);
}

static int ornic_eth_poll(struct napi_struct *napi, int budget)
{
	struct ornic_eth *eth = container_of(napi, struct ornic_eth, napi);
	struct ornic_cqe *cqe;
	int done = 0;
	u32 tx_cons = eth->tx.cons;

	/*
	 * Every CQE counts against the budget, TX and bogus ones too: a
	 * device writing endless CQEs must not keep us here.
	 */
	while (done < budget && !ornic_dead(&eth->dev->live) &&
	       (cqe = ornic_cq_ring_next(&eth->cq))) {
		switch (cqe->opcode) {
		case ORNIC_CQE_OP_ETH_RX:
			ornic_rx_complete(eth, cqe);
			break;
		case ORNIC_CQE_OP_ETH_TX:
			ornic_tx_complete(eth, cqe, budget);
			break;
		default:
			ornic_device_error(&eth->dev->live,
					   "Ethernet CQE opcode", cqe->opcode,
					   ORNIC_CQE_OP_ETH_RX);
			break;
		}
		eth->cq.ci++;
		done++;
	}
	ornic_rx_refill(eth);

	if (eth->tx.cons != tx_cons && netif_queue_stopped(eth->netdev) &&
	    ornic_ring_space(eth->tx.prod, eth->tx.cons, eth->tx.log_depth))
		netif_wake_queue(eth->netdev);

	/* A dead device: stop polling, nothing will be armed again. */
	if (ornic_dead(&eth->dev->live)) {
		napi_complete_done(napi, 0);
		return 0;
	}
	if (done < budget && napi_complete_done(napi, done))
		ornic_cq_ring_arm(&eth->cq);
	else
		ornic_ring_db(&eth->dev->live, ORNIC_DB_CQ,
			      ornic_db_value(eth->cq.cqn, 0, eth->cq.ci));
	return done;
}

/* --- rings up/down ---------------------------------------------------------- */

static void ornic_eth_rings_down(struct ornic_eth *eth)
{
	struct ornic_dev *dev = eth->dev;

	if (!eth->rings_up)
		return;
	eth->rings_up = false;
	napi_disable(&eth->napi);
	ornic_admin_destroy(dev, ORNIC_ADMIN_ETH_DESTROY_RING, eth->rx.id);
	ornic_admin_destroy(dev, ORNIC_ADMIN_ETH_DESTROY_RING, eth->tx.id);
	ornic_cq_ring_destroy(dev, &eth->cq);
	ornic_rx_drain(eth);
	ornic_tx_drain(eth);
	ornic_ring_free(dev, &eth->rx);
	ornic_ring_free(dev, &eth->tx);
}

static int ornic_eth_rings_up(struct ornic_eth *eth)
{
	struct ornic_dev *dev = eth->dev;
	int err;

	eth->rx_buf_len = max_t(u32, eth->netdev->mtu + ETH_HLEN +
				ORNIC_ETH_RX_SLACK, ETH_ZLEN + 4);
	err = ornic_ring_alloc(dev, &eth->tx, ORNIC_ETH_TX_LOG_DEPTH);
	if (err)
		return err;
	err = ornic_ring_alloc(dev, &eth->rx, ORNIC_ETH_RX_LOG_DEPTH);
	if (err)
		goto err_free_tx;
	err = ornic_cq_ring_create(dev, &eth->cq, ORNIC_ETH_CQ_LOG_DEPTH,
				   &dev->ceqs[0]);
	if (err)
		goto err_free_rx;
	eth->cq.comp_handler = ornic_eth_cq_event;
	err = ornic_ring_create_hw(eth, &eth->tx, true);
	if (err)
		goto err_destroy_cq;
	err = ornic_ring_create_hw(eth, &eth->rx, false);
	if (err)
		goto err_destroy_tx;

	/*
	 * Post receive buffers before NAPI can run (it refills too); the CQ
	 * is not armed yet, so nothing interrupts until ornic_cq_ring_arm().
	 */
	ornic_rx_refill(eth);
	napi_enable(&eth->napi);
	ornic_cq_ring_arm(&eth->cq);
	eth->rings_up = true;
	return 0;

err_destroy_tx:
	ornic_admin_destroy(dev, ORNIC_ADMIN_ETH_DESTROY_RING, eth->tx.id);
err_destroy_cq:
	ornic_cq_ring_destroy(dev, &eth->cq);
err_free_rx:
	ornic_ring_free(dev, &eth->rx);
err_free_tx:
	ornic_ring_free(dev, &eth->tx);
	return err;
}

/*
 * Carrier follows the device's link while the interface is up.  Runs from
 * dev->link_work (and from the work that reports the device's death, which
 * flushes link_work first: one runs at a time); the matching IB port event
 * goes out after RTNL is dropped (the RDMA core's event handlers may want
 * it themselves).
 */
void ornic_eth_link_update(struct ornic_dev *dev)
{
	struct net_device *netdev = dev->netdev;
	bool up, active;

	if (!netdev)
		return;
	rtnl_lock();
	up = !ornic_dead(&dev->live) &&
	     (ornic_rd32(&dev->live, ORNIC_REG_LINK_STATUS) &
	      ORNIC_LINK_STATUS_UP);
	dev->link_up = up;
	if (up && netif_running(netdev))
		netif_carrier_on(netdev);
	else
		netif_carrier_off(netdev);
	active = netif_carrier_ok(netdev);
	rtnl_unlock();

	if (active != dev->ib_port_active) {
		dev->ib_port_active = active;
		ornic_ib_port_event(dev, active);
	}
}

static void ornic_eth_link_work(struct work_struct *work)
{
	ornic_eth_link_update(container_of(work, struct ornic_dev,
					   link_work));
}

void ornic_eth_link_init(struct ornic_dev *dev)
{
	INIT_WORK(&dev->link_work, ornic_eth_link_work);
}

/*
 * The link may have changed (a PORT_STATE event, the health check, the
 * interface going up or down): re-read it from process context, outside
 * RTNL and interrupt context, unless remove() has begun.  Any context.
 */
void ornic_eth_link_changed(struct ornic_dev *dev)
{
	if (!test_bit(ORNIC_FLAG_REMOVING, &dev->flags))
		schedule_work(&dev->link_work);
}

static int ornic_eth_open(struct net_device *netdev)
{
	struct ornic_eth *eth = netdev_priv(netdev);
	struct ornic_dev *dev = eth->dev;
	int err;

	if (ornic_dead(&dev->live))
		return -EIO;
	err = ornic_eth_rings_up(eth);
	if (err)
		return err;
	ornic_dcb_apply(eth);
	netif_start_queue(netdev);
	dev->link_up = ornic_rd32(&dev->live, ORNIC_REG_LINK_STATUS) &
		       ORNIC_LINK_STATUS_UP;
	if (dev->link_up)
		netif_carrier_on(netdev);
	ornic_eth_link_changed(dev);
	return 0;
}

static int ornic_eth_stop(struct net_device *netdev)
{
	struct ornic_eth *eth = netdev_priv(netdev);

	netif_carrier_off(netdev);
	netif_tx_disable(netdev);
	ornic_eth_rings_down(eth);
	ornic_eth_link_changed(eth->dev);
	return 0;
}

static int ornic_eth_set_mac(struct net_device *netdev, void *p)
{
	struct ornic_eth *eth = netdev_priv(netdev);
	struct sockaddr *addr = p;
	struct ornic_admin_sqe sqe;
	int err;

	if (!is_valid_ether_addr(addr->sa_data))
		return -EADDRNOTAVAIL;
	ornic_cmd_set_mac(&sqe, addr->sa_data);
	err = ornic_admin_simple(eth->dev, &sqe, NULL);
	if (err)
		return err;
	eth_hw_addr_set(netdev, addr->sa_data);
	return 0;
}

static int ornic_eth_change_mtu(struct net_device *netdev, int mtu)
{
	struct ornic_eth *eth = netdev_priv(netdev);
	struct ornic_admin_sqe sqe;
	bool running = netif_running(netdev);
	int err;

	ornic_cmd_set_mtu(&sqe, mtu);
	err = ornic_admin_simple(eth->dev, &sqe, NULL);
	if (err)
		return err;
	/* Receive buffers are sized for the MTU: rebuild the rings. */
	if (running)
		ornic_eth_stop(netdev);
	WRITE_ONCE(netdev->mtu, mtu);
	if (running)
		return ornic_eth_open(netdev);
	return 0;
}

static void ornic_eth_get_stats64(struct net_device *netdev,
				  struct rtnl_link_stats64 *stats)
{
	struct ornic_eth *eth = netdev_priv(netdev);
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&eth->rx_stats.syncp);
		stats->rx_packets = eth->rx_stats.packets;
		stats->rx_bytes = eth->rx_stats.bytes;
		stats->rx_errors = eth->rx_stats.errors;
		stats->rx_dropped = eth->rx_stats.dropped;
	} while (u64_stats_fetch_retry(&eth->rx_stats.syncp, start));
	do {
		start = u64_stats_fetch_begin(&eth->tx_stats.syncp);
		stats->tx_packets = eth->tx_stats.packets;
		stats->tx_bytes = eth->tx_stats.bytes;
		stats->tx_errors = eth->tx_stats.errors;
	} while (u64_stats_fetch_retry(&eth->tx_stats.syncp, start));
	do {
		start = u64_stats_fetch_begin(&eth->xmit_stats.syncp);
		stats->tx_dropped = eth->xmit_stats.dropped;
	} while (u64_stats_fetch_retry(&eth->xmit_stats.syncp, start));
}

/*
 * Doorbells carry absolute producer indices, so ringing the TX doorbell
 * again repairs a lost one; NAPI then reaps what completed.  The stack has
 * frozen the queue, so xmit does not move tx.prod meanwhile.
 */
static void ornic_eth_tx_timeout(struct net_device *netdev,
				 unsigned int txqueue)
{
	struct ornic_eth *eth = netdev_priv(netdev);

	netdev_warn(netdev, "TX stalled (prod %u, cons %u): ringing again\n",
		    eth->tx.prod, READ_ONCE(eth->tx.cons));
	ornic_ring_db(&eth->dev->live, ORNIC_DB_ETH_TX,
		      ornic_db_value(eth->tx.id, 0, eth->tx.prod));
	napi_schedule(&eth->napi);
}

static const struct net_device_ops ornic_netdev_ops = {
	.ndo_open = ornic_eth_open,
	.ndo_stop = ornic_eth_stop,
	.ndo_start_xmit = ornic_start_xmit,
	.ndo_set_mac_address = ornic_eth_set_mac,
	.ndo_change_mtu = ornic_eth_change_mtu,
	.ndo_get_stats64 = ornic_eth_get_stats64,
	.ndo_tx_timeout = ornic_eth_tx_timeout,
	.ndo_validate_addr = eth_validate_addr,
};

int ornic_eth_register(struct ornic_dev *dev)
{
	struct net_device *netdev;
	struct ornic_eth *eth;
	u32 lo, hi, max_mtu;
	u8 mac[ETH_ALEN];
	int err;

	if (!(dev->caps & ORNIC_CAP_ETH)) {
		dev_err(&dev->pdev->dev, "device has no Ethernet function\n");
		return -EOPNOTSUPP;
	}
	netdev = alloc_etherdev(sizeof(*eth));
	if (!netdev)
		return -ENOMEM;
	SET_NETDEV_DEV(netdev, &dev->pdev->dev);
	eth = netdev_priv(netdev);
	eth->dev = dev;
	eth->netdev = netdev;
	u64_stats_init(&eth->tx_stats.syncp);
	u64_stats_init(&eth->rx_stats.syncp);
	u64_stats_init(&eth->xmit_stats.syncp);

	lo = ornic_rd32(&dev->live, ORNIC_REG_MAC_LO);
	hi = ornic_rd32(&dev->live, ORNIC_REG_MAC_HI);
	mac[0] = lo;
	mac[1] = lo >> 8;
	mac[2] = lo >> 16;
	mac[3] = lo >> 24;
	mac[4] = hi;
	mac[5] = hi >> 8;
	if (!is_valid_ether_addr(mac)) {
		dev_warn(&dev->pdev->dev, "invalid MAC %pM, using a random one\n",
			 mac);
		eth_hw_addr_random(netdev);
	} else {
		eth_hw_addr_set(netdev, mac);
	}

	netdev->netdev_ops = &ornic_netdev_ops;
	netdev->ethtool_ops = &ornic_ethtool_ops;
	netdev->min_mtu = ORNIC_ETH_MTU_MIN;
	max_mtu = le32_to_cpu(dev->port.max_eth_mtu);
	netdev->max_mtu = max_mtu ? min(max_mtu, ORNIC_ETH_MTU_MAX) :
			  ORNIC_ETH_MTU_MAX;
	if (le32_to_cpu(dev->port.eth_mtu))
		netdev->mtu = min(le32_to_cpu(dev->port.eth_mtu),
				  netdev->max_mtu);
	netdev->watchdog_timeo = 5 * HZ;
	netif_napi_add_weight(netdev, &eth->napi, ornic_eth_poll,
			      ORNIC_ETH_NAPI_WEIGHT);
	netif_carrier_off(netdev);
	ornic_dcb_init(eth);

	err = register_netdev(netdev);
	if (err) {
		netif_napi_del(&eth->napi);
		free_netdev(netdev);
		return err;
	}
	dev->netdev = netdev;
	return 0;
}

void ornic_eth_unregister(struct ornic_dev *dev)
{
	struct net_device *netdev = dev->netdev;
	struct ornic_eth *eth = netdev_priv(netdev);

	unregister_netdev(netdev);
	dev->netdev = NULL;
	netif_napi_del(&eth->napi);
	free_netdev(netdev);
}

/* --- the Ethernet function's commands (KUnit: ornic_eth_kunit.c) ---------- */

void ornic_cmd_create_eth_ring(struct ornic_admin_sqe *sqe, bool tx,
			       const struct ornic_mem_desc *mem,
			       unsigned int log_depth, u32 cqn)
{
	struct ornic_admin_create_eth_ring *c =
		(struct ornic_admin_create_eth_ring *)sqe;

	ornic_cmd_init(sqe, tx ? ORNIC_ADMIN_ETH_CREATE_TX_RING :
				 ORNIC_ADMIN_ETH_CREATE_RX_RING);
	c->mem = *mem;
	c->cqn = cpu_to_le32(cqn);
	c->log_depth = log_depth;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_create_eth_ring);

void ornic_cmd_set_mac(struct ornic_admin_sqe *sqe, const u8 mac[6])
{
	struct ornic_admin_eth_set_mac *c =
		(struct ornic_admin_eth_set_mac *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_ETH_SET_MAC);
	memcpy(c->mac, mac, sizeof(c->mac));
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_set_mac);

void ornic_cmd_set_mtu(struct ornic_admin_sqe *sqe, u32 mtu)
{
	struct ornic_admin_eth_set_mtu *c =
		(struct ornic_admin_eth_set_mtu *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_ETH_SET_MTU);
	c->mtu = cpu_to_le32(mtu);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_set_mtu);
