// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: data center bridging on the Ethernet function's net_device
 * (ORNIC_CAP_DCB; spec: ethernet.rst, "Priorities and lossless Ethernet").
 * IEEE 802.1Qaz/Qbb only, configured by the host (dcb(8), lldpad): PFC,
 * ETS and the APP table, whose DSCP entries are the device's DSCP to
 * priority map.  The driver keeps the settings (the APP table is dcbnl's)
 * and sends them whole with SET_PORT_QOS on every change and every time
 * the interface comes up, so they outlive a link down/up and a device that
 * forgot them.  QUERY_PORT_QOS feeds the PFC statistics, `ethtool -S`'s
 * per-priority counters and debugfs's qos file.  Both commands use the
 * counters DMA buffer under counters_lock.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <net/dcbnl.h>

#include "ornic.h"

static_assert(sizeof(struct ornic_port_qos_query) <=
	      sizeof(struct ornic_device_counters));

#define ORNIC_DCBX_MODE		(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE)

static struct ornic_eth *ornic_dcb_eth(struct net_device *netdev)
{
	return netdev_priv(netdev);
}

/* SET_PORT_QOS with @pfc and @ets (the driver's copies or candidates). */
static int ornic_dcb_send(struct ornic_eth *eth, const struct ieee_pfc *pfc,
			  const struct ieee_ets *ets)
{
	struct ornic_dev *dev = eth->dev;
	struct dcb_ieee_app_dscp_map map;
	struct ornic_admin_sqe sqe;
	int err;

	dcb_ieee_getapp_dscp_prio_mask_map(eth->netdev, &map);
	mutex_lock(&dev->counters_lock);
	ornic_dcb_fill(pfc, ets, &map, dev->counters_buf);
	ornic_cmd_port_qos(&sqe, ORNIC_ADMIN_SET_PORT_QOS, dev->counters_dma,
			   sizeof(struct ornic_port_qos));
	err = ornic_admin_simple(dev, &sqe, NULL);
	mutex_unlock(&dev->counters_lock);
	if (err)
		netdev_dbg(eth->netdev, "SET_PORT_QOS failed: %d\n", err);
	return err;
}

int ornic_dcb_query(struct ornic_dev *dev, struct ornic_port_qos_query *out)
{
	struct ornic_admin_sqe sqe;
	int err;

	mutex_lock(&dev->counters_lock);
	memset(dev->counters_buf, 0, sizeof(*out));
	ornic_cmd_port_qos(&sqe, ORNIC_ADMIN_QUERY_PORT_QOS, dev->counters_dma,
			   sizeof(*out));
	err = ornic_admin_simple(dev, &sqe, NULL);
	if (!err)
		memcpy(out, dev->counters_buf, sizeof(*out));
	mutex_unlock(&dev->counters_lock);
	return err;
}

/* Interface up: the device gets the settings again (it may have reset). */
void ornic_dcb_apply(struct ornic_eth *eth)
{
	if (!(eth->dev->caps & ORNIC_CAP_DCB))
		return;
	if (ornic_dcb_send(eth, &eth->dcb.pfc, &eth->dcb.ets))
		netdev_warn(eth->netdev, "cannot restore the DCB settings\n");
}

static int ornic_dcb_getets(struct net_device *netdev, struct ieee_ets *ets)
{
	*ets = ornic_dcb_eth(netdev)->dcb.ets;
	ets->ets_cap = IEEE_8021QAZ_MAX_TCS;
	return 0;
}

static int ornic_dcb_setets(struct net_device *netdev, struct ieee_ets *ets)
{
	struct ornic_eth *eth = ornic_dcb_eth(netdev);
	struct ieee_ets next = eth->dcb.ets;
	int err;

	err = ornic_dcb_ets_check(ets);
	if (err) {
		netdev_dbg(netdev, "ets: a TC, TSA or bandwidth not taken\n");
		return err;
	}
	memcpy(next.prio_tc, ets->prio_tc, sizeof(next.prio_tc));
	memcpy(next.tc_tx_bw, ets->tc_tx_bw, sizeof(next.tc_tx_bw));
	memcpy(next.tc_tsa, ets->tc_tsa, sizeof(next.tc_tsa));
	next.willing = ets->willing;
	err = ornic_dcb_send(eth, &eth->dcb.pfc, &next);
	if (err)
		return err;
	eth->dcb.ets = next;
	return 0;
}

static int ornic_dcb_getpfc(struct net_device *netdev, struct ieee_pfc *pfc)
{
	struct ornic_eth *eth = ornic_dcb_eth(netdev);
	struct ornic_port_qos_query *q;
	unsigned int i;

	*pfc = eth->dcb.pfc;
	pfc->pfc_cap = IEEE_8021QAZ_MAX_TCS;
	q = kzalloc_obj(*q, GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	/* A device that cannot answer shows no pause frames. */
	if (!ornic_dcb_query(eth->dev, q)) {
		for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
			pfc->requests[i] = le64_to_cpu(q->prio[i].tx_pause);
			pfc->indications[i] = le64_to_cpu(q->prio[i].rx_pause);
		}
	}
	kfree(q);
	return 0;
}

static int ornic_dcb_setpfc(struct net_device *netdev, struct ieee_pfc *pfc)
{
	struct ornic_eth *eth = ornic_dcb_eth(netdev);
	struct ieee_pfc next = eth->dcb.pfc;
	int err;

	next.pfc_en = pfc->pfc_en;
	next.mbc = pfc->mbc;
	next.delay = pfc->delay;
	err = ornic_dcb_send(eth, &next, &eth->dcb.ets);
	if (err)
		return err;
	eth->dcb.pfc = next;
	return 0;
}

static int ornic_dcb_setapp(struct net_device *netdev, struct dcb_app *app)
{
	struct ornic_eth *eth = ornic_dcb_eth(netdev);
	int err;

	err = ornic_dcb_app_check(app);
	if (err) {
		netdev_dbg(netdev, "app: selector %u protocol %u priority %u not taken\n",
			   app->selector, app->protocol, app->priority);
		return err;
	}
	err = dcb_ieee_setapp(netdev, app);
	if (err || app->selector != IEEE_8021QAZ_APP_SEL_DSCP)
		return err;
	err = ornic_dcb_send(eth, &eth->dcb.pfc, &eth->dcb.ets);
	if (err)
		dcb_ieee_delapp(netdev, app);
	return err;
}

static int ornic_dcb_delapp(struct net_device *netdev, struct dcb_app *app)
{
	struct ornic_eth *eth = ornic_dcb_eth(netdev);
	int err;

	err = dcb_ieee_delapp(netdev, app);
	if (err || app->selector != IEEE_8021QAZ_APP_SEL_DSCP)
		return err;
	return ornic_dcb_send(eth, &eth->dcb.pfc, &eth->dcb.ets);
}

/* The highest priority the table gives @app's selector and protocol. */
static int ornic_dcb_getapp(struct net_device *netdev, struct dcb_app *app)
{
	u8 mask = dcb_ieee_getapp_mask(netdev, app);

	if (!mask)
		return -ENOENT;
	app->priority = fls(mask) - 1;
	return 0;
}

static u8 ornic_dcb_getdcbx(struct net_device *netdev)
{
	return ORNIC_DCBX_MODE;
}

/* dcbnl's convention: 0 accepts the mode, anything else refuses it. */
static u8 ornic_dcb_setdcbx(struct net_device *netdev, u8 mode)
{
	return mode == ORNIC_DCBX_MODE ? 0 : 1;
}

static const struct dcbnl_rtnl_ops ornic_dcbnl_ops = {
	.ieee_getets = ornic_dcb_getets,
	.ieee_setets = ornic_dcb_setets,
	.ieee_getpfc = ornic_dcb_getpfc,
	.ieee_setpfc = ornic_dcb_setpfc,
	.ieee_getapp = ornic_dcb_getapp,
	.ieee_setapp = ornic_dcb_setapp,
	.ieee_delapp = ornic_dcb_delapp,
	.getdcbx = ornic_dcb_getdcbx,
	.setdcbx = ornic_dcb_setdcbx,
};

/*
 * Before register_netdev().  The defaults are the device's after reset:
 * no PFC, every priority in TC 0, every TC strict.
 */
void ornic_dcb_init(struct ornic_eth *eth)
{
	memset(&eth->dcb, 0, sizeof(eth->dcb));
	if (!(eth->dev->caps & ORNIC_CAP_DCB))
		return;
	eth->netdev->dcbnl_ops = &ornic_dcbnl_ops;
}

/* --- ethtool -S -------------------------------------------------------- */

unsigned int ornic_dcb_stats_count(struct ornic_dev *dev)
{
	return dev->caps & ORNIC_CAP_DCB ?
	       ORNIC_QOS_NUM_PRIO * ORNIC_PRIO_STATS : 0;
}

void ornic_dcb_stats_strings(struct ornic_dev *dev, u8 **data)
{
	unsigned int prio, i;

	if (!ornic_dcb_stats_count(dev))
		return;
	for (prio = 0; prio < ORNIC_QOS_NUM_PRIO; prio++)
		for (i = 0; i < ORNIC_PRIO_STATS; i++)
			ethtool_sprintf(data, ornic_dcb_stat_name(i), prio);
}

/* In ethtool's order (ornic_dcb_stat_name()); zeros if the device cannot answer. */
void ornic_dcb_stats(struct ornic_dev *dev, u64 *data)
{
	struct ornic_port_qos_query *q;

	if (!ornic_dcb_stats_count(dev))
		return;
	memset(data, 0, ornic_dcb_stats_count(dev) * sizeof(*data));
	q = kzalloc_obj(*q, GFP_KERNEL);
	if (!q)
		return;
	if (!ornic_dcb_query(dev, q))
		ornic_dcb_stats_from(q, data);
	kfree(q);
}

/* --- debugfs: what the device holds --------------------------------------- */

static int ornic_dcb_qos_show(struct seq_file *s, void *unused)
{
	struct ornic_dev *dev = s->private;
	struct ornic_port_qos_query *q;
	unsigned int i;
	u64 valid;
	int err;

	q = kzalloc_obj(*q, GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	err = ornic_dcb_query(dev, q);
	if (err)
		goto out;
	seq_printf(s, "pfc_enable 0x%02x\nprio_tc", q->config.pfc_enable);
	for (i = 0; i < ORNIC_QOS_NUM_PRIO; i++)
		seq_printf(s, " %u", q->config.prio_tc[i]);
	seq_puts(s, "\ntc_bw");
	for (i = 0; i < ORNIC_QOS_NUM_TC; i++)
		seq_printf(s, " %u", q->config.tc_bw[i]);
	seq_puts(s, "\ntc_tsa");
	for (i = 0; i < ORNIC_QOS_NUM_TC; i++)
		seq_printf(s, " %u", q->config.tc_tsa[i]);
	seq_puts(s, "\ndscp_prio");
	valid = le64_to_cpu(q->config.dscp_valid);
	for (i = 0; i < ORNIC_QOS_NUM_DSCP; i++)
		if (valid & BIT_ULL(i))
			seq_printf(s, " %u:%u", i, q->config.dscp_prio[i]);
	seq_putc(s, '\n');
out:
	kfree(q);
	return err;
}
DEFINE_SHOW_ATTRIBUTE(ornic_dcb_qos);

void ornic_dcb_debugfs_add(struct ornic_dev *dev, struct dentry *parent)
{
	if (dev->caps & ORNIC_CAP_DCB)
		debugfs_create_file("qos", 0400, parent, dev,
				    &ornic_dcb_qos_fops);
}
