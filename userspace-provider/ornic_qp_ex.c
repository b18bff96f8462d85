// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic provider: the ibv_wr_* send API of ibv_qp_ex.
 *
 * An opcode call opens a WQE in the QP's staging buffer, ibv_wr_set_*
 * fill it; it is placed in the ring when the next opcode call or
 * ibv_wr_complete closes it.  The first error is remembered and returned by
 * ibv_wr_complete, which then posts nothing of the batch (as if aborted).
 * The SQ lock is held from ibv_wr_start to ibv_wr_complete/abort.
 */
#include <errno.h>

#include "ornic.h"

#define ORNIC_RC_SEND_OPS \
	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
	 IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_RDMA_WRITE | \
	 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ | \
	 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
#define ORNIC_UC_SEND_OPS \
	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
	 IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
#define ORNIC_UD_SEND_OPS \
	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
/*
 * With ORNIC_CAP_MW: windows are bound and invalidated on RC and XRC send
 * queues (no ibv_wr_set_xrc_srqn() for them: a local operation names no
 * remote SRQ).
 */
#define ORNIC_RC_MW_OPS \
	(IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV)

bool ornic_qp_ex_ops_supported(uint64_t caps, enum ibv_qp_type type,
			       uint64_t flags)
{
	uint64_t ok;

	switch (type) {
	case IBV_QPT_RC:
	case IBV_QPT_XRC_SEND:	/* RC's operations, each to a remote XRC SRQ */
		ok = ORNIC_RC_SEND_OPS;
		break;
	case IBV_QPT_UC:
		ok = ORNIC_UC_SEND_OPS;
		break;
	case IBV_QPT_UD:
		ok = ORNIC_UD_SEND_OPS;
		break;
	default:
		return false;
	}
	if ((type == IBV_QPT_RC || type == IBV_QPT_XRC_SEND) &&
	    (caps & ORNIC_CAP_MW))
		ok |= ORNIC_RC_MW_OPS;
	/* IBTA 1.5 operations: RC only, and only where the device has them. */
	if (type == IBV_QPT_RC && (caps & ORNIC_CAP_FLUSH))
		ok |= IBV_QP_EX_WITH_FLUSH;
	if (type == IBV_QPT_RC && (caps & ORNIC_CAP_ATOMIC_WRITE))
		ok |= IBV_QP_EX_WITH_ATOMIC_WRITE;
	return !(flags & ~ok);
}

static void ornic_wr_error(struct ornic_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
}

/* Close the open WQE, if any, and put it in the ring. */
static void ornic_wr_close(struct ornic_qp *qp)
{
	int err;

	if (!qp->wr_open)
		return;
	qp->wr_open = false;
	if (qp->wr_err)
		return;
	err = ornic_wqe_finish(qp, &qp->wr);
	if (!err)
		err = ornic_wqe_commit(&qp->sq, &qp->wr);
	ornic_wr_error(qp, err);
}

static void ornic_wr_open(struct ornic_qp *qp, enum ibv_wr_opcode opcode)
{
	struct ibv_qp_ex *x = &qp->vqp.qp_ex;
	int err;

	ornic_wr_close(qp);
	/* With ibv_wr_*, the data setter decides whether data is inline. */
	err = ornic_wqe_start(qp, &qp->wr, opcode,
			      x->wr_flags & ~(unsigned int)IBV_SEND_INLINE,
			      x->wr_id);
	if (err) {
		ornic_wr_error(qp, err);
		return;
	}
	qp->wr_open = true;
}

static struct ornic_qp *ornic_wr_qp(struct ibv_qp_ex *x)
{
	return to_ornic_qp_ex(x);
}

static void ornic_wr_start(struct ibv_qp_ex *x)
{
	struct ornic_qp *qp = ornic_wr_qp(x);
	bool ready = ornic_sq_ready(qp);

	pthread_spin_lock(&qp->sq.lock);
	qp->wr_err = 0;
	qp->wr_open = false;
	qp->wr_start_pi = qp->sq.pi;
	if (!ready)
		qp->wr_err = EINVAL;
}

static int ornic_wr_complete(struct ibv_qp_ex *x)
{
	struct ornic_qp *qp = ornic_wr_qp(x);
	int err;

	ornic_wr_close(qp);
	err = qp->wr_err;
	if (err)
		__atomic_store_n(&qp->sq.pi, qp->wr_start_pi, __ATOMIC_RELEASE);
	else if (qp->sq.pi != qp->wr_start_pi)
		ornic_sq_doorbell(qp);
	pthread_spin_unlock(&qp->sq.lock);
	return err;
}

static void ornic_wr_abort(struct ibv_qp_ex *x)
{
	struct ornic_qp *qp = ornic_wr_qp(x);

	qp->wr_open = false;
	__atomic_store_n(&qp->sq.pi, qp->wr_start_pi, __ATOMIC_RELEASE);
	pthread_spin_unlock(&qp->sq.lock);
}

static void ornic_wr_send(struct ibv_qp_ex *x)
{
	ornic_wr_open(ornic_wr_qp(x), IBV_WR_SEND);
}

static void ornic_wr_send_imm(struct ibv_qp_ex *x, __be32 imm_data)
{
	struct ornic_qp *qp = ornic_wr_qp(x);

	ornic_wr_open(qp, IBV_WR_SEND_WITH_IMM);
	if (qp->wr_open)
		qp->wr.block[0].hdr.imm_data = imm_data;
}

static void ornic_wr_send_inv(struct ibv_qp_ex *x, uint32_t invalidate_rkey)
{
	struct ornic_qp *qp = ornic_wr_qp(x);

	ornic_wr_open(qp, IBV_WR_SEND_WITH_INV);
	if (qp->wr_open)
		qp->wr.block[0].hdr.invalidate_rkey = htole32(invalidate_rkey);
}

static void ornic_wr_rdma(struct ibv_qp_ex *x, enum ibv_wr_opcode op,
			  uint32_t rkey, uint64_t remote_addr)
{
	struct ornic_qp *qp = ornic_wr_qp(x);

	ornic_wr_open(qp, op);
	if (qp->wr_open)
		ornic_wqe_set_rdma(&qp->wr, remote_addr, rkey);
}

static void ornic_wr_rdma_write(struct ibv_qp_ex *x, uint32_t rkey,
				uint64_t remote_addr)
{
	ornic_wr_rdma(x, IBV_WR_RDMA_WRITE, rkey, remote_addr);
}

static void ornic_wr_rdma_write_imm(struct ibv_qp_ex *x, uint32_t rkey,
				    uint64_t remote_addr, __be32 imm_data)
{
	struct ornic_qp *qp = ornic_wr_qp(x);

	ornic_wr_rdma(x, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr);
	if (qp->wr_open)
		qp->wr.block[0].hdr.imm_data = imm_data;
}

static void ornic_wr_rdma_read(struct ibv_qp_ex *x, uint32_t rkey,
			       uint64_t remote_addr)
{
	ornic_wr_rdma(x, IBV_WR_RDMA_READ, rkey, remote_addr);
}

static void ornic_wr_atomic(struct ibv_qp_ex *x, enum ibv_wr_opcode op,
			    uint32_t rkey, uint64_t remote_addr,
			    uint64_t compare_add, uint64_t swap)
{
	struct ornic_qp *qp = ornic_wr_qp(x);
	int err;

	ornic_wr_open(qp, op);
	if (!qp->wr_open)
		return;
	err = ornic_wqe_set_atomic(&qp->wr, remote_addr, rkey, compare_add,
				   swap);
	if (err) {
		ornic_wr_error(qp, err);
		qp->wr_open = false;
	}
}

static void ornic_wr_atomic_cmp_swp(struct ibv_qp_ex *x, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	ornic_wr_atomic(x, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
			compare, swap);
}

static void ornic_wr_atomic_fetch_add(struct ibv_qp_ex *x, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	ornic_wr_atomic(x, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr,
			add, 0);
}

/* Local operations take no data setter: the WQE is closed at once. */
static void ornic_wr_bind_mw(struct ibv_qp_ex *x, struct ibv_mw *mw,
			     uint32_t rkey,
			     const struct ibv_mw_bind_info *bind_info)
{
	struct ornic_qp *qp = ornic_wr_qp(x);
	int err;

	ornic_wr_open(qp, IBV_WR_BIND_MW);
	if (!qp->wr_open)
		return;
	err = ornic_wqe_set_bind_mw(&qp->wr, mw, rkey, bind_info);
	if (err) {
		ornic_wr_error(qp, err);
		qp->wr_open = false;
		return;
	}
	ornic_wr_close(qp);
}

static void ornic_wr_local_inv(struct ibv_qp_ex *x, uint32_t invalidate_rkey)
{
	struct ornic_qp *qp = ornic_wr_qp(x);

	ornic_wr_open(qp, IBV_WR_LOCAL_INV);
	if (!qp->wr_open)
		return;
	ornic_wqe_set_local_inv(&qp->wr, invalidate_rkey);
	ornic_wr_close(qp);
}

/*
 * FLUSH and ATOMIC WRITE carry everything in the opcode call: the WQE is
 * closed at once, so a data setter after them is an error.
 */
static void ornic_wr_flush(struct ibv_qp_ex *x, uint32_t rkey,
			   uint64_t remote_addr, size_t length, uint8_t type,
			   uint8_t level)
{
	struct ornic_qp *qp = ornic_wr_qp(x);
	int err;

	ornic_wr_open(qp, IBV_WR_FLUSH);
	if (!qp->wr_open)
		return;
	err = ornic_wqe_set_flush(&qp->wr, remote_addr, rkey, length, type,
				  level);
	if (err) {
		ornic_wr_error(qp, err);
		qp->wr_open = false;
		return;
	}
	ornic_wr_close(qp);
}

static void ornic_wr_atomic_write(struct ibv_qp_ex *x, uint32_t rkey,
				  uint64_t remote_addr, const void *atomic_wr)
{
	struct ornic_qp *qp = ornic_wr_qp(x);

	ornic_wr_open(qp, IBV_WR_ATOMIC_WRITE);
	if (!qp->wr_open)
		return;
	if (!atomic_wr) {
		ornic_wr_error(qp, EINVAL);
		qp->wr_open = false;
		return;
	}
	ornic_wqe_set_atomic_write(&qp->wr, remote_addr, rkey, atomic_wr);
	ornic_wr_close(qp);
}

/* Setters on no open WQE are an application error, reported at complete. */
static bool ornic_wr_check_open(struct ornic_qp *qp)
{
	if (qp->wr_open)
		return true;
	ornic_wr_error(qp, EINVAL);
	return false;
}

static void ornic_wr_set_ud_addr(struct ibv_qp_ex *x, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct ornic_qp *qp = ornic_wr_qp(x);

	if (ornic_wr_check_open(qp))
		ornic_wr_error(qp, ornic_wqe_set_ud(qp, &qp->wr, ah,
						    remote_qpn, remote_qkey));
}

static void ornic_wr_set_xrc_srqn(struct ibv_qp_ex *x, uint32_t remote_srqn)
{
	struct ornic_qp *qp = ornic_wr_qp(x);

	if (ornic_wr_check_open(qp))
		ornic_wr_error(qp, ornic_wqe_set_xrc_srqn(qp, &qp->wr,
							  remote_srqn));
}

static void ornic_wr_set_sge(struct ibv_qp_ex *x, uint32_t lkey,
			     uint64_t addr, uint32_t length)
{
	struct ornic_qp *qp = ornic_wr_qp(x);

	if (!ornic_wr_check_open(qp))
		return;
	ornic_wr_error(qp, ornic_wqe_add_sge(qp, &qp->wr, lkey, addr, length));
	ornic_wr_close(qp);
}

static void ornic_wr_set_sge_list(struct ibv_qp_ex *x, size_t num_sge,
				  const struct ibv_sge *sg_list)
{
	struct ornic_qp *qp = ornic_wr_qp(x);
	size_t i;

	if (!ornic_wr_check_open(qp))
		return;
	if (num_sge && !sg_list)
		ornic_wr_error(qp, EINVAL);
	for (i = 0; i < num_sge && !qp->wr_err; i++)
		ornic_wr_error(qp, ornic_wqe_add_sge(qp, &qp->wr,
						     sg_list[i].lkey,
						     sg_list[i].addr,
						     sg_list[i].length));
	ornic_wr_close(qp);
}

static void ornic_wr_set_inline_data(struct ibv_qp_ex *x, void *addr,
				     size_t length)
{
	struct ornic_qp *qp = ornic_wr_qp(x);

	if (!ornic_wr_check_open(qp))
		return;
	qp->wr.block[0].hdr.flags |= ORNIC_WQE_FLAG_INLINE;
	ornic_wr_error(qp, ornic_wqe_add_inline(qp, &qp->wr, addr, length));
	ornic_wr_close(qp);
}

static void ornic_wr_set_inline_data_list(struct ibv_qp_ex *x, size_t num_buf,
					  const struct ibv_data_buf *buf_list)
{
	struct ornic_qp *qp = ornic_wr_qp(x);
	size_t i;

	if (!ornic_wr_check_open(qp))
		return;
	qp->wr.block[0].hdr.flags |= ORNIC_WQE_FLAG_INLINE;
	if (num_buf && !buf_list)
		ornic_wr_error(qp, EINVAL);
	for (i = 0; i < num_buf && !qp->wr_err; i++)
		ornic_wr_error(qp, ornic_wqe_add_inline(qp, &qp->wr,
							buf_list[i].addr,
							buf_list[i].length));
	ornic_wr_close(qp);
}

void ornic_qp_ex_init(struct ornic_qp *qp, uint64_t ops)
{
	struct ibv_qp_ex *x = &qp->vqp.qp_ex;

	qp->vqp.comp_mask |= VERBS_QP_EX;
	x->wr_start = ornic_wr_start;
	x->wr_complete = ornic_wr_complete;
	x->wr_abort = ornic_wr_abort;
	if (ops & IBV_QP_EX_WITH_SEND)
		x->wr_send = ornic_wr_send;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_IMM)
		x->wr_send_imm = ornic_wr_send_imm;
	if (ops & IBV_QP_EX_WITH_SEND_WITH_INV)
		x->wr_send_inv = ornic_wr_send_inv;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE)
		x->wr_rdma_write = ornic_wr_rdma_write;
	if (ops & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		x->wr_rdma_write_imm = ornic_wr_rdma_write_imm;
	if (ops & IBV_QP_EX_WITH_RDMA_READ)
		x->wr_rdma_read = ornic_wr_rdma_read;
	if (ops & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		x->wr_atomic_cmp_swp = ornic_wr_atomic_cmp_swp;
	if (ops & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		x->wr_atomic_fetch_add = ornic_wr_atomic_fetch_add;
	if (ops & IBV_QP_EX_WITH_BIND_MW)
		x->wr_bind_mw = ornic_wr_bind_mw;
	if (ops & IBV_QP_EX_WITH_LOCAL_INV)
		x->wr_local_inv = ornic_wr_local_inv;
	if (ops & IBV_QP_EX_WITH_FLUSH)
		x->wr_flush = ornic_wr_flush;
	if (ops & IBV_QP_EX_WITH_ATOMIC_WRITE)
		x->wr_atomic_write = ornic_wr_atomic_write;
	if (qp->type == IBV_QPT_UD)
		x->wr_set_ud_addr = ornic_wr_set_ud_addr;
	if (qp->type == IBV_QPT_XRC_SEND)
		x->wr_set_xrc_srqn = ornic_wr_set_xrc_srqn;
	x->wr_set_sge = ornic_wr_set_sge;
	x->wr_set_sge_list = ornic_wr_set_sge_list;
	x->wr_set_inline_data = ornic_wr_set_inline_data;
	x->wr_set_inline_data_list = ornic_wr_set_inline_data_list;
}
