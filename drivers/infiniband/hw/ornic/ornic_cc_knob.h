/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: the congestion control parameters as knobs (spec: roce.rst
 * "Congestion control"), for ornic_cc.c's debugfs files.
 *
 * This header's one job: CC_CONFIG, and each knob of struct
 * ornic_cc_params with its name, value and the range the device accepts.
 * Nothing here touches hardware or allocates (ornic_cc_knob.c; KUnit:
 * ornic_cc_kunit.c).
 */
#ifndef ORNIC_CC_KNOB_H
#define ORNIC_CC_KNOB_H

#include <linux/types.h>

#include "ornic/ornic_hw.h"

/* CC_CONFIG @op (enum ornic_cc_config_op) of the params at @addr. */
void ornic_cmd_cc_config(struct ornic_admin_sqe *sqe, u8 op, u64 addr);

/*
 * The knobs of struct ornic_cc_params, one debugfs file each: NP/RP enable
 * are bits of flags, the rest fields.  Ranges of rates depend on the other
 * rates of @p.
 */
enum ornic_cc_knob {
	ORNIC_CC_KNOB_NP_ENABLE,
	ORNIC_CC_KNOB_RP_ENABLE,
	ORNIC_CC_KNOB_ECT,
	ORNIC_CC_KNOB_NP_CNP_DSCP,
	ORNIC_CC_KNOB_NP_MIN_TIME_BETWEEN_CNPS,
	ORNIC_CC_KNOB_RP_MAX_RATE,
	ORNIC_CC_KNOB_RP_MIN_RATE,
	ORNIC_CC_KNOB_RP_AI_RATE,
	ORNIC_CC_KNOB_RP_HAI_RATE,
	ORNIC_CC_KNOB_RP_BYTE_RESET,
	ORNIC_CC_KNOB_RP_TIME_RESET,
	ORNIC_CC_KNOB_RP_THRESHOLD,
	ORNIC_CC_KNOB_RP_GD,
	ORNIC_CC_KNOB_RP_INITIAL_ALPHA_VALUE,
	ORNIC_CC_KNOB_RP_DCE_TCP_G,
	ORNIC_CC_KNOB_RP_DCE_TCP_RTT,
	ORNIC_CC_KNOB_RP_RATE_REDUCE_MONITOR_PERIOD,
	ORNIC_CC_KNOB_COUNT,
};

const char *ornic_cc_knob_name(unsigned int knob);
u32 ornic_cc_knob_get(const struct ornic_cc_params *p, unsigned int knob);
/*
 * Sets @knob of @p to @value if it is within [*@min, *@max] (the range
 * given the rest of @p, filled in either way); -EINVAL otherwise, @p
 * unchanged.
 */
int ornic_cc_knob_set(struct ornic_cc_params *p, unsigned int knob,
		      u32 value, u32 *min, u32 *max);

#endif /* ORNIC_CC_KNOB_H */
