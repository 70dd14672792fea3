/*
 * bloxctl: the operator's CLI for bloxd's admin API (proto/blox_admin.proto)
 * over its unix socket. One request per run (a stream for stats --watch);
 * human output as aligned tables, --json for scripts; the exit code is
 * the answer's status code.
 */
#include <errno.h>
#include <json-c/json.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "adm_frame.h"
#include "blox_admin.pb-c.h"
#include "cli.h"

#define EX_USAGE 64
#define DEFAULT_SOCKET "/run/bloxd/bloxd.sock"

/* Set by SIGINT during stats --watch; the only state a handler may touch. */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct ctl {
	const char *sock;
	const char *connect, *cert, *key, *ca; /* TLS to HOST:PORT instead */
	SSL_CTX *ssl_ctx;
	SSL *ssl;
	bool json;
	int timeout_ms;
	int fd;
	uint32_t next_id;
	uint8_t *buf;
};

static int usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_err(const char *fmt, ...)
{
	va_list ap;

	fputs("bloxctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see bloxctl --help)\n", stderr);
	return EX_USAGE;
}

static int tls_fail(const char *what)
{
	unsigned long e = ERR_get_error();

	fprintf(stderr, "bloxctl: TLS %s: %s\n", what,
		e ? ERR_reason_error_string(e) : "failed");
	return ADM_S_UNAVAILABLE;
}

/* TCP to c->connect, then a TLS handshake with our certificate. */
static int tls_connect(struct ctl *c)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL, *ai;
	char host[256];
	uint32_t port;
	char ports[8];

	if (!c->cert || !c->key || !c->ca)
		return usage_err("--connect needs --cert, --key and --ca");
	if (cli_parse_addr(c->connect, host, sizeof(host), &port))
		return usage_err("--connect: HOST:PORT or [V6ADDR]:PORT");
	snprintf(ports, sizeof(ports), "%u", port);
	if (getaddrinfo(host, ports, &hints, &res)) {
		fprintf(stderr, "bloxctl: cannot resolve %s\n", host);
		return ADM_S_UNAVAILABLE;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		c->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (c->fd >= 0 && connect(c->fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		if (c->fd >= 0)
			close(c->fd);
		c->fd = -1;
	}
	freeaddrinfo(res);
	if (c->fd < 0) {
		fprintf(stderr, "bloxctl: cannot connect to %s: %s\n", c->connect,
			strerror(errno));
		return ADM_S_UNAVAILABLE;
	}
	c->ssl_ctx = SSL_CTX_new(TLS_client_method());
	if (!c->ssl_ctx)
		return tls_fail("context");
	SSL_CTX_set_min_proto_version(c->ssl_ctx, TLS1_2_VERSION);
	if (SSL_CTX_use_certificate_chain_file(c->ssl_ctx, c->cert) != 1)
		return tls_fail("certificate");
	if (SSL_CTX_use_PrivateKey_file(c->ssl_ctx, c->key, SSL_FILETYPE_PEM) != 1)
		return tls_fail("key");
	if (SSL_CTX_load_verify_locations(c->ssl_ctx, c->ca, NULL) != 1)
		return tls_fail("CA");
	SSL_CTX_set_verify(c->ssl_ctx, SSL_VERIFY_PEER, NULL);
	c->ssl = SSL_new(c->ssl_ctx);
	if (!c->ssl || !SSL_set_fd(c->ssl, c->fd) || SSL_connect(c->ssl) != 1)
		return tls_fail("handshake");
	return 0;
}

static int ctl_connect(struct ctl *c)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	if (c->connect)
		return tls_connect(c);

	if (strlen(c->sock) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "bloxctl: socket path too long\n");
		return ADM_S_UNAVAILABLE;
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", c->sock);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sun, sizeof(sun))) {
		fprintf(stderr, "bloxctl: cannot connect to %s: %s (is bloxd running? see -s)\n",
			c->sock, strerror(errno));
		return ADM_S_UNAVAILABLE;
	}
	return 0;
}

static ssize_t ctl_write(struct ctl *c, const uint8_t *p, size_t n)
{
	return c->ssl ? SSL_write(c->ssl, p, (int)n) : write(c->fd, p, n);
}

static ssize_t ctl_read(struct ctl *c, uint8_t *p, size_t n)
{
	return c->ssl ? SSL_read(c->ssl, p, (int)n) : read(c->fd, p, n);
}

static int write_all(struct ctl *c, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = ctl_write(c, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int send_req(struct ctl *c, unsigned method, uint8_t flags, uint32_t id,
		    const ProtobufCMessage *in)
{
	size_t plen = in ? protobuf_c_message_get_packed_size(in) : 0;
	struct adm_hdr h = { .version = ADM_VERSION, .flags = flags,
			     .method = (uint16_t)method, .request_id = id,
			     .payload_len = (uint32_t)plen };
	uint8_t *f = malloc(ADM_HDR_LEN + plen);
	int rc;

	if (!f)
		return -ENOMEM;
	adm_hdr_encode(&h, f);
	if (plen)
		protobuf_c_message_pack(in, f + ADM_HDR_LEN);
	rc = write_all(c, f, ADM_HDR_LEN + plen);
	free(f);
	return rc;
}

/* Read one whole frame into c->buf. 0, or -ETIMEDOUT / -EPIPE / -EPROTO / -EINTR. */
static int read_frame(struct ctl *c, struct adm_hdr *h, int timeout_ms)
{
	size_t have = 0, need = ADM_HDR_LEN;

	while (have < need) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		int r = c->ssl && SSL_pending(c->ssl) ? 1 : poll(&p, 1, timeout_ms);
		ssize_t n;

		if (r < 0 && errno == EINTR)
			return -EINTR;
		if (r == 0)
			return -ETIMEDOUT;
		n = ctl_read(c, c->buf + have, need - have);
		if (n < 0 && errno == EINTR)
			return -EINTR;
		if (n <= 0)
			return -EPIPE;
		have += (size_t)n;
		if (have == ADM_HDR_LEN && need == ADM_HDR_LEN) {
			if (adm_hdr_decode(c->buf, have, h) != ADM_OK)
				return -EPROTO;
			need = adm_frame_len(h);
		}
	}
	return 0;
}

/* Print the failure of an answer; returns its status as the exit code. */
static int answer_error(const struct ctl *c, const struct adm_hdr *h)
{
	fprintf(stderr, "bloxctl: %.*s\n", (int)h->msg_len, (const char *)c->buf + ADM_HDR_LEN);
	return h->status;
}

static const ProtobufCMethodDescriptor *method(const char *name, unsigned *idx)
{
	const ProtobufCMethodDescriptor *m = protobuf_c_service_descriptor_get_method_by_name(
		&blox__admin__blox_admin__descriptor, name);

	*idx = (unsigned)(m - blox__admin__blox_admin__descriptor.methods);
	return m;
}

typedef void (*print_fn)(const ProtobufCMessage *m);

static void emit(const struct ctl *c, const ProtobufCMessage *m, print_fn human,
		 bool line)
{
	if (c->json) {
		json_object *o = cli_msg_to_json(m);

		puts(json_object_to_json_string_ext(
			o, (line ? JSON_C_TO_STRING_PLAIN : JSON_C_TO_STRING_PRETTY) |
			       JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else if (human) {
		human(m);
	}
	fflush(stdout);
}

/* One request, one answer. The exit code. */
static int call(struct ctl *c, const char *name, const ProtobufCMessage *in,
		print_fn human)
{
	unsigned idx;
	const ProtobufCMethodDescriptor *md = method(name, &idx);
	struct adm_hdr h;
	ProtobufCMessage *out;
	int rc;

	if (!md)
		return fprintf(stderr, "bloxctl: no method %s\n", name), ADM_S_INTERNAL;
	if ((rc = ctl_connect(c)))
		return rc;
	if (send_req(c, idx, 0, ++c->next_id, in))
		return fprintf(stderr, "bloxctl: send: %s\n", strerror(errno)), ADM_S_UNAVAILABLE;
	rc = read_frame(c, &h, c->timeout_ms);
	if (rc)
		return fprintf(stderr, "bloxctl: no answer from bloxd: %s\n", strerror(-rc)),
		       ADM_S_UNAVAILABLE;
	if (h.status)
		return answer_error(c, &h);
	out = protobuf_c_message_unpack(md->output, NULL, h.payload_len,
					c->buf + ADM_HDR_LEN + h.msg_len);
	if (!out)
		return fprintf(stderr, "bloxctl: answer does not decode\n"), ADM_S_INTERNAL;
	emit(c, out, human, false);
	protobuf_c_message_free_unpacked(out, NULL);
	return 0;
}

/* ---- human output ---- */

static void print_ok(const ProtobufCMessage *m)
{
	(void)m;
}

static void print_version(const ProtobufCMessage *m)
{
	const Blox__Admin__VersionReply *v = (const void *)m;

	printf("bloxd   %s (admin API %u)\nbloxctl %s\n", v->version, v->api_version,
	       BLOX_VERSION);
}

static void print_status(const ProtobufCMessage *m)
{
	const Blox__Admin__DaemonStatus *s = (const void *)m;

	printf("version            bloxd %s\n", s->version);
	printf("pid                %u\n", s->pid);
	printf("uptime             %.1f s\n", (double)s->uptime_ns / 1e9);
	printf("data dir           %s\n", s->data_dir);
	printf("state file         %s\n", s->state_file[0] ? s->state_file : "(none yet)");
	printf("subsystems         %u\n", s->subsystems);
	printf("namespaces         %u\n", s->namespaces);
	printf("controllers        %u\n", s->controllers);
	printf("listeners          %u\n", s->listeners);
	printf("NVMe/TCP queues    %u\n", s->io_queues);
	printf("admin connections  %u\n", s->admin_connections);
}

static void ns_rows(struct cli_table *t, Blox__Admin__Namespace **ns, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char size[32];

		cli_size_str(ns[i]->size, size, sizeof(size));
		cli_table_cell(t, "%s", ns[i]->nqn);
		cli_table_cell(t, "%u", ns[i]->nsid);
		cli_table_cell(t, "%s", ns[i]->backend);
		cli_table_cell(t, "%s", size);
		cli_table_cell(t, "%u", ns[i]->block_size);
		cli_table_cell(t, "%lu", (unsigned long)ns[i]->inflight);
		cli_table_cell(t, "%s", ns[i]->device[0] ? ns[i]->device : "-");
		cli_table_cell(t, "%s", ns[i]->uuid);
		cli_table_end_row(t);
	}
}

static void print_ns_list(const ProtobufCMessage *m)
{
	const Blox__Admin__NamespaceList *l = (const void *)m;
	struct cli_table t;

	cli_table_init(&t, "SUBSYSTEM", "NSID", "BACKEND", "SIZE", "BLOCK", "INFLIGHT",
		       "DEVICE", "UUID", NULL);
	ns_rows(&t, l->namespaces, l->n_namespaces);
	cli_table_print(&t, stdout);
}

static void print_ns(const ProtobufCMessage *m)
{
	const Blox__Admin__Namespace *n = (const void *)m;
	char size[32];

	cli_size_str(n->size, size, sizeof(size));
	printf("subsystem   %s\nnsid        %u\nbackend     %s\nsize        %s (%lu bytes)\n"
	       "block size  %u\nuuid        %s\ninflight    %lu\ndevice      %s\nparameters  %s\n",
	       n->nqn, n->nsid, n->backend, size, (unsigned long)n->size, n->block_size,
	       n->uuid, (unsigned long)n->inflight, n->device[0] ? n->device : "(own)",
	       n->params_json);
}

static void print_subsys(const ProtobufCMessage *m)
{
	const Blox__Admin__Subsystem *s = (const void *)m;
	struct cli_table t;

	printf("nqn             %s\nserial          %s\nmodel           %s\n"
	       "allow any host  %s\ncontrollers     %u\nhosts          ",
	       s->nqn, s->serial, s->model, s->allow_any_host ? "yes" : "no",
	       s->controllers);
	for (size_t i = 0; i < s->n_hosts; i++)
		printf(" %s", s->hosts[i]);
	printf("%s\n", s->n_hosts ? "" : " (none)");
	cli_table_init(&t, "SUBSYSTEM", "NSID", "BACKEND", "SIZE", "BLOCK", "INFLIGHT",
		       "DEVICE", "UUID", NULL);
	ns_rows(&t, s->namespaces, s->n_namespaces);
	cli_table_print(&t, stdout);
}

static void print_subsys_list(const ProtobufCMessage *m)
{
	const Blox__Admin__SubsystemList *l = (const void *)m;
	struct cli_table t;

	cli_table_init(&t, "NQN", "NAMESPACES", "CONTROLLERS", "ANY HOST", "HOSTS",
		       "SERIAL", NULL);
	for (size_t i = 0; i < l->n_subsystems; i++) {
		const Blox__Admin__Subsystem *s = l->subsystems[i];

		cli_table_cell(&t, "%s", s->nqn);
		cli_table_cell(&t, "%zu", s->n_namespaces);
		cli_table_cell(&t, "%u", s->controllers);
		cli_table_cell(&t, "%s", s->allow_any_host ? "yes" : "no");
		cli_table_cell(&t, "%zu", s->n_hosts);
		cli_table_cell(&t, "%s", s->serial);
		cli_table_end_row(&t);
	}
	cli_table_print(&t, stdout);
}

static void print_listeners(const ProtobufCMessage *m)
{
	const Blox__Admin__ListenerList *l = (const void *)m;
	struct cli_table t;

	cli_table_init(&t, "ID", "ADDRESS", "PORT", "KIND", "QUEUES", NULL);
	for (size_t i = 0; i < l->n_listeners; i++) {
		const Blox__Admin__Listener *x = l->listeners[i];

		cli_table_cell(&t, "%u", x->id);
		cli_table_cell(&t, "%s", x->address);
		cli_table_cell(&t, "%u", x->port);
		cli_table_cell(&t, "%s", x->discovery_only ? "discovery" : "nvm+discovery");
		cli_table_cell(&t, "%u", x->queues);
		cli_table_end_row(&t);
	}
	cli_table_print(&t, stdout);
}

static void print_listener(const ProtobufCMessage *m)
{
	const Blox__Admin__Listener *x = (const void *)m;

	printf("listener %u: %s:%u%s\n", x->id, x->address, x->port,
	       x->discovery_only ? " (discovery only)" : "");
}

static void print_ctrls(const ProtobufCMessage *m)
{
	const Blox__Admin__ControllerList *l = (const void *)m;
	struct cli_table t;

	cli_table_init(&t, "SUBSYSTEM", "CNTLID", "HOST", "KATO_MS", "IO_QUEUES",
		       "LISTENER", "AGE_S", "QUEUES(qid:size:cmds:errs)", NULL);
	for (size_t i = 0; i < l->n_controllers; i++) {
		const Blox__Admin__Controller *c = l->controllers[i];
		char q[1024] = "";
		size_t off = 0;

		for (size_t k = 0; k < c->n_queues && off < sizeof(q) - 64; k++)
			off += (size_t)snprintf(q + off, sizeof(q) - off, "%s%u:%u:%lu:%lu",
						k ? " " : "", c->queues[k]->qid,
						c->queues[k]->size,
						(unsigned long)c->queues[k]->commands,
						(unsigned long)c->queues[k]->errors);
		cli_table_cell(&t, "%s", c->nqn);
		cli_table_cell(&t, "%u", c->cntlid);
		cli_table_cell(&t, "%s", c->host_nqn);
		cli_table_cell(&t, "%u", c->kato_ms);
		cli_table_cell(&t, "%u", c->io_queues);
		cli_table_cell(&t, "%s", c->listener);
		cli_table_cell(&t, "%.0f", (double)c->age_ns / 1e9);
		cli_table_cell(&t, "%s", q);
		cli_table_end_row(&t);
	}
	cli_table_print(&t, stdout);
}

static void io_row(struct cli_table *t, const char *what, const char *id,
		   const Blox__Admin__IoStats *io)
{
	char rbw[32], wbw[32];
	const Blox__Admin__Latency *r = io->read_lat, *w = io->write_lat;

	cli_size_str((uint64_t)io->read_bw, rbw, sizeof(rbw));
	cli_size_str((uint64_t)io->write_bw, wbw, sizeof(wbw));
	cli_table_cell(t, "%s", what);
	cli_table_cell(t, "%s", id);
	cli_table_cell(t, "%.0f", io->read_iops);
	cli_table_cell(t, "%.0f", io->write_iops);
	cli_table_cell(t, "%s/s", rbw);
	cli_table_cell(t, "%s/s", wbw);
	cli_table_cell(t, "%.1f/%.1f/%.1f/%.1f", r ? r->p50_ns / 1e3 : 0.0, r ? r->p99_ns / 1e3 : 0.0, r ? r->p999_ns / 1e3 : 0.0, r ? r->max_ns / 1e3 : 0.0);
	cli_table_cell(t, "%.1f/%.1f/%.1f/%.1f", w ? w->p50_ns / 1e3 : 0.0, w ? w->p99_ns / 1e3 : 0.0, w ? w->p999_ns / 1e3 : 0.0, w ? w->max_ns / 1e3 : 0.0);
	cli_table_cell(t, "%lu", (unsigned long)io->queue_depth);
	cli_table_cell(t, "%lu", (unsigned long)io->errors);
	cli_table_end_row(t);
}

static void print_stats(const ProtobufCMessage *m)
{
	const Blox__Admin__StatsReply *s = (const void *)m;
	struct cli_table t;

	cli_table_init(&t, "OBJECT", "ID", "R_IOPS", "W_IOPS", "R_BW", "W_BW",
		       "R_LAT_US p50/p99/p99.9/max", "W_LAT_US p50/p99/p99.9/max", "QD",
		       "ERRORS", NULL);
	for (size_t i = 0; i < s->n_namespaces; i++) {
		char id[300];

		snprintf(id, sizeof(id), "%s/%u", s->namespaces[i]->nqn, s->namespaces[i]->nsid);
		if (s->namespaces[i]->io)
			io_row(&t, "ns", id, s->namespaces[i]->io);
	}
	for (size_t i = 0; i < s->n_controllers; i++) {
		char id[300];

		snprintf(id, sizeof(id), "%s/%u", s->controllers[i]->nqn,
			 s->controllers[i]->cntlid);
		if (s->controllers[i]->io)
			io_row(&t, "ctrl", id, s->controllers[i]->io);
	}
	cli_table_print(&t, stdout);
	for (size_t i = 0; i < s->n_namespaces; i++) {
		const Blox__Admin__NamespaceStats *n = s->namespaces[i];

		if (n->ftl)
			printf("ftl  %s/%u: CMT hit %.1f%%, MDC hit %.1f%%, WAF %.2f, GC runs %lu "
			       "(%lu units moved), erases %lu (min %u max %u), free superblocks "
			       "%lu/%lu\n",
			       n->nqn, n->nsid, n->ftl->cmt_hit_rate * 100,
			       n->ftl->mdc_hit_rate * 100, n->ftl->waf,
			       (unsigned long)n->ftl->gc_runs,
			       (unsigned long)n->ftl->gc_units_moved,
			       (unsigned long)n->ftl->flash_erases, n->ftl->min_erase,
			       n->ftl->max_erase, (unsigned long)n->ftl->free_superblocks,
			       (unsigned long)n->ftl->superblocks);
		if (n->nand)
			printf("nand %s/%u: %u ch, %u dies; reads %lu programs %lu erases %lu; "
			       "suspends %lu, reads served in suspensions %lu\n",
			       n->nqn, n->nsid, n->nand->channels, n->nand->dies,
			       (unsigned long)n->nand->reads, (unsigned long)n->nand->programs,
			       (unsigned long)n->nand->erases, (unsigned long)n->nand->suspends,
			       (unsigned long)n->nand->reads_overtaken);
	}
}

static void print_saved(const ProtobufCMessage *m)
{
	const Blox__Admin__SaveConfigReply *s = (const void *)m;

	for (size_t i = 0; i < s->n_written; i++)
		printf("written %s\n", s->written[i]);
}

/* ---- stats --watch ---- */

static int watch(struct ctl *c, Blox__Admin__StatsRequest *in)
{
	unsigned idx;
	const ProtobufCMethodDescriptor *md = method("WatchStats", &idx);
	bool tty = isatty(STDOUT_FILENO) && !c->json;
	uint32_t id;
	int rc;

	signal(SIGINT, on_sigint);
	if ((rc = ctl_connect(c)))
		return rc;
	id = ++c->next_id;
	if (send_req(c, idx, 0, id, &in->base))
		return ADM_S_UNAVAILABLE;
	for (bool cancel_sent = false;;) {
		struct adm_hdr h;
		ProtobufCMessage *out;
		int wait = (int)(in->interval_ms ? in->interval_ms : 1000) + c->timeout_ms;

		if (interrupted && !cancel_sent) {
			if (send_req(c, idx, ADM_F_CANCEL, id, NULL))
				return ADM_S_UNAVAILABLE;
			cancel_sent = true;
		}
		rc = read_frame(c, &h, wait);
		if (rc == -EINTR)
			continue;
		if (rc)
			return fprintf(stderr, "bloxctl: stream ended: %s\n", strerror(-rc)),
			       ADM_S_UNAVAILABLE;
		if (h.status == ADM_S_CANCELLED && cancel_sent)
			return 0;
		if (h.status)
			return answer_error(c, &h);
		out = protobuf_c_message_unpack(md->output, NULL, h.payload_len,
						c->buf + ADM_HDR_LEN + h.msg_len);
		if (!out)
			return ADM_S_INTERNAL;
		if (tty)
			fputs("\033[H\033[2J", stdout);
		emit(c, out, print_stats, true);
		protobuf_c_message_free_unpacked(out, NULL);
		if (!(h.flags & ADM_F_MORE))
			return 0;
	}
}

/* ---- subcommands ---- */

static const char help_text[] =
	"usage: bloxctl [-s SOCKET] [--json] [--timeout SEC] COMMAND ...\n"
	"\n"
	"  status                                   daemon state\n"
	"  version                                  bloxd's and bloxctl's versions\n"
	"  config save [PATH]                       write the state file (and PATH)\n"
	"  listener add ADDR:PORT [--discovery]     ([V6ADDR]:PORT for IPv6)\n"
	"  listener remove ADDR:PORT\n"
	"  listener list\n"
	"  subsys create NQN [--serial S] [--model M] [--allow-any-host] [--host HOSTNQN]...\n"
	"  subsys delete NQN [--force]              --force disconnects its controllers\n"
	"  subsys list | subsys show NQN\n"
	"  host allow NQN HOSTNQN | host deny NQN HOSTNQN | host allow-any NQN on|off\n"
	"  ns create NQN --size SIZE [--nsid N] [--backend nand|ram|null|nand-timing]\n"
	"            [--block-size 512|4096] [--uuid U]\n"
	"            NAND: --channels --dies-per-channel --planes --blocks-per-plane\n"
	"                  --pages-per-block --page-size --oob-size --cell --t-read-us\n"
	"                  --t-prog-us --t-erase-us --bus-mbps --t-suspend-us --t-resume-us\n"
	"                  --null-timing on|off --suspend-policy default|never|always\n"
	"            FTL:  --store file|ram --cmt-kib --mdc on|off --mdc-bytes --mdc-min-run\n"
	"                  --stream-separation on|off --op-percent --gc-policy greedy|cost-benefit\n"
	"                  --write-buffer-pages --wl-threshold\n"
	"  ns delete NQN NSID [--force]             --force while hosts are connected\n"
	"  ns list [NQN] | ns show NQN NSID\n"
	"  stats [NQN [NSID]] [--watch] [--interval MS] [--count N]\n"
	"  ctrl list [NQN]                          connected controllers and queues\n"
	"\n"
	"SIZE: bytes, or with K/M/G/T (powers of 1024, e.g. 512M, 4G, 1GiB).\n"
	"Options: -s/--socket PATH (default $BLOXCTL_SOCKET, else " DEFAULT_SOCKET "),\n"
	"  --connect HOST:PORT --cert F --key F --ca F (TLS to bloxd --admin-tls instead),\n"
	"  --json (machine output), --timeout SEC (default 10), -h/--help, -V/--version.\n"
	"Exit codes: 0 OK, 1 INVALID_ARGUMENT, 2 NOT_FOUND, 3 ALREADY_EXISTS,\n"
	"  4 FAILED_PRECONDITION, 5 RESOURCE_EXHAUSTED, 6 PERMISSION_DENIED,\n"
	"  7 UNAVAILABLE (also: bloxd not reachable), 8 INTERNAL, 9 CANCELLED, 64 usage.\n";

/* --help anywhere in a subcommand's arguments. */
static bool wants_help(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

static int sub_help(const char *topic)
{
	/* The lines of the help text that start with the command. */
	const char *p = help_text;
	size_t tl = strlen(topic);

	printf("usage:\n");
	while ((p = strstr(p, "\n  "))) {
		const char *end = strchr(p + 1, '\n');

		p += 3;
		if (!strncmp(p, topic, tl)) {
			printf("  %.*s\n", (int)(end - p), p);
			/* Continuation lines (deeper indent). */
			while (end && !strncmp(end + 1, "       ", 7)) {
				const char *e2 = strchr(end + 1, '\n');

				printf("%.*s\n", (int)(e2 - end - 1), end + 1);
				end = e2;
			}
		}
	}
	return 0;
}

static int cmd_ns_create(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__NamespaceCreateRequest r = BLOX__ADMIN__NAMESPACE_CREATE_REQUEST__INIT;
	Blox__Admin__NandParams nand = BLOX__ADMIN__NAND_PARAMS__INIT;
	Blox__Admin__FtlParams ftl = BLOX__ADMIN__FTL_PARAMS__INIT;
	bool has_nand = false, has_ftl = false, has_size = false;
	struct {
		const char *opt;
		uint32_t *u;
		bool ftl;
	} nums[] = {
		{ "--channels", &nand.channels, false },
		{ "--dies-per-channel", &nand.dies_per_channel, false },
		{ "--planes", &nand.planes_per_die, false },
		{ "--blocks-per-plane", &nand.blocks_per_plane, false },
		{ "--pages-per-block", &nand.pages_per_block, false },
		{ "--page-size", &nand.page_size, false },
		{ "--oob-size", &nand.oob_size, false },
		{ "--t-read-us", &nand.t_read_us, false },
		{ "--t-prog-us", &nand.t_prog_us, false },
		{ "--t-erase-us", &nand.t_erase_us, false },
		{ "--bus-mbps", &nand.bus_mbps, false },
		{ "--t-suspend-us", &nand.t_suspend_us, false },
		{ "--t-resume-us", &nand.t_resume_us, false },
		{ "--cmt-kib", &ftl.cmt_kib, true },
		{ "--mdc-bytes", &ftl.mdc_bytes, true },
		{ "--mdc-min-run", &ftl.mdc_min_run, true },
		{ "--op-percent", &ftl.op_percent, true },
		{ "--write-buffer-pages", &ftl.write_buffer_pages, true },
		{ "--wl-threshold", &ftl.wl_threshold, true },
		{ "--nsid", &r.nsid, false },
		{ "--block-size", &r.block_size, false },
	};
	struct {
		const char *opt;
		char **s;
		int kind; /* 0 ns, 1 nand, 2 ftl */
	} strs[] = {
		{ "--backend", &r.backend, 0 },	 { "--uuid", &r.uuid, 0 },
		{ "--cell", &nand.cell, 1 },	 { "--suspend-policy", &nand.suspend_policy, 1 },
		{ "--store", &ftl.store, 2 },	 { "--gc-policy", &ftl.gc_policy, 2 },
	};
	struct {
		const char *opt;
		Blox__Admin__Toggle *t;
		bool ftl;
	} togs[] = {
		{ "--null-timing", &nand.null_timing, false },
		{ "--mdc", &ftl.mdc, true },
		{ "--stream-separation", &ftl.stream_separation, true },
	};

	if (argc < 1)
		return usage_err("ns create: NQN and --size are required");
	r.nqn = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool done = false;

		if (!v)
			return usage_err("ns create: %s needs a value", o);
		if (!strcmp(o, "--size")) {
			if (cli_parse_size(v, &r.size))
				return usage_err("ns create: --size '%s' is not a size", v);
			has_size = done = true;
		}
		for (size_t k = 0; !done && k < sizeof(nums) / sizeof(nums[0]); k++)
			if (!strcmp(o, nums[k].opt)) {
				if (cli_parse_u32(v, nums[k].u))
					return usage_err("ns create: %s '%s' is not a number", o, v);
				has_ftl |= nums[k].ftl;
				has_nand |= !nums[k].ftl && nums[k].u != &r.nsid &&
					    nums[k].u != &r.block_size;
				done = true;
			}
		for (size_t k = 0; !done && k < sizeof(strs) / sizeof(strs[0]); k++)
			if (!strcmp(o, strs[k].opt)) {
				*strs[k].s = (char *)v;
				has_nand |= strs[k].kind == 1;
				has_ftl |= strs[k].kind == 2;
				done = true;
			}
		for (size_t k = 0; !done && k < sizeof(togs) / sizeof(togs[0]); k++)
			if (!strcmp(o, togs[k].opt)) {
				if (strcmp(v, "on") && strcmp(v, "off"))
					return usage_err("ns create: %s takes on or off", o);
				*togs[k].t = !strcmp(v, "on") ? BLOX__ADMIN__TOGGLE__TOGGLE_ON
							      : BLOX__ADMIN__TOGGLE__TOGGLE_OFF;
				has_ftl |= togs[k].ftl;
				has_nand |= !togs[k].ftl;
				done = true;
			}
		if (!done)
			return usage_err("ns create: unknown option '%s'", o);
		i++;
	}
	if (!has_size)
		return usage_err("ns create: --size is required");
	if (has_nand)
		r.nand = &nand;
	if (has_ftl)
		r.ftl = &ftl;
	return call(c, "CreateNamespace", &r.base, print_ns);
}

static int parse_nsid(const char *s, uint32_t *out)
{
	return cli_parse_u32(s, out) || *out == 0 ? usage_err("'%s' is not a namespace id", s)
						   : 0;
}

static bool has_flag(int argc, char **argv, const char *flag)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], flag))
			return true;
	return false;
}

/* Positional arguments only, apart from the known flags. */
static int positional(int argc, char **argv, const char *const *flags, char **pos,
		      int max)
{
	int n = 0;

	for (int i = 0; i < argc; i++) {
		bool flag = false;

		for (const char *const *f = flags; f && *f; f++)
			flag |= !strcmp(argv[i], *f);
		if (flag)
			continue;
		if (argv[i][0] == '-' && argv[i][1])
			return usage_err("unknown option '%s'", argv[i]), -1;
		if (n == max)
			return usage_err("unexpected argument '%s'", argv[i]), -1;
		pos[n++] = argv[i];
	}
	return n;
}

static int cmd_ns(struct ctl *c, int argc, char **argv)
{
	static const char *const force[] = { "--force", NULL };
	char *pos[2];
	int n;

	if (argc < 1)
		return usage_err("ns: create, delete, list or show");
	if (wants_help(argc, argv))
		return sub_help(!strcmp(argv[0], "create") ? "ns create" : "ns");
	if (!strcmp(argv[0], "create"))
		return cmd_ns_create(c, argc - 1, argv + 1);
	if (!strcmp(argv[0], "list")) {
		Blox__Admin__NamespaceListRequest r = BLOX__ADMIN__NAMESPACE_LIST_REQUEST__INIT;

		if ((n = positional(argc - 1, argv + 1, NULL, pos, 1)) < 0)
			return EX_USAGE;
		r.nqn = n ? pos[0] : (char *)"";
		return call(c, "ListNamespaces", &r.base, print_ns_list);
	}
	if (!strcmp(argv[0], "show") || !strcmp(argv[0], "delete")) {
		Blox__Admin__NamespaceRef r = BLOX__ADMIN__NAMESPACE_REF__INIT;
		bool del = argv[0][0] == 'd';

		if ((n = positional(argc - 1, argv + 1, del ? force : NULL, pos, 2)) < 0)
			return EX_USAGE;
		if (n != 2)
			return usage_err("ns %s: NQN and NSID are required", argv[0]);
		if (parse_nsid(pos[1], &r.nsid))
			return EX_USAGE;
		r.nqn = pos[0];
		r.force = del && has_flag(argc, argv, "--force");
		return del ? call(c, "DeleteNamespace", &r.base, print_ok)
			   : call(c, "ShowNamespace", &r.base, print_ns);
	}
	return usage_err("ns: unknown command '%s'", argv[0]);
}

static int cmd_subsys(struct ctl *c, int argc, char **argv)
{
	char *pos[1];
	int n;

	if (argc < 1)
		return usage_err("subsys: create, delete, list or show");
	if (wants_help(argc, argv))
		return sub_help("subsys");
	if (!strcmp(argv[0], "create")) {
		Blox__Admin__SubsystemCreateRequest r = BLOX__ADMIN__SUBSYSTEM_CREATE_REQUEST__INIT;
		char **hosts = calloc((size_t)argc + 1, sizeof(*hosts));
		int rc;

		if (!hosts)
			return ADM_S_RESOURCE_EXHAUSTED;
		for (int i = 1; i < argc; i++) {
			const char *v = i + 1 < argc ? argv[i + 1] : NULL;

			if (!strcmp(argv[i], "--allow-any-host")) {
				r.allow_any_host = true;
			} else if (argv[i][0] == '-' && !v) {
				free(hosts);
				return usage_err("subsys create: %s needs a value", argv[i]);
			} else if (!strcmp(argv[i], "--serial")) {
				r.serial = (char *)v, i++;
			} else if (!strcmp(argv[i], "--model")) {
				r.model = (char *)v, i++;
			} else if (!strcmp(argv[i], "--host")) {
				hosts[r.n_hosts++] = (char *)v, i++;
			} else if (argv[i][0] == '-' || r.nqn[0]) {
				free(hosts);
				return usage_err("subsys create: unexpected '%s'", argv[i]);
			} else {
				r.nqn = argv[i];
			}
		}
		if (!r.nqn[0]) {
			free(hosts);
			return usage_err("subsys create: NQN is required");
		}
		r.hosts = hosts;
		rc = call(c, "CreateSubsystem", &r.base, print_subsys);
		free(hosts);
		return rc;
	}
	if (!strcmp(argv[0], "list")) {
		Blox__Admin__Empty r = BLOX__ADMIN__EMPTY__INIT;

		return call(c, "ListSubsystems", &r.base, print_subsys_list);
	}
	if (!strcmp(argv[0], "show") || !strcmp(argv[0], "delete")) {
		static const char *const force[] = { "--force", NULL };
		Blox__Admin__SubsystemRef r = BLOX__ADMIN__SUBSYSTEM_REF__INIT;
		bool del = argv[0][0] == 'd';

		if ((n = positional(argc - 1, argv + 1, del ? force : NULL, pos, 1)) < 0)
			return EX_USAGE;
		if (n != 1)
			return usage_err("subsys %s: NQN is required", argv[0]);
		r.nqn = pos[0];
		r.force = del && has_flag(argc, argv, "--force");
		return del ? call(c, "DeleteSubsystem", &r.base, print_ok)
			   : call(c, "ShowSubsystem", &r.base, print_subsys);
	}
	return usage_err("subsys: unknown command '%s'", argv[0]);
}

static int cmd_host(struct ctl *c, int argc, char **argv)
{
	if (argc < 1 || wants_help(argc, argv))
		return argc < 1 ? usage_err("host: allow, deny or allow-any") : sub_help("host");
	if (argc != 3)
		return usage_err("host %s: NQN and a second argument are required", argv[0]);
	if (!strcmp(argv[0], "allow") || !strcmp(argv[0], "deny")) {
		Blox__Admin__HostRequest r = BLOX__ADMIN__HOST_REQUEST__INIT;

		r.nqn = argv[1];
		r.host_nqn = argv[2];
		return call(c, argv[0][0] == 'a' ? "AllowHost" : "DenyHost", &r.base,
			    print_subsys);
	}
	if (!strcmp(argv[0], "allow-any")) {
		Blox__Admin__AllowAnyHostRequest r = BLOX__ADMIN__ALLOW_ANY_HOST_REQUEST__INIT;

		if (strcmp(argv[2], "on") && strcmp(argv[2], "off"))
			return usage_err("host allow-any: on or off");
		r.nqn = argv[1];
		r.allow = !strcmp(argv[2], "on");
		return call(c, "SetAllowAnyHost", &r.base, print_subsys);
	}
	return usage_err("host: unknown command '%s'", argv[0]);
}

static int cmd_listener(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__ListenerRequest r = BLOX__ADMIN__LISTENER_REQUEST__INIT;
	static const char *const disc[] = { "--discovery", NULL };
	char addr[64], *pos[1];
	int n;

	if (argc < 1 || wants_help(argc, argv))
		return argc < 1 ? usage_err("listener: add, remove or list") : sub_help("listener");
	if (!strcmp(argv[0], "list")) {
		Blox__Admin__Empty e = BLOX__ADMIN__EMPTY__INIT;

		return call(c, "ListListeners", &e.base, print_listeners);
	}
	if (strcmp(argv[0], "add") && strcmp(argv[0], "remove"))
		return usage_err("listener: unknown command '%s'", argv[0]);
	if ((n = positional(argc - 1, argv + 1, argv[0][0] == 'a' ? disc : NULL, pos, 1)) < 0)
		return EX_USAGE;
	if (n != 1 || cli_parse_addr(pos[0], addr, sizeof(addr), &r.port))
		return usage_err("listener %s: ADDR:PORT or [V6ADDR]:PORT is required", argv[0]);
	r.address = addr;
	r.discovery_only = has_flag(argc, argv, "--discovery");
	return argv[0][0] == 'a' ? call(c, "AddListener", &r.base, print_listener)
				 : call(c, "RemoveListener", &r.base, print_ok);
}

static int cmd_stats(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__StatsRequest r = BLOX__ADMIN__STATS_REQUEST__INIT;
	bool do_watch = false;
	char *pos[2];
	int n = 0;

	if (wants_help(argc, argv))
		return sub_help("stats");
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--watch")) {
			do_watch = true;
		} else if (!strcmp(argv[i], "--interval") || !strcmp(argv[i], "--count")) {
			uint32_t v;

			if (i + 1 >= argc || cli_parse_u32(argv[i + 1], &v))
				return usage_err("stats: %s needs a number", argv[i]);
			if (argv[i][2] == 'i')
				r.interval_ms = v;
			else
				r.count = v;
			i++;
		} else if (argv[i][0] == '-') {
			return usage_err("stats: unknown option '%s'", argv[i]);
		} else if (n < 2) {
			pos[n++] = argv[i];
		} else {
			return usage_err("stats: unexpected '%s'", argv[i]);
		}
	}
	r.nqn = n ? pos[0] : (char *)"";
	if (n == 2 && parse_nsid(pos[1], &r.nsid))
		return EX_USAGE;
	return do_watch ? watch(c, &r) : call(c, "GetStats", &r.base, print_stats);
}

static int run_cmd(struct ctl *c, int argc, char **argv)
{
	const char *cmd = argv[0];

	if (!strcmp(cmd, "status") || !strcmp(cmd, "version")) {
		Blox__Admin__Empty e = BLOX__ADMIN__EMPTY__INIT;

		if (wants_help(argc - 1, argv + 1))
			return sub_help(cmd);
		if (argc > 1)
			return usage_err("%s: no arguments", cmd);
		return cmd[0] == 's' ? call(c, "GetStatus", &e.base, print_status)
				     : call(c, "GetVersion", &e.base, print_version);
	}
	if (!strcmp(cmd, "config")) {
		Blox__Admin__SaveConfigRequest r = BLOX__ADMIN__SAVE_CONFIG_REQUEST__INIT;

		if (wants_help(argc - 1, argv + 1))
			return sub_help("config");
		if (argc < 2 || strcmp(argv[1], "save") || argc > 3)
			return usage_err("config: save [PATH]");
		if (argc == 3)
			r.path = argv[2];
		return call(c, "SaveConfig", &r.base, print_saved);
	}
	if (!strcmp(cmd, "ns"))
		return cmd_ns(c, argc - 1, argv + 1);
	if (!strcmp(cmd, "subsys"))
		return cmd_subsys(c, argc - 1, argv + 1);
	if (!strcmp(cmd, "host"))
		return cmd_host(c, argc - 1, argv + 1);
	if (!strcmp(cmd, "listener"))
		return cmd_listener(c, argc - 1, argv + 1);
	if (!strcmp(cmd, "stats"))
		return cmd_stats(c, argc - 1, argv + 1);
	if (!strcmp(cmd, "ctrl")) {
		Blox__Admin__ControllerListRequest r = BLOX__ADMIN__CONTROLLER_LIST_REQUEST__INIT;

		if (wants_help(argc - 1, argv + 1))
			return sub_help("ctrl");
		if (argc < 2 || strcmp(argv[1], "list") || argc > 3)
			return usage_err("ctrl: list [NQN]");
		r.nqn = argc == 3 ? argv[2] : (char *)"";
		return call(c, "ListControllers", &r.base, print_ctrls);
	}
	return usage_err("unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
	struct ctl c = { .timeout_ms = 10000, .fd = -1 };
	int i, rc;

	c.sock = getenv("BLOXCTL_SOCKET") ? getenv("BLOXCTL_SOCKET") : DEFAULT_SOCKET;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			fputs(help_text, stdout);
			return 0;
		} else if (!strcmp(o, "-V") || !strcmp(o, "--version")) {
			printf("bloxctl %s\n", BLOX_VERSION);
			return 0;
		} else if (!strcmp(o, "--json")) {
			c.json = true;
		} else if ((!strcmp(o, "-s") || !strcmp(o, "--socket")) && i + 1 < argc) {
			c.sock = argv[++i];
		} else if (!strcmp(o, "--connect") && i + 1 < argc) {
			c.connect = argv[++i];
		} else if (!strcmp(o, "--cert") && i + 1 < argc) {
			c.cert = argv[++i];
		} else if (!strcmp(o, "--key") && i + 1 < argc) {
			c.key = argv[++i];
		} else if (!strcmp(o, "--ca") && i + 1 < argc) {
			c.ca = argv[++i];
		} else if (!strcmp(o, "--timeout") && i + 1 < argc) {
			uint32_t v;

			if (cli_parse_u32(argv[++i], &v) || v == 0 || v > 3600)
				return usage_err("--timeout: 1..3600 seconds");
			c.timeout_ms = (int)v * 1000;
		} else {
			return usage_err("unknown or incomplete option '%s'", o);
		}
	}
	if (i == argc)
		return usage_err("a command is required");
	c.buf = malloc(ADM_HDR_LEN + ADM_MAX_MSG + ADM_MAX_PAYLOAD);
	if (!c.buf)
		return ADM_S_RESOURCE_EXHAUSTED;
	rc = run_cmd(&c, argc - i, argv + i);
	if (c.ssl) {
		SSL_shutdown(c.ssl);
		SSL_free(c.ssl);
	}
	if (c.ssl_ctx)
		SSL_CTX_free(c.ssl_ctx);
	if (c.fd >= 0)
		close(c.fd);
	free(c.buf);
	return rc;
}
