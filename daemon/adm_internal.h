/*
 * Shared by the admin transport (adm_server.c) and the method handlers
 * (adm_methods.c, adm_stats.c).
 */
#ifndef BLOX_ADM_INTERNAL_H
#define BLOX_ADM_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <sys/queue.h>

#include "../proto/adm_frame.h"
#include "adm.h"
#include "blox_admin.pb-c.h"

struct event;
struct evconnlistener;
struct bufferevent;
struct ssl_ctx_st;

#define ADM_MAX_INFLIGHT 64 /* requests in flight per connection */

struct adm_conn;

/* One request between its frame and its last answer. */
struct adm_req {
	struct blox_admin *a;
	struct adm_conn *conn; /* NULL once the client is gone */
	uint32_t id;
	uint16_t method;
	uint16_t status;
	char msg[ADM_MAX_MSG];
	bool cancelled;
	/* Streams and waits: a timer the handler owns. */
	struct event *timer;
	void (*on_cancel)(struct adm_req *r); /* free the handler's state */
	void *priv;
	TAILQ_ENTRY(adm_req) link;
};

struct blox_admin {
	Blox__Admin__BloxAdmin_Service svc;
	struct nvmf_tgt *tgt;
	struct nvmf_tcp *tcp;
	struct event_base *base;
	const struct blox_log *log;
	char data_dir[4096];
	char state_path[4200];
	char sock_path[108];
	char *devices_json;
	uint32_t idle_ms;
	gid_t sock_gid;
	int sock_fd;
	struct evconnlistener *unix_lev, *tls_lev;
	struct ssl_ctx_st *ssl_ctx;
	TAILQ_HEAD(, adm_conn) conns;
	uint32_t nr_conns;
	struct event *sample_ev; /* 1 s telemetry sampler */
};

/* adm_server.c: answers. */
/* Record a failure for @r's answer (printf-style message). */
void adm_fail(struct adm_req *r, enum adm_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * The generic closure handed to handlers: @msg NULL sends r->status and
 * r->msg (INTERNAL if no failure was recorded). Ends the request.
 */
void adm_closure(const ProtobufCMessage *msg, void *closure_data);
/* One answer of a stream (flag MORE); the request stays. */
void adm_stream_send(struct adm_req *r, const ProtobufCMessage *msg);
/* Output the client has not read yet is over the limit: skip a sample. */
bool adm_conn_congested(const struct adm_req *r);
uint32_t adm_nr_conns(const struct blox_admin *a);

/* adm_methods.c */
void adm_methods_init(Blox__Admin__BloxAdmin_Service *svc);
/* Write the state file; logs and returns -errno on failure. */
int adm_save_state(struct blox_admin *a, char *err, size_t errlen);

/* adm_stats.c */
void adm_stats_sample(struct blox_admin *a);
void adm_stats_fill(struct blox_admin *a, const Blox__Admin__StatsRequest *in,
		    Blox__Admin__StatsReply *out, bool *found);
void adm_stats_free(Blox__Admin__StatsReply *out);

#endif
