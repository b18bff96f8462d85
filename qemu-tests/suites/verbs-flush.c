// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs-flush DEV GID_INDEX DEV2 GID_INDEX2
 *
 * IBTA 1.5 RDMA FLUSH and ATOMIC WRITE through the ibv_qp_ex API
 * (ibv_wr_flush, ibv_wr_atomic_write), DEV requesting, DEV2 responding, one
 * process, target memory checked byte for byte:
 *
 *   flush/global-range, flush/global-mr: RDMA WRITEs then a FLUSH of global
 *     visibility of the range / of the whole MR in the same batch; both
 *     complete, the data is at the target;
 *   flush/persistent-range, flush/persistent-mr: the same to persistence on
 *     an MR with FLUSH_PERSISTENT (SKIP where the device refuses such an MR:
 *     rxe takes it only on persistent memory);
 *   flush/type-not-granted: a PERSISTENT FLUSH of an MR that grants only
 *     FLUSH_GLOBAL, flush/no-flush-right: a FLUSH of an MR without FLUSH
 *     rights, flush/range-outside-mr: a range past the MR's end - each ends
 *     with IBV_WC_REM_ACCESS_ERR, and a second QP pair on the same devices
 *     then moves verified data (WRITE + FLUSH);
 *   atomic-write/data: 8 bytes stored, the bytes around them untouched;
 *   atomic-write/misaligned: IBV_WC_REM_INV_REQ_ERR, nothing stored;
 *   atomic-write/outside-mr: IBV_WC_REM_ACCESS_ERR, nothing stored; each
 *     error again followed by a working second pair.
 *
 * What the devices advertise (device_cap_flags_ex) decides what runs: a
 * device without FLUSH or ATOMIC WRITE gets SKIP lines.  Prints
 * "PASS|FAIL|SKIP: flush/... details" lines; exits 0 unless it could not
 * run at all (2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "qp-pair.h"

/* ib_user_verbs.h: IB_UVERBS_DEVICE_FLUSH_GLOBAL/_PERSISTENT/ATOMIC_WRITE. */
#define DEV_FLUSH_GLOBAL	(1ULL << 38)
#define DEV_FLUSH_PERSISTENT	(1ULL << 39)
#define DEV_ATOMIC_WRITE	(1ULL << 40)

/* Regions of the responder's buffer, one MR each. */
#define OFF_GLOBAL	0		/* FLUSH_GLOBAL + REMOTE_WRITE */
#define OFF_PERSIST	16384		/* + FLUSH_PERSISTENT */
#define OFF_NOFLUSH	32768		/* REMOTE_WRITE only */
#define OFF_AWRITE	49152		/* REMOTE_WRITE, 4096 bytes */
#define REGION		16384
#define AW_REGION	4096
#define CHUNK		3000		/* an odd length: 3 packets */

static int ran_any;

struct target {
	struct ibv_mr *global, *persist, *noflush, *awrite;
	int persist_errno;
};

/* An RC pair whose requester posts through ibv_qp_ex. */
struct rc {
	struct pair p;
	struct ibv_qp_ex *xa;
};

static uint64_t dev_caps(struct ibv_context *ctx)
{
	struct ibv_device_attr_ex attr = {};

	if (ibv_query_device_ex(ctx, NULL, &attr))
		return 0;
	return attr.device_cap_flags_ex;
}

/* The responder's remote rights, FLUSH included, once the QP is in RTS. */
static int grant(struct ibv_qp *qp, unsigned int access)
{
	struct ibv_qp_attr a = { .qp_access_flags = access };

	return ibv_modify_qp(qp, &a, IBV_QP_ACCESS_FLAGS);
}

static void rc_free(struct rc *p)
{
	pair_close(&p->p);
	p->xa = NULL;
}

static int rc_open(struct rc *p, struct side *a, struct side *b, uint64_t ops,
		   unsigned int flush_access)
{
	struct pair_spec spec = pair_spec(IBV_QPT_RC);

	*p = (struct rc){ .p = { .a = a, .b = b } };
	spec.cap = (struct ibv_qp_cap){ 16, 4, 1, 1, 0 };
	spec.send_ops = ops;
	if (pair_open(&p->p, &spec) ||
	    grant(p->p.qb, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		  flush_access)) {
		rc_free(p);
		return -1;
	}
	p->xa = ibv_qp_to_qp_ex(p->p.qa);
	return 0;
}

/* The first completion of the pair's requester, or a failed wc. */
static struct ibv_wc next_wc(struct rc *p)
{
	struct ibv_wc wc = { .status = IBV_WC_GENERAL_ERR, .wr_id = ~0ULL };

	if (!poll_one(p->p.ca, &wc)) {
		wc.status = IBV_WC_GENERAL_ERR;
		wc.vendor_err = 0xdead; /* no completion in time */
	}
	return wc;
}

static int wc_ok(const char *name, const struct ibv_wc *wc, uint64_t wr_id,
		 enum ibv_wc_opcode op)
{
	if (wc->status == IBV_WC_SUCCESS && wc->wr_id == wr_id &&
	    wc->opcode == op)
		return 1;
	report(0, name, "wc: status %s (vendor_err %#x) wr_id %#llx opcode %d; want success, wr_id %#llx opcode %d",
	       ibv_wc_status_str(wc->status), wc->vendor_err,
	       (unsigned long long)wc->wr_id, wc->opcode,
	       (unsigned long long)wr_id, op);
	return 0;
}

/*
 * RDMA WRITE of CHUNK bytes from the requester's buffer into @mr at @off,
 * then a FLUSH of @type/@level of that range (or the MR), in one batch.
 */
static void write_then_flush(const char *name, struct rc *p, struct side *a,
			     struct side *b, struct ibv_mr *mr, size_t off,
			     uint8_t type, uint8_t level, uint8_t seed)
{
	uint8_t *src = a->buf + 1024, *dst = b->buf + off;
	uint64_t raddr = (uintptr_t)dst;
	struct ibv_wc wc;
	int err;

	fill(src, CHUNK, seed);
	memset(dst, 0, CHUNK);
	ibv_wr_start(p->xa);
	p->xa->wr_id = 1;
	p->xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(p->xa, mr->rkey, raddr);
	ibv_wr_set_sge(p->xa, a->mr->lkey, (uintptr_t)src, CHUNK);
	p->xa->wr_id = 2;
	p->xa->wr_flags = IBV_SEND_SIGNALED;
	/* The MR level names no range: pyverbs passes length 0 there. */
	if (level == IBV_FLUSH_MR)
		ibv_wr_flush(p->xa, mr->rkey, 0, 0, type, level);
	else
		ibv_wr_flush(p->xa, mr->rkey, raddr, CHUNK, type, level);
	err = ibv_wr_complete(p->xa);
	if (err) {
		report(0, name, "ibv_wr_complete: %s", strerror(err));
		return;
	}
	wc = next_wc(p);
	if (!wc_ok(name, &wc, 1, IBV_WC_RDMA_WRITE))
		return;
	wc = next_wc(p);
	if (!wc_ok(name, &wc, 2, IBV_WC_FLUSH))
		return;
	if (memcmp(src, dst, CHUNK)) {
		report(0, name, "FLUSH completed but the %d written bytes differ at the target",
		       CHUNK);
		return;
	}
	report(1, name, "WRITE of %d bytes + FLUSH %s/%s completed, data at the target (FLUSH byte_len %u)",
	       CHUNK, type == IBV_FLUSH_GLOBAL ? "global" : "persistent",
	       level == IBV_FLUSH_MR ? "mr" : "range", wc.byte_len);
	ran_any = 1;
}

/* After an error on another QP: a fresh pair still writes, flushes, checks. */
static void bystander(const char *after, struct side *a, struct side *b,
		      struct target *t, uint64_t ops)
{
	char name[96];
	struct rc p;

	snprintf(name, sizeof(name), "%s/other-qp-works", after);
	if (!(ops & IBV_QP_EX_WITH_FLUSH)) {
		ops |= IBV_QP_EX_WITH_RDMA_WRITE;
		if (rc_open(&p, a, b, ops, 0)) {
			report(0, name, "cannot connect a second pair: %s",
			       strerror(errno));
			return;
		}
		/* No FLUSH on this device: a WRITE alone, checked. */
		fill(a->buf + 1024, CHUNK, 0x3c);
		ibv_wr_start(p.xa);
		p.xa->wr_id = 1;
		p.xa->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(p.xa, t->awrite->rkey,
				  (uintptr_t)b->buf + OFF_AWRITE + 512);
		ibv_wr_set_sge(p.xa, a->mr->lkey, (uintptr_t)a->buf + 1024,
			       1024);
		if (!ibv_wr_complete(p.xa)) {
			struct ibv_wc wc = next_wc(&p);

			if (wc_ok(name, &wc, 1, IBV_WC_RDMA_WRITE) &&
			    !memcmp(a->buf + 1024,
				    b->buf + OFF_AWRITE + 512, 1024))
				report(1, name, "WRITE of 1024 bytes on a second pair checked");
			else if (wc.status == IBV_WC_SUCCESS)
				report(0, name, "data differs at the target");
		} else {
			report(0, name, "ibv_wr_complete failed");
		}
		rc_free(&p);
		return;
	}
	if (rc_open(&p, a, b, ops, IBV_ACCESS_FLUSH_GLOBAL)) {
		report(0, name, "cannot connect a second pair: %s", strerror(errno));
		return;
	}
	write_then_flush(name, &p, a, b, t->global, OFF_GLOBAL + 4096,
			 IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE, 0x5a);
	rc_free(&p);
}

/*
 * One request on a fresh pair that the responder must refuse with @want;
 * the @len bytes at @watch must be what they were.
 */
static void expect_refused(const char *name, struct side *a, struct side *b,
			   struct target *t, uint64_t ops,
			   unsigned int flush_access, enum ibv_wc_status want,
			   void (*post)(struct ibv_qp_ex *x, void *arg),
			   void *arg, uint8_t *watch, size_t len)
{
	uint8_t before[64];
	struct ibv_wc wc;
	struct rc p;
	int err;

	if (rc_open(&p, a, b, ops, flush_access)) {
		report(0, name, "cannot connect: %s", strerror(errno));
		return;
	}
	memcpy(before, watch, len);
	ibv_wr_start(p.xa);
	p.xa->wr_id = 9;
	p.xa->wr_flags = IBV_SEND_SIGNALED;
	post(p.xa, arg);
	err = ibv_wr_complete(p.xa);
	if (err) {
		report(0, name, "ibv_wr_complete: %s", strerror(err));
		rc_free(&p);
		return;
	}
	wc = next_wc(&p);
	if (wc.status != want || wc.wr_id != 9)
		report(0, name, "wc: status %s wr_id %#llx; want %s",
		       ibv_wc_status_str(wc.status),
		       (unsigned long long)wc.wr_id, ibv_wc_status_str(want));
	else if (memcmp(before, watch, len))
		report(0, name, "refused with %s but the target changed",
		       ibv_wc_status_str(want));
	else
		report(1, name, "%s, target untouched", ibv_wc_status_str(want));
	rc_free(&p);
	bystander(name, a, b, t, ops);
	ran_any = 1;
}

struct flush_args {
	uint32_t rkey;
	uint64_t raddr;
	size_t len;
	uint8_t type, level;
};

static void post_flush(struct ibv_qp_ex *x, void *arg)
{
	struct flush_args *f = arg;

	ibv_wr_flush(x, f->rkey, f->raddr, f->len, f->type, f->level);
}

struct aw_args {
	uint32_t rkey;
	uint64_t raddr;
	uint8_t value[8];
};

static void post_atomic_write(struct ibv_qp_ex *x, void *arg)
{
	struct aw_args *w = arg;

	ibv_wr_atomic_write(x, w->rkey, w->raddr, w->value);
}

static void flush_tests(struct side *a, struct side *b, struct target *t,
			uint64_t ops, uint64_t caps)
{
	unsigned int both = IBV_ACCESS_FLUSH_GLOBAL | IBV_ACCESS_FLUSH_PERSISTENT;
	struct flush_args f;
	struct rc p;

	if (!(caps & DEV_FLUSH_GLOBAL)) {
		report_skip("flush", "%s does not advertise FLUSH (device_cap_flags_ex %#llx)",
			    b->name, (unsigned long long)caps);
		return;
	}
	if (rc_open(&p, a, b, ops, both)) {
		report(0, "connect", "cannot connect QPs with FLUSH: %s",
		       strerror(errno));
		return;
	}
	write_then_flush("global-range", &p, a, b, t->global,
			 OFF_GLOBAL + 100, IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE, 1);
	write_then_flush("global-mr", &p, a, b, t->global, OFF_GLOBAL + 8192,
			 IBV_FLUSH_GLOBAL, IBV_FLUSH_MR, 2);
	if (!(caps & DEV_FLUSH_PERSISTENT)) {
		report_skip("persistent", "%s does not advertise FLUSH_PERSISTENT",
			    b->name);
	} else if (!t->persist) {
		report_skip("persistent", "%s refuses an MR with FLUSH_PERSISTENT: %s",
			    b->name, strerror(t->persist_errno));
	} else {
		write_then_flush("persistent-range", &p, a, b, t->persist,
				 OFF_PERSIST + 8, IBV_FLUSH_PERSISTENT,
				 IBV_FLUSH_RANGE, 3);
		write_then_flush("persistent-mr", &p, a, b, t->persist,
				 OFF_PERSIST + 5000, IBV_FLUSH_PERSISTENT,
				 IBV_FLUSH_MR, 4);
	}
	rc_free(&p);

	/* pyverbs' test_qp_ex_rc_flush_type_violate, with a bystander. */
	f = (struct flush_args){ t->global->rkey,
				 (uintptr_t)b->buf + OFF_GLOBAL, 64,
				 IBV_FLUSH_PERSISTENT, IBV_FLUSH_RANGE };
	expect_refused("type-not-granted", a, b, t, ops, both,
		       IBV_WC_REM_ACCESS_ERR, post_flush, &f,
		       b->buf + OFF_GLOBAL, 64);
	f = (struct flush_args){ t->noflush->rkey,
				 (uintptr_t)b->buf + OFF_NOFLUSH, 64,
				 IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE };
	expect_refused("no-flush-right", a, b, t, ops, both,
		       IBV_WC_REM_ACCESS_ERR, post_flush, &f,
		       b->buf + OFF_NOFLUSH, 64);
	f = (struct flush_args){ t->global->rkey,
				 (uintptr_t)b->buf + OFF_GLOBAL + REGION - 32,
				 64, IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE };
	expect_refused("range-outside-mr", a, b, t, ops, both,
		       IBV_WC_REM_ACCESS_ERR, post_flush, &f,
		       b->buf + OFF_GLOBAL + REGION - 32, 32);
}

static void atomic_write_tests(struct side *a, struct side *b,
			       struct target *t, uint64_t ops, uint64_t caps)
{
	static const uint8_t value[8] = { 0x0f, 0x1e, 0x2d, 0x3c,
					  0x4b, 0x5a, 0x69, 0x78 };
	uint8_t *at = b->buf + OFF_AWRITE + 64;
	struct aw_args w;
	struct ibv_wc wc;
	struct rc p;
	int err, i;

	if (!(caps & DEV_ATOMIC_WRITE)) {
		report_skip("atomic-write", "%s does not advertise ATOMIC_WRITE (device_cap_flags_ex %#llx)",
			    b->name, (unsigned long long)caps);
		return;
	}
	if (rc_open(&p, a, b, ops, 0)) {
		report(0, "atomic-write/connect", "cannot connect: %s",
		       strerror(errno));
		return;
	}
	memset(at - 8, 0xee, 24);
	ibv_wr_start(p.xa);
	p.xa->wr_id = 7;
	p.xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(p.xa, t->awrite->rkey, (uintptr_t)at, value);
	err = ibv_wr_complete(p.xa);
	if (err) {
		report(0, "atomic-write/data", "ibv_wr_complete: %s", strerror(err));
	} else {
		wc = next_wc(&p);
		if (wc_ok("atomic-write/data", &wc, 7, IBV_WC_ATOMIC_WRITE)) {
			for (i = 0; i < 8; i++)
				if (at[-8 + i] != 0xee || at[8 + i] != 0xee)
					break;
			if (memcmp(at, value, 8) || i < 8)
				report(0, "atomic-write/data", "target holds %02x%02x%02x%02x%02x%02x%02x%02x, neighbours %s",
				       at[0], at[1], at[2], at[3], at[4], at[5],
				       at[6], at[7], i < 8 ? "changed" : "intact");
			else if (wc.byte_len != 8)
				report(0, "atomic-write/data", "byte_len %u, want 8",
				       wc.byte_len);
			else
				report(1, "atomic-write/data", "8 bytes stored, neighbours intact, byte_len 8");
			ran_any = 1;
		}
	}
	rc_free(&p);

	w = (struct aw_args){ t->awrite->rkey, (uintptr_t)at + 4,
			      { 1, 2, 3, 4, 5, 6, 7, 8 } };
	expect_refused("atomic-write/misaligned", a, b, t, ops, 0,
		       IBV_WC_REM_INV_REQ_ERR, post_atomic_write, &w, at, 16);
	w.raddr = (uintptr_t)b->buf + OFF_AWRITE + AW_REGION;
	expect_refused("atomic-write/outside-mr", a, b, t, ops, 0,
		       IBV_WC_REM_ACCESS_ERR, post_atomic_write, &w,
		       b->buf + OFF_AWRITE + AW_REGION, 8);
}

static struct ibv_mr *reg(struct side *s, size_t off, size_t len,
			  unsigned int access)
{
	return ibv_reg_mr(s->pd, s->buf + off, len,
			  IBV_ACCESS_LOCAL_WRITE | access);
}

int main(int argc, char **argv)
{
	struct side a = {}, b = {};
	struct target t = {};
	uint64_t caps, ops;
	int rc = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: %s DEV GID_INDEX DEV2 GID_INDEX2\n",
			argv[0]);
		return 2;
	}
	report_prefix("flush/");
	if (sides_open(&a, &b, argv)) {
		rc = 2;
		goto out;
	}

	/* What both ends advertise decides what runs. */
	caps = dev_caps(a.ctx) & dev_caps(b.ctx);
	ops = IBV_QP_EX_WITH_RDMA_WRITE;
	if (caps & DEV_FLUSH_GLOBAL)
		ops |= IBV_QP_EX_WITH_FLUSH;
	if (caps & DEV_ATOMIC_WRITE)
		ops |= IBV_QP_EX_WITH_ATOMIC_WRITE;

	t.noflush = reg(&b, OFF_NOFLUSH, REGION, IBV_ACCESS_REMOTE_WRITE);
	t.awrite = reg(&b, OFF_AWRITE, AW_REGION, IBV_ACCESS_REMOTE_WRITE);
	if (caps & DEV_FLUSH_GLOBAL)
		t.global = reg(&b, OFF_GLOBAL, REGION, IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_FLUSH_GLOBAL);
	if (caps & DEV_FLUSH_PERSISTENT) {
		t.persist = reg(&b, OFF_PERSIST, REGION,
				IBV_ACCESS_REMOTE_WRITE |
				IBV_ACCESS_FLUSH_GLOBAL |
				IBV_ACCESS_FLUSH_PERSISTENT);
		t.persist_errno = t.persist ? 0 : errno;
	}
	if (!t.noflush || !t.awrite || ((caps & DEV_FLUSH_GLOBAL) && !t.global)) {
		report(0, "setup", "cannot register the target MRs: %s",
		       strerror(errno));
		goto out;
	}

	flush_tests(&a, &b, &t, ops, caps);
	atomic_write_tests(&a, &b, &t, ops, caps);
	if (!ran_any)
		report_skip("all", "%s/%s have neither FLUSH nor ATOMIC WRITE",
			    a.name, b.name);
out:
	if (t.global)
		ibv_dereg_mr(t.global);
	if (t.persist)
		ibv_dereg_mr(t.persist);
	if (t.noflush)
		ibv_dereg_mr(t.noflush);
	if (t.awrite)
		ibv_dereg_mr(t.awrite);
	side_close(&b);
	side_close(&a);
	return rc;
}
