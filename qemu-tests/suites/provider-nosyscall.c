// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * provider-nosyscall IBDEV: the provider's post and poll paths make no
 * system call.
 *
 * A child process sets up a context, a CQ and two RC QPs looped back to
 * each other on IBDEV (the peer never posts a receive, so sends wait), then
 * runs two measured regions, each between two getppid() markers:
 *   1. ibv_post_send (single and a list of 4), ibv_post_recv, the ibv_wr_*
 *      API, ibv_req_notify_cq, ibv_poll_cq and ibv_start_poll on an empty
 *      CQ;
 *   2. after the QP was moved to ERR (outside the regions), ibv_poll_cq and
 *      ibv_start_poll/next_poll/end_poll until every flushed WQE is seen;
 *   3. a control region with one getpid(), which the tracer must count.
 * The parent traces the child with PTRACE_SYSCALL and counts the system
 * calls inside the regions.  Prints one "PASS|FAIL: name details" line per
 * check (test-report.h); exit status 0 when all passed.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "qp-pair.h"

#define SPINS		20000000L
#define FLUSHED		11	/* 1 + 4 + 2 sends, 4 receives */

/* Child exit codes, so the parent can say what went wrong. */
enum {
	CHILD_OK = 0,
	CHILD_SETUP = 10,
	CHILD_POST = 11,
	CHILD_FLUSH = 12,
};

static void marker(void)
{
	syscall(SYS_getppid);
}

/* X and Y looped back to each other on GID 0, PSNs 0, one read in flight. */
static int loop_connect(struct ibv_qp *qp, union ibv_gid *gid, uint32_t dest)
{
	struct qp_path path = qp_path(0, gid, dest);

	path.sq_psn = 0;
	path.rq_psn = 0;
	path.access = IBV_ACCESS_REMOTE_WRITE;
	path.max_rd_atomic = 1;
	path.max_dest_rd_atomic = 1;
	return qp_connect(qp, &path);
}

static int child(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_cq_init_attr_ex ca = { .cqe = 64 };
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
		.cap = { .max_send_wr = 16, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_poll_cq_attr pa = {};
	struct ibv_context *ctx = NULL;
	struct ibv_send_wr wr[4], *bad;
	struct ibv_recv_wr rwr[4], *rbad;
	struct ibv_qp *x, *y;
	struct ibv_qp_attr err_attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp_ex *xx;
	struct ibv_cq_ex *cq;
	struct ibv_sge sge;
	struct ibv_wc wc[8];
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	union ibv_gid gid;
	static char buf[4096];
	long spins;
	int i, n, seen = 0, rc = 0;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx || ibv_query_gid(ctx, 1, 0, &gid))
		return CHILD_SETUP;
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) :
		  NULL;
	cq = ibv_create_cq_ex(ctx, &ca);
	if (!mr || !cq)
		return CHILD_SETUP;
	qa.pd = pd;
	qa.send_cq = ibv_cq_ex_to_cq(cq);
	qa.recv_cq = ibv_cq_ex_to_cq(cq);
	x = ibv_create_qp_ex(ctx, &qa);
	y = ibv_create_qp_ex(ctx, &qa);
	if (!x || !y || loop_connect(x, &gid, y->qp_num) ||
	    loop_connect(y, &gid, x->qp_num))
		return CHILD_SETUP;
	xx = ibv_qp_to_qp_ex(x);
	sge = (struct ibv_sge){ (uintptr_t)buf, 8, mr->lkey };
	memset(wr, 0, sizeof(wr));
	memset(rwr, 0, sizeof(rwr));
	for (i = 0; i < 4; i++) {
		wr[i].wr_id = i;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].next = i < 3 ? &wr[i + 1] : NULL;
		rwr[i].wr_id = 100 + i;
		rwr[i].sg_list = &sge;
		rwr[i].num_sge = 1;
		rwr[i].next = i < 3 ? &rwr[i + 1] : NULL;
	}

	marker();
	wr[3].next = NULL;
	if (ibv_post_send(x, &wr[3], &bad) || ibv_post_send(x, wr, &bad) ||
	    ibv_post_recv(x, rwr, &rbad))
		rc = CHILD_POST;
	ibv_wr_start(xx);
	for (i = 0; i < 2; i++) {
		xx->wr_id = 50 + i;
		xx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(xx);
		ibv_wr_set_sge(xx, mr->lkey, (uintptr_t)buf, 8);
	}
	if (ibv_wr_complete(xx) || ibv_req_notify_cq(ibv_cq_ex_to_cq(cq), 0))
		rc = CHILD_POST;
	n = ibv_poll_cq(ibv_cq_ex_to_cq(cq), 8, wc);
	seen += n > 0 ? n : 0;
	if (!ibv_start_poll(cq, &pa)) {
		seen++;
		ibv_end_poll(cq);
	}
	marker();

	if (rc || ibv_modify_qp(x, &err_attr, IBV_QP_STATE))
		return rc ? rc : CHILD_SETUP;

	marker();
	for (spins = 0; seen < FLUSHED && spins < SPINS; spins++) {
		n = ibv_poll_cq(ibv_cq_ex_to_cq(cq), 2, wc);
		seen += n > 0 ? n : 0;
		if (seen < FLUSHED && !ibv_start_poll(cq, &pa)) {
			do
				seen++;
			while (seen < FLUSHED && !ibv_next_poll(cq));
			ibv_end_poll(cq);
		}
	}
	marker();

	/* Control region: the tracer must count exactly this one call. */
	marker();
	syscall(SYS_getpid);
	marker();
	return seen == FLUSHED ? CHILD_OK : CHILD_FLUSH;
}

#ifdef __x86_64__
/*
 * Count the system calls between marker pairs: region 0 and 1 are the
 * provider's, region 2 the control.
 */
static int trace(pid_t pid, long inside[3], long *first_nr)
{
	struct user_regs_struct regs;
	int status, in_call = 0, markers = 0;

	inside[0] = inside[1] = inside[2] = 0;
	*first_nr = -1;
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		return -1;
	if (ptrace(PTRACE_SETOPTIONS, pid, 0,
		   PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL))
		return -1;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, 0, 0))
			return -1;
		if (waitpid(pid, &status, 0) != pid)
			return -1;
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		if (WIFSIGNALED(status))
			return 128 + WTERMSIG(status);
		if (!WIFSTOPPED(status) || WSTOPSIG(status) != (SIGTRAP | 0x80))
			continue;	/* a signal stop: resume without it */
		in_call = !in_call;
		if (!in_call)
			continue;	/* syscall exit */
		if (ptrace(PTRACE_GETREGS, pid, 0, &regs))
			return -1;
		if (regs.orig_rax == SYS_getppid) {
			markers++;
			continue;
		}
		if (markers % 2 && markers / 2 < 3) {
			if (markers / 2 < 2 && *first_nr < 0)
				*first_nr = regs.orig_rax;
			inside[markers / 2]++;
		}
	}
}
#endif

int main(int argc, char **argv)
{
#ifdef __x86_64__
	long inside[3], first_nr;
	pid_t pid;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s IBDEV\n", argv[0]);
		return 2;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		report(0, "no-syscall", "fork: %s", strerror(errno));
		return 1;
	}
	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(CHILD_SETUP);
		raise(SIGSTOP);
		_exit(child(argv[1]));
	}
	rc = trace(pid, inside, &first_nr);
	report(rc == CHILD_OK, "no-syscall-run",
	       "traced child: %s (exit %d)",
	       rc == CHILD_OK ? "posts accepted, 11 flushed WQEs polled" :
	       rc == CHILD_SETUP ? "setup failed" :
	       rc == CHILD_POST ? "a post failed" :
	       rc == CHILD_FLUSH ? "flushed WQEs not all polled" : "died",
	       rc);
	report(rc == CHILD_OK && inside[2] == 1, "no-syscall-control",
	       "the tracer counted %ld system call(s) in the control region (want 1)",
	       inside[2]);
	if (inside[0] + inside[1])
		report(0, "no-syscall",
		       "%ld system calls while posting, %ld while polling; first: syscall %ld",
		       inside[0], inside[1], first_nr);
	else
		report(rc == CHILD_OK, "no-syscall",
		       "0 system calls in post_send/post_recv/wr_*/req_notify_cq and in poll_cq/start_poll/next_poll");
	return report_failures() ? 1 : 0;
#else
	report_skip("no-syscall", "only written for x86_64 (%s)",
		    argc > 1 ? argv[1] : "");
	return 0;
#endif
}
