// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mmio-stress: prove that no posted write from the guest to an ornic device
 * is lost on its way (QEMU's vfio-user client, the socket, the model).
 *
 *   mmio-stress /sys/bus/pci/devices/BDF WRITES
 *
 * The device must have no driver bound.  Through the sysfs resource files
 * (uncached mappings) it writes SCRATCH WRITES times with a running value,
 * reading SCRATCH back every 4096 writes, and then WRITES doorbells to BAR2,
 * alternating one 64-bit write with a pair of 32-bit halves, each to the next
 * doorbell page and kind.  The device counts what it received
 * (SCRATCH_WRITES, BAR2_WRITES; registers.rst): both counts must match what
 * was written exactly.  Prints one line of figures; exit status 0 only if
 * nothing went missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../include/ornic/ornic_hw.h"

static volatile void *map_resource(const char *dev, int bar, size_t *len)
{
	char path[512];
	struct stat st;
	void *p;
	int fd;

	snprintf(path, sizeof(path), "%s/resource%d", dev, bar);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(2);
	}
	p = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "mmap %s: %s\n", path, strerror(errno));
		exit(2);
	}
	close(fd);
	*len = st.st_size;
	return p;
}

static uint32_t rd32(volatile void *bar, uint32_t off)
{
	return *(volatile uint32_t *)((volatile char *)bar + off);
}

static void wr32(volatile void *bar, uint64_t off, uint32_t v)
{
	*(volatile uint32_t *)((volatile char *)bar + off) = v;
}

static void wr64(volatile void *bar, uint64_t off, uint64_t v)
{
	*(volatile uint64_t *)((volatile char *)bar + off) = v;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	uint32_t scratch0, bar2_0, scratch_got, bar2_got, halves = 0;
	volatile void *regs, *dbs;
	size_t regs_len, dbs_len;
	unsigned long n, i;
	double t0, t_regs, t_dbs;
	int bad_reads = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s /sys/bus/pci/devices/BDF WRITES\n", argv[0]);
		return 2;
	}
	n = strtoul(argv[2], NULL, 0);
	regs = map_resource(argv[1], ORNIC_BAR_REGS, &regs_len);
	dbs = map_resource(argv[1], ORNIC_BAR_DOORBELL, &dbs_len);
	if (regs_len < ORNIC_BAR_REGS_SIZE || dbs_len < ORNIC_BAR_DOORBELL_SIZE ||
	    rd32(regs, ORNIC_REG_MAGIC) != ORNIC_MAGIC) {
		fprintf(stderr, "not an ornic: MAGIC %#x, BARs %zu/%zu bytes\n",
			rd32(regs, ORNIC_REG_MAGIC), regs_len, dbs_len);
		return 2;
	}
	scratch0 = rd32(regs, ORNIC_REG_SCRATCH_WRITES);
	bar2_0 = rd32(regs, ORNIC_REG_BAR2_WRITES);

	t0 = now();
	for (i = 1; i <= n; i++) {
		wr32(regs, ORNIC_REG_SCRATCH, (uint32_t)i);
		/* A read flushes the posted writes before it: the last one must be there. */
		if ((i & 4095) == 0 && rd32(regs, ORNIC_REG_SCRATCH) != (uint32_t)i)
			bad_reads++;
	}
	/* Posted writes may still be on their way: the read waits for them. */
	scratch_got = rd32(regs, ORNIC_REG_SCRATCH_WRITES) - scratch0;
	t_regs = now() - t0;

	/* Doorbells to every page and kind: the device is not enabled, so it
	 * only counts them. */
	t0 = now();
	for (i = 0; i < n; i++) {
		uint64_t off = (i % ORNIC_DB_PAGES) * ORNIC_DB_PAGE_SIZE +
			       (i / ORNIC_DB_PAGES % 7) * 8;
		uint64_t value = ORNIC_DB_VALUE(i & ORNIC_DB_QN_MASK, 0, i);

		if (i & 1) {
			wr32(dbs, off, (uint32_t)value);
			wr32(dbs, off + 4, (uint32_t)(value >> 32));
			halves += 2;
		} else {
			wr64(dbs, off, value);
			halves++;
		}
	}
	bar2_got = rd32(regs, ORNIC_REG_BAR2_WRITES) - bar2_0;
	t_dbs = now() - t0;
	printf("registers: %lu written, %u counted by the device, %d bad read-backs, %.1f s (%.0f/s); "
	       "doorbells: %lu (%u BAR2 writes) written, %u counted, %.1f s (%.0f/s)\n",
	       n, scratch_got, bad_reads, t_regs, n / t_regs, n, halves, bar2_got, t_dbs,
	       n / t_dbs);
	return scratch_got == (uint32_t)n && bar2_got == halves && bad_reads == 0 ? 0 : 1;
}
