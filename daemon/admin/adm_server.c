/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Admin transport: connections on the target's event loop through
 * bufferevents, from a unix stream socket or the TLS listener
 * (adm_listen.c). Frames
 * (proto/adm_frame.h) are decoded here and dispatched by method index
 * through the protoc-c service (svc.base.invoke), never by a switch.
 *
 * Bad input: a header that does not decode (magic, version, flags, over
 * the size limit) gets an answer when its request id can be read and the
 * connection is closed; a payload that does not decode, an unknown
 * method or too many requests in flight get an error answer and the
 * connection stays. A silent client is closed after the idle timeout
 * unless it has a stream running; a client that does not read its
 * answers stops being read until it does.
 */
#include "adm_internal.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <grp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#define ADM_OUT_HIGH (8u << 20) /* stop reading a client that does not read */
#define ADM_OUT_LOW (1u << 20)

static void conn_free(struct adm_conn *c)
{
	struct blox_admin *a = c->a;
	struct adm_req *r;

	/* Requests still running finish without a connection. */
	while ((r = TAILQ_FIRST(&c->reqs))) {
		TAILQ_REMOVE(&c->reqs, r, link);
		r->conn = NULL;
		r->cancelled = true;
		if (r->on_cancel)
			r->on_cancel(r);
	}
	TAILQ_REMOVE(&a->conns, c, link);
	a->nr_conns--;
	bufferevent_free(c->bev);
	free(c);
}

uint32_t adm_nr_conns(const struct blox_admin *a)
{
	return a->nr_conns;
}

static void send_frame(struct adm_conn *c, uint32_t id, uint16_t method,
		       uint8_t flags, uint16_t status, const char *msg,
		       const ProtobufCMessage *payload)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);
	size_t mlen = msg ? strnlen(msg, ADM_MAX_MSG) : 0;
	size_t plen = payload ? protobuf_c_message_get_packed_size(payload) : 0;
	struct adm_hdr h = { .version = ADM_VERSION, .flags = flags,
			     .method = method, .request_id = id,
			     .status = status, .msg_len = (uint16_t)mlen,
			     .payload_len = (uint32_t)plen };
	uint8_t hdr[ADM_HDR_LEN];

	if (plen > ADM_MAX_PAYLOAD) {
		/* Never send what a peer must refuse. */
		msg = "answer over the frame size limit";
		h.status = ADM_S_RESOURCE_EXHAUSTED;
		h.msg_len = (uint16_t)strlen(msg);
		h.payload_len = 0;
		plen = 0;
		mlen = h.msg_len;
	}
	adm_hdr_encode(&h, hdr);
	evbuffer_add(out, hdr, sizeof(hdr));
	if (mlen)
		evbuffer_add(out, msg, mlen);
	if (plen) {
		struct evbuffer_iovec v;

		if (evbuffer_reserve_space(out, (ev_ssize_t)plen, &v, 1) == 1) {
			protobuf_c_message_pack(payload, v.iov_base);
			v.iov_len = plen;
			evbuffer_commit_space(out, &v, 1);
		}
	}
	if (evbuffer_get_length(out) > ADM_OUT_HIGH)
		bufferevent_disable(c->bev, EV_READ);
}

static void req_end(struct adm_req *r)
{
	if (r->conn) {
		TAILQ_REMOVE(&r->conn->reqs, r, link);
		r->conn->nr_reqs--;
	}
	r->a->nr_inflight--;
	if (r->timer)
		event_free(r->timer);
	free(r->priv);
	free(r);
}

void adm_fail(struct adm_req *r, enum adm_status st, const char *fmt, ...)
{
	va_list ap;

	r->status = (uint16_t)st;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
}

void adm_closure(const ProtobufCMessage *msg, void *closure_data)
{
	struct adm_req *r = closure_data;

	/* Cancelled first: a cancelled stream ends without a message. */
	if (r->cancelled && r->status == ADM_S_OK)
		adm_fail(r, ADM_S_CANCELLED, "cancelled");
	if (!msg && r->status == ADM_S_OK)
		adm_fail(r, ADM_S_INTERNAL, "no answer");
	if (r->conn)
		send_frame(r->conn, r->id, r->method, 0, r->status,
			   r->status ? r->msg : NULL, r->status ? NULL : msg);
	req_end(r);
}

void adm_answer_empty(struct adm_req *r)
{
	Blox__Admin__Empty out = BLOX__ADMIN__EMPTY__INIT;

	adm_closure(&out.base, r);
}

void adm_stream_send(struct adm_req *r, const ProtobufCMessage *msg)
{
	if (r->conn)
		send_frame(r->conn, r->id, r->method, ADM_F_MORE, ADM_S_OK, NULL, msg);
}

bool blox_admin_flushing(const struct blox_admin *a)
{
	const struct adm_conn *c;

	if (!a)
		return false;
	TAILQ_FOREACH(c, &a->conns, link)
		if (evbuffer_get_length(bufferevent_get_output(c->bev)))
			return true;
	return false;
}

bool adm_conn_congested(const struct adm_req *r)
{
	return r->conn &&
	       evbuffer_get_length(bufferevent_get_output(r->conn->bev)) > ADM_OUT_LOW;
}

/* Answer a bad request at once, without creating a request. */
static void answer_now(struct adm_conn *c, const struct adm_hdr *h,
		       enum adm_status st, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void answer_now(struct adm_conn *c, const struct adm_hdr *h,
		       enum adm_status st, const char *fmt, ...)
{
	char msg[ADM_MAX_MSG];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	send_frame(c, h->request_id, h->method, 0, (uint16_t)st, msg, NULL);
}

static void close_after_flush(struct adm_conn *c)
{
	c->closing = true;
	bufferevent_disable(c->bev, EV_READ);
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
		conn_free(c);
}

static void cancel_req(struct adm_conn *c, uint32_t id)
{
	struct adm_req *r;

	TAILQ_FOREACH(r, &c->reqs, link)
		if (r->id == id && !r->cancelled)
			break;
	if (!r)
		return; /* already finished: nothing to do */
	r->cancelled = true;
	if (r->on_cancel)
		r->on_cancel(r); /* ends the request through adm_closure */
}

static void dispatch(struct adm_conn *c, const struct adm_hdr *h,
		     const uint8_t *payload)
{
	struct blox_admin *a = c->a;
	const ProtobufCServiceDescriptor *sd = a->svc.base.descriptor;
	const ProtobufCMethodDescriptor *md;
	ProtobufCMessage *in;
	struct adm_req *r;

	if (h->flags & ADM_F_CANCEL) {
		cancel_req(c, h->request_id);
		return;
	}
	if (h->status || h->msg_len) {
		answer_now(c, h, ADM_S_INVALID_ARGUMENT,
			   "requests carry no status and no message");
		return;
	}
	if (h->method >= sd->n_methods) {
		answer_now(c, h, ADM_S_INVALID_ARGUMENT,
			   "unknown method %u (this bloxd has %u)", h->method,
			   sd->n_methods);
		return;
	}
	md = &sd->methods[h->method];
	if (c->nr_reqs >= ADM_MAX_INFLIGHT) {
		answer_now(c, h, ADM_S_RESOURCE_EXHAUSTED,
			   "%u requests in flight on this connection (the limit)",
			   c->nr_reqs);
		return;
	}
	if (a->max_inflight && a->nr_inflight >= a->max_inflight) {
		a->inflight_refused++;
		nvmf_limit_log(a->tgt, "admin %s: request refused: %u in flight over all clients "
			       "(--max-admin-inflight)", c->peer, a->nr_inflight);
		answer_now(c, h, ADM_S_RESOURCE_EXHAUSTED,
			   "%u admin requests in flight over all clients (--max-admin-inflight)",
			   a->nr_inflight);
		return;
	}
	in = protobuf_c_message_unpack(md->input, NULL, h->payload_len, payload);
	if (!in) {
		answer_now(c, h, ADM_S_INVALID_ARGUMENT,
			   "%s: payload does not decode as %s", md->name,
			   md->input->name);
		return;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		protobuf_c_message_free_unpacked(in, NULL);
		answer_now(c, h, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
		return;
	}
	r->a = a;
	r->conn = c;
	r->id = h->request_id;
	r->method = h->method;
	TAILQ_INSERT_TAIL(&c->reqs, r, link);
	c->nr_reqs++;
	a->nr_inflight++;
	/* Handlers copy what they keep: the input is freed on return. */
	a->svc.base.invoke(&a->svc.base, h->method, in, adm_closure, r);
	protobuf_c_message_free_unpacked(in, NULL);
}

static void read_cb(struct bufferevent *bev, void *arg)
{
	struct adm_conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	while (!c->closing) {
		uint8_t raw[ADM_HDR_LEN];
		size_t have = evbuffer_get_length(in), flen;
		struct adm_hdr h;
		enum adm_decode d;
		uint8_t *frame;

		if (have < ADM_HDR_LEN)
			return;
		evbuffer_copyout(in, raw, sizeof(raw));
		d = adm_hdr_decode(raw, sizeof(raw), &h);
		if (d != ADM_OK) {
			blox_log(c->a->log, BLOX_LOG_WARN, "admin %s: %s; closing",
				 c->peer, adm_decode_str(d));
			if (d != ADM_BAD_MAGIC)
				answer_now(c, &h,
					   d == ADM_TOO_LONG ? ADM_S_RESOURCE_EXHAUSTED
							     : ADM_S_INVALID_ARGUMENT,
					   "%s", adm_decode_str(d));
			close_after_flush(c);
			return;
		}
		if (c->denied) {
			answer_now(c, &h, ADM_S_PERMISSION_DENIED,
				   "%s may not use the admin socket (root or group %u only)",
				   c->peer, (unsigned)c->a->sock_gid);
			close_after_flush(c);
			return;
		}
		flen = adm_frame_len(&h);
		if (have < flen)
			return;
		frame = evbuffer_pullup(in, (ev_ssize_t)flen);
		if (!frame) {
			close_after_flush(c);
			return;
		}
		dispatch(c, &h, frame + ADM_HDR_LEN + h.msg_len);
		evbuffer_drain(in, flen);
	}
}

static void write_cb(struct bufferevent *bev, void *arg)
{
	struct adm_conn *c = arg;
	size_t left = evbuffer_get_length(bufferevent_get_output(bev));

	if (c->closing) {
		if (left == 0)
			conn_free(c);
		return;
	}
	if (left <= ADM_OUT_LOW && !(bufferevent_get_enabled(bev) & EV_READ)) {
		bufferevent_enable(bev, EV_READ);
		read_cb(bev, c); /* frames that arrived meanwhile */
	}
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct adm_conn *c = arg;

	if (what & BEV_EVENT_TIMEOUT) {
		/* Idle: fine while a stream or a wait is running, or while
		 * answers are still owed (a client slow to read them). */
		if ((c->nr_reqs ||
		     evbuffer_get_length(bufferevent_get_output(bev))) &&
		    !c->closing) {
			bufferevent_enable(bev, EV_READ);
			return;
		}
		blox_log(c->a->log, BLOX_LOG_INFO, "admin %s: idle, closing", c->peer);
	} else if (what & BEV_EVENT_ERROR) {
		unsigned long e = c->tls ? bufferevent_get_openssl_error(bev) : 0;

		if (e)
			blox_log(c->a->log, BLOX_LOG_WARN, "admin %s: TLS: %s", c->peer,
				 ERR_reason_error_string(e));
	}
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT))
		conn_free(c);
}

struct adm_conn *adm_conn_new(struct blox_admin *a, struct bufferevent *bev, const char *peer)
{
	struct adm_conn *c = calloc(1, sizeof(*c));
	struct timeval idle = { a->idle_ms / 1000, (a->idle_ms % 1000) * 1000 };

	if (!c) {
		bufferevent_free(bev);
		return NULL;
	}
	c->a = a;
	c->bev = bev;
	snprintf(c->peer, sizeof(c->peer), "%s", peer);
	TAILQ_INIT(&c->reqs);
	TAILQ_INSERT_TAIL(&a->conns, c, link);
	a->nr_conns++;
	bufferevent_setcb(bev, read_cb, write_cb, event_cb, c);
	bufferevent_setwatermark(bev, EV_WRITE, ADM_OUT_LOW, 0);
	bufferevent_set_timeouts(bev, &idle, NULL);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
	return c;
}

int blox_admin_create(struct blox_prov *prov, struct blox_telemetry *tm,
		      const struct blox_admin_opts *o, struct blox_admin **out, char *err,
		      size_t errlen)
{
	struct blox_admin *a = calloc(1, sizeof(*a));
	const char *dd = blox_prov_data_dir(prov);
	struct nvmf_tgt *tgt = prov->tgt;
	int rc;

	if (!a)
		return -ENOMEM;
	a->prov = prov;
	a->tm = tm;
	a->tgt = tgt;
	a->tcp = prov->tcp;
	a->base = tgt->base;
	a->log = tgt->log;
	a->idle_ms = o->idle_timeout_ms ? o->idle_timeout_ms : 60000;
	a->max_inflight = o->max_inflight;
	snprintf(a->data_dir, sizeof(a->data_dir), "%s", dd);
	snprintf(a->state_path, sizeof(a->state_path), "%s/%s", dd, BLOX_STATE_FILE);
	TAILQ_INIT(&a->conns);
	TAILQ_INIT(&a->claims);
	adm_methods_init(&a->svc);
	adm_faults_load(a);
	rc = adm_listen_unix(a, o, err, errlen);
	if (!rc && o->tls_listen)
		rc = adm_listen_tls(a, o, err, errlen);
	if (rc) {
		blox_admin_destroy(a);
		return rc;
	}
	blox_log(a->log, BLOX_LOG_INFO, "admin socket %s%s%s", a->sock_path,
		 o->tls_listen ? ", TLS on " : "", o->tls_listen ? o->tls_listen : "");
	*out = a;
	return 0;
}

void blox_admin_destroy(struct blox_admin *a)
{
	struct adm_conn *c;

	if (!a)
		return;
	while ((c = TAILQ_FIRST(&a->conns)))
		conn_free(c);
	if (a->unix_lev) {
		evconnlistener_free(a->unix_lev);
		unlink(a->sock_path);
	}
	if (a->tls_lev)
		evconnlistener_free(a->tls_lev);
	tcp_accept_pause_fini(&a->unix_pause);
	tcp_accept_pause_fini(&a->tls_pause);
	if (a->ssl_ctx)
		SSL_CTX_free(a->ssl_ctx);
	free(a);
}
