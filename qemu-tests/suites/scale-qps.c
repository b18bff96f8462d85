// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * scale-qps DEV_A GID_INDEX_A DEV_B GID_INDEX_B N [HOLD_DIR]
 *
 * Many live QPs in one process: N RC QPs on each device, QP i of DEV_A
 * connected to QP i of DEV_B (RESET -> RTS), a SEND with checked data on
 * a spread of the pairs (the first, the last and 62 between), then every
 * QP destroyed.  With HOLD_DIR, once all QPs are connected the tool
 * creates HOLD_DIR/held and waits (at most 120 s) for HOLD_DIR/go, so the
 * caller can measure memory with the QPs alive.
 *
 * Prints one "PASS|FAIL: name details" line per step (test-report.h);
 * exit status 0 only when all passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qp-pair.h"

#define MSG	64
#define SPREAD	64

static int wait_for_go(const char *dir)
{
	char held[512], go[512];
	long long end = now_ms() + 120000;
	FILE *f;

	snprintf(held, sizeof(held), "%s/held", dir);
	snprintf(go, sizeof(go), "%s/go", dir);
	f = fopen(held, "w");
	if (!f)
		return -1;
	fclose(f);
	while (access(go, F_OK) != 0) {
		if (now_ms() > end)
			return -1;
		usleep(50000);
	}
	return 0;
}

/* SEND MSG bytes from QP @i of a to QP @i of b, the data checked. */
static int one_send(struct side *a, struct side *b, struct ibv_qp *qa,
		    struct ibv_qp *qb, unsigned long i)
{
	size_t off = (i % (BUF_SIZE / MSG)) * MSG;
	struct ibv_sge sge = {
		.addr = (uintptr_t)a->buf + off,
		.length = MSG,
		.lkey = a->mr->lkey,
	};
	struct ibv_wc wc;
	char tag[32];

	snprintf(tag, sizeof(tag), "pair-%lu", i);
	fill(a->buf + off, MSG, (uint8_t)i);
	memset(b->buf + off, 0, MSG);
	if (postr(qb, i, b->buf + off, MSG, b->mr->lkey) ||
	    post1(qa, i, IBV_WR_SEND, IBV_SEND_SIGNALED, &sge, 1, 0, 0))
		return -1;
	if (check_wc(tag, "send", a->cq, i, IBV_WC_SEND, 0, 0, qa->qp_num,
		     &wc) ||
	    check_wc(tag, "recv", b->cq, i, IBV_WC_RECV, MSG, 0, qb->qp_num,
		     &wc))
		return -1;
	if (memcmp(a->buf + off, b->buf + off, MSG)) {
		report(0, tag, "received data differs from what was sent");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_qp **qa, **qb;
	unsigned long n, i, made = 0, checked = 0, failed = 0, step;
	struct side a = {}, b = {};
	long long t0, t1, t2;
	int ok = 1;

	if (argc < 6) {
		fprintf(stderr, "usage: scale-qps DEV_A GID_A DEV_B GID_B N [HOLD_DIR]\n");
		return 2;
	}
	n = strtoul(argv[5], NULL, 0);
	qa = calloc(n, sizeof(*qa));
	qb = calloc(n, sizeof(*qb));
	if (!n || !qa || !qb || sides_open(&a, &b, argv))
		return 1;

	t0 = now_ms();
	for (i = 0; i < n; i++, made++) {
		qa[i] = make_qp(&a, IBV_QPT_RC, a.cq, NULL, 2, 1, 0);
		qb[i] = make_qp(&b, IBV_QPT_RC, b.cq, NULL, 2, 1, 0);
		if (!qa[i] || !qb[i]) {
			report(0, "qps-created", "QP pair %lu of %lu: %s", i, n,
			       strerror(errno));
			ok = 0;
			break;
		}
		if (connect_qp(qa[i], &a, &b.gid, qb[i]->qp_num) ||
		    connect_qp(qb[i], &b, &a.gid, qa[i]->qp_num)) {
			report(0, "qps-created", "connecting pair %lu: %s", i,
			       strerror(errno));
			ok = 0;
			break;
		}
	}
	t1 = now_ms();
	if (ok)
		report(1, "qps-created",
		       "%lu RC QPs on each of %s and %s connected to RTS in %.1f s (%.0f QPs/s)",
		       n, a.name, b.name, (t1 - t0) / 1000.0,
		       2.0 * n * 1000 / (t1 - t0 + 1));

	if (ok && argc > 6 && wait_for_go(argv[6]))
		report(0, "qps-held", "no go from the caller");

	step = n > SPREAD ? n / SPREAD : 1;
	for (i = 0; ok && i < n; i += step) {
		if (one_send(&a, &b, qa[i], qb[i], i))
			ok = 0;
		else
			checked++;
		if (i + step >= n && i != n - 1)
			i = n - 1 - step;	/* the last pair too */
	}
	if (ok)
		report(1, "qps-data", "%lu pairs (every %lu-th and the last) moved a checked SEND",
		       checked, step);

	t1 = now_ms();
	for (i = 0; i < n; i++) {
		if (qa[i] && ibv_destroy_qp(qa[i]))
			failed++;
		if (qb[i] && ibv_destroy_qp(qb[i]))
			failed++;
	}
	t2 = now_ms();
	report(!failed, "qps-destroyed", "%lu QPs destroyed in %.1f s, %lu failed",
	       2 * made, (t2 - t1) / 1000.0, failed);
	side_close(&a);
	side_close(&b);
	free(qa);
	free(qb);
	return report_failures() ? 1 : 0;
}
