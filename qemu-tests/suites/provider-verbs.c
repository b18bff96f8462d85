// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * provider-verbs: exercise the ornic rdma-core provider through libibverbs.
 *
 *   provider-verbs IBDEV
 *
 * Opens IBDEV, checks the vendor/part IDs against ornic_hw.h, allocates and
 * frees a PD, checks that ibv_create_cq fails with EOPNOTSUPP (the provider
 * does not implement CQs yet), and opens/closes the device 50 times (each
 * context maps and unmaps its doorbell page).  Prints one
 * "PASS|FAIL name details" line per check; exit status 0 when all passed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "../../include/ornic/ornic_hw.h"

static int failed;

static void report(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void report(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s ", ok ? "PASS" : "FAIL", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failed = 1;
}

static struct ibv_device *find_dev(struct ibv_device **list, const char *name)
{
	int i;

	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			return list[i];
	return NULL;
}

int main(int argc, char **argv)
{
	struct ibv_device_attr attr;
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_device *dev;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int i, err, n;

	if (argc != 2) {
		fprintf(stderr, "usage: %s IBDEV\n", argv[0]);
		return 2;
	}

	list = ibv_get_device_list(&n);
	if (!list) {
		report(0, "open", "ibv_get_device_list: %s", strerror(errno));
		return 1;
	}
	dev = find_dev(list, argv[1]);
	if (!dev) {
		report(0, "open", "%s not among %d verbs devices", argv[1], n);
		ibv_free_device_list(list);
		return 1;
	}

	ctx = ibv_open_device(dev);
	if (!ctx) {
		report(0, "open", "ibv_open_device(%s): %s", argv[1],
		       strerror(errno));
		ibv_free_device_list(list);
		return 1;
	}
	err = ibv_query_device(ctx, &attr);
	if (err)
		report(0, "open", "ibv_query_device: %s", strerror(err));
	else
		report(attr.vendor_id == ORNIC_PCI_VENDOR_ID &&
		       attr.vendor_part_id == ORNIC_PCI_DEVICE_ID, "open",
		       "%s opened, vendor %#x part %#x (expected %#x/%#x)",
		       argv[1], attr.vendor_id, attr.vendor_part_id,
		       ORNIC_PCI_VENDOR_ID, ORNIC_PCI_DEVICE_ID);

	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		report(0, "pd", "ibv_alloc_pd: %s", strerror(errno));
	} else {
		uint32_t handle = pd->handle;

		err = ibv_dealloc_pd(pd);
		report(!err, "pd", "alloc (handle %u) and dealloc: %s", handle,
		       err ? strerror(err) : "ok");
	}

	errno = 0;
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (cq) {
		report(0, "create-cq-unsupported",
		       "ibv_create_cq succeeded without CQ support");
		ibv_destroy_cq(cq);
	} else {
		report(errno == EOPNOTSUPP, "create-cq-unsupported",
		       "ibv_create_cq failed with errno %d (%s), want EOPNOTSUPP",
		       errno, strerror(errno));
	}

	err = ibv_close_device(ctx);
	if (err)
		report(0, "close", "ibv_close_device: %s", strerror(errno));

	for (i = 0; i < 50; i++) {
		ctx = ibv_open_device(dev);
		if (!ctx)
			break;
		pd = ibv_alloc_pd(ctx);
		if (!pd || ibv_dealloc_pd(pd)) {
			ibv_close_device(ctx);
			break;
		}
		if (ibv_close_device(ctx))
			break;
	}
	report(i == 50, "context-cycles",
	       "%d/50 open + alloc/dealloc PD + close cycles%s%s", i,
	       i == 50 ? "" : ": ", i == 50 ? "" : strerror(errno));

	ibv_free_device_list(list);
	return failed;
}
