/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The result lines of the C test tools: one line per check on stdout,
 *
 *   PASS: <prefix><name> <details>
 *   FAIL: <prefix><name> <details>
 *   SKIP: <prefix><name> <why>
 *
 * the form the guest scripts pass on to `make check` (suites/lib.sh).
 * Needs nothing but libc, so the raw uverbs tools use it too.
 */
#ifndef TEST_REPORT_H
#define TEST_REPORT_H

/* Put @prefix (a tool's "mw/") before every name from now on; NULL: none. */
void report_prefix(const char *prefix);

/* PASS when @ok, else FAIL. */
void report(int ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* SKIP: the check cannot run here, and why. */
void report_skip(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* How many FAIL lines were printed. */
int report_failures(void);

#endif /* TEST_REPORT_H */
