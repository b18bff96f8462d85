// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic provider: number -> object tables for the poll path.
 *
 * A CQE names the object whose WQE it retires by number: the QPN, or for a
 * receive from an XRC SRQ the SRQ's number.  Pollers look numbers up without
 * a lock; writers (create and destroy) serialise on the table's mutex and
 * publish with release stores.  Two levels of 4096 entries cover 24 bits.
 */
#include <errno.h>
#include <stdlib.h>

#include "ornic.h"

void ornic_table_init(struct ornic_table *t)
{
	pthread_mutex_init(&t->mutex, NULL);
}

void ornic_table_destroy(struct ornic_table *t)
{
	unsigned int i;

	for (i = 0; i < ORNIC_TABLE_SIZE; i++)
		free(t->leaf[i]);
	pthread_mutex_destroy(&t->mutex);
}

void *ornic_table_find(struct ornic_table *t, uint32_t n)
{
	void **leaf;

	if (n >> (2 * ORNIC_TABLE_SHIFT))
		return NULL;
	leaf = __atomic_load_n(&t->leaf[n >> ORNIC_TABLE_SHIFT],
			       __ATOMIC_ACQUIRE);
	if (!leaf)
		return NULL;
	return __atomic_load_n(&leaf[n & ORNIC_TABLE_MASK], __ATOMIC_ACQUIRE);
}

int ornic_table_set(struct ornic_table *t, uint32_t n, void *obj)
{
	void ***slot = &t->leaf[n >> ORNIC_TABLE_SHIFT];
	int err = 0;

	if (n >> (2 * ORNIC_TABLE_SHIFT))
		return EINVAL;
	pthread_mutex_lock(&t->mutex);
	if (!*slot) {
		void **leaf = calloc(ORNIC_TABLE_SIZE, sizeof(*leaf));

		if (!leaf)
			err = ENOMEM;
		else
			__atomic_store_n(slot, leaf, __ATOMIC_RELEASE);
	}
	if (!err)
		__atomic_store_n(&(*slot)[n & ORNIC_TABLE_MASK], obj,
				 __ATOMIC_RELEASE);
	pthread_mutex_unlock(&t->mutex);
	return err;
}
