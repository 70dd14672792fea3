/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The metrics endpoint: libevent's evhttp on the target's loop, GET (or
 * HEAD) /metrics answered with the text metrics_collect.c writes, in
 * OpenMetrics when the Accept header asks for it, else in the Prometheus
 * text format; 404 for any other path, 405 for any other method.
 *
 * A slow or hostile client costs the loop nothing it would wait for:
 * evhttp reads without blocking, with a limit on the request headers and
 * a timeout on every connection (reading the request, sending the
 * answer), and every answer closes its connection. The number of open
 * connections is bounded here, since libevent 2.1's evhttp has no such
 * limit: at MX_MAX_CONNS the listener stops accepting (new connections
 * wait in the kernel's backlog) until one closes. A connection is counted
 * from the bufferevent evhttp asks for it (evhttp_set_bevcb) until evhttp
 * closes it, which evhttp tells once its request came; one whose request
 * never came is counted until evhttp's timeout must have closed it.
 */
#include "blox_parse.h"
#include "blox_util.h"
#include "metrics.h"
#include "telemetry.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MX_MAX_CONNS 16 /* open at once */
#define MX_TIMEOUT_S 5
#define MX_MAX_HEADERS 8192
#define MX_MAX_BODY 1024

/* A connection between its accept and its close. */
struct mx_conn {
	struct blox_metrics *m;
	struct bufferevent *bev; /* evhttp's, for finding it from its request */
	uint64_t expires_ns; /* no request yet: evhttp has closed it by then */
	bool has_req; /* its request came: evhttp tells its close */
	TAILQ_ENTRY(mx_conn) link;
};

struct blox_metrics {
	struct blox_prov *p;
	const struct blox_log *log;
	struct evhttp *http;
	struct evconnlistener *lev;
	struct event *expire_ev; /* forgets connections evhttp timed out */
	bool paused; /* the listener is disabled: MX_MAX_CONNS open */
	bool closing; /* evhttp_free() under way: the listener is gone */
	struct mx_self self;
	TAILQ_HEAD(, mx_conn) conns;
};

static uint64_t now_ns(const struct blox_metrics *m)
{
	return blox_clock_now(m->p->tgt->clock);
}

/* Accept again when a connection went below the bound. */
static void conns_changed(struct blox_metrics *m)
{
	bool full = m->self.conns >= MX_MAX_CONNS;

	if (full != m->paused && !m->closing) {
		m->paused = full;
		if (full) {
			m->self.pauses++;
			evconnlistener_disable(m->lev);
		} else {
			evconnlistener_enable(m->lev);
		}
	}
}

static void conn_free(struct mx_conn *c)
{
	struct blox_metrics *m = c->m;

	TAILQ_REMOVE(&m->conns, c, link);
	m->self.conns--;
	free(c);
	conns_changed(m);
}

static void closed_cb(struct evhttp_connection *evcon, void *arg)
{
	(void)evcon;
	conn_free(arg);
}

/* Connections without a request past their time are gone (evhttp's timeout). */
static void expire_cb(evutil_socket_t fd, short what, void *arg)
{
	struct blox_metrics *m = arg;
	uint64_t now = now_ns(m);
	struct mx_conn *c, *next;
	bool waiting = false;

	(void)fd;
	(void)what;
	for (c = TAILQ_FIRST(&m->conns); c; c = next) {
		next = TAILQ_NEXT(c, link);
		if (!c->has_req && now >= c->expires_ns)
			conn_free(c);
		else if (!c->has_req)
			waiting = true;
	}
	if (waiting)
		event_add(m->expire_ev, &(struct timeval){ 1, 0 });
}

/* evhttp makes a connection: its bufferevent, as evhttp would make it, counted. */
static struct bufferevent *bev_cb(struct event_base *base, void *arg)
{
	struct blox_metrics *m = arg;
	struct bufferevent *bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	struct mx_conn *c = bev ? calloc(1, sizeof(*c)) : NULL;

	if (!c)
		return bev; /* not counted; evhttp makes one itself if NULL */
	c->m = m;
	c->bev = bev;
	c->expires_ns = now_ns(m) + (MX_TIMEOUT_S + 1) * 1000000000ull;
	TAILQ_INSERT_TAIL(&m->conns, c, link);
	m->self.conns++;
	if (!evtimer_pending(m->expire_ev, NULL))
		event_add(m->expire_ev, &(struct timeval){ 1, 0 });
	conns_changed(m);
	return bev;
}

/* The connection of @req from now on is counted until evhttp closes it. */
static void conn_track(struct blox_metrics *m, struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
	struct mx_conn *c;

	TAILQ_FOREACH(c, &m->conns, link) {
		if (bev && c->bev == bev && !c->has_req) {
			c->has_req = true;
			evhttp_connection_set_closecb(evcon, closed_cb, c);
			return;
		}
	}
}

/* An answer in plain text (evhttp_send_error() would drop the headers set). */
static void send_text(struct evhttp_request *req, struct evbuffer *body, int code,
		      const char *reason, const char *text)
{
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
			  "text/plain; charset=utf-8");
	evbuffer_add(body, text, strlen(text));
	evhttp_send_reply(req, code, reason, body);
}

/*
 * The whole text: the collector's, then the data directory's families
 * (its free space, read now), before OpenMetrics' "# EOF". 0 or -ENOMEM.
 */
static int collect(struct blox_metrics *m, struct evbuffer *body, enum mx_format fmt)
{
	static const char eof[] = "# EOF\n";
	struct evbuffer *all = evbuffer_new();
	struct blox_space sp;
	struct mx_writer w;
	size_t len;
	int rc;

	if (!all)
		return -ENOMEM;
	rc = mx_collect(m->p, &m->self, all, fmt);
	len = evbuffer_get_length(all);
	if (!rc && fmt == MX_OPENMETRICS && len >= sizeof(eof) - 1)
		len -= sizeof(eof) - 1;
	if (!rc && evbuffer_remove_buffer(all, body, len) != (int)len)
		rc = -ENOMEM;
	evbuffer_free(all);
	if (rc)
		return rc;
	mx_begin(&w, body, fmt);
	if (!blox_space_get(blox_prov_data_dir(m->p), &sp)) {
		mx_family(&w, &(struct mx_family){ "bloxd_data_dir_free_bytes", MX_GAUGE, "bytes",
			   "Free space of the data directory's filesystem (statvfs f_bavail)" });
		mx_u64(&w, NULL, sp.free_bytes);
		mx_family(&w, &(struct mx_family){ "bloxd_data_dir_size_bytes", MX_GAUGE, "bytes",
			   "Size of the data directory's filesystem" });
		mx_u64(&w, NULL, sp.total_bytes);
		mx_family(&w, &(struct mx_family){
				      "bloxd_data_dir_full", MX_GAUGE, NULL,
				      "1 when the data directory's filesystem has less than 1 MiB "
				      "free: flash files cannot grow, writes needing new flash fail" });
		mx_u64(&w, NULL, sp.full);
	}
	return mx_end(&w);
}

static void request_cb(struct evhttp_request *req, void *arg)
{
	struct blox_metrics *m = arg;
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	struct evkeyvalq *hdr = evhttp_request_get_output_headers(req);
	enum mx_format fmt;
	struct evbuffer *body;

	m->self.requests++;
	conn_track(m, req);
	/* One request per connection: a held-open connection holds a slot. */
	evhttp_add_header(hdr, "Connection", "close");
	body = evbuffer_new();
	if (!body) {
		evhttp_send_error(req, HTTP_INTERNAL, NULL);
		return;
	}
	if (!path || strcmp(path, "/metrics")) {
		send_text(req, body, HTTP_NOTFOUND, "Not Found", "only /metrics is served here\n");
	} else if (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_HEAD) {
		evhttp_add_header(hdr, "Allow", "GET, HEAD");
		send_text(req, body, HTTP_BADMETHOD, "Method Not Allowed", "only GET and HEAD\n");
	} else {
		fmt = mx_negotiate(evhttp_find_header(evhttp_request_get_input_headers(req), "Accept"));
		if (collect(m, body, fmt)) {
			evbuffer_drain(body, evbuffer_get_length(body));
			send_text(req, body, HTTP_INTERNAL, "Internal Server Error", "out of memory\n");
		} else {
			evhttp_add_header(hdr, "Content-Type", mx_content_type(fmt));
			if (cmd == EVHTTP_REQ_HEAD) {
				/* GET's headers without its body (evhttp 2.1 would send it). */
				char len[24];

				snprintf(len, sizeof(len), "%zu", evbuffer_get_length(body));
				evhttp_add_header(hdr, "Content-Length", len);
				evbuffer_drain(body, evbuffer_get_length(body));
			}
			evhttp_send_reply(req, HTTP_OK, "OK", body);
		}
	}
	evbuffer_free(body);
}

int blox_metrics_create(struct blox_prov *prov, const char *spec, struct blox_metrics **out,
			char *err, size_t errlen)
{
	struct event_base *base = prov->tgt->base;
	struct blox_metrics *m;
	struct addrinfo *ai = NULL;
	int rc;

	*out = NULL;
	if ((rc = blox_metrics_addr_resolve(spec, &ai, err, errlen)))
		return rc;
	if (!(m = calloc(1, sizeof(*m)))) {
		freeaddrinfo(ai);
		blox_fail(err, errlen, "metrics: out of memory");
		return -ENOMEM;
	}
	m->p = prov;
	m->log = prov->tgt->log;
	TAILQ_INIT(&m->conns);
	m->http = evhttp_new(base);
	if (!m->http) {
		rc = -ENOMEM;
		blox_fail(err, errlen, "metrics: out of memory");
		goto out_free;
	}
	evhttp_set_timeout(m->http, MX_TIMEOUT_S);
	evhttp_set_max_headers_size(m->http, MX_MAX_HEADERS);
	evhttp_set_max_body_size(m->http, MX_MAX_BODY);
	/* Every method reaches request_cb, which answers 405 (evhttp would say 501). */
	evhttp_set_allowed_methods(m->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD |
						    EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE |
						    EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE |
						    EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH);
	evhttp_set_gencb(m->http, request_cb, m);
	evhttp_set_bevcb(m->http, bev_cb, m);
	m->expire_ev = evtimer_new(base, expire_cb, m);
	m->lev = evconnlistener_new_bind(base, NULL, NULL,
					 LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE |
						 LEV_OPT_CLOSE_ON_EXEC,
					 16, ai->ai_addr, (int)ai->ai_addrlen);
	if (!m->lev) {
		rc = errno ? -errno : -EIO;
		blox_fail(err, errlen, "metrics %s: %s", spec, strerror(-rc));
		goto out_http;
	}
	if (!m->expire_ev || !evhttp_bind_listener(m->http, m->lev)) {
		rc = -ENOMEM;
		blox_fail(err, errlen, "metrics: out of memory");
		evconnlistener_free(m->lev);
		goto out_http;
	}
	freeaddrinfo(ai);
	blox_log(m->log, BLOX_LOG_INFO, "metrics on http://%s/metrics", spec);
	*out = m;
	return 0;

out_http:
	if (m->expire_ev)
		event_free(m->expire_ev);
	evhttp_free(m->http);
out_free:
	free(m);
	freeaddrinfo(ai);
	return rc;
}

void blox_metrics_destroy(struct blox_metrics *m)
{
	struct mx_conn *c;

	if (!m)
		return;
	/* Its connections and the listener (bound: evhttp frees it); closed_cb frees theirs. */
	m->closing = true;
	evhttp_free(m->http);
	while ((c = TAILQ_FIRST(&m->conns))) {
		TAILQ_REMOVE(&m->conns, c, link);
		free(c);
	}
	event_free(m->expire_ev);
	free(m);
}
