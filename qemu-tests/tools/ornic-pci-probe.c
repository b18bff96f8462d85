// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ornic-pci-probe: guest-side check of an ornic PCI function without a
 * driver.  For every function with the ornic IDs it compares, against the
 * values of the shared hardware header, the BAR sizes (from sysfs) and the
 * MAGIC, VERSION and MSIX_VECTORS registers read through an mmap of BAR0
 * (sysfs resource0).  One "PASS:"/"FAIL:" line per check; exit status 1 if
 * any check failed or no function was found.
 *
 * "ornic-pci-probe --spec" prints the header's values as shell assignments
 * for scripts that check other tools' output (lspci) against the spec.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ornic/ornic_hw.h"

static int failures;

static void check(int ok, const char *bdf, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void check(int ok, const char *bdf, const char *what, const char *fmt, ...)
{
	va_list ap;

	printf("%s: pci/%s/%s ", ok ? "PASS" : "FAIL", bdf, what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		failures++;
}

static int read_hex(const char *dir, const char *file, unsigned long *val)
{
	char path[512];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%lx", val) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* Sizes of BARs 0..5 from the sysfs "resource" file (start end flags). */
static int bar_sizes(const char *dir, uint64_t sizes[6])
{
	char path[512];
	uint64_t start, end, flags;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/resource", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	for (i = 0; i < 6; i++) {
		if (fscanf(f, "%" SCNx64 " %" SCNx64 " %" SCNx64, &start, &end, &flags) != 3) {
			fclose(f);
			return -1;
		}
		sizes[i] = end > start ? end - start + 1 : 0;
	}
	fclose(f);
	return 0;
}

static void probe(const char *bdf, const char *dir)
{
	static const uint64_t want[6] = {
		[ORNIC_BAR_REGS] = ORNIC_BAR_REGS_SIZE,
		[ORNIC_BAR_DOORBELL] = ORNIC_BAR_DOORBELL_SIZE,
		[ORNIC_BAR_MSIX] = ORNIC_BAR_MSIX_SIZE,
	};
	uint64_t sizes[6];
	char path[512];
	volatile uint32_t *regs;
	uint32_t magic, version, vectors;
	int fd, i;

	if (bar_sizes(dir, sizes) == 0) {
		for (i = 0; i < 6; i++) {
			char what[16];

			snprintf(what, sizeof(what), "bar%d-size", i);
			check(sizes[i] == want[i], bdf, what, "%#" PRIx64 " (spec %#" PRIx64 ")",
			      sizes[i], want[i]);
		}
	} else {
		check(0, bdf, "bar-sizes", "cannot read %s/resource", dir);
	}

	snprintf(path, sizeof(path), "%s/resource%d", dir, ORNIC_BAR_REGS);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0) {
		check(0, bdf, "bar0-mmap", "open %s: %s", path, strerror(errno));
		return;
	}
	regs = mmap(NULL, ORNIC_BAR_REGS_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (regs == MAP_FAILED) {
		check(0, bdf, "bar0-mmap", "mmap %s: %s", path, strerror(errno));
		return;
	}
	magic = regs[ORNIC_REG_MAGIC / 4];
	version = regs[ORNIC_REG_VERSION / 4];
	vectors = regs[ORNIC_REG_MSIX_VECTORS / 4];
	munmap((void *)regs, ORNIC_BAR_REGS_SIZE);

	check(magic == ORNIC_MAGIC, bdf, "magic", "%#x (spec %#x)", magic, ORNIC_MAGIC);
	check(ORNIC_VERSION_MAJOR(version) == ORNIC_SPEC_VERSION_MAJOR &&
	      ORNIC_VERSION_MINOR(version) == ORNIC_SPEC_VERSION_MINOR, bdf, "version",
	      "%u.%u (spec %u.%u)", ORNIC_VERSION_MAJOR(version), ORNIC_VERSION_MINOR(version),
	      ORNIC_SPEC_VERSION_MAJOR, ORNIC_SPEC_VERSION_MINOR);
	check(vectors == ORNIC_MSIX_VECTORS, bdf, "msix-vectors-register", "%u (spec %u)",
	      vectors, ORNIC_MSIX_VECTORS);
}

int main(int argc, char **argv)
{
	const char *base = "/sys/bus/pci/devices";
	unsigned long vendor, device;
	struct dirent *de;
	int found = 0, expect = argc > 1 ? atoi(argv[1]) : 1;
	DIR *d;

	if (argc > 1 && !strcmp(argv[1], "--spec")) {
		printf("vendor=%04x\ndevice=%04x\nclass=%06x\nmsix_vectors=%u\n",
		       ORNIC_PCI_VENDOR_ID, ORNIC_PCI_DEVICE_ID, ORNIC_PCI_CLASS_CODE,
		       ORNIC_MSIX_VECTORS);
		printf("bar_regs=%u\nbar_regs_size=%u\nbar_db=%u\nbar_db_size=%u\n",
		       ORNIC_BAR_REGS, ORNIC_BAR_REGS_SIZE, ORNIC_BAR_DOORBELL,
		       ORNIC_BAR_DOORBELL_SIZE);
		printf("bar_msix=%u\nbar_msix_size=%u\n", ORNIC_BAR_MSIX, ORNIC_BAR_MSIX_SIZE);
		return 0;
	}
	d = opendir(base);
	if (!d) {
		perror(base);
		return 1;
	}
	while ((de = readdir(d))) {
		char dir[300];

		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", base, de->d_name);
		if (read_hex(dir, "vendor", &vendor) || read_hex(dir, "device", &device))
			continue;
		if (vendor != ORNIC_PCI_VENDOR_ID || device != ORNIC_PCI_DEVICE_ID)
			continue;
		found++;
		probe(de->d_name, dir);
	}
	closedir(d);
	check(found == expect, "all", "functions-found", "%d (expected %d)", found, expect);
	return failures ? 1 : 0;
}
