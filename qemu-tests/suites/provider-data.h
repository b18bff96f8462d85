/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The data tests of provider-verbs (provider-data.c).
 */
#ifndef PROVIDER_DATA_H
#define PROVIDER_DATA_H

#include "test-fixture.h"

/* Data between @a and @b (the same side: loopback), names "<tag>-...". */
void data_tests(struct side *a, struct side *b, const char *tag);

#endif /* PROVIDER_DATA_H */
