// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: ethtool on the Ethernet function's net_device.  `ethtool -i`
 * names the driver and its version (debian/changelog's, through Kbuild),
 * the device's firmware version (its FW_VERSION register) with the
 * specification version it implements (VERSION) and the PCI function;
 * `ethtool -S` shows the device's counters (spec: counters.rst), RoCE
 * included, read with QUERY_COUNTERS each time, then (ORNIC_CAP_DCB) the
 * per-priority counters of QUERY_PORT_QOS (ornic_dcb.c).
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/pci.h>

#include "ornic.h"

static struct ornic_dev *ornic_netdev_odev(struct net_device *netdev)
{
	struct ornic_eth *eth = netdev_priv(netdev);

	return eth->dev;
}

static void ornic_get_drvinfo(struct net_device *netdev,
			      struct ethtool_drvinfo *info)
{
	struct ornic_dev *dev = ornic_netdev_odev(netdev);

	strscpy(info->driver, ORNIC_DRV_NAME, sizeof(info->driver));
	strscpy(info->version, ORNIC_DRV_VERSION, sizeof(info->version));
	snprintf(info->fw_version, sizeof(info->fw_version),
		 "%u.%u.%u spec %u.%u",
		 ORNIC_FW_VERSION_MAJOR(dev->fw_version),
		 ORNIC_FW_VERSION_MINOR(dev->fw_version),
		 ORNIC_FW_VERSION_PATCH(dev->fw_version),
		 ORNIC_VERSION_MAJOR(dev->version),
		 ORNIC_VERSION_MINOR(dev->version));
	strscpy(info->bus_info, pci_name(dev->pdev), sizeof(info->bus_info));
}

static int ornic_get_sset_count(struct net_device *netdev, int sset)
{
	struct ornic_dev *dev = ornic_netdev_odev(netdev);

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return ORNIC_CNT_COUNT + ornic_dcb_stats_count(dev);
}

static void ornic_get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	int i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < ORNIC_CNT_COUNT; i++)
		ethtool_puts(&data, ornic_counter_descs[i].name);
	ornic_dcb_stats_strings(ornic_netdev_odev(netdev), &data);
}

/* A failed query (dead device) shows zeros: ethtool has no error path. */
static void ornic_get_ethtool_stats(struct net_device *netdev,
				    struct ethtool_stats *stats, u64 *data)
{
	struct ornic_dev *dev = ornic_netdev_odev(netdev);
	int err;

	err = ornic_read_device_counters(dev, data);
	if (err < 0) {
		netdev_dbg(netdev, "QUERY_COUNTERS failed: %d\n", err);
		memset(data, 0, ORNIC_CNT_COUNT * sizeof(*data));
	}
	ornic_dcb_stats(dev, data + ORNIC_CNT_COUNT);
}

const struct ethtool_ops ornic_ethtool_ops = {
	.get_drvinfo = ornic_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = ornic_get_sset_count,
	.get_strings = ornic_get_strings,
	.get_ethtool_stats = ornic_get_ethtool_stats,
};
