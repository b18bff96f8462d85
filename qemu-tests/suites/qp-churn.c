// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * qp-churn DEVICE CYCLES: create and destroy one RC QP CYCLES times on
 * DEVICE, each taken to INIT (so the device, not only the driver, holds
 * it), in one process with one PD and CQ.  Every 4096th cycle keeps the QP
 * while 63 more are created, so the device's tables grow and shrink too.
 * Prints the cycle rate and each verb's mean time on stdout; any failed
 * verb ends the run with its errno and exit status 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#define BATCH 64

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Seconds spent in each verb, over all cycles. */
static double t_create, t_modify, t_destroy;

static struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	double t0 = now(), t1;
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	t1 = now();
	t_create += t1 - t0;
	if (!qp)
		return NULL;
	errno = ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	t_modify += now() - t1;
	if (errno) {
		int err = errno;

		ibv_destroy_qp(qp);
		errno = err;
		return NULL;
	}
	return qp;
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct ibv_qp *batch[BATCH];
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	unsigned long cycles, c, made = 0;
	double t0, t1, secs;
	int i, n;

	if (argc != 3) {
		fprintf(stderr, "usage: qp-churn DEVICE CYCLES\n");
		return 2;
	}
	cycles = strtoul(argv[2], NULL, 0);
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		fprintf(stderr, "qp-churn: cannot open %s\n", argv[1]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	if (!cq) {
		fprintf(stderr, "qp-churn: PD/CQ: %s\n", strerror(errno));
		return 1;
	}
	t0 = now();
	for (c = 0; c < cycles; c++) {
		int keep = (c % 4096 == 0) ? BATCH : 1;

		for (i = 0; i < keep; i++) {
			batch[i] = make_qp(pd, cq);
			if (!batch[i]) {
				fprintf(stderr, "qp-churn: cycle %lu: create QP %d: %s\n",
					c, i, strerror(errno));
				return 1;
			}
		}
		made += keep;
		for (i = keep - 1; i >= 0; i--) {
			t1 = now();
			errno = ibv_destroy_qp(batch[i]);
			t_destroy += now() - t1;
			if (errno) {
				fprintf(stderr, "qp-churn: cycle %lu: destroy: %s\n",
					c, strerror(errno));
				return 1;
			}
		}
	}
	secs = now() - t0;
	printf("%lu cycles in %.1f s: %.0f create+INIT+destroy per second ",
	       cycles, secs, secs > 0 ? cycles / secs : 0.0);
	printf("(mean create %.2f ms, INIT %.2f ms, destroy %.2f ms)\n",
	       made ? t_create * 1e3 / made : 0.0,
	       made ? t_modify * 1e3 / made : 0.0,
	       made ? t_destroy * 1e3 / made : 0.0);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
