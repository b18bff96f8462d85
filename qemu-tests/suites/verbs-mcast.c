// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs-mcast DEV GID DEV2 GID2: UD multicast between two devices.  Several
 * UD QPs on each device attach to one group (ibv_attach_mcast); one datagram
 * from a QP of DEV reaches every attached QP of DEV2 and the attached QP of
 * DEV itself (loopback), byte for byte, with the sender's QPN and the GRH;
 * an attached QP with another Q_Key gets nothing; a detached QP stops
 * receiving while the others go on; attaching an RC QP or a unicast GID
 * fails; detaching a pair that is not attached fails.  Devices that report
 * no multicast groups are SKIPped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "qp-pair.h"

#define MSG		256
#define SLOT		1024		/* receive area per QP in the buffer */
#define SEND_OFF	(BUF_SIZE - SLOT)
#define NRECV_B		3		/* attached QPs on DEV2 with the Q_Key */
#define WRONG_QKEY	0x22220000u
#define QUIET_MS	1500		/* how long "nothing arrives" is watched */

/* A UD QP with its own CQ, and where in its side's buffer it receives. */
struct member {
	struct side *s;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t *slot;
};

static int member_open(struct member *m, struct side *s, int index,
		       uint32_t qkey)
{
	struct qp_path path = qp_path(-1, NULL, 0);

	m->s = s;
	m->slot = s->buf + (size_t)index * SLOT;
	m->cq = ibv_create_cq(s->ctx, 32, NULL, NULL, 0);
	if (!m->cq)
		return -1;
	m->qp = make_qp(s, IBV_QPT_UD, m->cq, NULL, 8, 1, 0);
	path.qkey = qkey;
	path.sq_psn = 0;
	return m->qp ? qp_connect(m->qp, &path) : -1;
}

static void member_close(struct member *m)
{
	if (m->qp)
		ibv_destroy_qp(m->qp);
	if (m->cq)
		ibv_destroy_cq(m->cq);
}

static int post_recv(struct member *m)
{
	memset(m->slot, 0xee, sizeof(struct ibv_grh) + MSG);
	return postr(m->qp, (uintptr_t)m->slot, m->slot,
		     sizeof(struct ibv_grh) + MSG, m->s->mr->lkey);
}

/* The datagram at @m: completion fields, the payload and the GRH's group. */
static int datagram_ok(struct member *m, const struct ibv_wc *wc,
		       uint32_t src_qpn, const uint8_t *sent,
		       const union ibv_gid *group, char *why, size_t len)
{
	const uint8_t *grh = m->slot;

	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_RECV) {
		snprintf(why, len, "status %s opcode %d",
			 ibv_wc_status_str(wc->status), wc->opcode);
		return 0;
	}
	if (wc->byte_len != sizeof(struct ibv_grh) + MSG ||
	    wc->src_qp != src_qpn || !(wc->wc_flags & IBV_WC_GRH) ||
	    wc->qp_num != m->qp->qp_num) {
		snprintf(why, len,
			 "byte_len %u src_qp %u (sender %u) flags %#x qp %u",
			 wc->byte_len, wc->src_qp, src_qpn, wc->wc_flags,
			 wc->qp_num);
		return 0;
	}
	if (memcmp(grh + sizeof(struct ibv_grh), sent, MSG)) {
		snprintf(why, len, "payload differs");
		return 0;
	}
	/* IPv4: the header sits in the last 20 bytes, destination at 36. */
	if (memcmp(grh + 36, &group->raw[12], 4)) {
		snprintf(why, len, "GRH destination is not the group");
		return 0;
	}
	return 1;
}

static int mcast_send(struct member *from, struct ibv_ah *ah, uint8_t seed)
{
	struct side *s = from->s;
	uint8_t *msg = s->buf + SEND_OFF;
	struct ibv_sge sge = {
		.addr = (uintptr_t)msg, .length = MSG, .lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 0x5e5d, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = 0xffffff,
			   .remote_qkey = QKEY },
	}, *bad;
	struct ibv_wc wc;

	fill(msg, MSG, seed);
	if (ibv_post_send(from->qp, &wr, &bad))
		return -1;
	if (!poll_within(from->cq, &wc, POLL_MS) || wc.status != IBV_WC_SUCCESS)
		return -1;
	return 0;
}

/* Every member with a receive posted gets the datagram, checked. */
static void expect_received(const char *name, struct member *ms, int n,
			    uint32_t src_qpn, const uint8_t *sent,
			    const union ibv_gid *group)
{
	char why[160] = "";
	struct ibv_wc wc;
	int i, ok = 1;

	for (i = 0; i < n && ok; i++) {
		if (!poll_within(ms[i].cq, &wc, POLL_MS)) {
			snprintf(why, sizeof(why), "QP %u received nothing",
				 ms[i].qp->qp_num);
			ok = 0;
		} else if (!datagram_ok(&ms[i], &wc, src_qpn, sent, group,
					why, sizeof(why))) {
			ok = 0;
		}
	}
	if (ok)
		report(1, name, "%d attached QPs each got the %d B datagram from QP %u, data and GRH checked",
		       n, MSG, src_qpn);
	else
		report(0, name, "%s", why);
}

int main(int argc, char **argv)
{
	struct side a = {}, b = {};
	struct member sender = {}, local = {}, rb[NRECV_B] = {}, wrong = {};
	union ibv_gid group = {}, unicast;
	struct ibv_ah_attr aha = {};
	struct ibv_ah *ah = NULL;
	struct ibv_qp *rc = NULL;
	uint8_t sent[MSG];
	struct ibv_wc wc;
	int i, err, ok;

	if (argc != 5) {
		fprintf(stderr, "usage: %s DEV GID DEV2 GID2\n", argv[0]);
		return 2;
	}
	report_prefix("mcast/");
	if (sides_open(&a, &b, argv))
		return 2;
	if (!a.attr.max_mcast_grp || !b.attr.max_mcast_grp) {
		report_skip("all", "%s/%s report no multicast groups", a.name,
			    b.name);
		return 0;
	}
	report(a.attr.max_mcast_qp_attach >= NRECV_B + 1 &&
	       a.attr.max_total_mcast_qp_attach >= a.attr.max_mcast_qp_attach,
	       "device-attrs", "%s: max_mcast_grp %d max_mcast_qp_attach %d max_total_mcast_qp_attach %d",
	       a.name, a.attr.max_mcast_grp, a.attr.max_mcast_qp_attach,
	       a.attr.max_total_mcast_qp_attach);

	/* ::ffff:239.10.0.1, the RoCEv2 GID of an IPv4 group. */
	group.raw[10] = group.raw[11] = 0xff;
	group.raw[12] = 239;
	group.raw[13] = 10;
	group.raw[15] = 1;

	if (member_open(&sender, &a, 0, QKEY) ||
	    member_open(&local, &a, 1, QKEY) ||
	    member_open(&wrong, &b, NRECV_B, WRONG_QKEY)) {
		report(0, "setup", "UD QPs: %s", strerror(errno));
		return 1;
	}
	for (i = 0; i < NRECV_B; i++)
		if (member_open(&rb[i], &b, i, QKEY)) {
			report(0, "setup", "UD QPs: %s", strerror(errno));
			return 1;
		}

	/* Attach: the receivers on both devices, not the sender. */
	err = ibv_attach_mcast(local.qp, &group, 0);
	for (i = 0; i < NRECV_B && !err; i++)
		err = ibv_attach_mcast(rb[i].qp, &group, 0);
	if (!err)
		err = ibv_attach_mcast(wrong.qp, &group, 0);
	/* Attaching an attached pair again is allowed and changes nothing. */
	if (!err)
		err = ibv_attach_mcast(rb[0].qp, &group, 0);
	report(!err, "attach", "%d UD QPs attached to ::ffff:239.10.0.1: %s",
	       NRECV_B + 2, err ? strerror(err) : "ok");
	if (err)
		return 1;

	aha.is_global = 1;
	aha.grh.dgid = group;
	aha.grh.sgid_index = a.gid_index;
	aha.grh.hop_limit = 1;
	aha.port_num = 1;
	ah = ibv_create_ah(a.pd, &aha);
	report(ah != NULL, "create-ah", "AH to the group: %s",
	       ah ? "ok" : strerror(errno));
	if (!ah)
		return 1;

	/* 1. One datagram reaches every attached QP of both devices. */
	ok = !post_recv(&local) && !post_recv(&wrong);
	for (i = 0; i < NRECV_B; i++)
		ok = ok && !post_recv(&rb[i]);
	ok = ok && !mcast_send(&sender, ah, 0x31);
	report(ok, "send", "UD SEND of %d B to the group completed", MSG);
	memcpy(sent, a.buf + SEND_OFF, MSG);
	expect_received("deliver-remote", rb, NRECV_B, sender.qp->qp_num,
			sent, &group);
	expect_received("deliver-loopback", &local, 1, sender.qp->qp_num,
			sent, &group);

	/* 2. The attached QP whose Q_Key differs got nothing. */
	ok = !poll_within(wrong.cq, &wc, QUIET_MS) &&
	     ((uint8_t *)wrong.slot)[sizeof(struct ibv_grh)] == 0xee;
	report(ok, "wrong-qkey", "attached QP with Q_Key %#x: %s", WRONG_QKEY,
	       ok ? "datagram dropped, buffer untouched" : "it received");

	/* 3. A detached QP stops receiving; the others go on. */
	err = ibv_detach_mcast(rb[NRECV_B - 1].qp, &group, 0);
	report(!err, "detach", "QP %u detached: %s", rb[NRECV_B - 1].qp->qp_num,
	       err ? strerror(err) : "ok");
	ok = !post_recv(&local);
	for (i = 0; i < NRECV_B; i++)
		ok = ok && !post_recv(&rb[i]);
	ok = ok && !mcast_send(&sender, ah, 0x77);
	memcpy(sent, a.buf + SEND_OFF, MSG);
	if (!ok)
		report(0, "send-after-detach", "post or send failed");
	expect_received("deliver-after-detach", rb, NRECV_B - 1,
			sender.qp->qp_num, sent, &group);
	ok = !poll_within(rb[NRECV_B - 1].cq, &wc, QUIET_MS);
	report(ok, "detached-silent", "detached QP %u: %s",
	       rb[NRECV_B - 1].qp->qp_num,
	       ok ? "received nothing, its receive stays posted" :
		    "still received");

	/* 4. Errors: detach twice, an RC QP, a unicast GID. */
	err = ibv_detach_mcast(rb[NRECV_B - 1].qp, &group, 0);
	report(err != 0, "detach-not-attached", "second detach: %s",
	       err ? strerror(err) : "succeeded");
	rc = make_qp(&b, IBV_QPT_RC, b.cq, NULL, 4, 1, 0);
	err = rc ? ibv_attach_mcast(rc, &group, 0) : -1;
	report(rc && err == EINVAL, "attach-rc", "ibv_attach_mcast(RC QP): %s",
	       err > 0 ? strerror(err) : err ? "no RC QP" : "succeeded");
	unicast = b.gid;
	err = ibv_attach_mcast(rb[0].qp, &unicast, 0);
	report(err == EINVAL, "attach-unicast", "ibv_attach_mcast(unicast GID): %s",
	       err ? strerror(err) : "succeeded");

	/* 5. Leave: after detaching everyone, nothing is delivered. */
	err = ibv_detach_mcast(local.qp, &group, 0);
	for (i = 0; i < NRECV_B - 1 && !err; i++)
		err = ibv_detach_mcast(rb[i].qp, &group, 0);
	if (!err)
		err = ibv_detach_mcast(wrong.qp, &group, 0);
	ok = !err && !post_recv(&rb[0]) && !mcast_send(&sender, ah, 0x99) &&
	     !poll_within(rb[0].cq, &wc, QUIET_MS);
	report(ok, "detach-all", "every QP detached, the next datagram reached none: %s",
	       err ? strerror(err) : ok ? "ok" : "one was delivered");

	if (rc)
		ibv_destroy_qp(rc);
	ibv_destroy_ah(ah);
	member_close(&sender);
	member_close(&local);
	member_close(&wrong);
	for (i = 0; i < NRECV_B; i++)
		member_close(&rb[i]);
	side_close(&a);
	side_close(&b);
	return 0;
}
