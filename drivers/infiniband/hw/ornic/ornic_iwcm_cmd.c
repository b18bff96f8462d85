// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic: iWARP connection management in the device's terms (see
 * ornic_iwcm_cmd.h).  What the KUnit suite calls is exported to it with
 * EXPORT_SYMBOL_IF_KUNIT().
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/etherdevice.h>
#include <linux/export.h>
#include <linux/string.h>

#include "ornic_admin_cmd.h"
#include "ornic_iwcm_cmd.h"

/* Revision 2 spends the first 4 private-data bytes on IRD and ORD. */
#define ORNIC_IW_ENHANCED_BYTES	4

u16 ornic_iw_max_pdata(u8 mpa_rev)
{
	return mpa_rev == 2 ?
	       ORNIC_IW_MAX_PRIVATE_DATA - ORNIC_IW_ENHANCED_BYTES :
	       ORNIC_IW_MAX_PRIVATE_DATA;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_iw_max_pdata);

static bool ornic_iw_unicast(__be32 ip)
{
	return !ipv4_is_zeronet(ip) && !ipv4_is_loopback(ip) &&
	       !ipv4_is_multicast(ip) && !ipv4_is_lbcast(ip);
}

/* A unicast IPv4 address with a port: what the device takes. */
static bool ornic_iw_endpoint_ok(const struct sockaddr_in *sin)
{
	return sin->sin_family == AF_INET && sin->sin_port &&
	       ornic_iw_unicast(sin->sin_addr.s_addr);
}

int ornic_cmd_iw_listen(struct ornic_admin_sqe *sqe,
			const struct sockaddr_in *addr, int backlog)
{
	struct ornic_admin_iw_listen *c = (struct ornic_admin_iw_listen *)sqe;

	if (!ornic_iw_endpoint_ok(addr))
		return -EINVAL;
	ornic_cmd_init(sqe, ORNIC_ADMIN_IW_LISTEN);
	memcpy(c->ip, &addr->sin_addr.s_addr, sizeof(c->ip));
	c->port = cpu_to_le16(ntohs(addr->sin_port));
	/* The listen(2) convention: what is out of range is clamped. */
	c->backlog = cpu_to_le16(clamp(backlog, 1, ORNIC_IW_MAX_BACKLOG));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_iw_listen);

static void ornic_iw_put_tuple(struct ornic_iw_tuple *t,
			       const struct sockaddr_in *local,
			       const struct sockaddr_in *remote)
{
	memcpy(t->local_ip, &local->sin_addr.s_addr, sizeof(t->local_ip));
	memcpy(t->remote_ip, &remote->sin_addr.s_addr, sizeof(t->remote_ip));
	t->local_port = cpu_to_le16(ntohs(local->sin_port));
	t->remote_port = cpu_to_le16(ntohs(remote->sin_port));
}

int ornic_cmd_iw_connect(struct ornic_admin_sqe *sqe,
			 const struct ornic_iw_connect_args *a)
{
	struct ornic_admin_iw_connect *c = (struct ornic_admin_iw_connect *)sqe;

	if (!a->conn_id || a->conn_id >= ORNIC_IW_CONN_ID_DEVICE ||
	    !ornic_iw_endpoint_ok(a->local) ||
	    !ornic_iw_endpoint_ok(a->remote) ||
	    a->local->sin_addr.s_addr == a->remote->sin_addr.s_addr ||
	    !is_valid_ether_addr(a->next_hop) ||
	    (a->mpa_rev != 1 && a->mpa_rev != 2) ||
	    a->pdata_len > ornic_iw_max_pdata(a->mpa_rev) ||
	    (a->pdata_len && !a->pdata_addr) ||
	    a->ird > ORNIC_IW_MAX_IRD_ORD || a->ord > ORNIC_IW_MAX_IRD_ORD)
		return -EINVAL;
	ornic_cmd_init(sqe, ORNIC_ADMIN_IW_CONNECT);
	c->conn_id = cpu_to_le32(a->conn_id);
	c->qpn = cpu_to_le32(a->qpn);
	ornic_iw_put_tuple(&c->tuple, a->local, a->remote);
	ether_addr_copy(c->next_hop_mac, a->next_hop);
	c->tos = a->tos;
	c->ttl = a->ttl;
	c->mpa_rev = a->mpa_rev;
	c->flags = a->crc ? ORNIC_IW_CONNECT_CRC : 0;
	c->pdata_len = cpu_to_le16(a->pdata_len);
	c->ird = cpu_to_le16(a->ird);
	c->ord = cpu_to_le16(a->ord);
	c->pdata_addr = cpu_to_le64(a->pdata_len ? a->pdata_addr : 0);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_iw_connect);

int ornic_cmd_iw_accept(struct ornic_admin_sqe *sqe, u32 conn_id, u32 qpn,
			u32 ird, u32 ord, bool crc, u16 pdata_len,
			u64 pdata_addr)
{
	struct ornic_admin_iw_accept *c = (struct ornic_admin_iw_accept *)sqe;

	/*
	 * The device checks the length against the request's revision; the
	 * larger limit is the one a driver can check without it.
	 */
	if (!conn_id || ird > ORNIC_IW_MAX_IRD_ORD ||
	    ord > ORNIC_IW_MAX_IRD_ORD ||
	    pdata_len > ORNIC_IW_MAX_PRIVATE_DATA ||
	    (pdata_len && !pdata_addr))
		return -EINVAL;
	ornic_cmd_init(sqe, ORNIC_ADMIN_IW_ACCEPT);
	c->conn_id = cpu_to_le32(conn_id);
	c->qpn = cpu_to_le32(qpn);
	c->ird = cpu_to_le16(ird);
	c->ord = cpu_to_le16(ord);
	c->pdata_len = cpu_to_le16(pdata_len);
	c->flags = crc ? ORNIC_IW_ACCEPT_CRC : 0;
	c->pdata_addr = cpu_to_le64(pdata_len ? pdata_addr : 0);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_iw_accept);

void ornic_cmd_iw_conn(struct ornic_admin_sqe *sqe, u8 opcode, u32 id,
		       u32 flags, u64 addr, u32 len)
{
	struct ornic_admin_iw_conn_cmd *c =
		(struct ornic_admin_iw_conn_cmd *)sqe;

	ornic_cmd_init(sqe, opcode);
	c->id = cpu_to_le32(id);
	c->flags = cpu_to_le32(flags);
	c->addr = cpu_to_le64(addr);
	c->len = cpu_to_le32(len);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_cmd_iw_conn);

/*
 * rdma_cm makes REJECTED of -ECONNREFUSED and -ECONNRESET, UNREACHABLE of
 * -ETIMEDOUT and CONNECT_ERROR of the rest.
 */
int ornic_iw_status_errno(u8 status)
{
	switch (status) {
	case ORNIC_IW_STATUS_OK:
		return 0;
	case ORNIC_IW_STATUS_REJECTED:
		return -ECONNREFUSED;
	case ORNIC_IW_STATUS_TIMEOUT:
		return -ETIMEDOUT;
	case ORNIC_IW_STATUS_RESET:
		return -ECONNRESET;
	case ORNIC_IW_STATUS_UNREACHABLE:
		return -EHOSTUNREACH;
	case ORNIC_IW_STATUS_MPA_ERROR:
		return -EPROTO;
	default:
		return -EIO;	/* a status the spec does not define */
	}
}
EXPORT_SYMBOL_IF_KUNIT(ornic_iw_status_errno);

int ornic_iw_attr_check(const struct ornic_iw_conn_attr *a, u32 len)
{
	if (len < offsetof(struct ornic_iw_conn_attr, pdata) ||
	    len > sizeof(*a))
		return -EIO;
	if (a->state < ORNIC_IW_CONN_CONNECTING ||
	    a->state > ORNIC_IW_CONN_CLOSED)
		return -EIO;
	if (a->mpa_rev != 1 && a->mpa_rev != 2)
		return -EIO;
	if (le16_to_cpu(a->pdata_len) > ORNIC_IW_MAX_PRIVATE_DATA ||
	    offsetof(struct ornic_iw_conn_attr, pdata) +
	    le16_to_cpu(a->pdata_len) > len)
		return -EIO;
	if (le16_to_cpu(a->ird) > ORNIC_IW_MAX_IRD_ORD ||
	    le16_to_cpu(a->ord) > ORNIC_IW_MAX_IRD_ORD ||
	    le16_to_cpu(a->peer_ird) > ORNIC_IW_MAX_IRD_ORD ||
	    le16_to_cpu(a->peer_ord) > ORNIC_IW_MAX_IRD_ORD)
		return -EIO;
	if (!a->tuple.local_port || !a->tuple.remote_port)
		return -EIO;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(ornic_iw_attr_check);

static void ornic_iw_sin(struct sockaddr_storage *ss, const u8 *ip,
			 __le16 port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	memcpy(&sin->sin_addr.s_addr, ip, sizeof(sin->sin_addr.s_addr));
	sin->sin_port = htons(le16_to_cpu(port));
}

void ornic_iw_attr_addrs(const struct ornic_iw_conn_attr *a,
			 struct sockaddr_storage *local,
			 struct sockaddr_storage *remote)
{
	ornic_iw_sin(local, a->tuple.local_ip, a->tuple.local_port);
	ornic_iw_sin(remote, a->tuple.remote_ip, a->tuple.remote_port);
}
EXPORT_SYMBOL_IF_KUNIT(ornic_iw_attr_addrs);
