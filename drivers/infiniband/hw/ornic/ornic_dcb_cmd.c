// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: the DCB settings in the device's terms (see ornic_dcb_cmd.h).
 * What the KUnit suite calls is exported to it with EXPORT_SYMBOL_IF_KUNIT().
 */
#include <kunit/visibility.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/string.h>

#include "ornic_admin_cmd.h"
#include "ornic_dcb_cmd.h"

static_assert(IEEE_8021QAZ_TSA_STRICT == ORNIC_QOS_TSA_STRICT);
static_assert(IEEE_8021QAZ_TSA_ETS == ORNIC_QOS_TSA_ETS);
static_assert(IEEE_8021QAZ_MAX_TCS == ORNIC_QOS_NUM_PRIO);
static_assert(IEEE_8021QAZ_MAX_TCS == ORNIC_QOS_NUM_TC);

void ornic_cmd_port_qos(struct ornic_admin_sqe *sqe, u8 opcode, u64 addr,
			u32 len)
{
	struct ornic_admin_port_qos *c = (struct ornic_admin_port_qos *)sqe;

	ornic_cmd_init(sqe, opcode);
	c->addr = cpu_to_le64(addr);
	c->len = cpu_to_le32(len);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_port_qos);

int ornic_dcb_ets_check(const struct ieee_ets *ets)
{
	unsigned int i, bw = 0;
	bool any_ets = false;

	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		if (ets->prio_tc[i] >= IEEE_8021QAZ_MAX_TCS)
			return -EINVAL;
		if (ets->tc_tsa[i] != IEEE_8021QAZ_TSA_STRICT &&
		    ets->tc_tsa[i] != IEEE_8021QAZ_TSA_ETS)
			return -EINVAL;
		if (ets->tc_tx_bw[i] > 100)
			return -EINVAL;
		if (ets->tc_tsa[i] == IEEE_8021QAZ_TSA_ETS) {
			any_ets = true;
			bw += ets->tc_tx_bw[i];
		}
	}
	return any_ets && bw != 100 ? -EINVAL : 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_dcb_ets_check);

/* Ethertype entries are the stack's (skb priority); the device sees DSCP. */
int ornic_dcb_app_check(const struct dcb_app *app)
{
	if (app->priority >= IEEE_8021QAZ_MAX_TCS)
		return -EINVAL;
	switch (app->selector) {
	case IEEE_8021QAZ_APP_SEL_DSCP:
		return app->protocol < ORNIC_QOS_NUM_DSCP ? 0 : -EINVAL;
	case IEEE_8021QAZ_APP_SEL_ETHERTYPE:
		return 0;
	default:
		return -EINVAL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_dcb_app_check);

void ornic_dcb_fill(const struct ieee_pfc *pfc, const struct ieee_ets *ets,
		    const struct dcb_ieee_app_dscp_map *map,
		    struct ornic_port_qos *q)
{
	u64 valid = 0;
	unsigned int i;

	memset(q, 0, sizeof(*q));
	q->pfc_enable = pfc->pfc_en;
	memcpy(q->prio_tc, ets->prio_tc, sizeof(q->prio_tc));
	memcpy(q->tc_bw, ets->tc_tx_bw, sizeof(q->tc_bw));
	memcpy(q->tc_tsa, ets->tc_tsa, sizeof(q->tc_tsa));
	for (i = 0; i < ORNIC_QOS_NUM_DSCP; i++) {
		if (!map->map[i])
			continue;
		q->dscp_prio[i] = fls(map->map[i]) - 1;
		valid |= BIT_ULL(i);
	}
	q->dscp_valid = cpu_to_le64(valid);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_dcb_fill);

/* The names users know from other NICs' ethtool -S. */
static const char * const ornic_prio_stat_names[ORNIC_PRIO_STATS] = {
	"rx_prio%u_packets",
	"rx_prio%u_bytes",
	"tx_prio%u_packets",
	"tx_prio%u_bytes",
	"rx_prio%u_pause",
	"tx_prio%u_pause",
	"rx_prio%u_pause_duration",
	"tx_prio%u_pause_duration",
	"rx_prio%u_pause_transition",
	"rx_prio%u_discards",
	"tx_prio%u_discards",
};

const char *ornic_dcb_stat_name(unsigned int i)
{
	return i < ORNIC_PRIO_STATS ? ornic_prio_stat_names[i] : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_dcb_stat_name);

void ornic_dcb_stats_from(const struct ornic_port_qos_query *q, u64 *data)
{
	const struct ornic_prio_counters *c;
	unsigned int prio;

	for (prio = 0; prio < ORNIC_QOS_NUM_PRIO; prio++) {
		c = &q->prio[prio];
		*data++ = le64_to_cpu(c->rx_frames);
		*data++ = le64_to_cpu(c->rx_bytes);
		*data++ = le64_to_cpu(c->tx_frames);
		*data++ = le64_to_cpu(c->tx_bytes);
		*data++ = le64_to_cpu(c->rx_pause);
		*data++ = le64_to_cpu(c->tx_pause);
		*data++ = le64_to_cpu(c->rx_pause_duration);
		*data++ = le64_to_cpu(c->tx_pause_duration);
		*data++ = le64_to_cpu(c->rx_pause_transitions);
		*data++ = le64_to_cpu(c->rx_discards);
		*data++ = le64_to_cpu(c->tx_discards);
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_dcb_stats_from);
