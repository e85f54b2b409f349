// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NFQUEUE mode: the netlink side (libmnl + libnetfilter_queue's message helpers). The
 * application around it (rulesets, control socket, signals, the loop) is src/live/nfqueue.c.
 *
 * A queued packet, as the kernel sends it (one netlink message per packet):
 *
 *   nlmsghdr  type NFNL_SUBSYS_QUEUE<<8 | NFQNL_MSG_PACKET
 *   nfgenmsg  family (AF_INET/AF_INET6), res_id = queue number (big endian)
 *   NFQA_PACKET_HDR     packet_id (be32), hw_protocol (be16), hook (u8: NF_INET_*)
 *   NFQA_MARK           be32, when the skb has a mark
 *   NFQA_IFINDEX_INDEV  be32 kernel ifindex  (PREROUTING, INPUT, FORWARD)
 *   NFQA_IFINDEX_OUTDEV be32 kernel ifindex  (FORWARD, OUTPUT, POSTROUTING)
 *   NFQA_SKB_INFO       be32 NFQA_SKB_CSUMNOTREADY: the L4 checksum holds only the pseudo-header
 *   NFQA_UID, NFQA_GID  be32 fsuid/fsgid of the sending socket's file (NFQA_CFG_F_UID_GID;
 *                       absent when the packet has no such socket): -m owner
 *   NFQA_PAYLOAD        the IP datagram (copy mode NFQNL_COPY_PACKET, range 0xffff)
 *
 * Verdicts go back as NFQNL_MSG_VERDICT {NFQA_VERDICT_HDR (verdict, id), NFQA_MARK,
 * NFQA_PAYLOAD when rewritten} or NFQNL_MSG_VERDICT_BATCH, which gives one verdict and mark to
 * every waiting packet with an id up to the one named. Packets arrive in id order, so a run of
 * packets with the same verdict and mark and unchanged bytes is one batch message; a rewritten
 * packet ends the run and gets its own message. Everything made while handling one recvmmsg
 * batch leaves in one sendto. A packet the kernel could not hand us (socket overrun) is never
 * queued (the kernel drops it, or accepts it with fail-open), so a batch never covers a packet
 * we have not seen.
 */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#include "engine/box.h"
#include "engine/nfq_hook.h"
#include "io/nfqueue.h"

#define NFQ_WAIT_MS	 100
#define NFQ_RECV_BATCH	 64		/* messages per recvmmsg */
#define NFQ_RECV_ROUNDS	 16		/* recvmmsg calls before the flags are read */
#define NFQ_MSG_MAX	 (65536 + 4096) /* one packet message: payload + attributes (aligned) */
#define NFQ_SEND_MAX	 (256 * 1024)	/* verdicts buffered before a sendto */
#define NFQ_DEFAULT_QLEN 1024		/* the kernel's own default */
#define NFQ_RCVBUF	 (16 * 1024 * 1024)

/* Kernel ifindex -> box interface index (the box names interfaces by their real names). */
struct nfq_ifmap {
	int kernel, box;
};

/* The run of packets that will get one VERDICT_BATCH. */
struct nfq_run {
	bool open;
	uint32_t last_id, verdict, mark;
};

struct nfqueue {
	struct box *box;
	struct mnl_socket *nl;
	unsigned portid, queue_num, seq;
	struct nfq_ifmap ifmap[BOX_MAX_IFACES];
	unsigned nifmap;
	struct nfq_run run;
	char *rbuf; /* NFQ_RECV_BATCH buffers of NFQ_MSG_MAX */
	char *sbuf; /* NFQ_SEND_MAX */
	size_t slen;
	int cfg_error; /* the answer to the last config request */
	bool cfg_acked;
	struct nfqueue_stats st;
	void (*box_lock)(void *arg, bool take);
	void *box_lock_arg;
	FILE *err;
};

/* sends, overruns and batch messages are counted outside the box lock: one writer (this queue's
 * thread), read by another thread's dump */
#define COUNT_UNLOCKED(q, field)                                                                   \
	__atomic_store_n(&(q)->st.field, (q)->st.field + 1, __ATOMIC_RELAXED)

/* ---- sending ----------------------------------------------------------------------------- */

static int send_flush(struct nfqueue *q)
{
	ssize_t n;

	if (!q->slen ||
	    !q->nl) /* no socket (nfqueue_open_unbound): nfqueue_handle's caller reads */
		return 0;
	n = mnl_socket_sendto(q->nl, q->sbuf, q->slen);
	q->slen = 0;
	COUNT_UNLOCKED(q, sends);
	return n < 0 ? -errno : 0;
}

/* Room for a message of up to `need` bytes at the end of the send buffer. */
static char *send_room(struct nfqueue *q, size_t need)
{
	if (q->slen + need > NFQ_SEND_MAX)
		send_flush(q);
	if (q->slen + need > NFQ_SEND_MAX)
		q->slen = 0; /* no socket: what the caller has not read is lost */
	return q->sbuf + q->slen;
}

static void send_commit(struct nfqueue *q, const struct nlmsghdr *nlh)
{
	q->slen += NLMSG_ALIGN(nlh->nlmsg_len);
}

static void run_close(struct nfqueue *q)
{
	struct nlmsghdr *nlh;

	if (!q->run.open)
		return;
	nlh = nfq_nlmsg_put(send_room(q, 128), NFQNL_MSG_VERDICT_BATCH, q->queue_num);
	nfq_nlmsg_verdict_put(nlh, (int)q->run.last_id, (int)q->run.verdict);
	nfq_nlmsg_verdict_put_mark(nlh, q->run.mark);
	send_commit(q, nlh);
	COUNT_UNLOCKED(q, batch_msgs); /* the last run closes after the lock */
	q->run.open = false;
}

static void verdict(struct nfqueue *q, uint32_t id, uint32_t v, uint32_t mark, const uint8_t *data,
		    uint32_t len)
{
	struct nlmsghdr *nlh;

	if (!data) {
		if (q->run.open && q->run.verdict == v && q->run.mark == mark) {
			q->run.last_id = id;
			return;
		}
		run_close(q);
		q->run = (struct nfq_run){.open = true, .last_id = id, .verdict = v, .mark = mark};
		return;
	}
	run_close(q);
	nlh = nfq_nlmsg_put(send_room(q, len + 256), NFQNL_MSG_VERDICT, q->queue_num);
	nfq_nlmsg_verdict_put(nlh, (int)id, (int)v);
	nfq_nlmsg_verdict_put_mark(nlh, mark);
	nfq_nlmsg_verdict_put_pkt(nlh, data, len);
	send_commit(q, nlh);
	q->st.verdict_msgs++;
}

/* ---- one packet -------------------------------------------------------------------------- */

/* The box's interface for a kernel ifindex, added under its real name the first time. */
static int box_ifindex(struct nfqueue *q, int kidx)
{
	char name[IF_NAMESIZE];
	int bidx;

	if (kidx <= 0)
		return 0;
	for (unsigned i = 0; i < q->nifmap; i++)
		if (q->ifmap[i].kernel == kidx)
			return q->ifmap[i].box;
	if (q->nifmap == BOX_MAX_IFACES || !if_indextoname((unsigned)kidx, name)) {
		q->st.unnamed++;
		return 0;
	}
	bidx = box_iface_index(q->box, name);
	if (bidx < 0)
		bidx = box_add_iface(q->box, name, NULL);
	if (bidx < 0) {
		q->st.unnamed++;
		return 0;
	}
	q->ifmap[q->nifmap++] = (struct nfq_ifmap){.kernel = kidx, .box = bidx};
	return bidx;
}

static uint32_t attr_u32(const struct nlattr *a)
{
	return a ? ntohl(mnl_attr_get_u32(a)) : 0;
}

static const unsigned kernel_hook[NF_INET_NUMHOOKS] = {
    [NF_INET_PRE_ROUTING] = HOOK_PREROUTING,   [NF_INET_LOCAL_IN] = HOOK_INPUT,
    [NF_INET_FORWARD] = HOOK_FORWARD,	       [NF_INET_LOCAL_OUT] = HOOK_OUTPUT,
    [NF_INET_POST_ROUTING] = HOOK_POSTROUTING,
};

/*
 * The bytes the kernel should take back, or NULL when the rules left them as they were. A
 * packet no writer touched (p->written: pkt_store, pkt_splice, pkt_trim) is the kernel's as it
 * came, with no compare; one that was written is compared, so that a write of the bytes that
 * were there (a NAT to the same address, a TTL set to its value) sends no payload either.
 */
static const uint8_t *rewritten(struct pkt *p, const uint8_t *orig, uint32_t len, bool partial)
{
	uint8_t *d;

	if (!p->written)
		return NULL;
	if (pkt_linearize(p) < 0)
		return NULL;
	d = pkt_linear_data(p);
	if (p->len == len && !memcmp(d, orig, len))
		return NULL;
	/* The kernel takes a new payload as CHECKSUM_NONE: a checksum that was left to offload
	 * (and that the targets' incremental updates kept partial) must be whole now. */
	if (partial && pkt_parse(p, PKT_LINK_RAW, false) == 0)
		pkt_l4_csum_update(p);
	return d;
}

static void handle_packet(struct nfqueue *q, const struct nlmsghdr *nlh)
{
	struct nlattr *a[NFQA_MAX + 1] = {0};
	const struct nfqnl_msg_packet_hdr *ph;
	const uint8_t *data, *out = NULL;
	uint32_t id, len, mark, info;
	struct box_drop drop;
	struct pkt *p;
	unsigned hook;
	int v, in, outif;

	if (nfq_nlmsg_parse(nlh, a) < 0 || !a[NFQA_PACKET_HDR] ||
	    mnl_attr_get_payload_len(a[NFQA_PACKET_HDR]) < sizeof(*ph))
		return;
	ph = mnl_attr_get_payload(a[NFQA_PACKET_HDR]);
	id = ntohl(ph->packet_id);
	mark = attr_u32(a[NFQA_MARK]);
	info = attr_u32(a[NFQA_SKB_INFO]);
	q->st.packets++;
	data = a[NFQA_PAYLOAD] ? mnl_attr_get_payload(a[NFQA_PAYLOAD]) : NULL;
	len = a[NFQA_PAYLOAD] ? mnl_attr_get_payload_len(a[NFQA_PAYLOAD]) : 0;
	if (ph->hook >= NF_INET_NUMHOOKS || !data || !(p = box_pkt_get(q->box, data, len))) {
		/* Nothing to judge (or no memory to judge it with): let it go as it came. */
		q->st.not_ip++;
		verdict(q, id, NF_ACCEPT, mark, NULL, 0);
		return;
	}
	hook = kernel_hook[ph->hook];
	in = box_ifindex(q, (int)attr_u32(a[NFQA_IFINDEX_INDEV]));
	outif = box_ifindex(q, (int)attr_u32(a[NFQA_IFINDEX_OUTDEV]));
	p->mark = mark;
	if (a[NFQA_UID] && a[NFQA_GID]) {
		p->sk = true;
		p->sk_uid = attr_u32(a[NFQA_UID]);
		p->sk_gid = attr_u32(a[NFQA_GID]);
	}
	/* The kernel says when it did not verify the transport checksum (or could not: a local
	 * sender's offload); without the attribute nothing is known, so conntrack verifies. */
	p->l4_csum_verified =
	    a[NFQA_SKB_INFO] && !(info & (NFQA_SKB_CSUMNOTREADY | NFQA_SKB_CSUM_NOTVERIFIED));
	p->tstamp_ns = box_now(q->box);
	p->id = q->st.packets;
	v = box_hook_packet(q->box, hook, in, outif, p, &drop);
	switch (v) {
	case EXT_ACCEPT:
		q->st.accepted++;
		out = rewritten(p, data, len, info & NFQA_SKB_CSUMNOTREADY);
		if (out)
			q->st.rewritten++;
		if (p->mark != mark)
			q->st.remarked++;
		verdict(q, id, NF_ACCEPT, p->mark, out, out ? p->len : 0);
		break;
	case EXT_STOLEN:
		/* The box keeps its copy (a hook function holds it); the kernel's is not needed. */
		q->st.stolen++;
		verdict(q, id, NF_DROP, mark, NULL, 0);
		return;
	case EXT_DROP:
		q->st.dropped++;
		verdict(q, id, NF_DROP, mark, NULL, 0);
		break;
	default:
		q->st.not_ip++;
		verdict(q, id, NF_ACCEPT, mark, NULL, 0);
		break;
	}
	/* box_hook_packet leaves the packet with us: so is its conntrack reference, if any. The
	 * packet came from the box's pool (made and given back under the box lock, as the pool's
	 * one thread at a time): pkt_free returns it there. */
	box_pkt_unref(q->box, p);
	pkt_free(p);
}

/* Every message of one received datagram: packets, and answers to our requests. */
static void dispatch(struct nfqueue *q, const char *buf, size_t n)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	int left = (int)n;

	for (; mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);

			if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e)))
				continue;
			if (nlh->nlmsg_seq && nlh->nlmsg_seq == q->seq) {
				q->cfg_error = e->error;
				q->cfg_acked = true;
			} else if (e->error) {
				q->st.verdict_errors++;
			}
			continue;
		}
		if (nlh->nlmsg_type == ((NFNL_SUBSYS_QUEUE << 8) | NFQNL_MSG_PACKET))
			handle_packet(q, nlh);
	}
}

/*
 * Receive what is waiting, up to NFQ_RECV_ROUNDS full batches, and answer it. Returns 0, or
 * a negative errno when the socket fails for good.
 */
int nfqueue_drain(struct nfqueue *q)
{
	struct mmsghdr msgs[NFQ_RECV_BATCH];
	struct iovec iov[NFQ_RECV_BATCH];
	int fd = mnl_socket_get_fd(q->nl);

	for (unsigned round = 0; round < NFQ_RECV_ROUNDS; round++) {
		int n;

		for (unsigned i = 0; i < NFQ_RECV_BATCH; i++) {
			iov[i] = (struct iovec){q->rbuf + (size_t)i * NFQ_MSG_MAX, NFQ_MSG_MAX};
			msgs[i] =
			    (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
		}
		n = recvmmsg(fd, msgs, NFQ_RECV_BATCH, MSG_DONTWAIT, NULL);
		if (n < 0) {
			if (errno == ENOBUFS) {
				/* The socket overflowed: the kernel dropped (or, fail-open,
				 * accepted) what it could not hand over. Go on with what is there.
				 */
				COUNT_UNLOCKED(q, overruns);
				continue;
			}
			if (errno == EAGAIN || errno == EINTR)
				break;
			return -errno;
		}
		if (q->box_lock)
			q->box_lock(q->box_lock_arg, true);
		for (int i = 0; i < n; i++)
			dispatch(q, iov[i].iov_base, msgs[i].msg_len);
		if (q->box_lock)
			q->box_lock(q->box_lock_arg, false);
		run_close(q);
		send_flush(q);
		if (n < NFQ_RECV_BATCH)
			break;
	}
	run_close(q);
	return send_flush(q);
}

/* ---- configuration ----------------------------------------------------------------------- */

/* Send one config request with an ACK asked for; packets arriving meanwhile are served. */
static int config_request(struct nfqueue *q, struct nlmsghdr *nlh)
{
	struct pollfd pfd = {.fd = mnl_socket_get_fd(q->nl), .events = POLLIN};
	int rc;

	nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = ++q->seq;
	q->cfg_acked = false;
	q->cfg_error = 0;
	if (mnl_socket_sendto(q->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (int tries = 0; !q->cfg_acked && tries < 50; tries++) {
		if (poll(&pfd, 1, NFQ_WAIT_MS) > 0 && (rc = nfqueue_drain(q)) < 0)
			return rc;
	}
	if (!q->cfg_acked)
		return -ETIMEDOUT;
	return q->cfg_error;
}

static int configure(struct nfqueue *q, const struct nfqueue_opts *o)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	uint32_t flags = (o->fail_open ? NFQA_CFG_F_FAIL_OPEN : 0) | NFQA_CFG_F_UID_GID;
	int rc;

	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, q->queue_num);
	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET, NFQNL_CFG_CMD_BIND);
	rc = config_request(q, nlh);
	if (rc < 0) {
		fprintf(q->err, "nfqueue %u: bind: %s%s\n", q->queue_num, strerror(-rc),
			rc == -EBUSY ? " (another program serves this queue)" : "");
		return rc;
	}
	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, q->queue_num);
	nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_PACKET, 0xffff);
	nfq_nlmsg_cfg_put_qmaxlen(nlh, o->maxlen ? o->maxlen : NFQ_DEFAULT_QLEN);
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(flags));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(NFQA_CFG_F_FAIL_OPEN | NFQA_CFG_F_UID_GID));
	rc = config_request(q, nlh);
	if (rc < 0)
		fprintf(q->err, "nfqueue %u: configure: %s\n", q->queue_num, strerror(-rc));
	return rc;
}

int nfqueue_open(const struct nfqueue_opts *o, struct box *b, FILE *err, struct nfqueue **out)
{
	struct nfqueue *q = calloc(1, sizeof(*q));
	int rc, sz = NFQ_RCVBUF;

	if (!q)
		return -ENOMEM;
	q->err = err;
	q->queue_num = o->queue_num;
	q->box = b;
	q->box_lock = o->box_lock;
	q->box_lock_arg = o->box_lock_arg;
	q->rbuf = malloc((size_t)NFQ_RECV_BATCH * NFQ_MSG_MAX);
	q->sbuf = malloc(NFQ_SEND_MAX);
	if (!q->rbuf || !q->sbuf) {
		nfqueue_free(q);
		return -ENOMEM;
	}
	q->nl = mnl_socket_open(NETLINK_NETFILTER);
	if (!q->nl || mnl_socket_bind(q->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		rc = -errno;
		fprintf(err, "nfqueue: netlink socket: %s\n", strerror(errno));
		nfqueue_free(q);
		return rc;
	}
	q->portid = mnl_socket_get_portid(q->nl);
	/* Room for bursts: a full socket loses packets (counted as overruns). */
	if (setsockopt(mnl_socket_get_fd(q->nl), SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(mnl_socket_get_fd(q->nl), SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	rc = configure(q, o);
	if (rc < 0) {
		nfqueue_free(q);
		return rc;
	}
	*out = q;
	return 0;
}

struct nfqueue *nfqueue_open_unbound(unsigned queue_num, struct box *b)
{
	struct nfqueue *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->err = stderr;
	q->queue_num = queue_num;
	q->box = b;
	q->sbuf = malloc(NFQ_SEND_MAX);
	if (!q->sbuf) {
		nfqueue_free(q);
		return NULL;
	}
	return q;
}

const void *nfqueue_handle(struct nfqueue *q, const void *msgs, size_t n, size_t *sent)
{
	q->slen = 0;
	dispatch(q, msgs, n);
	run_close(q);
	*sent = q->slen;
	return q->sbuf;
}

void nfqueue_free(struct nfqueue *q)
{
	if (!q)
		return;
	if (q->nl) {
		char buf[MNL_SOCKET_BUFFER_SIZE];
		struct nlmsghdr *nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, q->queue_num);

		/* Unbinding (or closing the socket) makes the kernel drop what still waits. */
		nfq_nlmsg_cfg_put_cmd(nlh, AF_INET, NFQNL_CFG_CMD_UNBIND);
		mnl_socket_sendto(q->nl, nlh, nlh->nlmsg_len);
		mnl_socket_close(q->nl);
	}
	free(q->rbuf);
	free(q->sbuf);
	free(q);
}

/* ---- the counters ---------------------------------------------------------------------- */

int nfqueue_fd(const struct nfqueue *q)
{
	return mnl_socket_get_fd(q->nl);
}

void nfqueue_get_stats(const struct nfqueue *q, struct nfqueue_stats *st)
{
	const struct nfqueue_stats *s = &q->st;

	/* field by field: those counted outside the lock atomically, the rest is the box lock's */
	*st = (struct nfqueue_stats){
	    .packets = s->packets,
	    .accepted = s->accepted,
	    .dropped = s->dropped,
	    .stolen = s->stolen,
	    .not_ip = s->not_ip,
	    .rewritten = s->rewritten,
	    .remarked = s->remarked,
	    .verdict_msgs = s->verdict_msgs,
	    .batch_msgs = __atomic_load_n(&s->batch_msgs, __ATOMIC_RELAXED),
	    .sends = __atomic_load_n(&s->sends, __ATOMIC_RELAXED),
	    .overruns = __atomic_load_n(&s->overruns, __ATOMIC_RELAXED),
	    .verdict_errors = s->verdict_errors,
	    .unnamed = s->unnamed,
	};
}

/* The kernel's line for our queue in /proc/net/netfilter/nfnetlink_queue (this namespace). */
void nfqueue_print_kernel_queue(const struct nfqueue *q, FILE *f)
{
	FILE *k = fopen("/proc/net/netfilter/nfnetlink_queue", "r");
	unsigned num, portid, waiting, mode, range, qdrop, udrop, seq;
	char line[256];

	if (!k)
		return;
	while (fgets(line, sizeof(line), k)) {
		if (sscanf(line, "%u %u %u %u %u %u %u %u", &num, &portid, &waiting, &mode, &range,
			   &qdrop, &udrop, &seq) == 8 &&
		    num == q->queue_num)
			fprintf(f,
				"kernel queue %u: waiting %u, dropped queue-full %u, dropped "
				"socket-full %u, last id %u\n",
				num, waiting, qdrop, udrop, seq);
	}
	fclose(k);
}
