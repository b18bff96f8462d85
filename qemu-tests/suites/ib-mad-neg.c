// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ib-mad-neg: requests an InfiniBand port's agents must refuse, sent through
 * the kernel's MAD layer (libibumad) as the diagnostics send theirs, for the
 * ib suite.
 *
 *   ib-mad-neg CA PEER_LID [M_KEY]
 *
 * Prints one line per case, "NAME status=0xSSSS" for an answer or "NAME no
 * answer"; the suite judges them against what IBTA prescribes:
 *
 *   unsupported-attribute  SubnGet(SwitchInfo) of a channel adapter: 0x000c
 *   bad-port-select        PerfMgt Get(PortCounters) of port 7: 0x001c
 *   bad-lid-set            SubnSet(PortInfo) with a multicast LID: 0x001c,
 *                          then "lid-after N" (the LID must not change)
 *   mkey-wrong             with M_KEY: SubnGet(NodeInfo) with M_Key 0 (the
 *                          SM set M_KEY with protection 2): no answer
 *   mkey-right             the same with M_KEY: 0x0000
 *   mkey-violations N      PortInfo.M_KeyViolations afterwards
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#define MAD_BYTES	256
#define SMP_DATA	64	/* the attribute in an SMP (and in a PerfMgt MAD) */
#define QP1_QKEY	0x80010000u

static int fd, smp_agent, pma_agent;
static uint16_t peer_lid;
static uint64_t tid = 0x0bad000000000000ull;

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * One request, its answer's MAD in @answer; the MAD status, or -1 when no
 * answer came (the MAD layer's retries and timeout spent).
 */
static int transact(int agent, uint8_t mgmt_class, uint8_t method,
		    uint16_t attr, uint32_t modifier, uint64_t m_key,
		    const uint8_t *data, uint8_t *answer)
{
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_BYTES] = {};
	void *umad = buf;
	uint8_t *mad = umad_get_mad(umad);
	int length = MAD_BYTES, smp = mgmt_class == 0x01;

	mad[0] = 1;
	mad[1] = mgmt_class;
	mad[2] = 1;
	mad[3] = method;
	put64(mad + 8, ++tid);
	put16(mad + 16, attr);
	put32(mad + 20, modifier);
	if (smp)
		put64(mad + 24, m_key);
	if (data)
		memcpy(mad + SMP_DATA, data, MAD_BYTES - SMP_DATA);
	umad_set_addr(umad, peer_lid, smp ? 0 : 1, 0, smp ? 0 : QP1_QKEY);
	if (umad_send(fd, agent, umad, MAD_BYTES, 1000, 2) < 0)
		return -2;
	for (;;) {
		length = MAD_BYTES;
		if (umad_recv(fd, umad, &length, 6000) < 0)
			return -1;
		if (umad_status(umad))
			return -1;	/* the send's timeout, reported back */
		if (memcmp(mad + 8, buf + sizeof(struct ib_user_mad) + 8, 8) == 0 ||
		    mad[3] & 0x80)
			break;
	}
	memcpy(answer, mad, MAD_BYTES);
	return get16(mad + 4) & 0x7fff;	/* the D bit is not status */
}

static void print_status(const char *name, int status)
{
	if (status < 0)
		printf("%s no answer\n", name);
	else
		printf("%s status=0x%04x\n", name, status);
}

int main(int argc, char **argv)
{
	uint8_t answer[MAD_BYTES], data[MAD_BYTES - SMP_DATA];
	uint64_t m_key = 0;
	long method_mask[16 / sizeof(long)] = {};
	int status;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: %s CA PEER_LID [M_KEY]\n", argv[0]);
		return 2;
	}
	peer_lid = strtoul(argv[2], NULL, 0);
	if (argc == 4)
		m_key = strtoull(argv[3], NULL, 0);
	if (umad_init() < 0)
		return 1;
	fd = umad_open_port(argv[1], 1);
	if (fd < 0) {
		fprintf(stderr, "umad_open_port %s: %s\n", argv[1], strerror(-fd));
		return 1;
	}
	smp_agent = umad_register(fd, 0x01, 1, 0, method_mask);
	pma_agent = umad_register(fd, 0x04, 1, 0, method_mask);
	if (smp_agent < 0 || pma_agent < 0) {
		fprintf(stderr, "umad_register failed\n");
		return 1;
	}

	if (m_key) {
		print_status("mkey-wrong",
			     transact(smp_agent, 0x01, 0x01, 0x0011, 0, 0,
				      NULL, answer));
		print_status("mkey-right",
			     transact(smp_agent, 0x01, 0x01, 0x0011, 0, m_key,
				      NULL, answer));
		status = transact(smp_agent, 0x01, 0x01, 0x0015, 1, m_key, NULL,
				  answer);
		if (status == 0)
			printf("mkey-violations %u\n",
			       get16(answer + SMP_DATA + 44));
		return 0;
	}

	print_status("unsupported-attribute",
		     transact(smp_agent, 0x01, 0x01, 0x0012, 0, 0, NULL, answer));

	memset(data, 0, sizeof(data));
	data[1] = 7;	/* PortSelect */
	print_status("bad-port-select",
		     transact(pma_agent, 0x04, 0x01, 0x0012, 0, 0, data, answer));

	status = transact(smp_agent, 0x01, 0x01, 0x0015, 1, 0, NULL, answer);
	if (status != 0) {
		print_status("bad-lid-set", status);
		return 0;
	}
	memcpy(data, answer + SMP_DATA, sizeof(data));
	put16(data + 16, 0xc001);	/* a multicast LID: no port's */
	data[32] &= 0xf0;		/* PortState: no change */
	data[33] &= 0x0f;		/* PortPhysicalState: no change */
	print_status("bad-lid-set",
		     transact(smp_agent, 0x01, 0x02, 0x0015, 1, 0, data, answer));
	if (transact(smp_agent, 0x01, 0x01, 0x0015, 1, 0, NULL, answer) == 0)
		printf("lid-after %u\n", get16(answer + SMP_DATA + 16));
	return 0;
}
