// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A hostile iWARP peer for ornic, and the rdma_cm client that goes with it.
 *
 *   iwarp-peer peer ADDR PORT N IFNAME
 *   iwarp-peer client ADDR PORT SRC_ADDR CASE...
 *
 * The peer is no RNIC: it is a plain TCP server (the kernel's TCP) on PORT
 * and PORT + 1 that speaks MPA, DDP and RDMAP by hand, so that it can send
 * what no RNIC would.  It accepts N connections, each in a child process;
 * the MPA request's private data names the case and the client's buffer
 * (its STag, address and length), the reply is revision 2 with the
 * enhanced parameters of RFC 6581 and CRCs on.  Every FPDU ornic sends
 * back has its CRC32c checked, and a TERMINATE (RFC 5040 4.8) is judged
 * against the layer, error type and code the standards give for the case.
 * IFNAME is the peer's interface, for the case that injects a segment
 * with a raw socket.
 *
 * The client opens a connection to PORT ("bystander") that moves verified
 * data before and after the cases, then one connection per CASE, and
 * judges what the case must do to its QP: the async event, the flushed
 * work requests, the DISCONNECTED event, its memory untouched.  Each side
 * prints "peer|client CASE PASS|FAIL what happened" per case, and the
 * suite needs both to pass.  Every wait has a timeout.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <isa-l/crc.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

/* RDMAP opcodes (RFC 5040 4.3) and the untagged queues (RFC 5040 5.1). */
enum { OP_WRITE, OP_READ_REQ, OP_READ_RESP, OP_SEND, OP_TERMINATE = 7 };
enum { QN_SEND, QN_READ_REQ, QN_TERMINATE };

#define DDP_TAGGED 0x80
#define DDP_LAST 0x40
#define DDP_TAGGED_HDR 14
#define DDP_UNTAGGED_HDR 18
#define READ_REQ_SIZE 28
#define MAX_ULPDU 65535

/* The client's target buffer, between two guard areas of the same size. */
#define BUF 8192
#define FILL 0xa5
/* Queue 1 STag the peer names as the sink of its Read Requests. */
#define PEER_SINK_STAG 0x5eed0000u
/* An STag ornic never gives out: key 0x5a of MR index 0xfedcba. */
#define STAG_NEVER 0xfedcba5au

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, v >> 16);
	put_be16(p + 2, v);
}

static void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, v >> 32);
	put_be32(p + 4, v);
}

static uint16_t be16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)be16(p) << 16 | be16(p + 2);
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

/* RFC 5044 4.4 uses iSCSI's CRC32c; ISA-L's crc32_iscsi keeps the register uninverted. */
static uint32_t crc32c(const uint8_t *p, size_t n)
{
	return ~crc32_iscsi((unsigned char *)p, (int)n, 0xffffffffu);
}

/* The pattern of bystander round @round at byte @i. */
static uint8_t pattern(int round, size_t i)
{
	return (uint8_t)(i * 31 + round * 17 + 3);
}

static void result(const char *side, const char *name, bool ok,
		   const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	printf("%s %s %s %s\n", side, name, ok ? "PASS" : "FAIL", text);
	fflush(stdout);
}

/* --- the peer: MPA, DDP and RDMAP by hand ---------------------------------- */

struct conn {
	int fd;
	char name[32];
	uint32_t stag;
	uint64_t addr;
	uint32_t len;
	uint32_t msn_send;	/* next MSN of ours on queue 0 */
	uint32_t msn_read;	/* on queue 1 */
	int err;		/* errno of the last failed read */
	uint8_t rx[2 + MAX_ULPDU + 3 + 4];
	uint8_t tx[2 + MAX_ULPDU + 3 + 4];
};

static size_t pad_of(size_t ulpdu)
{
	return (4 - (2 + ulpdu) % 4) % 4;
}

static int write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= w;
	}
	return 0;
}

/* 0: @n bytes read; 1: the stream ended first; 2: it ended inside them; -1: errno. */
static int read_full(int fd, void *buf, size_t n, int ms)
{
	long long end = now_ms() + ms;
	size_t got = 0;

	while (got < n) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = end - now_ms();
		ssize_t r;

		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (poll(&p, 1, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!p.revents)
			continue;
		r = read(fd, (uint8_t *)buf + got, n - got);
		if (r == 0)
			return got ? 2 : 1;
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		got += r;
	}
	return 0;
}

/* One FPDU around @ulpdu: length, ULPDU, pad, CRC (least significant byte first). */
static int send_fpdu(struct conn *c, const uint8_t *ulpdu, size_t n, bool bad_crc)
{
	size_t covered = 2 + n + pad_of(n);
	uint32_t crc;
	int i;

	put_be16(c->tx, n);
	memcpy(c->tx + 2, ulpdu, n);
	memset(c->tx + 2 + n, 0, pad_of(n));
	crc = crc32c(c->tx, covered);
	if (bad_crc)
		crc ^= 1;
	for (i = 0; i < 4; i++)
		c->tx[covered + i] = crc >> (8 * i);
	return write_all(c->fd, c->tx, covered + 4);
}

enum rx { RX_OK, RX_EOF, RX_CUT, RX_ERR, RX_TIMEOUT, RX_BADCRC };

static const char *rx_str(const struct conn *c, enum rx r)
{
	static char buf[64];

	switch (r) {
	case RX_OK:
		return "an FPDU";
	case RX_EOF:
		return "FIN";
	case RX_CUT:
		return "FIN inside an FPDU";
	case RX_TIMEOUT:
		return "nothing (timeout)";
	case RX_BADCRC:
		return "an FPDU with a wrong CRC";
	default:
		snprintf(buf, sizeof(buf), "%s",
			 c->err == ECONNRESET ? "RST" : strerror(c->err));
		return buf;
	}
}

/* The next FPDU from ornic, its CRC checked; *@u and *@n its ULPDU. */
static enum rx next_ulpdu(struct conn *c, int ms, uint8_t **u, size_t *n)
{
	size_t len, covered;
	uint32_t crc;
	int r;

	r = read_full(c->fd, c->rx, 2, ms);
	if (!r) {
		len = be16(c->rx);
		covered = 2 + len + pad_of(len);
		r = read_full(c->fd, c->rx + 2, covered - 2 + 4, ms);
		if (r == 1)
			r = 2;
	}
	if (r == 1)
		return RX_EOF;
	if (r == 2)
		return RX_CUT;
	if (r < 0) {
		c->err = errno;
		return errno == ETIMEDOUT ? RX_TIMEOUT : RX_ERR;
	}
	crc = c->rx[covered] | c->rx[covered + 1] << 8 |
	      c->rx[covered + 2] << 16 | (uint32_t)c->rx[covered + 3] << 24;
	if (crc != crc32c(c->rx, covered))
		return RX_BADCRC;
	*u = c->rx + 2;
	*n = len;
	return RX_OK;
}

/* An untagged segment with L set; the versions given so that they can be wrong. */
static size_t untagged(uint8_t *u, uint8_t ddp_ver, uint8_t rdmap_ver,
		       uint8_t opcode, uint32_t qn, uint32_t msn,
		       const void *payload, size_t n)
{
	u[0] = DDP_LAST | ddp_ver;
	u[1] = rdmap_ver << 6 | opcode;
	put_be32(u + 2, 0);
	put_be32(u + 6, qn);
	put_be32(u + 10, msn);
	put_be32(u + 14, 0);
	memcpy(u + DDP_UNTAGGED_HDR, payload, n);
	return DDP_UNTAGGED_HDR + n;
}

static size_t tagged(uint8_t *u, uint8_t opcode, bool last, uint32_t stag,
		     uint64_t to, const void *payload, size_t n)
{
	u[0] = DDP_TAGGED | (last ? DDP_LAST : 0) | 1;
	u[1] = 1 << 6 | opcode;
	put_be32(u + 2, stag);
	put_be64(u + 6, to);
	memcpy(u + DDP_TAGGED_HDR, payload, n);
	return DDP_TAGGED_HDR + n;
}

static int send_message(struct conn *c, const char *text)
{
	uint8_t u[DDP_UNTAGGED_HDR + 256];
	size_t n = untagged(u, 1, 1, OP_SEND, QN_SEND, c->msn_send++, text,
			    strlen(text) + 1);

	return send_fpdu(c, u, n, false);
}

static size_t read_request(uint8_t *u, uint32_t msn, uint32_t sink, uint32_t size,
			   uint32_t src_stag, uint64_t src_to)
{
	uint8_t rr[READ_REQ_SIZE];

	put_be32(rr, sink);
	put_be64(rr + 4, 0);
	put_be32(rr + 12, size);
	put_be32(rr + 16, src_stag);
	put_be64(rr + 20, src_to);
	return untagged(u, 1, 1, OP_READ_REQ, QN_READ_REQ, msn, rr, sizeof(rr));
}

struct seg {
	bool tagged, last;
	uint8_t ddp_ver, rdmap_ver, opcode;
	uint32_t stag, qn, msn, mo;
	uint64_t to;
	const uint8_t *payload;
	size_t len;
};

static bool parse_seg(const uint8_t *u, size_t n, struct seg *s)
{
	memset(s, 0, sizeof(*s));
	if (n < 2)
		return false;
	s->tagged = u[0] & DDP_TAGGED;
	s->last = u[0] & DDP_LAST;
	s->ddp_ver = u[0] & 3;
	s->rdmap_ver = u[1] >> 6;
	s->opcode = u[1] & 0xf;
	if (s->tagged) {
		if (n < DDP_TAGGED_HDR)
			return false;
		s->stag = be32(u + 2);
		s->to = be64(u + 6);
		s->payload = u + DDP_TAGGED_HDR;
		s->len = n - DDP_TAGGED_HDR;
	} else {
		if (n < DDP_UNTAGGED_HDR)
			return false;
		s->qn = be32(u + 6);
		s->msn = be32(u + 10);
		s->mo = be32(u + 14);
		s->payload = u + DDP_UNTAGGED_HDR;
		s->len = n - DDP_UNTAGGED_HDR;
	}
	return s->ddp_ver == 1 && s->rdmap_ver == 1;
}

static const char *layer_name(int layer)
{
	static const char *const names[] = { "RDMAP", "DDP", "LLP" };

	return layer < 3 ? names[layer] : "unknown";
}

/* RFC 5040 4.8 with RFC 5041 7.2 and RFC 5044 8 (and RFC 6581) for the codes. */
static const char *cause_name(int layer, int type, int code)
{
	static const struct {
		int layer, type, code;
		const char *name;
	} names[] = {
		{ 0, 1, 0x00, "remote protection error, invalid STag" },
		{ 0, 1, 0x01, "remote protection error, base or bounds violation" },
		{ 0, 1, 0x02, "remote protection error, access rights violation" },
		{ 0, 2, 0x05, "remote operation error, invalid RDMAP version" },
		{ 0, 2, 0x06, "remote operation error, unexpected opcode" },
		{ 1, 1, 0x00, "tagged buffer error, invalid STag" },
		{ 1, 1, 0x01, "tagged buffer error, base or bounds violation" },
		{ 1, 1, 0x04, "tagged buffer error, invalid DDP version" },
		{ 1, 2, 0x01, "untagged buffer error, invalid QN" },
		{ 1, 2, 0x06, "untagged buffer error, invalid DDP version" },
		{ 2, 0, 0x01, "MPA, TCP connection lost" },
		{ 2, 0, 0x02, "MPA, CRC error" },
		{ 2, 0, 0x03, "MPA, marker and ULPDU length mismatch" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].layer == layer && names[i].type == type &&
		    names[i].code == code)
			return names[i].name;
	return "a cause not named here";
}

struct want_term {
	int layer, type, code;
	const uint8_t *sent;	/* the segment it must report, NULL: none */
	size_t sent_len;
	bool rdmap_hdr;		/* with the Read Request's header */
};

/*
 * Reads what ornic sends until its TERMINATE and then its FIN (ornic's
 * spec: a TERMINATE, then the connection closed with FIN), and judges the
 * TERMINATE by @w.
 */
static bool expect_terminate(struct conn *c, const struct want_term *w,
			     char *msg, size_t sz)
{
	int layer, type, code, hdrct;
	const uint8_t *t;
	struct seg s;
	size_t n, tn, off, dlen;
	uint8_t *u;
	enum rx r;
	char extra[200] = "";

	r = next_ulpdu(c, 8000, &u, &n);
	if (r != RX_OK) {
		snprintf(msg, sz, "no TERMINATE, got %s", rx_str(c, r));
		return false;
	}
	if (!parse_seg(u, n, &s) || s.tagged || s.opcode != OP_TERMINATE ||
	    s.qn != QN_TERMINATE) {
		snprintf(msg, sz,
			 "got an FPDU that is not a TERMINATE (%s opcode %u, queue %u, DDP/RDMAP version %u/%u)",
			 s.tagged ? "tagged" : "untagged", s.opcode, s.qn,
			 s.ddp_ver, s.rdmap_ver);
		return false;
	}
	if (!s.last || s.msn != 1 || s.mo != 0 || s.len < 4) {
		snprintf(msg, sz,
			 "TERMINATE with L %d, MSN %u, MO %u, %zu bytes (want L, MSN 1, MO 0)",
			 s.last, s.msn, s.mo, s.len);
		return false;
	}
	t = s.payload;
	tn = s.len;
	layer = t[0] >> 4;
	type = t[0] & 0xf;
	code = t[1];
	hdrct = t[2];
	snprintf(msg, sz, "TERMINATE layer %s, error type %d, code %#04x (%s)",
		 layer_name(layer), type, code, cause_name(layer, type, code));
	if (layer != w->layer || type != w->type || code != w->code) {
		snprintf(extra, sizeof(extra), ", wanted layer %s, type %d, code %#04x (%s)",
			 layer_name(w->layer), w->type, w->code,
			 cause_name(w->layer, w->type, w->code));
		strncat(msg, extra, sz - strlen(msg) - 1);
		return false;
	}
	off = 4;
	if (w->sent) {
		/* The segment's length (M) and its DDP header (D). */
		dlen = (w->sent[0] & DDP_TAGGED) ? DDP_TAGGED_HDR : DDP_UNTAGGED_HDR;
		if (!(hdrct & 0x80) || !(hdrct & 0x40) || tn < off + 2 + dlen ||
		    be16(t + off) != w->sent_len ||
		    memcmp(t + off + 2, w->sent, dlen)) {
			strncat(msg, ", without the segment's length and DDP header as sent",
				sz - strlen(msg) - 1);
			return false;
		}
		off += 2 + dlen;
		strncat(msg, ", the segment's length and DDP header copied",
			sz - strlen(msg) - 1);
	}
	if (w->rdmap_hdr) {
		if (!(hdrct & 0x20) || tn < off + READ_REQ_SIZE ||
		    memcmp(t + off, w->sent + DDP_UNTAGGED_HDR, READ_REQ_SIZE)) {
			strncat(msg, ", without the Read Request's RDMAP header",
				sz - strlen(msg) - 1);
			return false;
		}
		strncat(msg, " and the Read Request header", sz - strlen(msg) - 1);
	}
	r = next_ulpdu(c, 5000, &u, &n);
	snprintf(extra, sizeof(extra), "; then %s", rx_str(c, r));
	strncat(msg, extra, sz - strlen(msg) - 1);
	return r == RX_EOF;
}

/*
 * Sends the ULPDU @u (with a wrong CRC if @bad_crc) and judges ornic's
 * TERMINATE by @want; a segment with a good CRC must come back in it as
 * sent.  @msg: "@what -> what came back".
 */
static bool send_expect_terminate(struct conn *c, const uint8_t *u, size_t n,
				  bool bad_crc, const struct want_term *want,
				  const char *what, char *msg, size_t sz)
{
	struct want_term w = *want;
	char term[600];
	bool ok;

	if (send_fpdu(c, u, n, bad_crc))
		return false;
	if (!bad_crc) {
		w.sent = u;
		w.sent_len = n;
	}
	ok = expect_terminate(c, &w, term, sizeof(term));
	snprintf(msg, sz, "%s -> %s", what, term);
	return ok;
}

static bool p_bad_crc(struct conn *c, char *msg, size_t sz)
{
	static const char text[] = "ornic-peer: this FPDU's CRC is wrong";
	static const struct want_term w = { 2, 0, 0x02, NULL, 0, false };
	uint8_t u[128];
	size_t n = untagged(u, 1, 1, OP_SEND, QN_SEND, c->msn_send++, text,
			    sizeof(text));

	return send_expect_terminate(c, u, n, true, &w,
				     "SEND in an FPDU with a bad CRC", msg, sz);
}

/*
 * An FPDU with a good CRC around a ULPDU of 6 bytes, too short for the DDP
 * header it starts: a framing error, with no header to copy back.
 */
static bool p_short_ulpdu(struct conn *c, char *msg, size_t sz)
{
	static const struct want_term w = { 2, 0, 0x03, NULL, 0, false };
	char term[600];
	uint8_t u[DDP_UNTAGGED_HDR + 8];
	bool ok;

	untagged(u, 1, 1, OP_SEND, QN_SEND, c->msn_send++, "", 0);
	if (send_fpdu(c, u, 6, false))
		return false;
	ok = expect_terminate(c, &w, term, sizeof(term));
	snprintf(msg, sz, "6-byte ULPDU (a SEND's header cut) -> %s", term);
	return ok;
}

/* A SEND whose DDP or RDMAP control byte is bad. */
static bool p_bad_header(struct conn *c, char *msg, size_t sz, uint8_t ddp_ver,
			 uint8_t rdmap_ver, uint8_t opcode,
			 const struct want_term *want, const char *what)
{
	static const char text[] = "ornic-peer: a header ornic must refuse";
	uint8_t u[128];
	size_t n = untagged(u, ddp_ver, rdmap_ver, opcode, QN_SEND,
			    c->msn_send++, text, sizeof(text));

	return send_expect_terminate(c, u, n, false, want, what, msg, sz);
}

static bool p_write(struct conn *c, char *msg, size_t sz, uint32_t stag,
		    uint64_t to, size_t len, const struct want_term *want,
		    const char *what)
{
	uint8_t u[DDP_TAGGED_HDR + 256], data[256];
	size_t n;

	memset(data, 0x3c, sizeof(data));
	n = tagged(u, OP_WRITE, true, stag, to, data, len);
	return send_expect_terminate(c, u, n, false, want, what, msg, sz);
}

static bool p_read_bounds(struct conn *c, char *msg, size_t sz)
{
	static const struct want_term w = { 0, 1, 0x01, NULL, 0, true };
	uint8_t u[DDP_UNTAGGED_HDR + READ_REQ_SIZE];
	size_t n = read_request(u, c->msn_read++, PEER_SINK_STAG, 64, c->stag,
				c->addr + c->len - 16);

	return send_expect_terminate(c, u, n, false, &w,
				     "Read Request of 64 B from the last 16 B of the client's buffer",
				     msg, sz);
}

/* Waits for the client's RDMA READ to arrive as a Read Request, then resets. */
static bool p_rst(struct conn *c, char *msg, size_t sz)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	const uint8_t *rr;
	struct seg s;
	uint8_t *u;
	size_t n;
	enum rx r;

	r = next_ulpdu(c, 8000, &u, &n);
	if (r != RX_OK) {
		snprintf(msg, sz, "no Read Request from the client's READ, got %s",
			 rx_str(c, r));
		return false;
	}
	if (!parse_seg(u, n, &s) || s.tagged || s.opcode != OP_READ_REQ ||
	    s.qn != QN_READ_REQ || s.msn != 1 || s.len != READ_REQ_SIZE) {
		snprintf(msg, sz,
			 "wanted the READ's Read Request (queue 1, MSN 1), got opcode %u on queue %u, MSN %u, %zu bytes",
			 s.opcode, s.qn, s.msn, s.len);
		return false;
	}
	rr = s.payload;
	/* The sink is the READ's SGE: the client's buffer, by its lkey. */
	if (be64(rr + 4) != c->addr ||
	    be32(rr + 12) != 4096 || be32(rr + 16) != PEER_SINK_STAG ||
	    be64(rr + 20) != 0) {
		snprintf(msg, sz,
			 "Read Request sink TO %#llx, size %u, source %#x/%#llx: not the client's READ",
			 (unsigned long long)be64(rr + 4), be32(rr + 12), be32(rr + 16),
			 (unsigned long long)be64(rr + 20));
		return false;
	}
	if (setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg))) {
		snprintf(msg, sz, "SO_LINGER: %s", strerror(errno));
		return false;
	}
	close(c->fd);
	c->fd = -1;
	snprintf(msg, sz,
		 "the client's READ of 4096 B arrived as a Read Request (CRC good), answered with RST (SO_LINGER 0) instead of data");
	return true;
}

/* --- the out-of-window segment, through a raw socket ----------------------- */

struct raw {
	int fd;
	struct sockaddr_ll sll;
	uint16_t lport, rport;
	uint8_t tmpl[2048];	/* an outgoing frame of the connection */
	size_t tlen;
};

struct tcpseg {
	bool out;
	uint32_t seq, ack;
	uint8_t flags;
	size_t plen;
};

static int raw_open(struct raw *r, const char *ifname, int fd)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);

	memset(r, 0, sizeof(*r));
	/* Only ETH_P_ALL taps see outgoing frames: the template is one. */
	r->fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (r->fd < 0)
		return -1;
	r->sll.sll_family = AF_PACKET;
	r->sll.sll_protocol = htons(ETH_P_ALL);
	r->sll.sll_ifindex = if_nametoindex(ifname);
	if (!r->sll.sll_ifindex ||
	    bind(r->fd, (struct sockaddr *)&r->sll, sizeof(r->sll)))
		return -1;
	if (getsockname(fd, (struct sockaddr *)&a, &al))
		return -1;
	r->lport = ntohs(a.sin_port);
	al = sizeof(a);
	if (getpeername(fd, (struct sockaddr *)&a, &al))
		return -1;
	r->rport = ntohs(a.sin_port);
	return 0;
}

/* The next TCP segment of the connection either way, within @ms; -1 when none. */
static int raw_next(struct raw *r, int ms, struct tcpseg *s, uint8_t *frame,
		    size_t *flen)
{
	long long end = now_ms() + ms;
	uint8_t buf[2048];

	for (;;) {
		struct pollfd p = { .fd = r->fd, .events = POLLIN };
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		long long left = end - now_ms();
		size_t ihl, thl, tot;
		uint16_t sport, dport;
		const uint8_t *ip, *tcp;
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return -1;
		n = recvfrom(r->fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if (n < 14 + 20 + 20 || be16(buf + 12) != ETH_P_IP)
			continue;
		ip = buf + 14;
		ihl = (ip[0] & 0xf) * 4;
		tot = be16(ip + 2);
		if (ip[9] != IPPROTO_TCP || (size_t)n < 14 + tot || tot < ihl + 20)
			continue;
		tcp = ip + ihl;
		thl = (tcp[12] >> 4) * 4;
		sport = be16(tcp);
		dport = be16(tcp + 2);
		s->out = from.sll_pkttype == PACKET_OUTGOING;
		if (s->out ? sport != r->lport || dport != r->rport :
			     sport != r->rport || dport != r->lport)
			continue;
		s->seq = be32(tcp + 4);
		s->ack = be32(tcp + 8);
		s->flags = tcp[13];
		s->plen = tot - ihl - thl;
		if (frame) {
			memcpy(frame, buf, 14 + tot);
			*flen = 14 + tot;
		}
		return 0;
	}
}

static uint32_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
	for (; n > 1; p += 2, n -= 2)
		s += be16(p);
	if (n)
		s += p[0] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/*
 * The template frame with sequence number @seq and @payload: headers and
 * options as the kernel sent them, lengths, IP id and both checksums new.
 */
static int raw_inject(struct raw *r, uint32_t seq, const uint8_t *payload,
		      size_t n)
{
	uint8_t f[2048];
	uint8_t *ip = f + 14, *tcp;
	size_t ihl = (r->tmpl[14] & 0xf) * 4, thl, tl;

	memcpy(f, r->tmpl, r->tlen);
	tcp = ip + ihl;
	thl = (tcp[12] >> 4) * 4;
	tl = thl + n;
	if (14 + ihl + tl > sizeof(f))
		return -1;
	memcpy(tcp + thl, payload, n);
	put_be16(ip + 2, ihl + tl);
	put_be16(ip + 4, be16(ip + 4) + 7);
	put_be16(ip + 10, 0);
	put_be16(ip + 10, fold(sum16(ip, ihl, 0)));
	put_be32(tcp + 4, seq);
	tcp[13] = 0x18;		/* ACK, PSH */
	put_be16(tcp + 16, 0);
	put_be16(tcp + 16, fold(sum16(tcp, tl, sum16(ip + 12, 8, IPPROTO_TCP + tl))));
	r->sll.sll_protocol = htons(ETH_P_IP);
	memcpy(r->sll.sll_addr, f, ETH_ALEN);
	r->sll.sll_halen = ETH_ALEN;
	if (sendto(r->fd, f, 14 + ihl + tl, 0, (struct sockaddr *)&r->sll,
		   sizeof(r->sll)) < 0)
		return -1;
	return 0;
}

/*
 * RFC 9293 3.10.7.4: a segment whose sequence number is outside the receive
 * window is not acceptable: the receiver drops it and answers with an ACK
 * of <SEQ=SND.NXT><ACK=RCV.NXT>.  The forged segment carries a well-formed
 * FPDU (a SEND with MSN 1), so had ornic taken it the client would see it.
 */
static bool p_out_of_window(struct conn *c, struct raw *r, char *msg, size_t sz)
{
	static const char bogus[] = "ornic-peer: BOGUS, outside the window";
	static const char good[] = "ornic-peer: GOOD, in order";
	uint32_t rcv_nxt = 0, snd_nxt = 0;
	uint8_t u[DDP_UNTAGGED_HDR + 64], f[128], *ru;
	size_t n, fl, rn;
	struct tcpseg s;
	bool acked = false, answered = false;
	long long end;
	struct seg rs;
	char want[64];
	enum rx rx;

	/* The MPA reply went out just before: its frame is the template. */
	end = now_ms() + 3000;
	while (!r->tlen && now_ms() < end) {
		if (raw_next(r, 500, &s, r->tmpl, &fl))
			continue;
		if (s.out && s.plen) {
			r->tlen = fl;
			rcv_nxt = s.seq + s.plen;	/* ornic's RCV.NXT */
			snd_nxt = s.ack;		/* ornic's SND.NXT */
		}
	}
	if (!r->tlen) {
		snprintf(msg, sz, "the raw socket saw no frame of the MPA reply");
		return false;
	}
	/* ornic's ACK of the reply, so that the next ACK answers the injection. */
	while (!acked && !raw_next(r, 3000, &s, NULL, NULL))
		acked = !s.out && s.ack == rcv_nxt;
	n = untagged(u, 1, 1, OP_SEND, QN_SEND, 1, bogus, sizeof(bogus));
	put_be16(f, n);
	memcpy(f + 2, u, n);
	memset(f + 2 + n, 0, pad_of(n));
	fl = 2 + n + pad_of(n);
	{
		uint32_t crc = crc32c(f, fl);
		int i;

		for (i = 0; i < 4; i++)
			f[fl + i] = crc >> (8 * i);
		fl += 4;
	}
	if (raw_inject(r, rcv_nxt + 0x40000000u, f, fl)) {
		snprintf(msg, sz, "raw send: %s", strerror(errno));
		return false;
	}
	end = now_ms() + 3000;
	while (!answered && now_ms() < end) {
		if (raw_next(r, 500, &s, NULL, NULL) || s.out)
			continue;
		if (s.flags & 0x04) {
			snprintf(msg, sz, "ornic answered the out-of-window segment with RST");
			return false;
		}
		answered = (s.flags & 0x10) && !s.plen && s.ack == rcv_nxt &&
			   s.seq == snd_nxt;
	}
	if (send_message(c, good))
		return false;
	rx = next_ulpdu(c, 8000, &ru, &rn);
	snprintf(want, sizeof(want), "got %s", good + 12);
	if (rx != RX_OK || !parse_seg(ru, rn, &rs) || rs.tagged ||
	    rs.opcode != OP_SEND || rs.msn != 1 || rs.len < strlen(want) + 1 ||
	    memcmp(rs.payload, want, strlen(want) + 1)) {
		snprintf(msg, sz,
			 "a SEND 2^30 bytes beyond RCV.NXT (FPDU with a good CRC, injected on the wire)%s, then an in-order SEND: the client's answer did not come (%s%s)",
			 answered ? ", answered by an ACK" : "", rx_str(c, rx),
			 rx == RX_OK ? ", not the client's SEND" : "");
		return false;
	}
	shutdown(c->fd, SHUT_WR);
	rx = next_ulpdu(c, 5000, &ru, &rn);
	snprintf(msg, sz,
		 "a SEND 2^30 bytes beyond RCV.NXT (FPDU with a good CRC, injected on the wire) -> %s; then an in-order SEND reached the client, whose SEND came back intact; our FIN -> %s",
		 answered ? "dropped, answered by an ACK of <SEQ=SND.NXT><ACK=RCV.NXT>" :
			    "no ACK of <SEQ=SND.NXT><ACK=RCV.NXT> within 3 s (RFC 9293 3.10.7.4)",
		 rx_str(c, rx));
	return answered && rx == RX_EOF;
}

/*
 * Reads nothing for 8 s, while the client's SENDs fill the socket's small
 * receive buffer and the window closes; then drains what ornic sent, each
 * FPDU's CRC checked, until the stream ends.
 */
static bool p_stops_reading(struct conn *c, char *msg, size_t sz)
{
	struct pollfd p = { .fd = c->fd, .events = POLLRDHUP };
	int queued = 0, fpdus = 0, bad = 0;
	long long end;
	size_t n;
	uint8_t *u;
	enum rx r = RX_TIMEOUT;

	poll(&p, 1, 8000);
	ioctl(c->fd, FIONREAD, &queued);
	end = now_ms() + 20000;
	while (now_ms() < end) {
		r = next_ulpdu(c, (int)(end - now_ms()), &u, &n);
		if (r == RX_OK)
			fpdus++;
		else if (r == RX_BADCRC)
			bad++;
		else
			break;
	}
	snprintf(msg, sz,
		 "read nothing for 8 s (%d bytes waiting in a 4 KiB receive buffer), then drained: %d FPDUs, %d with a bad CRC, then %s",
		 queued, fpdus, bad, rx_str(c, r));
	return !bad && fpdus && (r == RX_EOF || r == RX_CUT ||
				 (r == RX_ERR && c->err == ECONNRESET));
}

/*
 * The bystander: per "go R" from the client, WRITE pattern R over its
 * buffer in four segments, read it back with a Read Request and check
 * every byte, and answer "done R ok".  Ends at the client's FIN.
 */
static bool p_bystander(struct conn *c, char *msg, size_t sz)
{
	static uint8_t back[BUF], data[BUF];
	uint8_t u[DDP_TAGGED_HDR + BUF / 4 + 64], *ru;
	int round, rounds = 0;
	size_t n, i, got;
	struct seg s;
	char text[64];
	enum rx r;

	for (;;) {
		r = next_ulpdu(c, 170000, &ru, &n);
		if (r != RX_OK)
			break;
		if (!parse_seg(ru, n, &s) || s.tagged || s.opcode != OP_SEND ||
		    sscanf((const char *)s.payload, "go %d", &round) != 1) {
			snprintf(msg, sz, "round %d: not the client's \"go\"", rounds + 1);
			return false;
		}
		for (i = 0; i < BUF; i++)
			data[i] = pattern(round, i);
		for (i = 0; i < 4; i++) {
			n = tagged(u, OP_WRITE, i == 3, c->stag, c->addr + i * BUF / 4,
				   data + i * BUF / 4, BUF / 4);
			if (send_fpdu(c, u, n, false))
				return false;
		}
		n = read_request(u, c->msn_read++, PEER_SINK_STAG + round, BUF,
				 c->stag, c->addr);
		if (send_fpdu(c, u, n, false))
			return false;
		memset(back, 0, sizeof(back));
		for (got = 0; got < BUF;) {
			r = next_ulpdu(c, 10000, &ru, &n);
			if (r != RX_OK || !parse_seg(ru, n, &s) || !s.tagged ||
			    s.opcode != OP_READ_RESP ||
			    s.stag != PEER_SINK_STAG + (uint32_t)round ||
			    s.to != got || got + s.len > BUF) {
				snprintf(msg, sz, "round %d: Read Response at %zu: %s", round,
					 got, r == RX_OK ? "wrong segment" : rx_str(c, r));
				return false;
			}
			memcpy(back + got, s.payload, s.len);
			got += s.len;
			if (s.last)
				break;
		}
		if (got != BUF || memcmp(back, data, BUF)) {
			snprintf(msg, sz, "round %d: read back %zu bytes, not what was written",
				 round, got);
			return false;
		}
		snprintf(text, sizeof(text), "done %d ok", round);
		if (send_message(c, text))
			return false;
		rounds++;
	}
	snprintf(msg, sz,
		 "%d rounds of WRITE 8 KiB + Read Request of it back, every byte and every CRC checked; then %s",
		 rounds, rx_str(c, r));
	return rounds == 2 && r == RX_EOF;
}

/* The MPA request; its private data names the case and the client's buffer. */
static bool mpa_accept(struct conn *c, char *msg, size_t sz)
{
	static const char req_key[] = "MPA ID Req Frame", rep_key[] = "MPA ID Rep Frame";
	uint8_t h[20], pd[512], rep[24];
	uint16_t pdlen, ird = 1, ord = 1;
	unsigned long long addr;
	bool enhanced;
	char text[513];
	size_t off = 0;

	if (read_full(c->fd, h, 20, 10000) || memcmp(h, req_key, 16)) {
		snprintf(msg, sz, "no MPA request");
		return false;
	}
	pdlen = be16(h + 18);
	enhanced = h[17] == 2 && (h[16] & 0x10);
	if (pdlen > 512 || read_full(c->fd, pd, pdlen, 10000) ||
	    (enhanced && pdlen < 4)) {
		snprintf(msg, sz, "MPA request with %u bytes of private data", pdlen);
		return false;
	}
	if (h[16] & 0x80 || !(h[16] & 0x40)) {
		snprintf(msg, sz, "MPA request flags %#x: markers asked or no CRC", h[16]);
		return false;
	}
	if (enhanced) {
		/* Our IRD covers its ORD; our ORD of 1 is within its IRD. */
		if (be16(pd) & 0xc000 || be16(pd + 2) & 0xc000) {
			snprintf(msg, sz, "MPA request asks for peer-to-peer mode");
			return false;
		}
		ird = be16(pd + 2) ? be16(pd + 2) : 1;
		ord = be16(pd) ? 1 : 0;
		off = 4;
	}
	memcpy(text, pd + off, pdlen - off);
	text[pdlen - off] = 0;
	if (sscanf(text, "ornic-peer %31s %x %llx %u", c->name, &c->stag, &addr,
		   &c->len) != 4) {
		snprintf(msg, sz, "private data '%s'", text);
		return false;
	}
	c->addr = addr;
	memcpy(rep, rep_key, 16);
	rep[16] = 0x40 | (enhanced ? 0x10 : 0);
	rep[17] = h[17];
	put_be16(rep + 18, enhanced ? 4 : 0);
	put_be16(rep + 20, ird);
	put_be16(rep + 22, ord);
	return !write_all(c->fd, rep, enhanced ? 24 : 20);
}

static int peer_conn(int fd, const char *ifname)
{
	static struct conn c;
	struct raw raw = { .fd = -1 };
	char msg[1024] = "";
	bool ok = false;

	c.fd = fd;
	c.msn_send = 1;
	c.msn_read = 1;
	alarm(175);
	/* Before the reply leaves, so that the raw socket sees its frame. */
	if (raw_open(&raw, ifname, fd)) {
		result("peer", "?", false, "raw socket on %s: %s", ifname, strerror(errno));
		return 1;
	}
	if (!mpa_accept(&c, msg, sizeof(msg))) {
		result("peer", c.name[0] ? c.name : "?", false, "%s", msg);
		return 1;
	}
	if (strcmp(c.name, "out-of-window")) {
		close(raw.fd);
		raw.fd = -1;
	}
	if (!strcmp(c.name, "bad-crc")) {
		ok = p_bad_crc(&c, msg, sizeof(msg));
	} else if (!strcmp(c.name, "short-ulpdu")) {
		ok = p_short_ulpdu(&c, msg, sizeof(msg));
	} else if (!strcmp(c.name, "ddp-version")) {
		struct want_term w = { 1, 2, 0x06, NULL, 0, false };

		ok = p_bad_header(&c, msg, sizeof(msg), 0, 1, OP_SEND, &w,
				  "untagged SEND with DDP version 0");
	} else if (!strcmp(c.name, "rdmap-version")) {
		struct want_term w = { 0, 2, 0x05, NULL, 0, false };

		ok = p_bad_header(&c, msg, sizeof(msg), 1, 0, OP_SEND, &w,
				  "SEND with RDMAP version 0");
	} else if (!strcmp(c.name, "rdmap-opcode")) {
		struct want_term w = { 0, 2, 0x06, NULL, 0, false };

		ok = p_bad_header(&c, msg, sizeof(msg), 1, 1, 0xf, &w,
				  "untagged segment on queue 0 with the reserved RDMAP opcode 15");
	} else if (!strcmp(c.name, "invalid-stag")) {
		struct want_term w = { 1, 1, 0x00, NULL, 0, false };

		ok = p_write(&c, msg, sizeof(msg), STAG_NEVER, c.addr, 64, &w,
			     "RDMA WRITE of 64 B to STag 0xfedcba5a, never given out");
	} else if (!strcmp(c.name, "write-bounds")) {
		struct want_term w = { 1, 1, 0x01, NULL, 0, false };

		ok = p_write(&c, msg, sizeof(msg), c.stag, c.addr + c.len - 16, 64, &w,
			     "RDMA WRITE of 64 B to the last 16 B of the client's buffer");
	} else if (!strcmp(c.name, "read-bounds")) {
		ok = p_read_bounds(&c, msg, sizeof(msg));
	} else if (!strcmp(c.name, "rst-mid-transfer")) {
		ok = p_rst(&c, msg, sizeof(msg));
	} else if (!strcmp(c.name, "out-of-window")) {
		ok = p_out_of_window(&c, &raw, msg, sizeof(msg));
	} else if (!strcmp(c.name, "stops-reading")) {
		ok = p_stops_reading(&c, msg, sizeof(msg));
	} else if (!strcmp(c.name, "bystander")) {
		ok = p_bystander(&c, msg, sizeof(msg));
	} else {
		snprintf(msg, sizeof(msg), "no such case");
	}
	if (!msg[0])
		snprintf(msg, sizeof(msg), "write: %s", strerror(errno));
	result("peer", c.name, ok, "%s", msg);
	return !ok;
}

static int listen_on(const char *addr, int port, int rcvbuf)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || inet_pton(AF_INET, addr, &a.sin_addr) != 1 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf))) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 8)) {
		perror("listen");
		exit(1);
	}
	return fd;
}

static int peer(const char *addr, int port, int n, const char *ifname)
{
	struct pollfd p[2];
	long long end = now_ms() + 170000;
	int i, accepted = 0, status, rc = 0;

	/* PORT + 1 takes the case that stops reading: its window must close soon. */
	p[0].fd = listen_on(addr, port, 0);
	p[1].fd = listen_on(addr, port + 1, 4096);
	p[0].events = POLLIN;
	p[1].events = POLLIN;
	printf("listening on %s:%d and :%d\n", addr, port, port + 1);
	fflush(stdout);
	while (accepted < n && now_ms() < end) {
		if (poll(p, 2, 1000) <= 0)
			continue;
		for (i = 0; i < 2; i++) {
			int fd;
			pid_t pid;

			if (!(p[i].revents & POLLIN))
				continue;
			fd = accept(p[i].fd, NULL, NULL);
			if (fd < 0)
				continue;
			accepted++;
			pid = fork();
			if (pid == 0) {
				close(p[0].fd);
				close(p[1].fd);
				exit(peer_conn(fd, ifname));
			}
			close(fd);
		}
	}
	close(p[0].fd);
	close(p[1].fd);
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			rc = 1;
	if (accepted < n) {
		printf("%d of %d connections came\n", accepted, n);
		rc = 1;
	}
	return rc;
}

/* --- the client: rdma_cm on ornic ------------------------------------------ */

#define NRECV 4
#define WR_RECV 100
#define WR_READ 50
#define MAX_WR 128

struct cl {
	const char *name;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_cq *cq;
	struct ibv_mr *mr, *msg_mr;
	uint8_t *mem;		/* guard, target (the MR), guard */
	uint8_t *msgs;		/* receive slots, then a send slot */
	/* The outcome so far. */
	int async;		/* the QP's first async event, -1: none */
	bool disconnected;
	int other_cm;		/* an unexpected rdma_cm event, -1: none */
	int done[MAX_WR + NRECV + WR_RECV];
	enum ibv_wc_status status[MAX_WR + NRECV + WR_RECV];
	uint32_t byte_len[MAX_WR + NRECV + WR_RECV];
};

static struct ibv_pd *pd;
static struct ibv_qp *bystander_qp;
static int bystander_async = -1;
static const char *dst_addr, *src_addr;
static int dst_port;

static void nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* 0: @want came; -1: nothing within @ms; else another event, plus one. */
static int cm_wait(struct cl *c, enum rdma_cm_event_type want, int ms)
{
	long long end = now_ms() + ms;
	struct rdma_cm_event *ev;
	int got;

	for (;;) {
		struct pollfd p = { .fd = c->ch->fd, .events = POLLIN };

		if (!rdma_get_cm_event(c->ch, &ev)) {
			got = ev->event;
			rdma_ack_cm_event(ev);
			return got == (int)want ? 0 : got + 1;
		}
		if (now_ms() >= end)
			return -1;
		poll(&p, 1, 50);
	}
}

/* Takes what has happened: completions, rdma_cm events, async events. */
static void pump(struct cl *c)
{
	struct ibv_async_event aev;
	struct rdma_cm_event *ev;
	struct ibv_wc wc[16];
	int i, n;

	while ((n = ibv_poll_cq(c->cq, 16, wc)) > 0)
		for (i = 0; i < n; i++) {
			uint64_t w = wc[i].wr_id;

			if (w >= MAX_WR + NRECV + WR_RECV)
				continue;
			c->done[w]++;
			c->status[w] = wc[i].status;
			c->byte_len[w] = wc[i].byte_len;
		}
	while (!rdma_get_cm_event(c->ch, &ev)) {
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
			c->disconnected = true;
		else if (c->other_cm < 0)
			c->other_cm = ev->event;
		rdma_ack_cm_event(ev);
	}
	while (!ibv_get_async_event(c->id->verbs, &aev)) {
		if (aev.element.qp == c->id->qp && c->async < 0)
			c->async = aev.event_type;
		else if (bystander_qp && aev.element.qp == bystander_qp && bystander_async < 0)
			bystander_async = aev.event_type;
		ibv_ack_async_event(&aev);
	}
}

static bool all_done(const struct cl *c, const int *wrs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!c->done[wrs[i]])
			return false;
	return true;
}

/* Pumps until @wrs all completed and, when asked, the QP's event and DISCONNECTED came. */
static void wait_for(struct cl *c, const int *wrs, int n, bool async, bool disc, int ms)
{
	long long end = now_ms() + ms;

	for (;;) {
		pump(c);
		if (all_done(c, wrs, n) && (!async || c->async >= 0) &&
		    (!disc || c->disconnected))
			return;
		if (now_ms() >= end)
			return;
		usleep(10000);
	}
}

static int post_recv(struct cl *c, int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->msgs + slot * 256),
		.length = 256,
		.lkey = c->msg_mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = WR_RECV + slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	c->done[WR_RECV + slot] = 0;
	return ibv_post_recv(c->id->qp, &wr, &bad);
}

static int post_send(struct cl *c, uint64_t wr_id, enum ibv_wr_opcode op,
		     void *addr, uint32_t len, uint32_t lkey, uint64_t raddr,
		     uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;

	c->done[wr_id] = 0;
	return ibv_post_send(c->id->qp, &wr, &bad);
}

static int send_text(struct cl *c, uint64_t wr_id, const char *text)
{
	uint8_t *slot = c->msgs + NRECV * 256;

	snprintf((char *)slot, 256, "%s", text);
	return post_send(c, wr_id, IBV_WR_SEND, slot, strlen(text) + 1,
			 c->msg_mr->lkey, 0, 0);
}

static void cl_close(struct cl *c)
{
	if (c->id) {
		pump(c);
		rdma_disconnect(c->id);
		pump(c);
		if (c->id->qp)
			rdma_destroy_qp(c->id);
		rdma_destroy_id(c->id);
	}
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->msg_mr)
		ibv_dereg_mr(c->msg_mr);
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	free(c->mem);
	free(c->msgs);
	memset(c, 0, sizeof(*c));
}

static struct addrinfo *resolve(const char *addr, int port)
{
	struct addrinfo hints = { .ai_family = AF_INET };
	struct addrinfo *res;
	char p[16];

	snprintf(p, sizeof(p), "%d", port);
	if (getaddrinfo(addr, p, &hints, &res))
		return NULL;
	return res;
}

/* Connects case @name; on failure *@why says what went wrong. */
static bool cl_connect(struct cl *c, const char *name, int port, char *why, size_t sz)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 40, .max_recv_wr = NRECV, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_conn_param param = { .responder_resources = 1, .initiator_depth = 1 };
	struct addrinfo *dst = resolve(dst_addr, port), *src = resolve(src_addr, 0);
	char pdata[128];
	int i, ev;

	memset(c, 0, sizeof(*c));
	c->name = name;
	c->async = -1;
	c->other_cm = -1;
	c->mem = aligned_alloc(4096, 3 * BUF);
	c->msgs = aligned_alloc(4096, 4096);
	c->ch = rdma_create_event_channel();
	if (!dst || !src || !c->mem || !c->msgs || !c->ch) {
		snprintf(why, sz, "setup: %s", strerror(errno));
		goto fail;
	}
	memset(c->mem, FILL, 3 * BUF);
	memset(c->msgs, 0, 4096);
	nonblock(c->ch->fd);
	if (rdma_create_id(c->ch, &c->id, c, RDMA_PS_TCP) ||
	    rdma_resolve_addr(c->id, src->ai_addr, dst->ai_addr, 5000) ||
	    cm_wait(c, RDMA_CM_EVENT_ADDR_RESOLVED, 10000) ||
	    rdma_resolve_route(c->id, 5000) ||
	    cm_wait(c, RDMA_CM_EVENT_ROUTE_RESOLVED, 10000)) {
		snprintf(why, sz, "address or route not resolved");
		goto fail;
	}
	if (!pd) {
		pd = ibv_alloc_pd(c->id->verbs);
		nonblock(c->id->verbs->async_fd);
	}
	c->cq = ibv_create_cq(c->id->verbs, 2 * MAX_WR, NULL, NULL, 0);
	attr.send_cq = c->cq;
	attr.recv_cq = c->cq;
	c->mr = ibv_reg_mr(pd, c->mem + BUF, BUF, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	c->msg_mr = ibv_reg_mr(pd, c->msgs, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!pd || !c->cq || !c->mr || !c->msg_mr || rdma_create_qp(c->id, pd, &attr)) {
		snprintf(why, sz, "PD, CQ, MR or QP: %s", strerror(errno));
		goto fail;
	}
	for (i = 0; i < NRECV; i++)
		if (post_recv(c, i)) {
			snprintf(why, sz, "ibv_post_recv: %s", strerror(errno));
			goto fail;
		}
	/* The peer needs no SEND to learn where to write: it is all here. */
	snprintf(pdata, sizeof(pdata), "ornic-peer %s %#x %#llx %u", name,
		 c->mr->rkey, (unsigned long long)(uintptr_t)(c->mem + BUF), BUF);
	param.private_data = pdata;
	param.private_data_len = strlen(pdata) + 1;
	if (rdma_connect(c->id, &param)) {
		snprintf(why, sz, "rdma_connect: %s", strerror(errno));
		goto fail;
	}
	ev = cm_wait(c, RDMA_CM_EVENT_ESTABLISHED, 15000);
	if (ev) {
		snprintf(why, sz, "connect: %s instead of ESTABLISHED",
			 ev < 0 ? "nothing" : rdma_event_str(ev - 1));
		goto fail;
	}
	freeaddrinfo(dst);
	freeaddrinfo(src);
	return true;
fail:
	if (dst)
		freeaddrinfo(dst);
	if (src)
		freeaddrinfo(src);
	cl_close(c);
	return false;
}

static const char *async_name(int ev)
{
	return ev < 0 ? "none" : ibv_event_type_str(ev);
}

/* Whether no byte of the target buffer or its guards changed. */
static bool untouched(const struct cl *c)
{
	size_t i;

	for (i = 0; i < 3 * BUF; i++)
		if (c->mem[i] != FILL)
			return false;
	return true;
}

/*
 * A case where ornic must TERMINATE: the QP gets @want_async, every receive
 * (and @extra, a READ) ends flushed or in error, DISCONNECTED comes, and no
 * byte of the client's memory changed.
 */
static bool c_terminated(struct cl *c, int want_async, int extra, char *msg, size_t sz)
{
	int wrs[NRECV + 1], n = 0, i, flushed = 0, ok = 0;
	bool mem_ok;

	for (i = 0; i < NRECV; i++)
		wrs[n++] = WR_RECV + i;
	if (extra)
		wrs[n++] = extra;
	wait_for(c, wrs, n, true, true, 12000);
	for (i = 0; i < n; i++) {
		flushed += c->done[wrs[i]] && c->status[wrs[i]] == IBV_WC_WR_FLUSH_ERR;
		ok += c->done[wrs[i]] && c->status[wrs[i]] == IBV_WC_SUCCESS;
	}
	mem_ok = untouched(c);
	snprintf(msg, sz,
		 "QP event %s (want %s), %d of %d %s flushed, %d completed successfully, %s, %s",
		 async_name(c->async), async_name(want_async), flushed, n,
		 extra ? "WRs (receives and the READ)" : "receives", ok,
		 c->disconnected ? "DISCONNECTED" : "no DISCONNECTED within 12 s",
		 mem_ok ? "its buffer and the guards around it untouched" :
			  "ITS MEMORY CHANGED");
	return c->async == want_async && flushed == n && c->disconnected && mem_ok &&
	       c->other_cm < 0;
}

static bool c_out_of_window(struct cl *c, char *msg, size_t sz)
{
	static const char want[] = "ornic-peer: GOOD, in order";
	int first = WR_RECV, sent = 1;
	char got[64];

	wait_for(c, &first, 1, false, false, 20000);
	if (!c->done[first] || c->status[first] != IBV_WC_SUCCESS ||
	    c->byte_len[first] != sizeof(want) || memcmp(c->msgs, want, sizeof(want))) {
		snprintf(msg, sz, "first receive: %s, %u bytes '%.40s' (want '%s')",
			 c->done[first] ? ibv_wc_status_str(c->status[first]) :
					  "not completed",
			 c->byte_len[first], (char *)c->msgs, want);
		return false;
	}
	snprintf(got, sizeof(got), "got %s", want + 12);
	if (send_text(c, sent, got)) {
		snprintf(msg, sz, "ibv_post_send: %s", strerror(errno));
		return false;
	}
	wait_for(c, &sent, 1, false, true, 15000);
	snprintf(msg, sz,
		 "the first SEND received was the in-order one, intact; the answer SEND %s; the peer's FIN -> %s, QP event %s",
		 c->done[sent] ? ibv_wc_status_str(c->status[sent]) : "not completed",
		 c->disconnected ? "DISCONNECTED" : "no DISCONNECTED", async_name(c->async));
	return c->done[sent] && c->status[sent] == IBV_WC_SUCCESS && c->disconnected &&
	       c->async < 0 && c->other_cm < 0;
}

/*
 * SENDs to a peer that reads nothing: some may complete, the rest wait;
 * then rdma_disconnect and teardown must end within a bounded time with
 * every SEND completed or flushed.
 */
static bool c_stops_reading(struct cl *c, char *msg, size_t sz)
{
	enum { N = 32, SIZE = BUF };
	int wrs[N], i, early = 0, bad = 0, ok = 0, flushed = 0;
	long long t0, t_disc, t_end;

	for (i = 0; i < N; i++) {
		wrs[i] = i + 1;
		if (post_send(c, wrs[i], IBV_WR_SEND, c->mem + BUF, SIZE, c->mr->lkey, 0, 0)) {
			snprintf(msg, sz, "ibv_post_send %d: %s", i, strerror(errno));
			return false;
		}
	}
	wait_for(c, wrs, N, false, false, 3000);
	for (i = 0; i < N; i++) {
		early += c->done[wrs[i]] && c->status[wrs[i]] == IBV_WC_SUCCESS;
		bad += c->done[wrs[i]] && c->status[wrs[i]] != IBV_WC_SUCCESS;
	}
	if (early == N || bad || c->async >= 0 || c->disconnected) {
		snprintf(msg, sz,
			 "%d SENDs of 8 KiB: after 3 s %d completed, %d in error, QP event %s%s: no stall",
			 N, early, bad, async_name(c->async),
			 c->disconnected ? ", DISCONNECTED" : "");
		return false;
	}
	t0 = now_ms();
	rdma_disconnect(c->id);
	wait_for(c, wrs, N, false, true, 10000);
	t_disc = now_ms() - t0;
	for (i = 0; i < N; i++) {
		ok += c->done[wrs[i]] && c->status[wrs[i]] == IBV_WC_SUCCESS;
		flushed += c->done[wrs[i]] && c->status[wrs[i]] == IBV_WC_WR_FLUSH_ERR;
	}
	/* libibverbs waits for every async event of a QP to be acked. */
	pump(c);
	rdma_destroy_qp(c->id);
	rdma_destroy_id(c->id);
	c->id = NULL;
	t_end = now_ms() - t0;
	snprintf(msg, sz,
		 "%d SENDs of 8 KiB to a peer that stopped reading: %d completed in 3 s, none in error, the rest waiting; rdma_disconnect -> %s after %lld ms, %d SENDs completed and %d flushed in all, QP and cm_id destroyed %lld ms after the disconnect",
		 N, early, c->disconnected ? "DISCONNECTED" : "no DISCONNECTED", t_disc,
		 ok, flushed, t_end);
	return c->disconnected && ok + flushed == N && t_end < 15000 && c->other_cm < 0;
}

static bool c_case(const char *name, int port)
{
	char msg[1024], why[256];
	struct cl c;
	bool ok = false;

	if (!cl_connect(&c, name, port, why, sizeof(why))) {
		result("client", name, false, "%s", why);
		return false;
	}
	if (!strcmp(name, "bad-crc") || !strcmp(name, "short-ulpdu")) {
		ok = c_terminated(&c, IBV_EVENT_QP_FATAL, 0, msg, sizeof(msg));
	} else if (!strcmp(name, "ddp-version") || !strcmp(name, "rdmap-version") ||
		   !strcmp(name, "rdmap-opcode")) {
		ok = c_terminated(&c, IBV_EVENT_QP_REQ_ERR, 0, msg, sizeof(msg));
	} else if (!strcmp(name, "invalid-stag") || !strcmp(name, "write-bounds") ||
		   !strcmp(name, "read-bounds")) {
		ok = c_terminated(&c, IBV_EVENT_QP_ACCESS_ERR, 0, msg, sizeof(msg));
	} else if (!strcmp(name, "rst-mid-transfer")) {
		/* A READ the peer will never answer: work outstanding at the RST. */
		if (post_send(&c, WR_READ, IBV_WR_RDMA_READ, c.mem + BUF, 4096,
			      c.mr->lkey, 0, PEER_SINK_STAG)) {
			snprintf(msg, sizeof(msg), "ibv_post_send: %s", strerror(errno));
		} else {
			ok = c_terminated(&c, IBV_EVENT_QP_FATAL, WR_READ, msg, sizeof(msg));
		}
	} else if (!strcmp(name, "out-of-window")) {
		ok = c_out_of_window(&c, msg, sizeof(msg));
	} else if (!strcmp(name, "stops-reading")) {
		ok = c_stops_reading(&c, msg, sizeof(msg));
	} else {
		snprintf(msg, sizeof(msg), "no such case");
	}
	cl_close(&c);
	result("client", name, ok, "%s", msg);
	return ok;
}

/* One bystander round: "go R", then the peer's "done R ok" and pattern R in the buffer. */
static bool bystander_round(struct cl *c, int round, char *msg, size_t sz)
{
	int send_wr = round, recv_wr = WR_RECV + (round - 1) % NRECV, wrs[2];
	char go[32], want[32];
	size_t i;

	wrs[0] = send_wr;
	wrs[1] = recv_wr;
	snprintf(go, sizeof(go), "go %d", round);
	snprintf(want, sizeof(want), "done %d ok", round);
	if (send_text(c, send_wr, go)) {
		snprintf(msg, sz, "round %d: ibv_post_send: %s", round, strerror(errno));
		return false;
	}
	wait_for(c, wrs, 2, false, false, 30000);
	if (!c->done[send_wr] || c->status[send_wr] != IBV_WC_SUCCESS ||
	    !c->done[recv_wr] || c->status[recv_wr] != IBV_WC_SUCCESS ||
	    strcmp((char *)c->msgs + (recv_wr - WR_RECV) * 256, want)) {
		snprintf(msg, sz, "round %d: SEND %s, receive %s '%.30s'", round,
			 c->done[send_wr] ? ibv_wc_status_str(c->status[send_wr]) : "pending",
			 c->done[recv_wr] ? ibv_wc_status_str(c->status[recv_wr]) : "pending",
			 (char *)c->msgs + (recv_wr - WR_RECV) * 256);
		return false;
	}
	for (i = 0; i < 3 * BUF; i++) {
		uint8_t want_byte = i >= BUF && i < 2 * BUF ? pattern(round, i - BUF) : FILL;

		if (c->mem[i] != want_byte) {
			snprintf(msg, sz, "round %d: byte %zd of the buffer is %#x, not %#x",
				 round, (ssize_t)i - BUF, c->mem[i], want_byte);
			return false;
		}
	}
	if (post_recv(c, recv_wr - WR_RECV)) {
		snprintf(msg, sz, "ibv_post_recv: %s", strerror(errno));
		return false;
	}
	return true;
}

static int client(char **cases, int n)
{
	char msg[1024] = "", why[256];
	struct cl by;
	bool by_ok, round1 = false;
	int i, failed = 0;

	/* The bystander: connected before the cases, used again after them. */
	by_ok = cl_connect(&by, "bystander", dst_port, why, sizeof(why));
	if (!by_ok)
		snprintf(msg, sizeof(msg), "%s", why);
	else
		bystander_qp = by.id->qp;
	if (by_ok)
		round1 = bystander_round(&by, 1, msg, sizeof(msg));
	for (i = 0; i < n; i++) {
		/* The peer's PORT + 1 has the small receive buffer. */
		int port = dst_port + !strcmp(cases[i], "stops-reading");

		failed += !c_case(cases[i], port);
	}
	if (!by_ok) {
		result("client", "bystander", false, "%s", msg);
		return 1;
	}
	pump(&by);
	if (round1 && bystander_round(&by, 2, msg, sizeof(msg))) {
		rdma_disconnect(by.id);
		wait_for(&by, NULL, 0, false, true, 10000);
		snprintf(msg, sizeof(msg),
			 "a second connection, open through all the cases: 8 KiB written by the peer and read back, SEND each way, before and after them, every byte checked; QP event %s; closed -> %s",
			 async_name(bystander_async),
			 by.disconnected ? "DISCONNECTED" : "no DISCONNECTED");
		by_ok = bystander_async < 0 && by.disconnected && by.other_cm < 0;
	} else {
		by_ok = false;
	}
	result("client", "bystander", by_ok, "%s", msg);
	cl_close(&by);
	return failed || !by_ok;
}

int main(int argc, char **argv)
{
	static const uint8_t check[] = "123456789";

	if (crc32c(check, 9) != 0xe3069283) {
		fprintf(stderr, "CRC32c of '123456789' is %#x, not 0xe3069283\n",
			crc32c(check, 9));
		return 1;
	}
	if (argc == 6 && !strcmp(argv[1], "peer"))
		return peer(argv[2], atoi(argv[3]), atoi(argv[4]), argv[5]);
	if (argc >= 6 && !strcmp(argv[1], "client")) {
		dst_addr = argv[2];
		dst_port = atoi(argv[3]);
		src_addr = argv[4];
		return client(argv + 5, argc - 5);
	}
	fprintf(stderr,
		"usage: %s peer ADDR PORT N IFNAME\n       %s client ADDR PORT SRC_ADDR CASE...\n",
		argv[0], argv[0]);
	return 2;
}
