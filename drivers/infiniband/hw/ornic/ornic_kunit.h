/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: what the KUnit suites (ornic_*_kunit.c, ornic_kunit.ko) share.
 */
#ifndef ORNIC_KUNIT_H
#define ORNIC_KUNIT_H

#include <linux/string.h>
#include <linux/types.h>

/* Whether reserved bytes are zero, as the device checks them. */
static inline bool ornic_all_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

#endif /* ORNIC_KUNIT_H */
