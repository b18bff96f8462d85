// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * iWARP connection setup through rdma_cm, both answers: the client opens N
 * connections one after the other, each with its own private data; the
 * server accepts the even ones and rejects the odd ones, each answer with
 * private data of its own.  Both sides check every byte of what the other
 * sent (it crossed the wire in the MPA request and reply frames), an
 * accepted connection is closed by the client, and the server must see it
 * close.
 *
 *   iwarp-cm server ADDR PORT N
 *   iwarp-cm client ADDR PORT N [SRC_ADDR]
 *
 * Exit status 0 when every connection went as planned; one line per
 * connection on stdout.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <rdma/rdma_cma.h>

static int timeout_ms = 20000;

static void die(const char *what, int err)
{
	fprintf(stderr, "FAIL: %s: %s\n", what, strerror(err));
	exit(1);
}

/* The next event of @ch, which must be @want; it stays for the caller to ack. */
static struct rdma_cm_event *expect(struct rdma_event_channel *ch,
				    enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event", errno);
	if (ev->event != want) {
		fprintf(stderr, "FAIL: got %s (status %d), wanted %s\n",
			rdma_event_str(ev->event), ev->status,
			rdma_event_str(want));
		exit(1);
	}
	return ev;
}

/* Whether @ev carries exactly the NUL-terminated @text (and maybe padding). */
static int pdata_is(const struct rdma_cm_event *ev, const char *text)
{
	size_t n = strlen(text) + 1;

	return ev->param.conn.private_data_len >= n &&
	       !memcmp(ev->param.conn.private_data, text, n);
}

static void make_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr attr = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	if (rdma_create_qp(id, NULL, &attr))
		die("rdma_create_qp", errno);
}

static struct addrinfo *resolve(const char *addr, const char *port,
				int passive)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_flags = passive ? AI_PASSIVE : 0 };
	struct addrinfo *res;

	if (getaddrinfo(addr, port, &hints, &res))
		die("getaddrinfo", EINVAL);
	return res;
}

static int server(const char *addr, const char *port, int n)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *listen_id, *id;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	struct addrinfo *res;
	char want[64], answer[64];
	int i;

	if (!ch || rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP))
		die("rdma_create_id", errno);
	res = resolve(addr, port, 1);
	if (rdma_bind_addr(listen_id, res->ai_addr) || rdma_listen(listen_id, 4))
		die("rdma_bind_addr/rdma_listen", errno);
	printf("listening on %s:%s\n", addr, port);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		ev = expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
		id = ev->id;
		snprintf(want, sizeof(want), "ornic iwarp request %d", i);
		if (!pdata_is(ev, want)) {
			fprintf(stderr, "FAIL: request %d: private data %u bytes, not '%s'\n",
				i, ev->param.conn.private_data_len, want);
			return 1;
		}
		rdma_ack_cm_event(ev);
		memset(&param, 0, sizeof(param));
		param.private_data = answer;
		if (i % 2) {
			snprintf(answer, sizeof(answer), "ornic iwarp no %d", i);
			param.private_data_len = strlen(answer) + 1;
			if (rdma_reject(id, answer, strlen(answer) + 1))
				die("rdma_reject", errno);
			printf("request %d: private data checked, rejected\n", i);
			rdma_destroy_id(id);
			continue;
		}
		make_qp(id);
		snprintf(answer, sizeof(answer), "ornic iwarp yes %d", i);
		param.private_data_len = strlen(answer) + 1;
		param.responder_resources = 1;
		param.initiator_depth = 1;
		if (rdma_accept(id, &param))
			die("rdma_accept", errno);
		rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ESTABLISHED));
		rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_DISCONNECTED));
		printf("request %d: private data checked, accepted, %s\n", i,
		       "established, closed by the peer");
		fflush(stdout);
		rdma_destroy_qp(id);
		rdma_destroy_id(id);
	}
	freeaddrinfo(res);
	rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(ch);
	return 0;
}

static int client(const char *addr, const char *port, int n, const char *src)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct addrinfo *res = resolve(addr, port, 0);
	struct addrinfo *sres = src ? resolve(src, "0", 1) : NULL;
	struct rdma_conn_param param;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	char req[64], want[64];
	int i;

	if (!ch)
		die("rdma_create_event_channel", errno);
	for (i = 0; i < n; i++) {
		if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
			die("rdma_create_id", errno);
		if (rdma_resolve_addr(id, sres ? sres->ai_addr : NULL,
				      res->ai_addr, timeout_ms))
			die("rdma_resolve_addr", errno);
		rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED));
		if (rdma_resolve_route(id, timeout_ms))
			die("rdma_resolve_route", errno);
		rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED));
		make_qp(id);
		snprintf(req, sizeof(req), "ornic iwarp request %d", i);
		memset(&param, 0, sizeof(param));
		param.private_data = req;
		param.private_data_len = strlen(req) + 1;
		param.responder_resources = 1;
		param.initiator_depth = 1;
		if (rdma_connect(id, &param))
			die("rdma_connect", errno);
		if (i % 2) {
			ev = expect(ch, RDMA_CM_EVENT_REJECTED);
			snprintf(want, sizeof(want), "ornic iwarp no %d", i);
		} else {
			ev = expect(ch, RDMA_CM_EVENT_ESTABLISHED);
			snprintf(want, sizeof(want), "ornic iwarp yes %d", i);
		}
		if (!pdata_is(ev, want)) {
			fprintf(stderr,
				"FAIL: connection %d: %s, private data %u bytes, not '%s'\n",
				i, rdma_event_str(ev->event),
				ev->param.conn.private_data_len, want);
			return 1;
		}
		rdma_ack_cm_event(ev);
		if (!(i % 2)) {
			if (rdma_disconnect(id))
				die("rdma_disconnect", errno);
			rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_DISCONNECTED));
		}
		printf("connection %d: %s, the answer's private data checked%s\n",
		       i, i % 2 ? "rejected" : "established",
		       i % 2 ? "" : ", closed");
		fflush(stdout);
		rdma_destroy_qp(id);
		rdma_destroy_id(id);
	}
	freeaddrinfo(res);
	if (sres)
		freeaddrinfo(sres);
	rdma_destroy_event_channel(ch);
	return 0;
}

int main(int argc, char **argv)
{
	int n;

	if (argc < 5 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: %s server|client ADDR PORT N [SRC_ADDR]\n",
			argv[0]);
		return 2;
	}
	n = atoi(argv[4]);
	if (!strcmp(argv[1], "server"))
		return server(argv[2], argv[3], n);
	return client(argv[2], argv[3], n, argc > 5 ? argv[5] : NULL);
}
