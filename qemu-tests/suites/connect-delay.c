// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * LD_PRELOAD shim for perftest clients on iWARP: every rdma_connect() waits
 * CONNECT_DELAY_MS (1000) first.  Debian's perftest connects its test QP the
 * moment the parameter exchange ends, often before its server listens
 * again; the refused connect then crashes perftest in its own retry path
 * (fixed upstream).  A TCP SYN to a port nobody listens on is answered with
 * RST by ornic as by any TCP, so the wait belongs to the client.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	int (*real)(struct rdma_cm_id *, struct rdma_conn_param *);
	const char *ms = getenv("CONNECT_DELAY_MS");

	real = (int (*)(struct rdma_cm_id *, struct rdma_conn_param *))
		dlsym(RTLD_NEXT, "rdma_connect");
	if (!real)
		return -1;
	usleep((ms ? atoi(ms) : 1000) * 1000);
	return real(id, conn_param);
}
