/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the admin transport (adm_server.c), the method handlers
 * (adm_methods.c with its helpers, adm_m_*.c by object) and Stats
 * (adm_stats.c).
 */
#ifndef BLOX_ADM_INTERNAL_H
#define BLOX_ADM_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <sys/queue.h>

#include "adm_frame.h"
#include "blox_admin.pb-c.h"
#include "blox_util.h"
#include "admin.h"
#include "tcp.h"

struct blox_param_table;

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
	/* The client cancelled or went away; may end the request. */
	void (*on_cancel)(struct adm_req *r);
	void *priv; /* the handler's state: one allocation, freed with the request */
	TAILQ_ENTRY(adm_req) link;
};

struct blox_admin {
	Blox__Admin__BloxAdmin_Service svc;
	struct blox_prov *prov; /* every change goes through it */
	const struct blox_mdns *mdns; /* NULL: --no-mdns */
	struct nvmf_tgt *tgt;
	struct nvmf_tcp *tcp;
	struct event_base *base;
	const struct blox_log *log;
	char data_dir[4096];
	char state_path[4200];
	bool state_unsaved; /* the last write of the state file failed */
	char sock_path[108];
	uint32_t idle_ms;
	gid_t sock_gid;
	int sock_fd;
	struct evconnlistener *unix_lev, *tls_lev;
	/* A listener whose accept() failed pauses (tcp_accept_pause). */
	struct tcp_accept_pause unix_pause, tls_pause;
	uint64_t accept_errors; /* accept() failures on the admin listeners */
	uint32_t nr_inflight, max_inflight; /* requests over every client; 0: no cap */
	uint64_t inflight_refused; /* refused over max_inflight */
	struct ssl_ctx_st *ssl_ctx;
	TAILQ_HEAD(, adm_conn) conns;
	uint32_t nr_conns;
	struct blox_telemetry *tm; /* its samples: the windows of Stats */
	/* Namespaces being made or torn down off the loop (adm_ns_async.c). */
	TAILQ_HEAD(, adm_claim) claims;
	bool stopping; /* bloxd is shutting down: no new namespaces */
};

/* adm_server.c: answers. */
/* Record a failure for @r's answer (printf-style message). */
void adm_fail(struct adm_req *r, enum adm_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * The generic closure handed to handlers: sends @msg, or the failure
 * recorded (r->status, r->msg) when there is one; @msg NULL without a
 * failure is INTERNAL. Ends the request (and frees r->priv).
 */
void adm_closure(const ProtobufCMessage *msg, void *closure_data);
/* End @r with an Empty message, or with the failure recorded. */
void adm_answer_empty(struct adm_req *r);
/* One answer of a stream (flag MORE); the request stays. */
void adm_stream_send(struct adm_req *r, const ProtobufCMessage *msg);
/* Output the client has not read yet is over the limit: skip a sample. */
bool adm_conn_congested(const struct adm_req *r);
uint32_t adm_nr_conns(const struct blox_admin *a);
/* An admin client's connection. */
struct adm_conn {
	struct blox_admin *a;
	struct bufferevent *bev;
	bool denied; /* peer not allowed: answer PERMISSION_DENIED, close */
	bool closing; /* close once the output is flushed */
	bool tls;
	char peer[64];
	TAILQ_HEAD(, adm_req) reqs;
	uint32_t nr_reqs;
	TAILQ_ENTRY(adm_conn) link;
};

/* A connection of @a on @bev (freed on failure: NULL), @peer for the log. */
struct adm_conn *adm_conn_new(struct blox_admin *a, struct bufferevent *bev, const char *peer);

/* adm_listen.c: the unix socket, and the TLS listener (o->tls_listen). */
int adm_listen_unix(struct blox_admin *a, const struct blox_admin_opts *o, char *err,
		    size_t errlen);
int adm_listen_tls(struct blox_admin *a, const struct blox_admin_opts *o, char *err,
		   size_t errlen);

/* Handlers: the service, the admin context behind it, the request. */
#define ADM_SVC Blox__Admin__BloxAdmin_Service
#define ADM_OF(svc) container_of(svc, struct blox_admin, svc)
#define ADM_REQ(d) ((struct adm_req *)(d))
/* Record a failure, answer it and return from the handler. */
#define ADM_FAIL(closure, d, ...)                  \
	do {                                       \
		adm_fail(ADM_REQ(d), __VA_ARGS__); \
		(closure)(NULL, (d));              \
		return;                            \
	} while (0)
/* Answer the failure a helper already recorded and return. */
#define ADM_FAILED(closure, d)        \
	do {                          \
		(closure)(NULL, (d)); \
		return;               \
	} while (0)

/* adm_methods.c: the service table and helpers the handlers share. */
void adm_methods_init(ADM_SVC *svc);
/* Write the state file; logs and returns -errno on failure. */
int adm_save_state(struct blox_admin *a, char *err, size_t errlen);
/* After a change: persist it; false (failure recorded in @r) if not. */
bool adm_persist(struct adm_req *r);
/* The NVM subsystem @nqn, or NULL with NOT_FOUND/INVALID_ARGUMENT in @r. */
struct nvmf_subsys *adm_find_subsys(struct blox_admin *a, struct adm_req *r,
				    const char *nqn);
uint32_t adm_nr_ctrls(const struct nvmf_subsys *s);

/* Each fills its rpcs into the service table. */
void adm_m_target_init(ADM_SVC *svc); /* daemon, config save, listeners */
void adm_m_subsys_init(ADM_SVC *svc); /* subsystems, hosts */
void adm_m_ns_init(ADM_SVC *svc); /* namespaces */
void adm_m_ctrl_init(ADM_SVC *svc); /* controllers, telemetry */
void adm_m_disc_init(ADM_SVC *svc); /* discovery referrals */

/*
 * adm_m_ns.c: the flash file at @path: its size in @bytes and what it
 * takes on disk (st_blocks * 512) in @disk; 0 and 0 when there is none.
 */
void adm_store_usage(const char *path, uint64_t *bytes, uint64_t *disk);
/* adm_m_ns.c: Namespace messages, also inside Subsystem messages. */
/* What a Namespace message points into. */
struct adm_ns_buf {
	char uuid[37];
	char *params; /* params_json, malloc'd */
	Blox__Admin__VssdAlloc alloc;
	struct fbx_alloc fa;
	/* Its reservations: the registrants, their ids and host NQNs (malloc'd). */
	Blox__Admin__Reservations resv;
	Blox__Admin__Registrant *regs, **regp;
	char (*ids)[37];
	char **nqns;
	Blox__Admin__ZoneSummary zones; /* a zoned namespace's */
};

struct adm_ns_array {
	Blox__Admin__Namespace *m;
	Blox__Admin__Namespace **p;
	struct adm_ns_buf *buf;
	size_t n;
};

/*
 * A Namespace message; strings point into @ns, @uuid or *@params (its
 * parameters as config JSON, malloc'd: free it after use).
 */
void adm_ns_msg(const struct nvmf_ns *ns, Blox__Admin__Namespace *m, struct adm_ns_buf *b);
/* What adm_ns_msg() allocated in @b. */
void adm_ns_buf_free(struct adm_ns_buf *b);
/* The fields of table @t that protobuf message @m sets, into @params (adm_m_ns.c). */
int adm_params_from_proto(const struct blox_param_table *t, const ProtobufCMessage *m,
			  const char *where, void *params, char *err, size_t errlen);
/* adm_m_device.c */
void adm_m_device_init(ADM_SVC *svc);
/* adm_m_mig.c */
void adm_m_mig_init(ADM_SVC *svc);
/* adm_m_qos.c */
void adm_m_qos_init(ADM_SVC *svc);
/* adm_m_fault.c: faults on demand (PowerCut, InjectFault, ListFaults, ClearFaults) */
void adm_m_fault_init(ADM_SVC *svc);
/*
 * adm_fault_store.c: the faults injected with --persist, written to the
 * data directory (0 or -errno with a reason), and put back at start.
 */
int adm_faults_save(struct blox_admin *a, char *err, size_t errlen);
/* InjectFault's request as a registry spec (adm_fault_kinds.c): 0, or an ADM_S_* with @err. */
int adm_fault_spec(struct blox_admin *a, const Blox__Admin__FaultSpec *in,
		   struct blox_fault_spec *s, char *err, size_t errlen);
void adm_faults_load(struct blox_admin *a);
/* The namespaces of @only (NULL: of every subsystem). 0 or -ENOMEM. */
int adm_ns_array_fill(struct adm_ns_array *arr, const struct nvmf_subsys *only,
		      const struct nvmf_tgt *tgt);
void adm_ns_array_free(struct adm_ns_array *arr);

/* adm_work.c: slow work off the loop. */
/*
 * Run @run(@arg) on a thread of its own, then @done(@arg) on @base's loop
 * (everything @run wrote is visible to @done). 0, or -errno with nothing
 * started: the caller may then run both itself.
 */
int adm_work_start(struct event_base *base, void (*run)(void *arg),
		   void (*done)(void *arg), void *arg);

/* adm_ns_async.c: namespaces made and torn down off the loop. */
/*
 * An nsid of a subsystem reserved while its namespace is being made, or
 * torn down with its store file: nothing else may take it meanwhile.
 */
struct adm_claim {
	char nqn[NVME_NQN_LENGTH];
	uint32_t nsid;
	bool deleting;
	TAILQ_ENTRY(adm_claim) link;
};

const struct adm_claim *adm_claim_find(const struct blox_admin *a, const char *nqn,
				       uint32_t nsid);
/* Any claim on @nqn's namespaces being made. */
bool adm_subsys_creating(const struct blox_admin *a, const char *nqn);
/*
 * Make namespace @cn in @s for @r (the backend on a worker thread when it
 * is a nand of its own device, else at once), attach it, write the
 * state, answer. @cn's nsid is free and not claimed.
 */
void adm_ns_create(struct adm_req *r, struct nvmf_subsys *s, const struct blox_cfg_ns *cn);

/* Namespaces leaving the target, with one answer when all are gone. */
struct adm_teardown;
/* For up to @n namespaces of @r; NULL: out of memory (nothing changed). */
struct adm_teardown *adm_teardown_new(struct adm_req *r, size_t n);
/* Detach @ns (hosts hear of it at once); its backend and store go later. */
void adm_teardown_add(struct adm_teardown *t, struct nvmf_ns *ns);
/*
 * Write the state without them, then destroy their backends off the loop
 * once their last commands are done, remove their store files (unless the
 * state was not written), and answer @r.
 */
void adm_teardown_commit(struct adm_teardown *t);

/* adm_stats.c: Stats, from one telemetry snapshot. */
void adm_stats_fill(struct blox_admin *a, const Blox__Admin__StatsRequest *in,
		    Blox__Admin__StatsReply *out, bool *found);
void adm_stats_free(Blox__Admin__StatsReply *out);

#endif
