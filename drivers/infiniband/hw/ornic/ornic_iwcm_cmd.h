/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ornic: iWARP connection management in the device's terms (spec:
 * iwarp-cm.rst; admin.rst, IW_*).
 *
 * This header's one job: what the iw_cm hands the driver, checked against
 * what the device takes and put in the IW_* admin commands; what the device
 * reports back (events, IW_QUERY_CONN's attributes) checked and turned into
 * the iw_cm's terms.  Nothing here touches hardware or allocates
 * (ornic_iwcm_cmd.c; KUnit: ornic_iwcm_kunit.c).
 */
#ifndef ORNIC_IWCM_CMD_H
#define ORNIC_IWCM_CMD_H

#include <linux/in.h>
#include <linux/socket.h>
#include <linux/types.h>

#include "ornic/ornic_hw.h"

/* IW_CONNECT's arguments; addresses and ports as the socket API has them. */
struct ornic_iw_connect_args {
	u32 conn_id;			/* 1..ORNIC_IW_CONN_ID_DEVICE - 1 */
	u32 qpn;
	const struct sockaddr_in *local;
	const struct sockaddr_in *remote;
	const u8 *next_hop;		/* ETH_ALEN bytes, unicast */
	u8 tos;
	u8 ttl;				/* 0: the device's default */
	u8 mpa_rev;			/* 1 or 2 */
	bool crc;			/* ask for MPA CRCs */
	u32 ird;
	u32 ord;
	u16 pdata_len;
	u64 pdata_addr;			/* DMA address of the private data */
};

/* IW_LISTEN on @addr (a unicast IPv4 address, port not 0). */
int ornic_cmd_iw_listen(struct ornic_admin_sqe *sqe,
			const struct sockaddr_in *addr, int backlog);

/* IW_CONNECT; -EINVAL for what the device would refuse. */
int ornic_cmd_iw_connect(struct ornic_admin_sqe *sqe,
			 const struct ornic_iw_connect_args *a);

/* IW_ACCEPT of the device's connection @conn_id. */
int ornic_cmd_iw_accept(struct ornic_admin_sqe *sqe, u32 conn_id, u32 qpn,
			u32 ird, u32 ord, bool crc, u16 pdata_len,
			u64 pdata_addr);

/*
 * IW_UNLISTEN (@id a listener), IW_REJECT, IW_DISCONNECT or IW_QUERY_CONN
 * (@id a connection); @flags, @addr and @len where the command has them.
 */
void ornic_cmd_iw_conn(struct ornic_admin_sqe *sqe, u8 opcode, u32 id,
		       u32 flags, u64 addr, u32 len);

/* The largest private data the MPA revision @mpa_rev carries for software. */
u16 ornic_iw_max_pdata(u8 mpa_rev);

/* An IW_CONNECT_REPLY or IW_CLOSE status as the iw_cm's errno. */
int ornic_iw_status_errno(u8 status);

/*
 * 0 if the device's IW_QUERY_CONN answer @a (@len bytes written) is one the
 * driver can use: a known state, private data and IRD/ORD within the
 * limits, an IPv4 4-tuple with ports.
 */
int ornic_iw_attr_check(const struct ornic_iw_conn_attr *a, u32 len);

/* @a's 4-tuple as socket addresses (the iw_cm's event and cm_id fields). */
void ornic_iw_attr_addrs(const struct ornic_iw_conn_attr *a,
			 struct sockaddr_storage *local,
			 struct sockaddr_storage *remote);

#endif /* ORNIC_IWCM_CMD_H */
