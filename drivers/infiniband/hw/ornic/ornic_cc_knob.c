// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: the congestion control knobs (see ornic_cc_knob.h).  What the
 * KUnit suite calls is exported to it with EXPORT_SYMBOL_IF_KUNIT().
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>

#include "ornic_admin_cmd.h"
#include "ornic_cc_knob.h"

void ornic_cmd_cc_config(struct ornic_admin_sqe *sqe, u8 op, u64 addr)
{
	struct ornic_admin_cc_config *c = (struct ornic_admin_cc_config *)sqe;

	ornic_cmd_init(sqe, ORNIC_ADMIN_CC_CONFIG);
	c->params_addr = cpu_to_le64(addr);
	c->params_len = cpu_to_le32(sizeof(struct ornic_cc_params));
	c->op = op;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_cc_config);

static const char *const ornic_cc_knob_names[ORNIC_CC_KNOB_COUNT] = {
	[ORNIC_CC_KNOB_NP_ENABLE] = "np_enable",
	[ORNIC_CC_KNOB_RP_ENABLE] = "rp_enable",
	[ORNIC_CC_KNOB_ECT] = "ect",
	[ORNIC_CC_KNOB_NP_CNP_DSCP] = "np_cnp_dscp",
	[ORNIC_CC_KNOB_NP_MIN_TIME_BETWEEN_CNPS] = "np_min_time_between_cnps",
	[ORNIC_CC_KNOB_RP_MAX_RATE] = "rp_max_rate",
	[ORNIC_CC_KNOB_RP_MIN_RATE] = "rp_min_rate",
	[ORNIC_CC_KNOB_RP_AI_RATE] = "rp_ai_rate",
	[ORNIC_CC_KNOB_RP_HAI_RATE] = "rp_hai_rate",
	[ORNIC_CC_KNOB_RP_BYTE_RESET] = "rp_byte_reset",
	[ORNIC_CC_KNOB_RP_TIME_RESET] = "rp_time_reset",
	[ORNIC_CC_KNOB_RP_THRESHOLD] = "rp_threshold",
	[ORNIC_CC_KNOB_RP_GD] = "rp_gd",
	[ORNIC_CC_KNOB_RP_INITIAL_ALPHA_VALUE] = "rp_initial_alpha_value",
	[ORNIC_CC_KNOB_RP_DCE_TCP_G] = "rp_dce_tcp_g",
	[ORNIC_CC_KNOB_RP_DCE_TCP_RTT] = "rp_dce_tcp_rtt",
	[ORNIC_CC_KNOB_RP_RATE_REDUCE_MONITOR_PERIOD] =
		"rp_rate_reduce_monitor_period",
};

const char *ornic_cc_knob_name(unsigned int knob)
{
	return knob < ORNIC_CC_KNOB_COUNT ? ornic_cc_knob_names[knob] : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cc_knob_name);

/* The __le32 field of @knob, or NULL for the flag bits and u8 fields. */
static __le32 *ornic_cc_knob_field(struct ornic_cc_params *p,
				   unsigned int knob)
{
	switch (knob) {
	case ORNIC_CC_KNOB_NP_MIN_TIME_BETWEEN_CNPS:
		return &p->np_min_time_between_cnps;
	case ORNIC_CC_KNOB_RP_MAX_RATE: return &p->rp_max_rate;
	case ORNIC_CC_KNOB_RP_MIN_RATE: return &p->rp_min_rate;
	case ORNIC_CC_KNOB_RP_AI_RATE: return &p->rp_ai_rate;
	case ORNIC_CC_KNOB_RP_HAI_RATE: return &p->rp_hai_rate;
	case ORNIC_CC_KNOB_RP_BYTE_RESET: return &p->rp_byte_reset;
	case ORNIC_CC_KNOB_RP_TIME_RESET: return &p->rp_time_reset;
	case ORNIC_CC_KNOB_RP_THRESHOLD: return &p->rp_threshold;
	case ORNIC_CC_KNOB_RP_GD: return &p->rp_gd;
	case ORNIC_CC_KNOB_RP_INITIAL_ALPHA_VALUE:
		return &p->rp_initial_alpha_value;
	case ORNIC_CC_KNOB_RP_DCE_TCP_G: return &p->rp_dce_tcp_g;
	case ORNIC_CC_KNOB_RP_DCE_TCP_RTT: return &p->rp_dce_tcp_rtt;
	case ORNIC_CC_KNOB_RP_RATE_REDUCE_MONITOR_PERIOD:
		return &p->rp_rate_reduce_monitor_period;
	default: return NULL;
	}
}

u32 ornic_cc_knob_get(const struct ornic_cc_params *p, unsigned int knob)
{
	u32 flags = le32_to_cpu(p->flags);
	__le32 *field;

	switch (knob) {
	case ORNIC_CC_KNOB_NP_ENABLE:
		return !!(flags & ORNIC_CC_FLAG_NP_ENABLE);
	case ORNIC_CC_KNOB_RP_ENABLE:
		return !!(flags & ORNIC_CC_FLAG_RP_ENABLE);
	case ORNIC_CC_KNOB_ECT:
		return p->ect;
	case ORNIC_CC_KNOB_NP_CNP_DSCP:
		return p->np_cnp_dscp;
	}
	field = ornic_cc_knob_field((struct ornic_cc_params *)p, knob);
	return field ? le32_to_cpu(*field) : 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cc_knob_get);

/* The range of @knob given the other fields of @p (as the device checks). */
static void ornic_cc_knob_range(const struct ornic_cc_params *p,
				unsigned int knob, u32 *min, u32 *max)
{
	u32 max_rate = le32_to_cpu(p->rp_max_rate);

	*min = 0;
	switch (knob) {
	case ORNIC_CC_KNOB_NP_ENABLE:
	case ORNIC_CC_KNOB_RP_ENABLE:
		*max = 1;
		break;
	case ORNIC_CC_KNOB_ECT:
		*max = ORNIC_CC_ECT_0;
		break;
	case ORNIC_CC_KNOB_NP_CNP_DSCP:
		*max = 63;
		break;
	case ORNIC_CC_KNOB_RP_MAX_RATE:
		*min = max3(le32_to_cpu(p->rp_min_rate),
			    le32_to_cpu(p->rp_ai_rate),
			    le32_to_cpu(p->rp_hai_rate));
		*min = max(*min, 1U);
		*max = ORNIC_CC_MAX_RATE_MBPS;
		break;
	case ORNIC_CC_KNOB_RP_MIN_RATE:
		*min = 1;
		*max = max_rate;
		break;
	case ORNIC_CC_KNOB_RP_AI_RATE:
	case ORNIC_CC_KNOB_RP_HAI_RATE:
		*max = max_rate;
		break;
	case ORNIC_CC_KNOB_RP_BYTE_RESET:
		*max = U32_MAX;
		break;
	case ORNIC_CC_KNOB_RP_TIME_RESET:
	case ORNIC_CC_KNOB_RP_DCE_TCP_RTT:
		*min = 1;
		*max = ORNIC_CC_MAX_TIME_US;
		break;
	case ORNIC_CC_KNOB_RP_THRESHOLD:
		*min = 1;
		*max = ORNIC_CC_MAX_THRESHOLD;
		break;
	case ORNIC_CC_KNOB_RP_GD:
		*max = ORNIC_CC_MAX_GD;
		break;
	case ORNIC_CC_KNOB_RP_INITIAL_ALPHA_VALUE:
	case ORNIC_CC_KNOB_RP_DCE_TCP_G:
		*max = ORNIC_CC_ALPHA_ONE;
		break;
	default:
		*max = ORNIC_CC_MAX_TIME_US;	/* the other times */
		break;
	}
}

int ornic_cc_knob_set(struct ornic_cc_params *p, unsigned int knob,
		      u32 value, u32 *min, u32 *max)
{
	u32 flag = knob == ORNIC_CC_KNOB_NP_ENABLE ? ORNIC_CC_FLAG_NP_ENABLE :
						     ORNIC_CC_FLAG_RP_ENABLE;
	__le32 *field;

	*min = 0;
	*max = 0;
	if (knob >= ORNIC_CC_KNOB_COUNT)
		return -EINVAL;
	ornic_cc_knob_range(p, knob, min, max);
	if (value < *min || value > *max)
		return -EINVAL;
	switch (knob) {
	case ORNIC_CC_KNOB_NP_ENABLE:
	case ORNIC_CC_KNOB_RP_ENABLE:
		if (value)
			p->flags = cpu_to_le32(le32_to_cpu(p->flags) | flag);
		else
			p->flags = cpu_to_le32(le32_to_cpu(p->flags) & ~flag);
		return 0;
	case ORNIC_CC_KNOB_ECT:
		p->ect = value;
		return 0;
	case ORNIC_CC_KNOB_NP_CNP_DSCP:
		p->np_cnp_dscp = value;
		return 0;
	}
	field = ornic_cc_knob_field(p, knob);
	*field = cpu_to_le32(value);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cc_knob_set);
