// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The result lines of the C test tools; see test-report.h.
 */
#include <stdarg.h>
#include <stdio.h>

#include "test-report.h"

static const char *prefix = "";
static int failures;

void report_prefix(const char *p)
{
	prefix = p ? p : "";
}

/*
 * One line, written with one call and flushed: posting threads report too,
 * and a guest script may read the output while the tool still runs.
 */
static void line(const char *verdict, const char *name, const char *fmt,
		 va_list ap)
{
	char details[1024];

	vsnprintf(details, sizeof(details), fmt, ap);
	printf("%s: %s%s%s%s\n", verdict, prefix, name, details[0] ? " " : "",
	       details);
	fflush(stdout);
}

void report(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line(ok ? "PASS" : "FAIL", name, fmt, ap);
	va_end(ap);
	if (!ok)
		__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
}

void report_skip(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line("SKIP", name, fmt, ap);
	va_end(ap);
}

int report_failures(void)
{
	return __atomic_load_n(&failures, __ATOMIC_RELAXED);
}
