// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs-dbsupp DEV GID DEV2 GID2: doorbell suppression (doorbells.rst,
 * "Doorbell records").  A busy RC QP posts thousands of WQEs, one
 * ibv_post_send() each, that must all complete in order with their data
 * intact, while the device's count of MMIO writes to SQ/RQ/SRQ doorbells
 * (hw_counters/db_wq_writes) grows far less than the WQE count (16 KiB
 * WRITEs; 64-byte ones are measured, the device idles between them); receives
 * posted to an RQ and to an SRQ ring no doorbell at all; a QP in ERR still
 * flushes what is posted to it.  Without the counter (rxe, or an ornic
 * without ORNIC_CAP_DB_RECORD) the same traffic runs and only the counts
 * are skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qp-pair.h"

#define MEM		(1 << 20)
#define DEPTH		128	/* WQEs in flight */

struct bufs {
	struct ibv_mr *src, *dst;
	uint8_t *s, *d;
};

static int bufs_open(struct bufs *m, struct side *a, struct side *b)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	m->s = aligned_alloc(4096, MEM);
	m->d = aligned_alloc(4096, MEM);
	if (!m->s || !m->d)
		return -1;
	memset(m->d, 0, MEM);
	m->src = ibv_reg_mr(a->pd, m->s, MEM, acc);
	m->dst = ibv_reg_mr(b->pd, m->d, MEM, acc);
	return m->src && m->dst ? 0 : -1;
}

/* The pattern of WQE @n: every byte depends on n and its position. */
static void pattern(uint8_t *p, uint32_t len, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(n * 31 + i * 7 + (i >> 8));
}

/*
 * @count RDMA WRITEs of @len bytes, one ibv_post_send() each, at most
 * DEPTH in flight; each lands in its own slot of the destination and is
 * checked byte for byte when its completion (in order) arrives.  Returns
 * the number verified; *why says what went wrong first.
 */
static uint32_t write_stream(struct ibv_qp *qa, struct ibv_cq *ca,
			     struct bufs *m, uint32_t count, uint32_t len,
			     char *why, size_t whylen)
{
	uint32_t slots = MEM / len, posted = 0, done = 0;
	long long idle_since = now_ms();
	struct ibv_wc wc[16];
	int n, i;

	while (done < count) {
		while (posted < count && posted - done < DEPTH &&
		       posted - done < slots) {
			uint32_t slot = posted % slots;
			struct ibv_sge sge = {
				.addr = (uintptr_t)m->s + (size_t)slot * len,
				.length = len, .lkey = m->src->lkey };
			struct ibv_send_wr wr = {
				.wr_id = posted, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.rdma.remote_addr = (uintptr_t)m->d +
						       (size_t)slot * len,
				.wr.rdma.rkey = m->dst->rkey }, *bad;

			pattern(m->s + (size_t)slot * len, len, posted);
			if (ibv_post_send(qa, &wr, &bad)) {
				snprintf(why, whylen, "post %u: %s", posted,
					 strerror(errno));
				return done;
			}
			posted++;
		}
		n = ibv_poll_cq(ca, 16, wc);
		if (n < 0) {
			snprintf(why, whylen, "poll_cq failed");
			return done;
		}
		if (!n) {
			if (now_ms() - idle_since > POLL_MS) {
				snprintf(why, whylen,
					 "stalled: %u of %u posted complete",
					 done, posted);
				return done;
			}
			continue;
		}
		idle_since = now_ms();
		for (i = 0; i < n; i++, done++) {
			uint32_t slot = done % slots;

			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].wr_id != done ||
			    wc[i].opcode != IBV_WC_RDMA_WRITE) {
				snprintf(why, whylen,
					 "completion %u: wr_id %llu status %s opcode %d",
					 done, (unsigned long long)wc[i].wr_id,
					 ibv_wc_status_str(wc[i].status),
					 wc[i].opcode);
				return done;
			}
			if (memcmp(m->s + (size_t)slot * len,
				   m->d + (size_t)slot * len, len)) {
				snprintf(why, whylen, "WQE %u: data differs",
					 done);
				return done;
			}
		}
	}
	snprintf(why, whylen, "all %u verified", count);
	return done;
}

/*
 * @count WRITEs of @len bytes; the doorbells rung must stay below @max_pct
 * percent of the WQEs.  Suppression needs a busy device: WRITEs of 16 KiB
 * (16 packets each) keep the SQ busy while the next ones are posted, so
 * hardly any post rings.  A 64-byte WRITE is gone before the next post
 * (under TCG the guest is far slower than the model), the device idles in
 * between and most posts must ring: that case only may not ring more than
 * once per post.
 */
static void burst(const char *name, struct side *a, struct ibv_qp *qa,
		  struct ibv_cq *ca, struct bufs *m, uint32_t count,
		  uint32_t len, int max_pct)
{
	long long before = hw_counter(a->name, "db_wq_writes"), after;
	char why[160], n[64];
	uint32_t done;

	done = write_stream(qa, ca, m, count, len, why, sizeof(why));
	snprintf(n, sizeof(n), "%s-data", name);
	report(done == count, n, "%u RDMA WRITEs of %u bytes: %s", count, len,
	       why);
	snprintf(n, sizeof(n), "%s-doorbells", name);
	after = hw_counter(a->name, "db_wq_writes");
	if (before < 0 || after < 0) {
		report_skip(n, "%s has no db_wq_writes counter", a->name);
		return;
	}
	report(done == count && (after - before) * 100 <= (long long)count *
	       max_pct, n, "%lld MMIO doorbell writes for %u WQEs (%.1f%%, at most %d%%)",
	       after - before, count, 100.0 * (after - before) / count,
	       max_pct);
}

/*
 * @count SENDs, each matched by one receive posted with its own
 * ibv_post_recv() (or ibv_post_srq_recv() with @srq): the receiving device
 * should see no doorbell at all, it reads the RQ/SRQ records.
 */
static void receives(const char *name, struct side *b,
		     struct ibv_qp *qa, struct ibv_qp *qb, struct ibv_srq *srq,
		     struct ibv_cq *ca, struct ibv_cq *cb, struct bufs *m,
		     uint32_t count)
{
	long long before = hw_counter(b->name, "db_wq_writes"), after;
	const uint32_t len = 200, batch = 32;
	uint32_t sent = 0, got = 0, i;
	char why[160] = "ok", n[64];
	struct ibv_wc wc;

	while (got < count && !strcmp(why, "ok")) {
		for (i = 0; i < batch; i++) {
			uint8_t *dst = m->d + (size_t)(sent + i) % 64 * 256;
			struct ibv_sge rs = { .addr = (uintptr_t)dst,
					      .length = 256,
					      .lkey = m->dst->lkey };
			struct ibv_recv_wr rw = { .wr_id = sent + i,
						  .sg_list = &rs,
						  .num_sge = 1 }, *rbad;
			int err = srq ? ibv_post_srq_recv(srq, &rw, &rbad) :
					ibv_post_recv(qb, &rw, &rbad);

			if (err) {
				snprintf(why, sizeof(why), "post_recv: %s",
					 strerror(err));
				break;
			}
		}
		for (i = 0; i < batch && !strcmp(why, "ok"); i++, sent++) {
			uint8_t *src = m->s + (size_t)sent % 64 * 256;
			struct ibv_sge ss = { .addr = (uintptr_t)src,
					      .length = len,
					      .lkey = m->src->lkey };

			pattern(src, len, sent);
			if (post1(qa, sent, IBV_WR_SEND, IBV_SEND_SIGNALED,
				  &ss, 1, 0, 0))
				snprintf(why, sizeof(why), "post_send failed");
		}
		for (i = 0; i < batch && !strcmp(why, "ok"); i++, got++) {
			uint8_t *p = m->d + (size_t)got % 64 * 256;

			if (!poll_one(cb, &wc) || wc.status != IBV_WC_SUCCESS ||
			    wc.wr_id != got || wc.byte_len != len ||
			    memcmp(p, m->s + (size_t)got % 64 * 256, len))
				snprintf(why, sizeof(why),
					 "receive %u: wr_id %llu status %s len %u or data wrong",
					 got, (unsigned long long)wc.wr_id,
					 ibv_wc_status_str(wc.status),
					 wc.byte_len);
			else if (!poll_one(ca, &wc) ||
				 wc.status != IBV_WC_SUCCESS)
				snprintf(why, sizeof(why), "send %u failed",
					 got);
		}
	}
	snprintf(n, sizeof(n), "%s-data", name);
	report(got == count, n, "%u SENDs received: %s", count, why);
	snprintf(n, sizeof(n), "%s-doorbells", name);
	after = hw_counter(b->name, "db_wq_writes");
	if (before < 0 || after < 0) {
		report_skip(n, "%s has no db_wq_writes counter", b->name);
		return;
	}
	report(got == count && (after - before) * 4 < count, n,
	       "%lld MMIO doorbell writes on %s for %u receives",
	       after - before, b->name, count);
}

/* A QP in ERR asks for doorbells again: what is posted then is flushed. */
static void error_flush(struct ibv_qp *qa, struct ibv_cq *ca, struct bufs *m)
{
	struct ibv_sge sge = { .addr = (uintptr_t)m->s, .length = 8,
			       .lkey = m->src->lkey };
	struct ibv_wc wc = {};
	int i, ok = 1;

	if (to_err(qa)) {
		report(0, "error-flush", "modify to ERR failed");
		return;
	}
	for (i = 0; i < 3 && ok; i++) {
		ok = !post1(qa, 900 + i, IBV_WR_SEND, IBV_SEND_SIGNALED, &sge,
			    1, 0, 0) && poll_one(ca, &wc) &&
		     wc.wr_id == (uint64_t)900 + i &&
		     wc.status == IBV_WC_WR_FLUSH_ERR;
		usleep(20 * 1000); /* the device goes idle between posts */
	}
	report(ok, "error-flush",
	       "3 sends posted in ERR, one at a time: %s (last wr_id %llu status %s)",
	       ok ? "each flushed" : "not flushed",
	       (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
}

int main(int argc, char **argv)
{
	struct ibv_srq_init_attr sa = {
		.attr = { .max_wr = DEPTH, .max_sge = 1 },
	};
	struct side a = {}, b = {};
	struct pair p = { .a = &a, .b = &b }, ps = { .a = &a, .b = &b };
	struct pair_spec spec = pair_spec(IBV_QPT_RC);
	struct ibv_srq *srq;
	struct bufs m = {};
	int srq_up;

	if (argc < 5) {
		fprintf(stderr, "usage: %s DEV GID DEV2 GID2\n", argv[0]);
		return 2;
	}
	report_prefix("dbsupp/");
	if (sides_open(&a, &b, argv))
		return 2;
	if (bufs_open(&m, &a, &b)) {
		fprintf(stderr, "cannot open %s and %s\n", argv[1], argv[3]);
		return 2;
	}
	spec.cqe = 4 * DEPTH;
	spec.cap = (struct ibv_qp_cap){ DEPTH, DEPTH, 1, 1, 0 };
	if (pair_open(&p, &spec)) {
		fprintf(stderr, "cannot set up an RC pair: %s\n",
			strerror(errno));
		return 2;
	}

	burst("write-small", &a, p.qa, p.ca, &m, 4000, 64, 100);
	burst("write-16k", &a, p.qa, p.ca, &m, 2000, 16384, 25);
	receives("recv", &b, p.qa, p.qb, NULL, p.ca, p.cb, &m, 1024);

	/* The same receives through an SRQ of DEV2, on a pair of its own. */
	srq = ibv_create_srq(b.pd, &sa);
	ps.ca = p.ca;
	ps.cb = p.cb;
	spec.srq_b = srq;
	srq_up = srq && !pair_open(&ps, &spec);
	if (!srq_up)
		report(0, "srq-setup", "SRQ pair: %s", strerror(errno));
	else
		receives("srq-recv", &b, ps.qa, ps.qb, srq, p.ca, p.cb, &m,
			 1024);
	error_flush(srq_up ? ps.qa : p.qa, p.ca, &m);

	ps.ca = ps.cb = NULL;	/* p's */
	pair_close(&ps);
	if (srq)
		ibv_destroy_srq(srq);
	pair_close(&p);
	ibv_dereg_mr(m.src);
	ibv_dereg_mr(m.dst);
	side_close(&a);
	side_close(&b);
	return 0;
}
