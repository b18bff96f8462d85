// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: the admin command frame (see ornic_admin_cmd.h).  What the KUnit
 * suite calls is exported to it with EXPORT_SYMBOL_IF_KUNIT().
 */
#include <kunit/visibility.h>
#include <linux/bitmap.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "ornic_admin_cmd.h"

/* --- slots and their command identifiers -------------------------------- */

void ornic_id_alloc_init(struct ornic_id_alloc *ida, unsigned long *map,
			 u32 size)
{
	ida->map = map;
	ida->size = size;
	ida->next = 0;
	bitmap_zero(map, size);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_id_alloc_init);

int ornic_id_get(struct ornic_id_alloc *ida)
{
	unsigned long id;

	id = find_next_zero_bit(ida->map, ida->size, ida->next);
	if (id >= ida->size)
		id = find_first_zero_bit(ida->map, ida->size);
	if (id >= ida->size)
		return -ENOSPC;
	__set_bit(id, ida->map);
	ida->next = (id + 1) % ida->size;
	return id;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_id_get);

void ornic_id_put(struct ornic_id_alloc *ida, u32 id)
{
	if (id < ida->size)
		__clear_bit(id, ida->map);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_id_put);

/* --- the frame and the commands of no object ----------------------------- */

void ornic_cmd_init(struct ornic_admin_sqe *sqe, u8 opcode)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->hdr.opcode = opcode;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_init);

void ornic_cmd_set_id(struct ornic_admin_sqe *sqe, u16 cmd_id)
{
	sqe->hdr.command_id = cpu_to_le16(cmd_id);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_set_id);

void ornic_cmd_query(struct ornic_admin_sqe *sqe, u8 opcode, u64 resp_addr,
		     u32 resp_len)
{
	struct ornic_admin_query *q = (struct ornic_admin_query *)sqe;

	ornic_cmd_init(sqe, opcode);
	q->resp_addr = cpu_to_le64(resp_addr);
	q->resp_len = cpu_to_le32(resp_len);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_query);

void ornic_cmd_destroy(struct ornic_admin_sqe *sqe, u8 opcode, u32 handle)
{
	struct ornic_admin_destroy *d = (struct ornic_admin_destroy *)sqe;

	ornic_cmd_init(sqe, opcode);
	d->handle = cpu_to_le32(handle);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_destroy);

/* --- completions ---------------------------------------------------------- */

int ornic_admin_status_errno(u8 status)
{
	switch (status) {
	case ORNIC_ADMIN_STATUS_SUCCESS:
		return 0;
	case ORNIC_ADMIN_STATUS_BAD_OPCODE:
		return -EOPNOTSUPP;
	case ORNIC_ADMIN_STATUS_BAD_FIELD:
	case ORNIC_ADMIN_STATUS_BAD_HANDLE:
	case ORNIC_ADMIN_STATUS_BAD_ALIGNMENT:
		return -EINVAL;
	case ORNIC_ADMIN_STATUS_NO_RESOURCES:
		/* A full object table: what verbs users get from other RNICs. */
		return -ENOMEM;
	case ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED:
		return -E2BIG;
	case ORNIC_ADMIN_STATUS_BUSY:
		return -EBUSY;
	case ORNIC_ADMIN_STATUS_BAD_DMA:
		return -EFAULT;
	case ORNIC_ADMIN_STATUS_BAD_STATE:
		return -EINVAL;
	case ORNIC_ADMIN_STATUS_PERMISSION:
		return -EPERM;
	default:
		return -EIO;
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_admin_status_errno);

const char *ornic_admin_status_str(u8 status)
{
	static const char * const names[] = {
		[ORNIC_ADMIN_STATUS_SUCCESS] = "SUCCESS",
		[ORNIC_ADMIN_STATUS_BAD_OPCODE] = "BAD_OPCODE",
		[ORNIC_ADMIN_STATUS_BAD_FIELD] = "BAD_FIELD",
		[ORNIC_ADMIN_STATUS_BAD_HANDLE] = "BAD_HANDLE",
		[ORNIC_ADMIN_STATUS_NO_RESOURCES] = "NO_RESOURCES",
		[ORNIC_ADMIN_STATUS_LIMIT_EXCEEDED] = "LIMIT_EXCEEDED",
		[ORNIC_ADMIN_STATUS_BUSY] = "BUSY",
		[ORNIC_ADMIN_STATUS_BAD_DMA] = "BAD_DMA",
		[ORNIC_ADMIN_STATUS_BAD_STATE] = "BAD_STATE",
		[ORNIC_ADMIN_STATUS_PERMISSION] = "PERMISSION",
		[ORNIC_ADMIN_STATUS_BAD_ALIGNMENT] = "BAD_ALIGNMENT",
		[ORNIC_ADMIN_STATUS_INTERNAL] = "INTERNAL",
	};

	if (status < ARRAY_SIZE(names) && names[status])
		return names[status];
	return "UNKNOWN";
}
EXPORT_SYMBOL_IF_KUNIT(ornic_admin_status_str);

const char *ornic_admin_opcode_str(u8 opcode)
{
	switch (opcode) {
	case ORNIC_ADMIN_QUERY_DEVICE: return "QUERY_DEVICE";
	case ORNIC_ADMIN_QUERY_PORT: return "QUERY_PORT";
	case ORNIC_ADMIN_QUERY_COUNTERS: return "QUERY_COUNTERS";
	case ORNIC_ADMIN_ALLOC_DB_PAGE: return "ALLOC_DB_PAGE";
	case ORNIC_ADMIN_FREE_DB_PAGE: return "FREE_DB_PAGE";
	case ORNIC_ADMIN_CREATE_EQ: return "CREATE_EQ";
	case ORNIC_ADMIN_DESTROY_EQ: return "DESTROY_EQ";
	case ORNIC_ADMIN_CREATE_CQ: return "CREATE_CQ";
	case ORNIC_ADMIN_DESTROY_CQ: return "DESTROY_CQ";
	case ORNIC_ADMIN_RESIZE_CQ: return "RESIZE_CQ";
	case ORNIC_ADMIN_ALLOC_PD: return "ALLOC_PD";
	case ORNIC_ADMIN_DEALLOC_PD: return "DEALLOC_PD";
	case ORNIC_ADMIN_REG_MR: return "REG_MR";
	case ORNIC_ADMIN_DEREG_MR: return "DEREG_MR";
	case ORNIC_ADMIN_ALLOC_MW: return "ALLOC_MW";
	case ORNIC_ADMIN_DEALLOC_MW: return "DEALLOC_MW";
	case ORNIC_ADMIN_REREG_MR: return "REREG_MR";
	case ORNIC_ADMIN_CREATE_QP: return "CREATE_QP";
	case ORNIC_ADMIN_MODIFY_QP: return "MODIFY_QP";
	case ORNIC_ADMIN_QUERY_QP: return "QUERY_QP";
	case ORNIC_ADMIN_DESTROY_QP: return "DESTROY_QP";
	case ORNIC_ADMIN_ALLOC_XRCD: return "ALLOC_XRCD";
	case ORNIC_ADMIN_DEALLOC_XRCD: return "DEALLOC_XRCD";
	case ORNIC_ADMIN_CREATE_SRQ: return "CREATE_SRQ";
	case ORNIC_ADMIN_MODIFY_SRQ: return "MODIFY_SRQ";
	case ORNIC_ADMIN_DESTROY_SRQ: return "DESTROY_SRQ";
	case ORNIC_ADMIN_RESIZE_SRQ: return "RESIZE_SRQ";
	case ORNIC_ADMIN_CREATE_AH: return "CREATE_AH";
	case ORNIC_ADMIN_DESTROY_AH: return "DESTROY_AH";
	case ORNIC_ADMIN_ADD_GID: return "ADD_GID";
	case ORNIC_ADMIN_DEL_GID: return "DEL_GID";
	case ORNIC_ADMIN_ATTACH_MCAST: return "ATTACH_MCAST";
	case ORNIC_ADMIN_DETACH_MCAST: return "DETACH_MCAST";
	case ORNIC_ADMIN_ETH_CREATE_TX_RING: return "ETH_CREATE_TX_RING";
	case ORNIC_ADMIN_ETH_CREATE_RX_RING: return "ETH_CREATE_RX_RING";
	case ORNIC_ADMIN_ETH_DESTROY_RING: return "ETH_DESTROY_RING";
	case ORNIC_ADMIN_ETH_SET_MAC: return "ETH_SET_MAC";
	case ORNIC_ADMIN_ETH_SET_MTU: return "ETH_SET_MTU";
	case ORNIC_ADMIN_ODP_INVALIDATE: return "ODP_INVALIDATE";
	case ORNIC_ADMIN_ODP_RESUME: return "ODP_RESUME";
	case ORNIC_ADMIN_CC_CONFIG: return "CC_CONFIG";
	case ORNIC_ADMIN_MAD_IFC: return "MAD_IFC";
	case ORNIC_ADMIN_MODIFY_PORT: return "MODIFY_PORT";
	case ORNIC_ADMIN_SET_PORT_QOS: return "SET_PORT_QOS";
	case ORNIC_ADMIN_QUERY_PORT_QOS: return "QUERY_PORT_QOS";
	case ORNIC_ADMIN_IW_LISTEN: return "IW_LISTEN";
	case ORNIC_ADMIN_IW_UNLISTEN: return "IW_UNLISTEN";
	case ORNIC_ADMIN_IW_CONNECT: return "IW_CONNECT";
	case ORNIC_ADMIN_IW_ACCEPT: return "IW_ACCEPT";
	case ORNIC_ADMIN_IW_REJECT: return "IW_REJECT";
	case ORNIC_ADMIN_IW_DISCONNECT: return "IW_DISCONNECT";
	case ORNIC_ADMIN_IW_QUERY_CONN: return "IW_QUERY_CONN";
	default: return "UNKNOWN";
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_admin_opcode_str);
