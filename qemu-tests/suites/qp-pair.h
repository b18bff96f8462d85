/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * QPs of the libibverbs test tools: creation, the walk to RTS with the
 * address and transport attributes of each QP type, and QP pairs (two QPs
 * with their CQs, connected to each other or each to itself) with their
 * teardown.
 */
#ifndef QP_PAIR_H
#define QP_PAIR_H

#include "test-fixture.h"

/*
 * What RESET -> INIT -> RTR -> RTS sets.  qp_path() gives the values every
 * test uses unless it tests one of them.  Each QP type is given what IB
 * requires of it and no more: RC everything, UC the path and the PSNs, UD
 * its Q_Key and send PSN, an XRC initiator the requester's part, an XRC
 * target the responder's.
 */
struct qp_path {
	union ibv_gid dgid;
	int sgid_index;		/* -1: no GID, the walk fails (EADDRNOTAVAIL) */
	uint32_t dest_qpn;
	uint32_t sq_psn, rq_psn;
	enum ibv_mtu mtu;
	unsigned int access;	/* qp_access_flags at INIT (not UD) */
	uint32_t qkey;		/* UD */
	uint32_t flow_label;
	uint8_t traffic_class, hop_limit;
	uint8_t max_rd_atomic, max_dest_rd_atomic;
	uint8_t min_rnr_timer, timeout, retry_cnt, rnr_retry;
};

/*
 * Towards (@dgid, @dest_qpn) from GID @sgid_index (@dgid NULL: none, UD):
 * PSNs 100, MTU 1024, every remote access, Q_Key QKEY, hop limit 64,
 * 4 reads/atomics each way, RNR timer 1, timeout 14, 7 retries and RNR
 * retries.
 */
struct qp_path qp_path(int sgid_index, const union ibv_gid *dgid,
		       uint32_t dest_qpn);
/* One step of the walk; each returns 0 or ibv_modify_qp()'s error. */
int qp_to_init(struct ibv_qp *qp, const struct qp_path *path);
int qp_to_rtr(struct ibv_qp *qp, const struct qp_path *path);
int qp_to_rts(struct ibv_qp *qp, const struct qp_path *path);
/* The whole walk from RESET. */
int qp_connect(struct ibv_qp *qp, const struct qp_path *path);
/* RESET -> INIT with qp_path()'s access flags and Q_Key. */
int to_init(struct ibv_qp *qp);
/* qp_connect() with qp_path(@local's GID, @dgid, @dest_qpn). */
int connect_qp(struct ibv_qp *qp, const struct side *local,
	       const union ibv_gid *dgid, uint32_t dest_qpn);
int to_err(struct ibv_qp *qp);
int to_reset(struct ibv_qp *qp);

/* A QP of @type on @s's PD, both queues on @cq, @wr WRs and @sge SGEs each way. */
struct ibv_qp *make_qp(struct side *s, enum ibv_qp_type type,
		       struct ibv_cq *cq, struct ibv_srq *srq,
		       uint32_t wr, uint32_t sge, uint32_t inl);

/* Two QPs with a CQ each: completions of one QP arrive in order. */
struct pair {
	const char *tag;
	struct side *a, *b;
	struct ibv_cq *ca, *cb;
	struct ibv_qp *qa, *qb;
	struct ibv_qp_cap cap_a, cap_b;	/* what pair_open() was granted */
};

/* How pair_open() makes a pair; pair_spec() gives the defaults. */
struct pair_spec {
	enum ibv_qp_type type;
	struct ibv_qp_cap cap;
	struct ibv_qp_cap cap_b;	/* b's QP when max_send_wr != 0, else cap */
	int cqe;			/* entries of each CQ the pair creates */
	int one_cq;			/* b's QP on the CQ of a's */
	int self;			/* each QP connected to itself */
	uint64_t send_ops;		/* non-zero: ibv_create_qp_ex() with these */
	struct ibv_srq *srq_b;		/* b's QP receives from it */
	uint32_t psn_a, psn_b;		/* the first PSN a sends (b expects); b's */
	struct qp_path path;		/* all but the addresses and PSNs */
};

/*
 * @type QPs of 32 WRs and 2 SGEs each way and 128 bytes inline, 64-entry
 * CQs, connected to each other with qp_path()'s attributes.
 */
struct pair_spec pair_spec(enum ibv_qp_type type);
/*
 * Creates @p's CQs (unless the caller set them) and QPs on @p->a and @p->b
 * and connects them.  -1 with errno set when something failed; what was
 * made stays in @p for pair_close().
 */
int pair_open(struct pair *p, const struct pair_spec *spec);
/* The walk to RTS of both QPs of @p, addressed as @spec says. */
int pair_connect(struct pair *p, const struct pair_spec *spec);
/* Destroys the QPs and CQs in @p (clear a CQ that is not the pair's). */
void pair_close(struct pair *p);
/* pair_open() with pair_spec(IBV_QPT_RC), b's QP on @srq_b. */
int rc_pair(struct pair *p, struct ibv_srq *srq_b);

#endif /* QP_PAIR_H */
