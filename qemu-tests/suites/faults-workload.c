// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * faults-workload: RC traffic whose every byte is checked, for a lossy wire.
 *
 *   faults-workload -s ADDR PORT            server: waits for one client
 *   faults-workload -c ADDR PORT MIB        client: moves about MIB MiB
 *
 * The client connects through rdma_cm and, chunk after chunk (1 MiB),
 * RDMA WRITEs a pattern into the server's buffer, RDMA READs it back and
 * compares, SENDs another pattern the server compares on arrival, adds to a
 * server counter with FETCH_AND_ADD and checks it with COMPARE_AND_SWAP
 * (each returns the value the client expects).  At the end the server
 * reports what it verified.  Any error completion, any differing byte, any
 * unexpected atomic value fails the run.  Prints one line:
 *   "verified N bytes (write+read A, send B), atomics C, ..." and exits 0,
 * or "FAIL: ..." and exits 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define CHUNK (1u << 20)
#define DONE_TAG 0xd0e5d0e5u

struct hello {
	uint64_t buf_addr;
	uint64_t counter_addr;
	uint32_t buf_rkey;
	uint32_t counter_rkey;
};

struct done_msg {
	uint32_t tag;
	uint32_t chunks;
};

struct result_msg {
	uint64_t verified;
	uint64_t mismatches;
};

static void fail(const char *what, int err)
{
	printf("FAIL: %s: %s\n", what, strerror(err));
	exit(1);
}

/* Deterministic pattern for chunk @n of stream @stream (xorshift64). */
static void fill(uint8_t *p, size_t len, uint64_t stream, uint64_t n)
{
	uint64_t x = (stream << 32) ^ (n + 1) ^ 0x9e3779b97f4a7c15ull;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
}

static struct ibv_wc wait_one(struct ibv_cq *cq, const char *what)
{
	struct ibv_wc wc;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, &wc);
	} while (n == 0);
	if (n < 0)
		fail(what, EIO);
	if (wc.status != IBV_WC_SUCCESS) {
		printf("FAIL: %s: completion status %s (vendor_err %#x)\n", what,
		       ibv_wc_status_str(wc.status), wc.vendor_err);
		exit(1);
	}
	return wc;
}

/*
 * A listening endpoint created with QP attributes gives every connection
 * request a QP (with its own PD and CQs) in rdma_get_request.
 */
static struct rdma_cm_id *endpoint(const char *addr, const char *port, int server)
{
	struct rdma_addrinfo hints = { 0 }, *res;
	struct ibv_qp_init_attr attr = { 0 };
	struct rdma_cm_id *id;

	hints.ai_port_space = RDMA_PS_TCP;
	if (server)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(addr, port, &hints, &res))
		fail("rdma_getaddrinfo", errno);
	attr.cap.max_send_wr = 4;
	attr.cap.max_recv_wr = 4;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_all = 1;
	if (rdma_create_ep(&id, res, NULL, &attr))
		fail("rdma_create_ep", errno);
	rdma_freeaddrinfo(res);
	return id;
}

/*
 * The ACK timeout rdma_cm picks for RoCE is about a second: under 1 % loss
 * every lost last packet of a message would cost that much.  268 ms keeps
 * the run short, and its 7 retries leave two seconds for a peer whose
 * model is starved of the host's CPU (both guests and their models share
 * two cores with a second lane of tests); 67 ms left half a second, which
 * such a host sometimes took, and the QP failed with retries exhausted.
 */
static void short_ack_timeout(struct rdma_cm_id *id)
{
	uint8_t timeout = 16;

	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT,
			    &timeout, sizeof(timeout)))
		fail("rdma_set_option(ACK_TIMEOUT)", errno);
}

static int run_server(const char *addr, const char *port)
{
	struct rdma_conn_param param = { 0 };
	struct rdma_cm_id *listen_id, *id;
	struct result_msg result = { 0 };
	struct ibv_mr *buf_mr, *counter_mr, *recv_mr, *res_mr;
	uint8_t *buf, *recv, *want;
	uint64_t *counter;
	struct hello hello;
	uint32_t n = 0;

	listen_id = endpoint(addr, port, 1);
	if (rdma_listen(listen_id, 1))
		fail("rdma_listen", errno);
	if (rdma_get_request(listen_id, &id))
		fail("rdma_get_request", errno);
	if (!id->qp)
		fail("rdma_get_request made no QP", EINVAL);
	short_ack_timeout(id);
	buf = aligned_alloc(4096, CHUNK);
	recv = aligned_alloc(4096, CHUNK);
	want = malloc(CHUNK);
	counter = aligned_alloc(8, 8);
	if (!buf || !recv || !want || !counter)
		fail("malloc", ENOMEM);
	*counter = 0;
	buf_mr = ibv_reg_mr(id->pd, buf, CHUNK, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	counter_mr = ibv_reg_mr(id->pd, counter, 8, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_REMOTE_READ);
	recv_mr = rdma_reg_msgs(id, recv, CHUNK);
	res_mr = rdma_reg_msgs(id, &result, sizeof(result));
	if (!buf_mr || !counter_mr || !recv_mr || !res_mr)
		fail("ibv_reg_mr", errno);
	if (rdma_post_recv(id, NULL, recv, CHUNK, recv_mr))
		fail("rdma_post_recv", errno);
	hello.buf_addr = (uintptr_t)buf;
	hello.buf_rkey = buf_mr->rkey;
	hello.counter_addr = (uintptr_t)counter;
	hello.counter_rkey = counter_mr->rkey;
	param.private_data = &hello;
	param.private_data_len = sizeof(hello);
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_accept(id, &param))
		fail("rdma_accept", errno);
	for (;;) {
		struct ibv_wc wc = wait_one(id->recv_cq, "receive");
		struct done_msg done;

		if (wc.byte_len == sizeof(done)) {
			memcpy(&done, recv, sizeof(done));
			if (done.tag == DONE_TAG)
				break;
		}
		fill(want, CHUNK, 2, n);
		if (wc.byte_len != CHUNK || memcmp(recv, want, CHUNK))
			result.mismatches++;
		else
			result.verified += CHUNK;
		n++;
		if (rdma_post_recv(id, NULL, recv, CHUNK, recv_mr))
			fail("rdma_post_recv", errno);
	}
	if (rdma_post_send(id, NULL, &result, sizeof(result), res_mr, 0))
		fail("rdma_post_send", errno);
	wait_one(id->send_cq, "send result");
	/* The ACK of the result means the client has it. */
	rdma_disconnect(id);
	printf("server: %u SENDs received, %" PRIu64 " bytes verified, %" PRIu64
	       " differing\n", n, result.verified, result.mismatches);
	return result.mismatches ? 1 : 0;
}

static void post(struct rdma_cm_id *id, enum ibv_wr_opcode op, void *local,
		 uint32_t len, struct ibv_mr *mr, uint64_t raddr, uint32_t rkey,
		 uint64_t add_or_compare, uint64_t swap)
{
	struct ibv_sge sge = { (uintptr_t)local, len, mr->lkey };
	struct ibv_send_wr wr = { 0 }, *bad;

	wr.opcode = op;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = add_or_compare;
		wr.wr.atomic.swap = swap;
	} else if (op != IBV_WR_SEND) {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (ibv_post_send(id->qp, &wr, &bad))
		fail("ibv_post_send", errno);
	wait_one(id->send_cq, "send queue");
}

static int run_client(const char *addr, const char *port, unsigned int mib)
{
	struct rdma_conn_param param = { 0 };
	struct ibv_mr *w_mr, *r_mr, *s_mr, *a_mr, *res_mr;
	uint64_t sum = 0, rw_verified = 0, atomics = 0, bad = 0;
	unsigned int chunks = mib / 3 ? mib / 3 : 1, i;
	struct result_msg result;
	struct done_msg done = { DONE_TAG, 0 };
	uint8_t *wbuf, *rbuf, *sbuf;
	struct hello hello;
	struct rdma_cm_id *id;
	uint64_t *old;

	id = endpoint(addr, port, 0);
	short_ack_timeout(id);
	wbuf = aligned_alloc(4096, CHUNK);
	rbuf = aligned_alloc(4096, CHUNK);
	sbuf = aligned_alloc(4096, CHUNK);
	old = aligned_alloc(8, 8);
	if (!wbuf || !rbuf || !sbuf || !old)
		fail("malloc", ENOMEM);
	w_mr = rdma_reg_msgs(id, wbuf, CHUNK);
	r_mr = rdma_reg_read(id, rbuf, CHUNK);
	s_mr = rdma_reg_msgs(id, sbuf, CHUNK);
	a_mr = rdma_reg_read(id, old, 8);
	res_mr = rdma_reg_msgs(id, &result, sizeof(result));
	if (!w_mr || !r_mr || !s_mr || !a_mr || !res_mr)
		fail("ibv_reg_mr", errno);
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_connect(id, &param))
		fail("rdma_connect", errno);
	if (!id->event || id->event->param.conn.private_data_len < sizeof(hello)) {
		printf("FAIL: the server sent no buffer description\n");
		return 1;
	}
	memcpy(&hello, id->event->param.conn.private_data, sizeof(hello));
	for (i = 0; i < chunks; i++) {
		fill(wbuf, CHUNK, 1, i);
		post(id, IBV_WR_RDMA_WRITE, wbuf, CHUNK, w_mr, hello.buf_addr,
		     hello.buf_rkey, 0, 0);
		memset(rbuf, 0, CHUNK);
		post(id, IBV_WR_RDMA_READ, rbuf, CHUNK, r_mr, hello.buf_addr,
		     hello.buf_rkey, 0, 0);
		if (memcmp(wbuf, rbuf, CHUNK))
			bad++;
		else
			rw_verified += CHUNK;
		fill(sbuf, CHUNK, 2, i);
		post(id, IBV_WR_SEND, sbuf, CHUNK, s_mr, 0, 0, 0, 0);
		post(id, IBV_WR_ATOMIC_FETCH_AND_ADD, old, 8, a_mr,
		     hello.counter_addr, hello.counter_rkey, i + 1, 0);
		if (*old != sum)
			bad++;
		sum += i + 1;
		post(id, IBV_WR_ATOMIC_CMP_AND_SWP, old, 8, a_mr,
		     hello.counter_addr, hello.counter_rkey, sum, sum);
		if (*old != sum)
			bad++;
		atomics += 2;
	}
	if (rdma_post_recv(id, NULL, &result, sizeof(result), res_mr))
		fail("rdma_post_recv", errno);
	done.chunks = chunks;
	memcpy(sbuf, &done, sizeof(done));
	post(id, IBV_WR_SEND, sbuf, sizeof(done), s_mr, 0, 0, 0, 0);
	wait_one(id->recv_cq, "result");
	rdma_disconnect(id);
	if (bad || result.mismatches || result.verified != (uint64_t)chunks * CHUNK) {
		printf("FAIL: %" PRIu64 " checks failed here, server: %" PRIu64
		       " bytes verified, %" PRIu64 " differing (of %u chunks)\n",
		       bad, result.verified, result.mismatches, chunks);
		return 1;
	}
	printf("verified %" PRIu64 " bytes (write+read %" PRIu64 ", send %" PRIu64
	       "), atomics %" PRIu64 " (counter %" PRIu64 "), 0 differing\n",
	       rw_verified * 2 + result.verified, rw_verified * 2,
	       result.verified, atomics, sum);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "-s"))
		return run_server(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "-c"))
		return run_client(argv[2], argv[3], (unsigned int)atoi(argv[4]));
	fprintf(stderr, "usage: %s -s ADDR PORT | -c ADDR PORT MIB\n", argv[0]);
	return 2;
}
