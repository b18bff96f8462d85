/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: the admin command frame (spec: admin.rst).
 *
 * This header's one job: what every admin command has whatever its object:
 * the header and its command identifier, the allocator of the slots those
 * identifiers name, completion status decoding, opcode and status names,
 * and the commands of no object of their own (QUERY_DEVICE/QUERY_PORT, the
 * DESTROY-style commands).  Each object's own commands are built in its
 * file.  Nothing here touches hardware or allocates (ornic_admin_cmd.c;
 * KUnit: ornic_admin_cmd_kunit.c).
 */
#ifndef ORNIC_ADMIN_CMD_H
#define ORNIC_ADMIN_CMD_H

#include <linux/types.h>

#include "ornic/ornic_hw.h"

/*
 * A command id is (sequence << log_depth) | slot: the slot finds the waiting
 * context, the sequence tells a stale completion from the current one.
 */
static inline u16 ornic_cmd_id_make(u32 slot, u32 seq, unsigned int log_depth)
{
	return (u16)((seq << log_depth) | slot);
}

static inline u32 ornic_cmd_id_slot(u16 cmd_id, unsigned int log_depth)
{
	return cmd_id & ((1U << log_depth) - 1);
}

/*
 * A small round-robin identifier allocator over a caller-owned bitmap: the
 * most recently freed id is reused last.  Not locked: callers serialise.
 */
struct ornic_id_alloc {
	unsigned long *map;
	u32 size;
	u32 next;
};

void ornic_id_alloc_init(struct ornic_id_alloc *ida, unsigned long *map,
			 u32 size);
int ornic_id_get(struct ornic_id_alloc *ida);
void ornic_id_put(struct ornic_id_alloc *ida, u32 id);

/* An SQE of @opcode, every other byte zero (the device checks them). */
void ornic_cmd_init(struct ornic_admin_sqe *sqe, u8 opcode);
void ornic_cmd_set_id(struct ornic_admin_sqe *sqe, u16 cmd_id);
void ornic_cmd_query(struct ornic_admin_sqe *sqe, u8 opcode, u64 resp_addr,
		     u32 resp_len);
void ornic_cmd_destroy(struct ornic_admin_sqe *sqe, u8 opcode, u32 handle);

int ornic_admin_status_errno(u8 status);
const char *ornic_admin_status_str(u8 status);
const char *ornic_admin_opcode_str(u8 opcode);

#endif /* ORNIC_ADMIN_CMD_H */
