// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * driver-uctx: exercise an ornic user context without a provider library.
 *
 *   driver-uctx /dev/infiniband/uverbsN
 *
 * Opens a ucontext (GET_CONTEXT through the uverbs write() ABI), allocates a
 * PD, maps the context's doorbell page and rings a doorbell for a CQ that
 * does not exist (the device counts it as db_bad_queue).  Prints one
 * "key=value" line, then waits for a line on stdin (the test removes the
 * device meanwhile), touches the mapping again - after disassociation it
 * must be a harmless dummy page, not a SIGBUS - and exits 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "../../include/uapi/rdma/ornic-abi.h"
#include "../../include/ornic/ornic_hw.h"

struct get_context_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_get_context cmd;
};

struct get_context_resp {
	struct ib_uverbs_get_context_resp core;
	struct ornic_ibv_alloc_ucontext_resp drv;
};

struct alloc_pd_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_alloc_pd cmd;
};

struct alloc_pd_resp {
	struct ib_uverbs_alloc_pd_resp core;
	struct ornic_ibv_alloc_pd_resp drv;
};

int main(int argc, char **argv)
{
	struct get_context_resp cresp;
	struct get_context_cmd ccmd;
	struct alloc_pd_resp presp;
	struct alloc_pd_cmd pcmd;
	volatile uint64_t *db;
	char line[16];
	void *page;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s /dev/infiniband/uverbsN\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}

	memset(&ccmd, 0, sizeof(ccmd));
	memset(&cresp, 0, sizeof(cresp));
	ccmd.hdr.command = IB_USER_VERBS_CMD_GET_CONTEXT;
	ccmd.hdr.in_words = sizeof(ccmd) / 4;
	ccmd.hdr.out_words = sizeof(cresp) / 4;
	ccmd.cmd.response = (uintptr_t)&cresp;
	if (write(fd, &ccmd, sizeof(ccmd)) != sizeof(ccmd)) {
		perror("GET_CONTEXT");
		return 1;
	}

	memset(&pcmd, 0, sizeof(pcmd));
	memset(&presp, 0, sizeof(presp));
	pcmd.hdr.command = IB_USER_VERBS_CMD_ALLOC_PD;
	pcmd.hdr.in_words = sizeof(pcmd) / 4;
	pcmd.hdr.out_words = sizeof(presp) / 4;
	pcmd.cmd.response = (uintptr_t)&presp;
	if (write(fd, &pcmd, sizeof(pcmd)) != sizeof(pcmd)) {
		perror("ALLOC_PD");
		return 1;
	}

	page = mmap(NULL, cresp.drv.db_page_size, PROT_WRITE, MAP_SHARED, fd,
		    cresp.drv.db_mmap_key);
	if (page == MAP_FAILED) {
		perror("mmap doorbell page");
		return 1;
	}
	db = (volatile uint64_t *)((char *)page + ORNIC_DB_CQ);
	*db = ORNIC_DB_VALUE(0xabcde, 0, 1);

	printf("db_page=%u pdn=%u spec=%#x comp_vectors=%u\n",
	       cresp.drv.db_page, presp.drv.pdn, cresp.drv.spec_version,
	       cresp.core.num_comp_vectors);
	fflush(stdout);

	/* The test removes the device now; the context gets disassociated. */
	if (!fgets(line, sizeof(line), stdin))
		line[0] = 0;
	*db = ORNIC_DB_VALUE(0xabcde, 0, 2);
	printf("after=ok\n");
	return 0;
}
