// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs-import DEV GID DEV2 GID2: sharing a context between processes
 * (ibv_import_device(3), ibv_import_pd, ibv_import_mr).  The parent opens
 * DEV, allocates a PD and registers a buffer; a child process (fork) imports
 * the context through the inherited command fd, the PD and the MR by their
 * handles, builds its own CQ and RC QP on them and RDMA-WRITEs the buffer
 * to a QP of the parent on DEV2; the data must arrive intact, and the MR's
 * keys and length must be the parent's.  A PD handle that is not one fails the import with an
 * errno, and after the child unimported everything the parent's objects
 * still work.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "qp-pair.h"

#define LEN	8192

/* In shared memory: the child's verdicts for the parent to report. */
struct verdicts {
	int ctx, pd, mr, bad_pd, write;
	char why[5][160];
};

/*
 * The child: imports and writes, through its own QP, the owner's buffer to
 * the peer's QP @qb, which the parent connects once the child's QPN
 * arrives on @to_parent; the parent checks the data (the buffers are the
 * parent's pinned pages, the child only sees copies of them).
 */
static void child(struct side *owner, struct side *peer, struct ibv_qp *qb,
		  struct verdicts *v, int to_parent, int from_parent)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd, *bad;
	struct ibv_mr *mr = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_sge sge;
	struct ibv_wc wc = {};
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	uint32_t qpn = 0;
	char go;

	ctx = ibv_import_device(owner->ctx->cmd_fd);
	v->ctx = ctx != NULL;
	snprintf(v->why[0], sizeof(v->why[0]), "%s",
		 ctx ? "imported" : strerror(errno));
	if (!ctx)
		goto out;
	pd = ibv_import_pd(ctx, owner->pd->handle);
	v->pd = pd && pd->handle == owner->pd->handle;
	snprintf(v->why[1], sizeof(v->why[1]), "%s",
		 pd ? "imported" : strerror(errno));
	errno = 0;
	bad = ibv_import_pd(ctx, owner->pd->handle + 1000);
	v->bad_pd = !bad && errno;
	snprintf(v->why[3], sizeof(v->why[3]), "%s",
		 bad ? "imported!" : strerror(errno));
	if (bad)
		ibv_unimport_pd(bad);
	if (!pd)
		goto out_ctx;
	mr = ibv_import_mr(pd, owner->mr->handle);
	v->mr = mr && mr->lkey == owner->mr->lkey &&
		mr->rkey == owner->mr->rkey && mr->length == owner->mr->length;
	snprintf(v->why[2], sizeof(v->why[2]), "%s",
		 mr ? "keys and length as the owner's" : strerror(errno));
	if (!mr)
		goto out_pd;

	/* The child's own CQ and QP on the imported context and PD. */
	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	ia.send_cq = ia.recv_cq = cq;
	qp = cq ? ibv_create_qp(pd, &ia) : NULL;
	if (!qp || connect_qp(qp, owner, &peer->gid, qb->qp_num)) {
		snprintf(v->why[4], sizeof(v->why[4]), "QP setup: %s",
			 strerror(errno));
		goto out_qp;
	}
	qpn = qp->qp_num;
	if (write(to_parent, &qpn, sizeof(qpn)) != sizeof(qpn) ||
	    read(from_parent, &go, 1) != 1)
		goto out_qp;
	sge = (struct ibv_sge){ (uintptr_t)owner->buf, LEN, mr->lkey };
	v->write = !post1(qp, 7, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sge, 1,
			  (uintptr_t)peer->buf, peer->mr->rkey) &&
		   poll_one(cq, &wc) && wc.status == IBV_WC_SUCCESS;
	snprintf(v->why[4], sizeof(v->why[4]), "RDMA WRITE of 8 KiB through the imported MR: %s",
		 ibv_wc_status_str(wc.status));
out_qp:
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	ibv_unimport_mr(mr);
out_pd:
	ibv_unimport_pd(pd);
out_ctx:
	ibv_close_device(ctx);
out:
	if (!qpn && write(to_parent, &qpn, sizeof(qpn)) < 0)
		v->write = 0;
}

int main(int argc, char **argv)
{
	struct side a = {}, b = {};
	struct pair p = { .a = &a, .b = &b };
	struct pair_spec spec = pair_spec(IBV_QPT_RC);
	struct verdicts *v;
	struct ibv_qp *qb;
	struct ibv_sge sge;
	struct ibv_wc wc;
	int status = 0, ok, up[2], down[2];
	uint32_t qpn = 0;
	pid_t pid;

	if (argc < 5) {
		fprintf(stderr, "usage: %s DEV GID DEV2 GID2\n", argv[0]);
		return 2;
	}
	report_prefix("import/");
	if (sides_open(&a, &b, argv))
		return 2;
	v = mmap(NULL, sizeof(*v), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (v == MAP_FAILED)
		return 2;
	memset(v, 0, sizeof(*v));

	/* The peer's QP is the parent's, so is the data both ends hold. */
	fill(a.buf, LEN, 0x6b);
	memset(b.buf, 0, LEN);
	qb = make_qp(&b, IBV_QPT_RC, b.cq, NULL, 4, 1, 0);
	if (!qb || pipe(up) || pipe(down))
		return 2;
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid) {
		child(&a, &b, qb, v, up[1], down[0]);
		_exit(0);
	}
	if (read(up[0], &qpn, sizeof(qpn)) == sizeof(qpn) && qpn &&
	    !connect_qp(qb, &b, &a.gid, qpn) && write(down[1], "g", 1) == 1)
		waitpid(pid, &status, 0);
	else
		kill(pid, SIGKILL), waitpid(pid, &status, 0);
	ibv_destroy_qp(qb);
	if (!v->ctx && strstr(v->why[0], "not supported")) {
		report_skip("context", "ibv_import_device: %s", v->why[0]);
		return 0;
	}
	report(v->ctx, "context", "ibv_import_device in a child: %s",
	       v->why[0]);
	report(v->pd, "pd", "ibv_import_pd(owner's handle): %s", v->why[1]);
	report(v->bad_pd, "pd-bad-handle",
	       "ibv_import_pd(a handle that is none): %s", v->why[3]);
	report(v->mr, "mr", "ibv_import_mr: %s", v->why[2]);
	report(v->write && !memcmp(a.buf, b.buf, LEN), "write",
	       "%s, data %s", v->why[4],
	       memcmp(a.buf, b.buf, LEN) ? "differs" : "checked");
	report(WIFEXITED(status) && !WEXITSTATUS(status), "child-exit",
	       "child status %#x", status);

	/* The owner's PD and MR still serve the owner after the unimports. */
	p.ca = a.cq;
	p.cb = b.cq;
	spec.cap = (struct ibv_qp_cap){ 4, 4, 1, 1, 0 };
	ok = !pair_open(&p, &spec);
	fill(a.buf, LEN, 0x2d);
	memset(b.buf, 0, LEN);
	sge = (struct ibv_sge){ (uintptr_t)a.buf, LEN, a.mr->lkey };
	ok = ok && !post1(p.qa, 8, IBV_WR_RDMA_WRITE, IBV_SEND_SIGNALED, &sge, 1,
			  (uintptr_t)b.buf, b.mr->rkey) &&
	     poll_one(a.cq, &wc) && wc.status == IBV_WC_SUCCESS &&
	     !memcmp(a.buf, b.buf, LEN);
	report(ok, "owner-after",
	       "the owner's PD and MR after the child unimported them: RDMA WRITE with data checked");
	p.ca = p.cb = NULL;	/* the sides' */
	pair_close(&p);
	side_close(&b);
	side_close(&a);
	return report_failures() ? 1 : 0;
}
