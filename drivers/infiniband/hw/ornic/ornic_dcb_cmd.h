/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: the DCB settings in the device's terms (spec: ethernet.rst,
 * "Priorities and lossless Ethernet"; admin.rst, SET_PORT_QOS).
 *
 * This header's one job: what dcbnl hands the driver, checked against what
 * the device takes and put in struct ornic_port_qos; the PORT_QOS commands;
 * the per-priority counters in ethtool's order.  Nothing here touches
 * hardware or allocates (ornic_dcb_cmd.c; KUnit: ornic_dcb_kunit.c).
 */
#ifndef ORNIC_DCB_CMD_H
#define ORNIC_DCB_CMD_H

#include <linux/dcbnl.h>
#include <linux/types.h>
#include <net/dcbnl.h>

#include "ornic/ornic_hw.h"

/* ethtool -S counters per priority. */
#define ORNIC_PRIO_STATS	11

/* SET_PORT_QOS or QUERY_PORT_QOS (@opcode) of @len bytes at @addr. */
void ornic_cmd_port_qos(struct ornic_admin_sqe *sqe, u8 opcode, u64 addr,
			u32 len);

/* 0 if the device takes @ets (TCs 0..7, strict or ETS, ETS sum 100). */
int ornic_dcb_ets_check(const struct ieee_ets *ets);

/* 0 if @app is a DSCP (0..63) or Ethertype entry for priority 0..7. */
int ornic_dcb_app_check(const struct dcb_app *app);

/*
 * @q from @pfc, @ets and the APP table's DSCP entries @map (several
 * priorities for one DSCP: the highest).
 */
void ornic_dcb_fill(const struct ieee_pfc *pfc, const struct ieee_ets *ets,
		    const struct dcb_ieee_app_dscp_map *map,
		    struct ornic_port_qos *q);

/* ethtool's name of per-priority counter @i (a format taking the priority). */
const char *ornic_dcb_stat_name(unsigned int i);

/* @q's counters in ethtool's order: ORNIC_PRIO_STATS per priority. */
void ornic_dcb_stats_from(const struct ornic_port_qos_query *q, u64 *data);

#endif /* ORNIC_DCB_CMD_H */
