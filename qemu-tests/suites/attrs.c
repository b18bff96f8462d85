// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * attrs DEV GID DEV2 GID2 WIRE_FILE: address and QP attributes with the
 * values the verbs ecosystem passes (Documentation/verbs/attributes.rst),
 * from DEV to DEV2, whose GIDs reach each other:
 *
 *   ah/...      UD address handles with boundary and "middleware default"
 *               flow labels, traffic classes and hop limits, IPv4 and IPv6:
 *               created, one datagram each, data checked, and the IP header
 *               the receiver gets in its GRH buffer checked (TOS / traffic
 *               class, TTL / hop limit, flow label);
 *   qp/...      the same values in RC QPs' address vectors, one SEND each;
 *   gid/...     a datagram from every RoCE v2 GID index of DEV (source
 *               address checked in the receiver's GRH);
 *   rd-atomic/  max_rd_atomic / max_dest_rd_atomic at the device's limits
 *               (READs outstanding, data checked) and one above (EINVAL);
 *   timers/     timeout, retry, RNR retry and RNR timer at their extremes
 *               (traffic), and just outside their ranges (EINVAL).
 *
 * Every frame's expected wire fields go to WIRE_FILE as
 *   "<name> <dest QPN> <first PSN> <PSNs> <ipv4|ipv6> <tos> <ttl>
 *    <flow label> <UDP source port or -1>"
 * for tools/attrs-wire.py to check against a capture.  One "PASS|FAIL:
 * attrs/<check> details" line per check; the expectations are ornic's (on
 * rxe the same run is only compared).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "qp-pair.h"

#define GRH_BYTES	40
#define MSG_BYTES	64
#define PSN_BASE	0xa77000u	/* our frames in a shared capture */

static FILE *wire;
static uint32_t next_psn = PSN_BASE;

struct av_case {
	const char *name;
	uint32_t flow_label;
	uint8_t traffic_class;
	uint8_t hop_limit;
};

/* Boundaries and what middleware passes (DSCP 26 + ECT(0), "any" label). */
static const struct av_case cases[] = {
	{ "zero", 0, 0, 0 },
	{ "max", 0xfffff, 255, 255 },
	{ "middleware", 0xffffffff, 106, 1 },
	{ "typical", 0x12345, 106, 64 },
};

static int is_v4(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g->raw, prefix, sizeof(prefix));
}

/* rdma_flow_label_to_udp_sport() of the kernel: what ornic puts on the wire. */
static int sport_of(uint32_t fl)
{
	uint32_t lo = fl & 0x03fff, hi = fl & 0xfc000;

	if (!(fl & 0xfffff))
		return -1;	/* from the QPNs: any value of the RoCE range */
	return (int)((lo ^ (hi >> 14)) | 0xc000);
}

/*
 * The TTL / hop limit on the wire.  For a unicast RoCE v2 destination the
 * kernel's RDMA core replaces the caller's hop_limit with its route's
 * (ib_resolve_unicast_gid_dmac), on every device: ATTRS_HOP_LIMIT tells
 * which one the routes give (the guest script sets an unusual one).
 */
static int route_hop_limit = 64;

static int wire_ttl(uint8_t hop_limit)
{
	(void)hop_limit;
	return route_hop_limit;
}

static void wire_line(const char *name, uint32_t dqpn, uint32_t psn,
		      uint32_t npsn, int v4, const struct av_case *c)
{
	fprintf(wire, "%s %u %u %u %s %u %d %u %d\n", name, dqpn, psn, npsn,
		v4 ? "ipv4" : "ipv6", c->traffic_class, wire_ttl(c->hop_limit),
		v4 ? 0 : c->flow_label & 0xfffff, sport_of(c->flow_label));
	fflush(wire);
}

/* GID @i of @s if it is a RoCE v2 GID (ibv_query_gid_ex), else 0. */
static int roce_v2_gid(struct side *s, int i, union ibv_gid *g)
{
	struct ibv_gid_entry e;

	if (ibv_query_gid_ex(s->ctx, 1, i, &e, 0) ||
	    e.gid_type != IBV_GID_TYPE_ROCE_V2)
		return 0;
	memcpy(g, &e.gid, sizeof(*g));
	return g->global.subnet_prefix || g->global.interface_id;
}

/* GID index of @s whose GID is in the same family (and scope) as @like. */
static int peer_gid(struct side *s, const union ibv_gid *like,
		    union ibv_gid *out)
{
	int i, ll = like->raw[0] == 0xfe && (like->raw[1] & 0xc0) == 0x80;

	for (i = 0; i < 64; i++) {
		union ibv_gid g;

		if (!roce_v2_gid(s, i, &g))
			continue;
		if (is_v4(&g) != is_v4(like))
			continue;
		if (!is_v4(like) &&
		    ll != (g.raw[0] == 0xfe && (g.raw[1] & 0xc0) == 0x80))
			continue;
		*out = g;
		return i;
	}
	return -1;
}

static struct ibv_qp *ud_qp(struct side *s, uint32_t *psn)
{
	struct ibv_qp *qp = make_qp(s, IBV_QPT_UD, s->cq, NULL, 16, 1, 0);
	struct qp_path path = qp_path(-1, NULL, 0);

	path.sq_psn = *psn = next_psn;
	next_psn += 0x100;
	if (!qp || qp_connect(qp, &path))
		return NULL;
	return qp;
}

/*
 * The traffic class as asked: the DSCP exactly; the ECN field as asked or an
 * ECN-capable codepoint, ECT(0) or ECT(1), which a device with congestion
 * control puts on all its RoCE traffic (ornic: roce.rst "Congestion control").
 */
static int tclass_ok(unsigned int got, unsigned int want)
{
	unsigned int ecn = got & 3;

	return (got >> 2) == (want >> 2) &&
	       (ecn == (want & 3) || ecn == 1 || ecn == 2);
}

/* Check the IP header the receiver got in its GRH buffer. */
static int check_grh(const uint8_t *grh, int v4, const struct av_case *c,
		     const union ibv_gid *sgid, char *why, size_t n)
{
	if (v4) {
		const uint8_t *ip = grh + 20;

		if (!tclass_ok(ip[1], c->traffic_class) ||
		    ip[8] != wire_ttl(c->hop_limit) ||
		    memcmp(ip + 12, sgid->raw + 12, 4)) {
			snprintf(why, n, "IPv4 tos %u ttl %u src %u.%u.%u.%u, want tos %u ttl %d",
				 ip[1], ip[8], ip[12], ip[13], ip[14], ip[15],
				 c->traffic_class, wire_ttl(c->hop_limit));
			return 0;
		}
	} else {
		uint32_t w = ntohl(*(const uint32_t *)grh);
		uint32_t tc = (w >> 20) & 0xff, fl = w & 0xfffff;

		if (!tclass_ok(tc, c->traffic_class) ||
		    fl != (c->flow_label & 0xfffff) ||
		    grh[7] != wire_ttl(c->hop_limit) ||
		    memcmp(grh + 8, sgid->raw, 16)) {
			snprintf(why, n, "IPv6 tclass %u flow %#x hlim %u, want %u %#x %d",
				 tc, fl, grh[7], c->traffic_class,
				 c->flow_label & 0xfffff, wire_ttl(c->hop_limit));
			return 0;
		}
	}
	return 1;
}

/* One UD datagram from @a to @b over an AH with @c; data and GRH checked. */
static void ud_case(struct side *a, struct side *b, const char *name,
		    int sgid_index, const union ibv_gid *sgid,
		    const union ibv_gid *dgid, const struct av_case *c)
{
	static struct ibv_qp *qa, *qb;
	static uint32_t psn, psn_b;
	struct ibv_ah_attr aa = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = *dgid, .flow_label = c->flow_label,
			 .sgid_index = sgid_index, .hop_limit = c->hop_limit,
			 .traffic_class = c->traffic_class },
	};
	uint8_t *rx = b->buf + 8192, *tx = a->buf;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_ah *ah;
	char why[160] = "";
	int v4 = is_v4(dgid), ok;

	if (!qa) {
		qa = ud_qp(a, &psn);
		qb = ud_qp(b, &psn_b);
		if (!qa || !qb) {
			report(0, "ud-qps", "cannot create UD QPs: %s",
			       strerror(errno));
			exit(2);
		}
	}
	ah = ibv_create_ah(a->pd, &aa);
	if (!ah) {
		report(0, name, "ibv_create_ah(flow_label %#x, traffic_class %u, hop_limit %u): %s",
		       c->flow_label, c->traffic_class, c->hop_limit,
		       strerror(errno));
		return;
	}
	memset(rx, 0, GRH_BYTES + MSG_BYTES);
	fill(tx, MSG_BYTES, (uint8_t)(psn + c->traffic_class));
	if (postr(qb, 1, rx, GRH_BYTES + MSG_BYTES, b->mr->lkey)) {
		report(0, name, "post_recv: %s", strerror(errno));
		goto out;
	}
	sge = (struct ibv_sge){ (uintptr_t)tx, MSG_BYTES, a->mr->lkey };
	wr.wr_id = 2;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qb->qp_num;
	wr.wr.ud.remote_qkey = QKEY;
	wire_line(name, qb->qp_num, psn, 1, v4, c);
	psn = (psn + 1) & 0xffffff;
	if (ibv_post_send(qa, &wr, &bad)) {
		report(0, name, "post_send: %s", strerror(errno));
		goto out;
	}
	ok = poll_one(a->cq, &wc) && wc.status == IBV_WC_SUCCESS &&
	     poll_one(b->cq, &wc) && wc.status == IBV_WC_SUCCESS &&
	     wc.byte_len == GRH_BYTES + MSG_BYTES && (wc.wc_flags & IBV_WC_GRH);
	if (!ok) {
		report(0, name, "datagram not received (status %s, %u bytes)",
		       ibv_wc_status_str(wc.status), wc.byte_len);
		goto out;
	}
	if (memcmp(rx + GRH_BYTES, tx, MSG_BYTES)) {
		report(0, name, "data differs");
		goto out;
	}
	ok = check_grh(rx, v4, c, sgid, why, sizeof(why));
	report(ok, name, "%s, flow_label %#x traffic_class %u hop_limit %u: %s",
	       v4 ? "IPv4" : "IPv6", c->flow_label, c->traffic_class,
	       c->hop_limit, ok ? "received, data and header checked" : why);
out:
	ibv_destroy_ah(ah);
}

/*
 * The attributes of an RC QP that the checks do not vary: one read or
 * atomic each way, RNR timer 12; the addresses and PSNs are rc_connect()'s.
 */
static struct qp_path rc_path(const struct av_case *c)
{
	struct qp_path p = qp_path(-1, NULL, 0);

	p.flow_label = c->flow_label;
	p.traffic_class = c->traffic_class;
	p.hop_limit = c->hop_limit;
	p.max_rd_atomic = 1;
	p.max_dest_rd_atomic = 1;
	p.min_rnr_timer = 12;
	return p;
}

/*
 * RC pair over an address vector with @path's attributes (rc_path(), maybe
 * changed by the check) from GIDs @sgid_a/@ga and @sgid_b/@gb; 0 or the
 * error of the first transition refused.
 */
static int rc_connect(struct ibv_qp *qa, struct ibv_qp *qb, int sgid_a, const union ibv_gid *ga,
		      int sgid_b, const union ibv_gid *gb,
		      const struct qp_path *path, uint32_t *psn_a)
{
	struct qp_path pa = *path, pb = *path;
	int err;

	pa.sgid_index = sgid_a;
	pa.dgid = *gb;
	pa.dest_qpn = qb->qp_num;
	pb.sgid_index = sgid_b;
	pb.dgid = *ga;
	pb.dest_qpn = qa->qp_num;
	pa.sq_psn = pb.rq_psn = *psn_a = next_psn;
	pb.sq_psn = pa.rq_psn = next_psn + 0x100;
	next_psn += 0x200;
	err = qp_connect(qa, &pa);
	return err ? err : qp_connect(qb, &pb);
}

/* One SEND from qa to qb with data checked; 1 when it arrived intact. */
static int rc_send(struct side *a, struct side *b, struct ibv_qp *qa,
		   struct ibv_qp *qb, uint8_t seed)
{
	struct ibv_sge sge = { (uintptr_t)a->buf, MSG_BYTES, a->mr->lkey };
	uint8_t *rx = b->buf + 16384;
	struct ibv_wc wc;

	memset(rx, 0, MSG_BYTES);
	fill(a->buf, MSG_BYTES, seed);
	if (postr(qb, 3, rx, MSG_BYTES, b->mr->lkey) ||
	    post1(qa, 4, IBV_WR_SEND, IBV_SEND_SIGNALED, &sge, 1, 0, 0))
		return 0;
	return poll_one(a->cq, &wc) && wc.status == IBV_WC_SUCCESS &&
	       poll_one(b->cq, &wc) && wc.status == IBV_WC_SUCCESS &&
	       !memcmp(rx, a->buf, MSG_BYTES);
}

static void rc_case(struct side *a, struct side *b, const char *name,
		    int sgid_a, const union ibv_gid *ga, int sgid_b,
		    const union ibv_gid *gb, const struct av_case *c)
{
	struct ibv_qp *qa = make_qp(a, IBV_QPT_RC, a->cq, NULL, 4, 1, 0);
	struct ibv_qp *qb = make_qp(b, IBV_QPT_RC, b->cq, NULL, 4, 1, 0);
	struct qp_path path = rc_path(c);
	uint32_t psn = 0;
	int err;

	if (!qa || !qb) {
		report(0, name, "cannot create RC QPs: %s", strerror(errno));
		goto out;
	}
	err = rc_connect(qa, qb, sgid_a, ga, sgid_b, gb, &path, &psn);
	if (err) {
		report(0, name, "modify to RTR/RTS with flow_label %#x traffic_class %u hop_limit %u: %s",
		       c->flow_label, c->traffic_class, c->hop_limit,
		       strerror(err));
		goto out;
	}
	wire_line(name, qb->qp_num, psn, 0x100, is_v4(gb), c);
	report(rc_send(a, b, qa, qb, (uint8_t)psn), name,
	       "%s RC, flow_label %#x traffic_class %u hop_limit %u: SEND with data checked",
	       is_v4(gb) ? "IPv4" : "IPv6", c->flow_label, c->traffic_class,
	       c->hop_limit);
out:
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
}

static void values(struct side *a, struct side *b, int gid_a, int gid_b)
{
	union ibv_gid ga, gb, ga6, gb6;
	int ia6, ib6, fam;
	size_t i;
	char name[64];

	ibv_query_gid(a->ctx, 1, gid_a, &ga);
	ibv_query_gid(b->ctx, 1, gid_b, &gb);
	/* The IPv6 pair: global addresses of the same prefix. */
	memset(&ga6, 0, sizeof(ga6));
	ga6.raw[0] = 0xfd;
	ia6 = peer_gid(a, &ga6, &ga6);
	ib6 = ia6 >= 0 ? peer_gid(b, &ga6, &gb6) : -1;
	for (fam = 0; fam < 2; fam++) {
		int sa = fam ? ia6 : gid_a, sb = fam ? ib6 : gid_b;
		const union ibv_gid *pa = fam ? &ga6 : &ga, *pb = fam ? &gb6 : &gb;

		if (sa < 0 || sb < 0) {
			report_skip(fam ? "ipv6" : "ipv4",
				    "no RoCE v2 %s GIDs on both devices",
				    fam ? "IPv6" : "IPv4");
			continue;
		}
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			snprintf(name, sizeof(name), "ah-%s-%s",
				 fam ? "ipv6" : "ipv4", cases[i].name);
			ud_case(a, b, name, sa, pa, pb, &cases[i]);
			snprintf(name, sizeof(name), "qp-%s-%s",
				 fam ? "ipv6" : "ipv4", cases[i].name);
			rc_case(a, b, name, sa, pa, sb, pb, &cases[i]);
		}
	}
}

/* A datagram from every RoCE v2 GID index of @a with a peer on @b. */
static void gid_indices(struct side *a, struct side *b)
{
	static const struct av_case c = { "gid", 0, 0, 64 };
	int i, n = 0;

	for (i = 0; i < 64; i++) {
		union ibv_gid g, peer;
		char name[64];

		if (!roce_v2_gid(a, i, &g))
			continue;
		if (peer_gid(b, &g, &peer) < 0)
			continue;
		snprintf(name, sizeof(name), "gid-index-%d", i);
		ud_case(a, b, name, i, &g, &peer, &c);
		n++;
	}
	report(n >= 2, "gid-indices", "%d RoCE v2 GID indices of %s reached %s",
	       n, a->name, b->name);
}

/* The device's read/atomic limits, and one above them. */
static void rd_atomic(struct side *a, struct side *b, int gid_a, int gid_b)
{
	static const struct av_case c = { "rd", 0, 0, 64 };
	struct ibv_qp *qa = make_qp(a, IBV_QPT_RC, a->cq, NULL, 256, 1, 0);
	struct ibv_qp *qb = make_qp(b, IBV_QPT_RC, b->cq, NULL, 256, 1, 0);
	unsigned int init = a->attr.max_qp_init_rd_atom;
	unsigned int dest = b->attr.max_qp_rd_atom;
	struct ibv_qp_attr x = {
		.max_rd_atomic = init, .max_dest_rd_atomic = dest,
	};
	struct qp_path path = rc_path(&c);
	union ibv_gid ga, gb;
	struct ibv_wc wc;
	uint32_t psn, i, n, ok = 1;
	int err;

	ibv_query_gid(a->ctx, 1, gid_a, &ga);
	ibv_query_gid(b->ctx, 1, gid_b, &gb);
	if (!qa || !qb) {
		report(0, "rd-atomic-max", "cannot create RC QPs");
		return;
	}
	/* Both sides at their limits (the responder's from b's attributes). */
	if (dest > (unsigned int)a->attr.max_qp_rd_atom)
		x.max_dest_rd_atomic = a->attr.max_qp_rd_atom;
	path.max_rd_atomic = x.max_rd_atomic;
	path.max_dest_rd_atomic = x.max_dest_rd_atomic;
	err = rc_connect(qa, qb, gid_a, &ga, gid_b, &gb, &path, &psn);
	if (err) {
		report(0, "rd-atomic-max", "max_rd_atomic %u / max_dest_rd_atomic %u: %s",
		       init, x.max_dest_rd_atomic, strerror(err));
		goto out;
	}
	/* As many READs outstanding as the limits allow, each 64 bytes. */
	n = init < 64 ? init : 64;
	fill(b->buf, 64 * n, 0x5a);
	memset(a->buf + 32768, 0, 64 * n);
	for (i = 0; i < n; i++) {
		struct ibv_sge sge = { (uintptr_t)a->buf + 32768 + 64 * i, 64,
				       a->mr->lkey };

		if (post1(qa, 100 + i, IBV_WR_RDMA_READ, IBV_SEND_SIGNALED,
			  &sge, 1, (uintptr_t)b->buf + 64 * i, b->mr->rkey))
			ok = 0;
	}
	for (i = 0; ok && i < n; i++)
		ok = poll_one(a->cq, &wc) && wc.status == IBV_WC_SUCCESS;
	ok = ok && !memcmp(a->buf + 32768, b->buf, 64 * n);
	report(ok, "rd-atomic-max",
	       "max_rd_atomic %u, max_dest_rd_atomic %u: %u READs posted at once, data checked",
	       init, x.max_dest_rd_atomic, n);
	x.max_rd_atomic = init + 1;
	x.qp_state = IBV_QPS_RTS;
	err = ibv_modify_qp(qa, &x, IBV_QP_MAX_QP_RD_ATOMIC);
	report(err == EINVAL, "rd-atomic-above-max",
	       "max_rd_atomic %u (device limit %u): %s", init + 1, init,
	       err ? strerror(err) : "accepted");
out:
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
}

/* rc_path() with the timer and retry attributes of @x that @mask names. */
static struct qp_path timer_path(const struct av_case *c,
				 const struct ibv_qp_attr *x, int mask)
{
	struct qp_path p = rc_path(c);

	if (mask & IBV_QP_TIMEOUT)
		p.timeout = x->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		p.retry_cnt = x->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		p.rnr_retry = x->rnr_retry;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		p.min_rnr_timer = x->min_rnr_timer;
	return p;
}

/* Timer and retry attributes at their extremes, and just outside. */
static void timers(struct side *a, struct side *b, int gid_a, int gid_b)
{
	static const struct av_case c = { "timers", 0, 0, 64 };
	static const struct {
		const char *name;
		struct ibv_qp_attr x;
		int mask;
	} good[] = {
		{ "low", { .timeout = 0, .retry_cnt = 0, .rnr_retry = 0,
			   .min_rnr_timer = 0 },
		  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		  IBV_QP_MIN_RNR_TIMER },
		{ "high", { .timeout = 31, .retry_cnt = 7, .rnr_retry = 7,
			    .min_rnr_timer = 31 },
		  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		  IBV_QP_MIN_RNR_TIMER },
	}, bad[] = {
		{ "timeout-32", { .timeout = 32 }, IBV_QP_TIMEOUT },
		{ "retry-cnt-8", { .retry_cnt = 8 }, IBV_QP_RETRY_CNT },
		{ "rnr-retry-8", { .rnr_retry = 8 }, IBV_QP_RNR_RETRY },
		{ "min-rnr-timer-32", { .min_rnr_timer = 32 }, IBV_QP_MIN_RNR_TIMER },
	};
	union ibv_gid ga, gb;
	struct qp_path path;
	char name[64];
	uint32_t psn;
	size_t i;
	int err;

	ibv_query_gid(a->ctx, 1, gid_a, &ga);
	ibv_query_gid(b->ctx, 1, gid_b, &gb);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct ibv_qp *qa = make_qp(a, IBV_QPT_RC, a->cq, NULL, 4, 1, 0);
		struct ibv_qp *qb = make_qp(b, IBV_QPT_RC, b->cq, NULL, 4, 1, 0);

		snprintf(name, sizeof(name), "timers-%s", good[i].name);
		path = timer_path(&c, &good[i].x, good[i].mask);
		err = qa && qb ? rc_connect(qa, qb, gid_a, &ga, gid_b, &gb,
					    &path, &psn) :
				 ENOMEM;
		if (err)
			report(0, name, "timeout %u retry_cnt %u rnr_retry %u min_rnr_timer %u: %s",
			       good[i].x.timeout, good[i].x.retry_cnt,
			       good[i].x.rnr_retry, good[i].x.min_rnr_timer,
			       strerror(err));
		else
			report(rc_send(a, b, qa, qb, (uint8_t)i), name,
			       "timeout %u retry_cnt %u rnr_retry %u min_rnr_timer %u: connected, SEND with data checked",
			       good[i].x.timeout, good[i].x.retry_cnt,
			       good[i].x.rnr_retry, good[i].x.min_rnr_timer);
		if (qa)
			ibv_destroy_qp(qa);
		if (qb)
			ibv_destroy_qp(qb);
	}
	/* Outside IBTA's 3- and 5-bit encodings: the transition is refused. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ibv_qp *qa = make_qp(a, IBV_QPT_RC, a->cq, NULL, 4, 1, 0);
		struct ibv_qp *qb = make_qp(b, IBV_QPT_RC, b->cq, NULL, 4, 1, 0);

		snprintf(name, sizeof(name), "timers-%s", bad[i].name);
		path = timer_path(&c, &bad[i].x, bad[i].mask);
		err = qa && qb ? rc_connect(qa, qb, gid_a, &ga, gid_b, &gb,
					    &path, &psn) :
				 ENOMEM;
		report(err == EINVAL, name, "connecting with %s: %s",
		       bad[i].name, err ? strerror(err) : "accepted");
		if (qa)
			ibv_destroy_qp(qa);
		if (qb)
			ibv_destroy_qp(qb);
	}
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_device *da, *db;
	struct side a = {}, b = {};

	if (argc != 6) {
		fprintf(stderr, "usage: %s DEV GID DEV2 GID2 WIRE_FILE\n", argv[0]);
		return 2;
	}
	report_prefix("attrs/");
	if (getenv("ATTRS_HOP_LIMIT"))
		route_hop_limit = atoi(getenv("ATTRS_HOP_LIMIT"));
	wire = fopen(argv[5], "w");
	list = ibv_get_device_list(NULL);
	da = list ? find_dev(list, argv[1]) : NULL;
	db = list ? find_dev(list, argv[3]) : NULL;
	if (!wire || !da || !db || side_open(&a, da) || side_open(&b, db)) {
		fprintf(stderr, "cannot open %s and %s\n", argv[1], argv[3]);
		return 2;
	}
	values(&a, &b, atoi(argv[2]), atoi(argv[4]));
	gid_indices(&a, &b);
	rd_atomic(&a, &b, atoi(argv[2]), atoi(argv[4]));
	timers(&a, &b, atoi(argv[2]), atoi(argv[4]));
	fclose(wire);
	return report_failures() ? 1 : 0;
}
