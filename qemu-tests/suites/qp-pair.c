// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * QPs and QP pairs of the libibverbs test tools; see qp-pair.h.
 */
#include <errno.h>
#include <string.h>

#include "qp-pair.h"

struct qp_path qp_path(int sgid_index, const union ibv_gid *dgid,
		       uint32_t dest_qpn)
{
	struct qp_path p = {
		.sgid_index = sgid_index,
		.dest_qpn = dest_qpn,
		.sq_psn = 100,
		.rq_psn = 100,
		.mtu = IBV_MTU_1024,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC,
		.qkey = QKEY,
		.hop_limit = 64,
		.max_rd_atomic = 4,
		.max_dest_rd_atomic = 4,
		.min_rnr_timer = 1,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
	};

	if (dgid)
		p.dgid = *dgid;
	return p;
}

int qp_to_init(struct ibv_qp *qp, const struct qp_path *path)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = path->access,
		.qkey = path->qkey,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	mask |= qp->qp_type == IBV_QPT_UD ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS;
	return ibv_modify_qp(qp, &a, mask);
}

int qp_to_rtr(struct ibv_qp *qp, const struct qp_path *path)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = path->mtu,
		.dest_qp_num = path->dest_qpn,
		.rq_psn = path->rq_psn,
		.max_dest_rd_atomic = path->max_dest_rd_atomic,
		.min_rnr_timer = path->min_rnr_timer,
		.ah_attr = {
			.is_global = 1,
			.port_num = 1,
			.grh = {
				.dgid = path->dgid,
				.sgid_index = (uint8_t)path->sgid_index,
				.flow_label = path->flow_label,
				.traffic_class = path->traffic_class,
				.hop_limit = path->hop_limit,
			},
		},
	};
	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;

	switch (qp->qp_type) {
	case IBV_QPT_UD:
		return ibv_modify_qp(qp, &a, IBV_QP_STATE);
	case IBV_QPT_RC:
	case IBV_QPT_XRC_RECV:
		/* The responder's resources and its RNR NAK timer. */
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		break;
	default:
		break;
	}
	if (path->sgid_index < 0)
		return EADDRNOTAVAIL;
	return ibv_modify_qp(qp, &a, mask);
}

int qp_to_rts(struct ibv_qp *qp, const struct qp_path *path)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = path->sq_psn,
		.timeout = path->timeout,
		.retry_cnt = path->retry_cnt,
		.rnr_retry = path->rnr_retry,
		.max_rd_atomic = path->max_rd_atomic,
	};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	switch (qp->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_XRC_SEND:
		/* The requester's retries and its reads/atomics in flight. */
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
		break;
	case IBV_QPT_XRC_RECV:
		mask |= IBV_QP_TIMEOUT;
		break;
	default:
		break;
	}
	return ibv_modify_qp(qp, &a, mask);
}

int qp_connect(struct ibv_qp *qp, const struct qp_path *path)
{
	int err = qp_to_init(qp, path);

	if (!err)
		err = qp_to_rtr(qp, path);
	if (!err)
		err = qp_to_rts(qp, path);
	if (err)
		errno = err;	/* for the callers' strerror(errno) */
	return err;
}

int to_init(struct ibv_qp *qp)
{
	struct qp_path p = qp_path(-1, NULL, 0);

	return qp_to_init(qp, &p);
}

int connect_qp(struct ibv_qp *qp, const struct side *local,
	       const union ibv_gid *dgid, uint32_t dest_qpn)
{
	struct qp_path p = qp_path(local->gid_index, dgid, dest_qpn);

	return qp_connect(qp, &p);
}

static int to_state(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr a = { .qp_state = state };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

int to_err(struct ibv_qp *qp)
{
	return to_state(qp, IBV_QPS_ERR);
}

int to_reset(struct ibv_qp *qp)
{
	return to_state(qp, IBV_QPS_RESET);
}

/* A QP as make_qp() makes it; the granted capacities back in *@cap. */
static struct ibv_qp *qp_create(struct side *s, enum ibv_qp_type type,
				struct ibv_cq *cq, struct ibv_srq *srq,
				struct ibv_qp_cap *cap, uint64_t send_ops)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = type,
		.cap = *cap,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = s->pd,
		.send_ops_flags = send_ops,
	};
	struct ibv_qp_init_attr legacy = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.qp_type = type,
		.cap = *cap,
	};
	struct ibv_qp *qp;

	/* The extended post API only where a test asks for it. */
	if (send_ops) {
		qp = ibv_create_qp_ex(s->ctx, &a);
		*cap = a.cap;
	} else {
		qp = ibv_create_qp(s->pd, &legacy);
		*cap = legacy.cap;
	}
	return qp;
}

struct ibv_qp *make_qp(struct side *s, enum ibv_qp_type type,
		       struct ibv_cq *cq, struct ibv_srq *srq,
		       uint32_t wr, uint32_t sge, uint32_t inl)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = wr,
		.max_recv_wr = wr,
		.max_send_sge = sge,
		.max_recv_sge = sge,
		.max_inline_data = inl,
	};

	return qp_create(s, type, cq, srq, &cap, 0);
}

struct pair_spec pair_spec(enum ibv_qp_type type)
{
	struct pair_spec s = {
		.type = type,
		.cap = {
			.max_send_wr = 32,
			.max_recv_wr = 32,
			.max_send_sge = 2,
			.max_recv_sge = 2,
			.max_inline_data = 128,
		},
		.cqe = 64,
		.psn_a = 100,
		.psn_b = 100,
		.path = qp_path(-1, NULL, 0),
	};

	return s;
}

int pair_connect(struct pair *p, const struct pair_spec *spec)
{
	struct qp_path pa = spec->path, pb = spec->path;
	int err;

	pa.sgid_index = p->a->gid_index;
	pa.dgid = spec->self ? p->a->gid : p->b->gid;
	pa.dest_qpn = spec->self ? p->qa->qp_num : p->qb->qp_num;
	pa.sq_psn = spec->psn_a;
	pa.rq_psn = spec->self ? spec->psn_a : spec->psn_b;
	pb.sgid_index = p->b->gid_index;
	pb.dgid = spec->self ? p->b->gid : p->a->gid;
	pb.dest_qpn = spec->self ? p->qb->qp_num : p->qa->qp_num;
	pb.sq_psn = spec->psn_b;
	pb.rq_psn = spec->self ? spec->psn_b : spec->psn_a;
	err = qp_connect(p->qa, &pa);
	if (!err)
		err = qp_connect(p->qb, &pb);
	return err;
}

int pair_open(struct pair *p, const struct pair_spec *spec)
{
	int err;

	p->cap_a = spec->cap;
	p->cap_b = spec->cap_b.max_send_wr ? spec->cap_b : spec->cap;

	if (!p->ca)
		p->ca = ibv_create_cq(p->a->ctx, spec->cqe, NULL, NULL, 0);
	if (!p->cb)
		p->cb = spec->one_cq ? p->ca :
			ibv_create_cq(p->b->ctx, spec->cqe, NULL, NULL, 0);
	if (!p->ca || !p->cb)
		return -1;
	p->qa = qp_create(p->a, spec->type, p->ca, NULL, &p->cap_a,
			  spec->send_ops);
	p->qb = qp_create(p->b, spec->type, p->cb, spec->srq_b, &p->cap_b,
			  spec->send_ops);
	if (!p->qa || !p->qb)
		return -1;
	err = pair_connect(p, spec);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

void pair_close(struct pair *p)
{
	if (p->qa)
		ibv_destroy_qp(p->qa);
	if (p->qb)
		ibv_destroy_qp(p->qb);
	if (p->cb && p->cb != p->ca)
		ibv_destroy_cq(p->cb);
	if (p->ca)
		ibv_destroy_cq(p->ca);
	p->qa = p->qb = NULL;
	p->ca = p->cb = NULL;
}

int rc_pair(struct pair *p, struct ibv_srq *srq_b)
{
	struct pair_spec spec = pair_spec(IBV_QPT_RC);

	spec.srq_b = srq_b;
	return pair_open(p, &spec);
}
