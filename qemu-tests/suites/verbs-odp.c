// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs-odp DEV GID DEV2 GID2: on-demand paging (IBV_ACCESS_ON_DEMAND) end
 * to end between two devices.  Both sides register anonymous mmap()ed
 * buffers whose pages were never touched as ODP MRs, so every first access
 * of the device is a page fault, and then:
 *
 *   - RDMA WRITE, RDMA READ, SEND/RECV and fetch-and-add between the ODP
 *     buffers, data checked byte for byte;
 *   - madvise(MADV_DONTNEED) and munmap()+mmap(MAP_FIXED) of part of a
 *     buffer: the pages are invalidated, the next access faults the new
 *     pages in and the data lands there (not in the freed pages), the rest
 *     of the buffer is untouched;
 *   - fork(): the child scribbles over its copy-on-write copy, the parent's
 *     buffer stays intact and a WRITE after the fork lands in the parent;
 *   - an unmapped hole in an ODP MR: a WRITE into it fails with a remote
 *     access error and touches nothing, while another QP keeps working;
 *   - ibv_advise_mr prefetch (SKIP where the provider has none) and its
 *     refusal of a non-ODP MR;
 *   - ornic's hw_counters show the faults and invalidations.
 *
 * Prints "PASS|FAIL|SKIP: odp/<check> details" lines; exits 0 unless it
 * could not run at all.  A device without ODP gets SKIP lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qp-pair.h"

#define PAGE		4096u
#define NPAGES		16u
#define ODP_BYTES	(NPAGES * PAGE)

struct odp {
	uint8_t *buf;		/* mmap()ed, never touched before registration */
	struct ibv_mr *mr;
};

static const unsigned int odp_access = IBV_ACCESS_LOCAL_WRITE |
	IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
	IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_ON_DEMAND;

static int odp_reg(struct side *s, struct odp *o)
{
	o->buf = mmap(NULL, ODP_BYTES, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (o->buf == MAP_FAILED) {
		o->buf = NULL;
		return -1;
	}
	o->mr = ibv_reg_mr(s->pd, o->buf, ODP_BYTES, odp_access);
	return o->mr ? 0 : -1;
}

static void odp_free(struct odp *o)
{
	if (o->mr)
		ibv_dereg_mr(o->mr);
	if (o->buf)
		munmap(o->buf, ODP_BYTES);
}

/* One completion within POLL_MS; 0 when none came. */
static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	return poll_one(cq, wc);
}

/* Posts one signaled WR on the pair's A side and waits for its completion. */
static int run_op(struct pair *p, uint64_t id, enum ibv_wr_opcode op,
		  void *laddr, uint32_t len, uint32_t lkey, uint64_t raddr,
		  uint32_t rkey, struct ibv_wc *wc)
{
	struct ibv_sge sge = { .addr = (uintptr_t)laddr, .length = len,
			       .lkey = lkey };
	struct ibv_send_wr wr = { .wr_id = id, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED,
				  .sg_list = &sge, .num_sge = 1 }, *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 0x10001;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (ibv_post_send(p->qa, &wr, &bad))
		return -1;
	if (!wait_wc(p->ca, wc))
		return -1;
	return wc->status == IBV_WC_SUCCESS && wc->wr_id == id ? 0 : -1;
}

static const char *wc_str(const struct ibv_wc *wc)
{
	static char s[96];

	snprintf(s, sizeof(s), "status %s wr_id %llu byte_len %u",
		 ibv_wc_status_str(wc->status), (unsigned long long)wc->wr_id,
		 wc->byte_len);
	return s;
}

static long long faults(const char *dev)
{
	long long r = hw_counter(dev, "odp_req_faults");
	long long s = hw_counter(dev, "odp_resp_faults");

	return r < 0 || s < 0 ? -1 : r + s;
}

/* WRITE, READ, SEND/RECV and fetch-and-add between two ODP buffers. */
static void traffic(struct pair *p, struct odp *oa, struct odp *ob)
{
	struct ibv_wc wc;
	uint64_t v;
	int ok;

	/* WRITE: 3 pages from page 1 + 100 of A to page 2 + 50 of B. */
	fill(oa->buf + PAGE + 100, 3 * PAGE, 11);
	ok = !run_op(p, 1, IBV_WR_RDMA_WRITE, oa->buf + PAGE + 100, 3 * PAGE,
		     oa->mr->lkey, (uintptr_t)ob->buf + 2 * PAGE + 50,
		     ob->mr->rkey, &wc);
	report(ok && !memcmp(ob->buf + 2 * PAGE + 50, oa->buf + PAGE + 100,
			     3 * PAGE), "write",
	       "12 KiB WRITE between never-touched ODP pages: %s, data %s",
	       wc_str(&wc), ok && !memcmp(ob->buf + 2 * PAGE + 50,
					  oa->buf + PAGE + 100, 3 * PAGE) ?
	       "equal" : "DIFFERS");

	/* READ: B's pages 8..9 (written by the CPU) into A's pages 6..7. */
	fill(ob->buf + 8 * PAGE, 2 * PAGE, 23);
	ok = !run_op(p, 2, IBV_WR_RDMA_READ, oa->buf + 6 * PAGE, 2 * PAGE,
		     oa->mr->lkey, (uintptr_t)ob->buf + 8 * PAGE, ob->mr->rkey,
		     &wc) && wc.byte_len == 2 * PAGE;
	ok = ok && !memcmp(oa->buf + 6 * PAGE, ob->buf + 8 * PAGE, 2 * PAGE);
	report(ok, "read", "8 KiB READ from ODP into ODP: %s, data %s",
	       wc_str(&wc), ok ? "equal" : "DIFFERS or failed");

	/* SEND into a receive buffer of B's ODP pages 11..12. */
	if (postr(p->qb, 30, ob->buf + 11 * PAGE + 8, 5000, ob->mr->lkey)) {
		report(0, "send", "post_recv: %s", strerror(errno));
	} else {
		fill(oa->buf + 9 * PAGE, 5000, 37);
		ok = !run_op(p, 3, IBV_WR_SEND, oa->buf + 9 * PAGE, 5000,
			     oa->mr->lkey, 0, 0, &wc);
		ok = ok && wait_wc(p->cb, &wc) && wc.status == IBV_WC_SUCCESS &&
		     wc.wr_id == 30 && wc.byte_len == 5000 &&
		     wc.opcode == IBV_WC_RECV;
		ok = ok && !memcmp(ob->buf + 11 * PAGE + 8, oa->buf + 9 * PAGE,
				   5000);
		report(ok, "send", "5000-byte SEND from ODP into an ODP receive buffer: receive %s, data %s",
		       wc_str(&wc), ok ? "equal" : "DIFFERS or failed");
	}

	/* Fetch-and-add on B's page 14, the original into A's page 14. */
	v = 0x1000000000ull;
	memcpy(ob->buf + 14 * PAGE, &v, 8);
	ok = !run_op(p, 4, IBV_WR_ATOMIC_FETCH_AND_ADD, oa->buf + 14 * PAGE, 8,
		     oa->mr->lkey, (uintptr_t)ob->buf + 14 * PAGE,
		     ob->mr->rkey, &wc);
	memcpy(&v, ob->buf + 14 * PAGE, 8);
	ok = ok && v == 0x1000010001ull;
	memcpy(&v, oa->buf + 14 * PAGE, 8);
	ok = ok && v == 0x1000000000ull;
	report(ok, "atomic", "fetch-and-add on ODP memory, result into ODP memory: %s",
	       ok ? "target and original right" : wc_str(&wc));
}

/*
 * The pages behind [page, page + n) of B go away (MADV_DONTNEED or a new
 * mapping); a WRITE then must fault the new pages in and land there, and
 * the pages around them keep their data.
 */
static void refault(struct pair *p, struct odp *oa, struct odp *ob,
		    const char *check, int remap)
{
	uint8_t *hole = ob->buf + 4 * PAGE;
	static uint8_t before[ODP_BYTES];
	struct ibv_wc wc;
	int ok, around;

	fill(ob->buf, ODP_BYTES, 51);
	memcpy(before, ob->buf, ODP_BYTES);
	if (remap) {
		if (munmap(hole, 2 * PAGE) ||
		    mmap(hole, 2 * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
		    hole) {
			report(0, check, "munmap/mmap: %s", strerror(errno));
			return;
		}
	} else if (madvise(hole, 2 * PAGE, MADV_DONTNEED)) {
		report(0, check, "madvise: %s", strerror(errno));
		return;
	}
	/* Fresh anonymous pages read as zero: the old data is gone. */
	if (hole[0] || hole[2 * PAGE - 1]) {
		report(0, check, "the pages kept their data after %s",
		       remap ? "munmap" : "MADV_DONTNEED");
		return;
	}
	/* A's source goes the same way: what is sent is its new content. */
	if (madvise(oa->buf, 4 * PAGE, MADV_DONTNEED)) {
		report(0, check, "madvise (A): %s", strerror(errno));
		return;
	}
	fill(oa->buf, 2 * PAGE, remap ? 71 : 61);
	ok = !run_op(p, 10 + remap, IBV_WR_RDMA_WRITE, oa->buf, 2 * PAGE,
		     oa->mr->lkey, (uintptr_t)hole, ob->mr->rkey, &wc);
	ok = ok && !memcmp(hole, oa->buf, 2 * PAGE);
	around = !memcmp(ob->buf, before, 4 * PAGE) &&
		 !memcmp(ob->buf + 6 * PAGE, before + 6 * PAGE, 10 * PAGE);
	report(ok && around, check,
	       "8 KiB WRITE after %s of 2 pages: %s, data %s, neighbouring pages %s",
	       remap ? "munmap+mmap" : "MADV_DONTNEED", wc_str(&wc),
	       ok ? "in the new pages" : "MISSING", around ? "untouched" :
	       "CHANGED");
}

/* fork(): the child's copy-on-write writes never reach the parent. */
static void fork_check(struct pair *p, struct odp *oa, struct odp *ob)
{
	struct ibv_wc wc;
	int status, ok;
	pid_t pid;

	fill(ob->buf, ODP_BYTES, 81);
	pid = fork();
	if (pid < 0) {
		report(0, "fork", "fork: %s", strerror(errno));
		return;
	}
	if (!pid) {
		memset(ob->buf, 0xee, ODP_BYTES);
		memset(oa->buf, 0xee, ODP_BYTES);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
		report(0, "fork", "child did not exit cleanly");
		return;
	}
	{
		static uint8_t want[ODP_BYTES];

		fill(want, ODP_BYTES, 81);
		ok = !memcmp(ob->buf, want, ODP_BYTES);
	}
	if (!ok) {
		report(0, "fork", "the child's writes reached the parent's ODP buffer");
		return;
	}
	/* The device writes the parent's pages (copy-on-write broken). */
	fill(oa->buf + 3 * PAGE, PAGE, 91);
	ok = !run_op(p, 20, IBV_WR_RDMA_WRITE, oa->buf + 3 * PAGE, PAGE,
		     oa->mr->lkey, (uintptr_t)ob->buf + 5 * PAGE, ob->mr->rkey,
		     &wc);
	ok = ok && !memcmp(ob->buf + 5 * PAGE, oa->buf + 3 * PAGE, PAGE);
	report(ok, "fork", "child wrote its copies and exited; parent buffer intact; WRITE after fork %s",
	       ok ? "landed in the parent" : wc_str(&wc));
}

/* A WRITE into an unmapped hole of an ODP MR fails; another QP works. */
static void hole_check(struct side *a, struct side *b, struct odp *oa,
		       struct odp *ob, const char *dev2)
{
	struct pair p2 = { .tag = "odp-hole", .a = a, .b = b };
	struct pair p3 = { .tag = "odp-other", .a = a, .b = b };
	uint8_t *hole = ob->buf + 12 * PAGE;
	long long errors = hw_counter(dev2, "odp_errors");
	struct ibv_wc wc;
	int ok, around;

	if (rc_pair(&p2, NULL) || rc_pair(&p3, NULL)) {
		report(0, "hole", "QP setup: %s", strerror(errno));
		goto out;
	}
	fill(ob->buf, 12 * PAGE, 99);
	if (munmap(hole, PAGE)) {
		report(0, "hole", "munmap: %s", strerror(errno));
		goto out;
	}
	fill(oa->buf, PAGE, 5);
	ok = run_op(&p2, 40, IBV_WR_RDMA_WRITE, oa->buf, 64, oa->mr->lkey,
		    (uintptr_t)hole + 64, ob->mr->rkey, &wc);
	ok = ok && wc.status == IBV_WC_REM_ACCESS_ERR;
	{
		uint8_t want[12 * PAGE];

		fill(want, 12 * PAGE, 99);
		around = !memcmp(ob->buf, want, 12 * PAGE);
	}
	report(ok && around, "hole",
	       "WRITE into an unmapped page of an ODP MR: %s (want REM_ACCESS_ERR), rest of the buffer %s",
	       wc_str(&wc), around ? "untouched" : "CHANGED");
	if (errors >= 0) {
		long long now = hw_counter(dev2, "odp_errors");

		report(now > errors, "hole-counter",
		       "%s odp_errors %lld -> %lld", dev2, errors, now);
	}
	/* The failed QP is the only one hurt. */
	fill(a->buf, 256, 3);
	ok = !run_op(&p3, 41, IBV_WR_RDMA_WRITE, a->buf, 256, a->mr->lkey,
		     (uintptr_t)b->buf + 1024, b->mr->rkey, &wc) &&
	     !memcmp(b->buf + 1024, a->buf, 256);
	report(ok, "hole-other-qp", "another QP's WRITE afterwards: %s",
	       wc_str(&wc));
	/* Put a page back so the buffer can be unmapped whole later. */
	mmap(hole, PAGE, PROT_READ | PROT_WRITE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
out:
	pair_close(&p2);
	pair_close(&p3);
}

static void prefetch_check(struct pair *p, struct side *a, struct odp *oa,
			   const char *dev)
{
	struct ibv_sge sge = { .addr = (uintptr_t)oa->buf + 8 * PAGE,
			       .length = 4 * PAGE, .lkey = oa->mr->lkey };
	struct ibv_sge plain = { .addr = (uintptr_t)a->buf, .length = PAGE,
				 .lkey = a->mr->lkey };
	long long before, after;
	struct ibv_wc wc;
	int err, ok;

	if (madvise(oa->buf + 8 * PAGE, 4 * PAGE, MADV_DONTNEED)) {
		report(0, "prefetch", "madvise: %s", strerror(errno));
		return;
	}
	err = ibv_advise_mr(a->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	if (err == EOPNOTSUPP || err == ENOSYS) {
		report_skip("prefetch", "%s has no ibv_advise_mr: %s",
			    ibv_get_device_name(a->ctx->device), strerror(err));
		return;
	}
	if (err) {
		report(0, "prefetch", "ibv_advise_mr(PREFETCH_WRITE, FLUSH): %s",
		       strerror(err));
		return;
	}
	/* The pages are resident now: READing into them faults nothing. */
	before = faults(dev);
	fill(p->b->buf, 4 * PAGE, 13);
	ok = !run_op(p, 50, IBV_WR_RDMA_READ, oa->buf + 8 * PAGE, 4 * PAGE,
		     oa->mr->lkey, (uintptr_t)p->b->buf, p->b->mr->rkey, &wc) &&
	     !memcmp(oa->buf + 8 * PAGE, p->b->buf, 4 * PAGE);
	after = faults(dev);
	if (before < 0)
		report(ok, "prefetch", "READ into 4 prefetched pages: %s",
		       wc_str(&wc));
	else
		report(ok && after == before, "prefetch",
		       "READ into 4 prefetched pages: %s, %s faults %lld -> %lld",
		       wc_str(&wc), dev, before, after);

	err = ibv_advise_mr(a->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1);
	report(!err, "prefetch-async", "ibv_advise_mr(PREFETCH) without FLUSH: %s",
	       strerror(err));
	err = ibv_advise_mr(a->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	report(!err, "prefetch-no-fault", "ibv_advise_mr(PREFETCH_NO_FAULT, FLUSH): %s",
	       strerror(err));
	/* Only ODP MRs take advice; a range beyond the MR neither. */
	err = ibv_advise_mr(a->pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
			    IBV_ADVISE_MR_FLAG_FLUSH, &plain, 1);
	report(err == EINVAL, "prefetch-non-odp",
	       "ibv_advise_mr on a pinned MR: %s (want %s)", strerror(err),
	       strerror(EINVAL));
	sge.length = ODP_BYTES;
	err = ibv_advise_mr(a->pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
			    IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	report(err == EINVAL, "prefetch-bounds",
	       "ibv_advise_mr past the MR's end: %s (want %s)", strerror(err),
	       strerror(EINVAL));
}

int main(int argc, char **argv)
{
	struct side a = {}, b = {};
	struct odp oa = {}, ob = {};
	struct pair p = { .tag = "odp", .a = &a, .b = &b };
	struct ibv_device_attr_ex ax = {};
	long long f0, f1, i0 = -1, i1;
	uint32_t rc_need;

	if (argc != 5) {
		fprintf(stderr, "usage: %s DEV GID DEV2 GID2\n", argv[0]);
		return 2;
	}
	report_prefix("odp/");
	if (sides_open(&a, &b, argv))
		return 1;
	if (ibv_query_device_ex(a.ctx, NULL, &ax)) {
		report(0, "caps", "ibv_query_device_ex: %s", strerror(errno));
		return 1;
	}
	rc_need = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
		  IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
		  IBV_ODP_SUPPORT_ATOMIC;
	if (!(ax.odp_caps.general_caps & IBV_ODP_SUPPORT)) {
		report_skip("all", "%s does not advertise ODP (general_caps %#llx)",
			    argv[1], (unsigned long long)ax.odp_caps.general_caps);
		goto out;
	}
	report((ax.odp_caps.per_transport_caps.rc_odp_caps & rc_need) ==
	       rc_need, "caps", "%s odp_caps general %#llx rc %#x ud %#x",
	       argv[1], (unsigned long long)ax.odp_caps.general_caps,
	       ax.odp_caps.per_transport_caps.rc_odp_caps,
	       ax.odp_caps.per_transport_caps.ud_odp_caps);

	if (odp_reg(&a, &oa) || odp_reg(&b, &ob)) {
		report(0, "reg", "ODP MR of %u bytes: %s", ODP_BYTES,
		       strerror(errno));
		goto out;
	}
	report(1, "reg", "ODP MRs of %u never-touched pages on %s and %s", NPAGES,
	       argv[1], argv[3]);
	if (rc_pair(&p, NULL)) {
		report(0, "qp", "RC QP setup: %s", strerror(errno));
		goto out;
	}
	f0 = faults(argv[1]) + faults(argv[3]);
	i0 = hw_counter(argv[3], "odp_invalidations");

	traffic(&p, &oa, &ob);
	f1 = faults(argv[1]) + faults(argv[3]);
	if (faults(argv[1]) >= 0 && faults(argv[3]) >= 0)
		report(f1 > f0, "fault-counters",
		       "odp_req_faults + odp_resp_faults of both devices %lld -> %lld",
		       f0, f1);

	refault(&p, &oa, &ob, "dontneed", 0);
	refault(&p, &oa, &ob, "remap", 1);
	fork_check(&p, &oa, &ob);
	i1 = hw_counter(argv[3], "odp_invalidations");
	if (i0 >= 0)
		report(i1 > i0, "invalidation-counter",
		       "%s odp_invalidations %lld -> %lld", argv[3], i0, i1);
	prefetch_check(&p, &a, &oa, argv[1]);
	hole_check(&a, &b, &oa, &ob, argv[3]);
out:
	pair_close(&p);
	odp_free(&oa);
	odp_free(&ob);
	side_close(&a);
	side_close(&b);
	return 0;
}
