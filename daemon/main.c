/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxd: the NVMe/TCP target daemon. Parses flags and the start-up config,
 * then builds the daemon as a list of steps (event loop, NVMe-oF target,
 * TCP transport, signals, provisioning service, configuration, admin API)
 * run in order; a failure undoes the steps done, in reverse. It runs until
 * SIGTERM/SIGINT, then closes every connection, lets in-flight I/O drain,
 * waits for the namespaces the admin API is making or tearing down off
 * the loop, and undoes every step in reverse.
 */
#include <errno.h>
#include <event2/event.h>
#include <sched.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "blox_parse.h"
#include "mgmt.h"
#include "reactor.h"

#include <unistd.h>

/*
 * --poll-us default: on, with a small budget. 50 us covers a host's
 * turn-around at queue depth 1 with room for a slower host or a LAN hop
 * (its next command comes while the loop still polls: no sleep and
 * wake-up per command), and costs at most 50 us of CPU after the last
 * command of a burst: nothing while idle, 0.0025% of a core with a Keep
 * Alive every 2 s (docs/PERFORMANCE.md; 20 did as well at QD1 on loopback
 * there, within the noise of a shared machine).
 */
#define BLOXD_POLL_US 50
/* --reactors default: one per CPU bloxd may run on, up to this many. */
#define BLOXD_REACTORS_AUTO_MAX 8
#define BLOX_STR_(x) #x
#define BLOX_STR(x) BLOX_STR_(x)

/*
 * Where bloxd's configuration comes from: one rule, the same at every
 * start (also in --help and docs/ARCHITECTURE.md).
 *
 *  1. Subsystems, their hosts and namespaces, and devices: the state file
 *     DIR/bloxd-state.json when it exists (it holds what the admin API
 *     changed: bloxctl wins), else --config FILE, else the embedded
 *     default. One of the three, whole: never merged (--config is not
 *     read while a state file exists).
 *  2. Listeners: those given with -l/-D, when any is, replace the
 *     listeners of that source (the state file's too); without -l/-D the
 *     source's listeners are used, so listeners added with bloxctl come
 *     back after a restart. A listener given twice (same address, port
 *     and kind) is one listener.
 *  3. Every other setting: its flag, else its default.
 *
 * So a unit file may say -l 0.0.0.0:4420 and start again with the same
 * command line after any bloxctl change; listeners bloxctl added are
 * then not served (said in the log), since the command line says which.
 */

/* Exit codes (also in --help). */
enum {
	EX_CLEAN = 0,
	EX_RUNTIME = 1, /* a failure while starting or running */
	EX_USAGE = 2, /* bad command line or bad config */
	EX_LOCKED = 3, /* the data directory is used by another bloxd */
	EX_BIND = 4, /* a listener or the admin socket cannot be bound */
	EX_CAPACITY = 5, /* not enough capacity for a namespace */
};

struct bloxd {
	struct blox_log log;
	struct blox_clock clock;
	struct event_base *base;
	struct nvmf_tgt tgt;
	struct nvmf_tcp *tcp;
	struct nvmf_tcp_limits tcp_limits;
	struct nvmf_tgt_limits tgt_limits;
	struct event *sigterm, *sigint, *drain;
	struct blox_dir_lock lock;
	struct blox_prov *prov;
	struct blox_config *cfg; /* during start-up */
	struct blox_admin_opts admin_opts;
	struct blox_telemetry *tm;
	struct blox_admin *admin;
	struct blox_health *health;
	unsigned shutdown_timeout; /* seconds */
	unsigned flush_waits; /* drain passes spent on admin answers not yet written */
	const char *metrics_addr; /* --metrics; NULL: no endpoint */
	struct blox_metrics *metrics;
	bool stopping;
	int exit_code;
	unsigned poll_us; /* --poll-us: busy-poll budget after work; 0: off */
	unsigned nr_reactors; /* --reactors; 0: one per CPU (up to BLOXD_REACTORS_AUTO_MAX) */
	struct blox_reactors *reactors;
	unsigned long log_errors; /* error lines logged (d->log.errors) */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bloxd [options]\n"
		"NVMe-over-Fabrics (NVMe/TCP) target. Runs in the foreground until\n"
		"SIGTERM or SIGINT.\n"
		"\n"
		"Configuration:\n"
		"  -c, --config FILE       JSON start-up config (listeners, devices,\n"
		"                          subsystems, hosts, namespaces); without it the\n"
		"                          embedded default: %s, one 1 GiB\n"
		"                          namespace on emulated NAND with an FTL,\n"
		"                          file-backed in the data directory, any host,\n"
		"                          127.0.0.1:4420 and discovery on 127.0.0.1:8009\n"
		"  -l, --listen ADDR:PORT  an NVMe/TCP listener ([V6ADDR]:PORT for IPv6);\n"
		"                          repeatable; see precedence below\n"
		"  -D, --discovery ADDR:PORT  a discovery-only listener; repeatable\n"
		"      --data-dir DIR      where file-backed namespaces keep their flash,\n"
		"                          the admin API its state file " BLOX_STATE_FILE ",\n"
		"                          and bloxd its lock " BLOX_LOCK_FILE " and SMART\n"
		"                          counters " BLOX_HEALTH_FILE "\n"
		"                          (default " BLOX_DEFAULT_DATA_DIR ")\n"
		"      --print-config      print the effective configuration (JSON, the\n"
		"                          config file's format) on stdout and where each\n"
		"                          part comes from on stderr, then exit 0; locks,\n"
		"                          opens and binds nothing\n"
		"\n"
		"Precedence, the same at every start:\n"
		"  1. subsystems, hosts, namespaces, devices: DIR/" BLOX_STATE_FILE "\n"
		"     when it exists (what bloxctl changed), else --config FILE, else\n"
		"     the embedded default; one of them, whole, never merged\n"
		"  2. listeners: -l/-D, when any is given, replace the listeners of that\n"
		"     source (the state file's too); without -l/-D the source's\n"
		"     listeners are used (listeners added with bloxctl survive a\n"
		"     restart). A listener given twice is one listener.\n"
		"  3. every other setting: its flag, else its default\n"
		"  So the same command line always starts again after bloxctl changes.\n"
		"\n"
		"Admin API (bloxctl):\n"
		"      --admin-socket PATH admin API socket (default " BLOX_DEFAULT_ADMIN_SOCKET ")\n"
		"      --admin-group NAME  group that may use the socket (mode 0660)\n"
		"      --admin-tls ADDR:PORT  also serve the admin API over TLS; needs\n"
		"      --admin-tls-cert F --admin-tls-key F --admin-tls-ca F\n"
		"                          (clients must present a certificate of that CA)\n"
		"      --admin-idle-ms N   close admin clients silent for N ms (60000)\n"
		"      --metrics ADDR:PORT serve OpenMetrics/Prometheus text on\n"
		"                          http://ADDR:PORT/metrics ([V6ADDR]:PORT); off by default\n"
		"\n"
		"Limits on NVMe/TCP clients (0: none; each trip is counted in bloxctl\n"
		"status and the metrics, and logged at most a few lines a second):\n"
		"      --max-connections N connections open at once; more are closed\n"
		"                          as soon as accepted (default 4096)\n"
		"      --max-connections-per-host N  of them from one source address\n"
		"                          (default 256)\n"
		"      --icreq-timeout-ms N   close a connection with no ICReq N ms\n"
		"                          after accept (default 10000)\n"
		"      --connect-timeout-ms N close a connection with no Fabrics\n"
		"                          Connect N ms after the ICResp (default 10000)\n"
		"      --pdu-timeout-ms N  close a connection whose PDU began and is not\n"
		"                          complete N ms later (default 30000)\n"
		"      --buffer-pool-mb N  data buffers of every connection, in MiB; a\n"
		"                          command over it waits for buffers to come\n"
		"                          back (default 256; at least 2 x MDTS)\n"
		"      --max-conn-buffer-kb N  of them held by one connection (default\n"
		"                          16384); its commands over it wait\n"
		"      --max-r2t N         R2Ts outstanding per connection (default 128)\n"
		"      --max-io-queues N   I/O queues per controller, 1..64 (Set Features\n"
		"                          Number of Queues grants at most N; default 64)\n"
		"      --max-ctrls-per-host N  controllers of one host NQN (default 128);\n"
		"                          one more Connect gets Controller Busy\n"
		"      --min-kato-ms N     a smaller nonzero keep-alive timeout of an I/O\n"
		"                          controller is raised to N (default 1000)\n"
		"      --kato0-timeout-ms N  close a controller with KATO 0 that has no\n"
		"                          I/O queue and was idle N ms (default 120000)\n"
		"      --mdts-kb N         largest transfer (MDTS), a power of two from 4\n"
		"                          to 32768 KiB (default 8192)\n"
		"      --in-capsule-kb N   in-capsule data on I/O queues (default 16,\n"
		"                          at most 128)\n"
		"      --max-queue-size N  entries of an I/O queue (CAP.MQES + 1),\n"
		"                          2..65536 (default 1024)\n"
		"      --max-admin-inflight N  admin API requests in flight at once over\n"
		"                          every client; more are refused (resource\n"
		"                          exhausted) (default 256)\n"
		"  When accept() fails (out of file descriptors or memory) the listener\n"
		"  pauses 100 ms, doubling up to 1 s while the errors go on, and tries\n"
		"  again.\n"
		"\n"
		"Performance:\n"
		"      --poll-us N         after a loop pass that received commands, keep\n"
		"                          polling the sockets for N microseconds before\n"
		"                          sleeping (low-depth latency; costs CPU only\n"
		"                          while commands keep coming); 0: off\n"
		"                          (default " BLOX_STR(BLOXD_POLL_US) ")\n"
		"      --reactors N        event loops, one thread each (1.." BLOX_STR(BLOX_REACTORS_MAX) "):\n"
		"                          reactor 0 runs the NVMe core, the namespaces,\n"
		"                          the admin API and every admin queue; an I/O\n"
		"                          queue moves to reactor qid %% N after its Connect\n"
		"                          (its socket, PDUs, digests, buffers)\n"
		"                          (default: one per CPU bloxd may run on, up to\n"
		"                          " BLOX_STR(BLOXD_REACTORS_AUTO_MAX) ")\n"
		"\n"
		"Running as a service:\n"
		"      --shutdown-timeout SEC  on SIGTERM/SIGINT bloxd stops accepting,\n"
		"                          ends the connections and in-flight commands,\n"
		"                          flushes write buffers, checkpoints, writes its\n"
		"                          state and SMART counters, and exits 0; if that\n"
		"                          takes more than SEC seconds (default 30) it\n"
		"                          exits 1 at once. A second signal also exits 1\n"
		"                          at once; the next start then recovers the\n"
		"                          namespaces from the OOB scan.\n"
		"      --syslog            log to syslog (facility daemon, ident bloxd)\n"
		"                          instead of stderr\n"
		"      --log-level N       0 error, 1 warn, 2 info (default), 3 debug;\n"
		"                          info logs one line per event (data directory,\n"
		"                          each store file, listener, namespace), no\n"
		"                          line per I/O\n"
		"  -v, --verbose           same as --log-level 3\n"
		"  -V, --version           print the version\n"
		"  -h, --help              this text\n"
		"  systemd: with $NOTIFY_SOCKET set (Type=notify) bloxd sends READY=1\n"
		"  with a STATUS= line once the listeners and the admin socket are up,\n"
		"  and STOPPING=1 on the first SIGTERM/SIGINT.\n"
		"\n"
		"Exit codes:\n"
		"  0 clean stop; 1 runtime failure (also a shutdown cut short, or a\n"
		"  stop that could not write a checkpoint, the state or the counts);\n"
		"  2 bad command line or bad config; 3 the data directory is locked by\n"
		"  another bloxd (its pid is named); 4 a listener or the admin socket\n"
		"  cannot be bound (address in use or not available); 5 not enough\n"
		"  capacity for a namespace (or a data directory too full to recover\n"
		"  the namespaces). A start that fails leaves the data\n"
		"  directory as it was.\n",
		BLOX_DEFAULT_NQN);
}

static void drain_cb(evutil_socket_t fd, short what, void *arg)
{
	struct bloxd *d = arg;

	(void)fd;
	(void)what;
	/*
	 * Namespaces being made or torn down off the loop finish first; then
	 * their answers get up to 2 s to reach the admin clients (one that
	 * does not read is not waited for longer).
	 */
	if (nvmf_tcp_nr_queues(d->tcp) == 0 && !blox_admin_busy(d->admin) &&
	    (!blox_admin_flushing(d->admin) || ++d->flush_waits > 200))
		event_base_loopexit(d->base, NULL);
	else
		event_add(d->drain, &(struct timeval){ 0, 10000 });
}

/*
 * Once shutting down: a second SIGTERM/SIGINT, or the shutdown timeout
 * (SIGALRM), ends the process at once, even while the loop is busy
 * flushing. Only async-signal-safe calls here.
 */
static void hard_exit(int sig)
{
	static const char second[] =
		"bloxd: error: second signal: exiting at once; the next start recovers "
		"the namespaces from the OOB scan\n";
	static const char late[] =
		"bloxd: error: shutdown took longer than --shutdown-timeout: exiting at "
		"once; the next start recovers the namespaces from the OOB scan\n";
	const char *m = sig == SIGALRM ? late : second;
	size_t len = sig == SIGALRM ? sizeof(late) - 1 : sizeof(second) - 1;

	if (write(STDERR_FILENO, m, len) < 0)
		_exit(EX_RUNTIME);
	_exit(EX_RUNTIME);
}

static void stop_cb(evutil_socket_t sig, short what, void *arg)
{
	struct bloxd *d = arg;
	struct sigaction sa = { .sa_handler = hard_exit };
	struct nvmf_port *p;

	(void)what;
	if (d->stopping)
		return;
	d->stopping = true;
	blox_log(&d->log, BLOX_LOG_INFO,
		 "signal %d: shutting down (at most %u s; a second signal exits at once)",
		 (int)sig, d->shutdown_timeout);
	/* From now on a signal, or the timeout, ends the process at once. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	alarm(d->shutdown_timeout);
	blox_sd_notify("STOPPING=1\nSTATUS=shutting down");
	blox_admin_stop(d->admin);
	TAILQ_FOREACH(p, &d->tgt.ports, link)
		nvmf_tcp_unlisten(d->tcp, p);
	nvmf_tgt_close_ctrls(&d->tgt);
	nvmf_tcp_close_all(d->tcp);
	event_active(d->drain, 0, 0);
}

/* What the command line asks for, before any file is read. */
struct args {
	const char *config, *data_dir;
	struct {
		const char *spec;
		bool disc;
	} listen[64];
	size_t nr_listen;
	bool print_config, syslog;
};

/* Where each part of the configuration came from (--print-config, the log). */
struct sources {
	char base[4300]; /* subsystems, hosts, namespaces, devices */
	char listeners[4400];
	const char *data_dir;
};

/* @text as a count in [@min, @max] for option @name, or 2 (usage) with a message. */
static int count_arg(const char *name, const char *text, uint64_t min, uint64_t max,
		     uint64_t *v)
{
	if (blox_parse_count(text, max, v) || *v < min) {
		fprintf(stderr, "bloxd: --%s: expected %lu..%lu\n", name, (unsigned long)min,
			(unsigned long)max);
		return EX_USAGE;
	}
	return 0;
}

/* getopt value of the first limit option (the others follow). */
#define OPT_LIMIT 0x100

static const char *opt_name(const struct option *o, int val)
{
	while (o->name && o->val != val)
		o++;
	return o->name;
}

static int parse_args(int argc, char **argv, struct args *a, struct bloxd *d)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "listen", required_argument, NULL, 'l' },
		{ "discovery", required_argument, NULL, 'D' },
		{ "log-level", required_argument, NULL, 'L' },
		{ "data-dir", required_argument, NULL, 'd' },
		{ "admin-socket", required_argument, NULL, 'S' },
		{ "admin-group", required_argument, NULL, 'G' },
		{ "admin-tls", required_argument, NULL, 'T' },
		{ "admin-tls-cert", required_argument, NULL, 'C' },
		{ "admin-tls-key", required_argument, NULL, 'K' },
		{ "admin-tls-ca", required_argument, NULL, 'A' },
		{ "admin-idle-ms", required_argument, NULL, 'I' },
		{ "print-config", no_argument, NULL, 'P' },
		{ "shutdown-timeout", required_argument, NULL, 'W' },
		{ "syslog", no_argument, NULL, 'Y' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "max-connections", required_argument, NULL, OPT_LIMIT + 0 },
		{ "max-connections-per-host", required_argument, NULL, OPT_LIMIT + 1 },
		{ "icreq-timeout-ms", required_argument, NULL, OPT_LIMIT + 2 },
		{ "connect-timeout-ms", required_argument, NULL, OPT_LIMIT + 3 },
		{ "pdu-timeout-ms", required_argument, NULL, OPT_LIMIT + 4 },
		{ "buffer-pool-mb", required_argument, NULL, OPT_LIMIT + 5 },
		{ "max-conn-buffer-kb", required_argument, NULL, OPT_LIMIT + 6 },
		{ "max-r2t", required_argument, NULL, OPT_LIMIT + 7 },
		{ "max-io-queues", required_argument, NULL, OPT_LIMIT + 8 },
		{ "max-ctrls-per-host", required_argument, NULL, OPT_LIMIT + 9 },
		{ "min-kato-ms", required_argument, NULL, OPT_LIMIT + 10 },
		{ "kato0-timeout-ms", required_argument, NULL, OPT_LIMIT + 11 },
		{ "mdts-kb", required_argument, NULL, OPT_LIMIT + 12 },
		{ "in-capsule-kb", required_argument, NULL, OPT_LIMIT + 13 },
		{ "max-queue-size", required_argument, NULL, OPT_LIMIT + 14 },
		{ "max-admin-inflight", required_argument, NULL, OPT_LIMIT + 15 },
		{ "poll-us", required_argument, NULL, 'U' },
		{ "reactors", required_argument, NULL, 'R' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct nvmf_tcp_limits *tl = &d->tcp_limits;
	struct nvmf_tgt_limits *gl = &d->tgt_limits;
	/* In the order of OPT_LIMIT + i above; their ranges are checked once parsed. */
	uint32_t *const limit[] = { &tl->max_conns, &tl->max_conns_per_host,
				    &tl->icreq_timeout_ms, &tl->connect_timeout_ms,
				    &tl->pdu_timeout_ms, &tl->buffer_pool_mb,
				    &tl->max_conn_buffer_kb, &tl->max_r2t,
				    &gl->max_io_queues, &gl->max_ctrls_per_host,
				    &gl->min_kato_ms, &gl->kato0_timeout_ms,
				    &gl->mdts_kb, &gl->in_capsule_kb,
				    &gl->max_queue_size, &d->admin_opts.max_inflight };
	char err[256];
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "c:l:D:vVh", opts, NULL)) != -1) {
		if (c >= OPT_LIMIT && c < OPT_LIMIT + (int)BLOX_ARRAY_SIZE(limit)) {
			if (count_arg(opt_name(opts, c), optarg, 0,
				      86400000, &v))
				return EX_USAGE;
			*limit[c - OPT_LIMIT] = (uint32_t)v;
			continue;
		}
		switch (c) {
		case 'c':
			a->config = optarg;
			break;
		case 'd':
			a->data_dir = optarg;
			break;
		case 'S':
			d->admin_opts.socket_path = optarg;
			break;
		case 'G':
			d->admin_opts.group = optarg;
			break;
		case 'T':
			d->admin_opts.tls_listen = optarg;
			break;
		case 'C':
			d->admin_opts.tls_cert = optarg;
			break;
		case 'K':
			d->admin_opts.tls_key = optarg;
			break;
		case 'A':
			d->admin_opts.tls_ca = optarg;
			break;
		case 'I':
			if (count_arg("admin-idle-ms", optarg, 100, 86400000, &v))
				return EX_USAGE;
			d->admin_opts.idle_timeout_ms = (uint32_t)v;
			break;
		case 'W':
			if (count_arg("shutdown-timeout", optarg, 1, 86400, &v))
				return EX_USAGE;
			d->shutdown_timeout = (unsigned)v;
			break;
		case 'U':
			if (count_arg("poll-us", optarg, 0, 1000000, &v))
				return EX_USAGE;
			d->poll_us = (unsigned)v;
			break;
		case 'R':
			if (count_arg("reactors", optarg, 1, BLOX_REACTORS_MAX, &v))
				return EX_USAGE;
			d->nr_reactors = (unsigned)v;
			break;
		case 'P':
			a->print_config = true;
			break;
		case 'Y':
			a->syslog = true;
			break;
		case 'M': {
			if (blox_metrics_check_addr(optarg, err, sizeof(err))) {
				fprintf(stderr, "bloxd: %s\n", err);
				return 2;
			}
			d->metrics_addr = optarg;
			break;
		}
		case 'l':
		case 'D':
			if (a->nr_listen == BLOX_ARRAY_SIZE(a->listen)) {
				fprintf(stderr, "bloxd: too many listeners\n");
				return EX_USAGE;
			}
			a->listen[a->nr_listen].spec = optarg;
			a->listen[a->nr_listen++].disc = c == 'D';
			break;
		case 'L':
			if (count_arg("log-level", optarg, 0, 3, &v))
				return EX_USAGE;
			d->log.level = (int)v;
			break;
		case 'v':
			d->log.level = BLOX_LOG_DEBUG;
			break;
		case 'V':
			printf("bloxd %s\n", BLOX_VERSION);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return EX_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bloxd: unexpected argument '%s'\n", argv[optind]);
		return EX_USAGE;
	}
	if (nvmf_tgt_limits_check(gl, err, sizeof(err))) {
		fprintf(stderr, "bloxd: %s\n", err);
		return EX_USAGE;
	}
	if (((uint64_t)tl->buffer_pool_mb << 10) < 2ull * gl->mdts_kb) {
		fprintf(stderr, "bloxd: --buffer-pool-mb %u: must hold two transfers of "
			"--mdts-kb %u\n", tl->buffer_pool_mb, gl->mdts_kb);
		return EX_USAGE;
	}
	return 0;
}

/* The configuration to start from, by the precedence above; @src says whence. */
static int load_config(struct bloxd *d, const struct args *a, struct blox_config *cfg,
		       struct sources *src)
{
	const char *dd = a->data_dir ? a->data_dir : BLOX_DEFAULT_DATA_DIR;
	char state[4200], err[512];
	bool from_state;
	int rc;

	src->data_dir = a->data_dir ? "command line (--data-dir)" : "default";
	if (strlen(dd) >= sizeof(cfg->data_dir)) {
		blox_log(&d->log, BLOX_LOG_ERR, "--data-dir: path too long");
		return EX_USAGE;
	}
	snprintf(state, sizeof(state), "%s/%s", dd, BLOX_STATE_FILE);
	from_state = access(state, F_OK) == 0;
	if (from_state) {
		snprintf(src->base, sizeof(src->base), "state file %s%s", state,
			 a->config ? " (--config not read: the state file wins)" : "");
		rc = blox_config_load(state, cfg, err, sizeof(err));
	} else if (a->config) {
		snprintf(src->base, sizeof(src->base), "config file %s", a->config);
		rc = blox_config_load(a->config, cfg, err, sizeof(err));
	} else {
		snprintf(src->base, sizeof(src->base), "embedded default");
		rc = blox_config_default(cfg);
	}
	if (rc) {
		blox_log(&d->log, BLOX_LOG_ERR, "%s", err);
		return rc == -ENOMEM ? EX_RUNTIME : EX_USAGE;
	}
	snprintf(cfg->data_dir, sizeof(cfg->data_dir), "%s", dd);
	if (!a->nr_listen) {
		snprintf(src->listeners, sizeof(src->listeners), "%s", src->base);
	} else {
		struct blox_cfg_listener *was = cfg->listeners;
		size_t nr_was = cfg->nr_listeners;

		cfg->listeners = NULL;
		cfg->nr_listeners = 0;
		snprintf(src->listeners, sizeof(src->listeners), "command line (-l/-D)");
		for (size_t i = 0; i < a->nr_listen; i++) {
			rc = blox_config_add_listener(cfg, a->listen[i].spec, a->listen[i].disc,
						      err, sizeof(err));
			if (rc) {
				free(was);
				blox_log(&d->log, BLOX_LOG_ERR, "%s", err);
				return rc == -ENOMEM ? EX_RUNTIME : EX_USAGE;
			}
		}
		/*
		 * Replaced: say which of the state file's are not served this
		 * time (bloxctl may have added them).
		 */
		for (size_t i = 0; from_state && i < nr_was; i++) {
			size_t j;

			for (j = 0; j < cfg->nr_listeners; j++)
				if (!strcmp(was[i].addr, cfg->listeners[j].addr) &&
				    !strcmp(was[i].port, cfg->listeners[j].port))
					break;
			if (j == cfg->nr_listeners)
				blox_log(&d->log, BLOX_LOG_WARN,
					 "listener %s:%s of the state file is not served: "
					 "-l/-D replace the listeners",
					 was[i].addr, was[i].port);
		}
		free(was);
	}
	if (cfg->nr_listeners == 0 && from_state) {
		/* bloxctl removed them all: what it left is what runs. */
		blox_log(&d->log, BLOX_LOG_WARN,
			 "no listener: the state file %s has none (bloxctl listener remove); "
			 "hosts reach nothing until one is added (bloxctl listener add)",
			 state);
	} else if (cfg->nr_listeners == 0) {
		blox_log(&d->log, BLOX_LOG_ERR,
			 "no listener: %s has no \"listeners\" and no -l/-D was given; "
			 "bloxd would serve no host (add \"listeners\" to the file, or -l "
			 "ADDR:PORT)",
			 a->config ? a->config : "the configuration");
		return EX_USAGE;
	}
	return 0;
}

/* The admin API's options, checked before anything is made (exit 2). */
static int check_admin(struct bloxd *d, const struct blox_config *cfg)
{
	char err[512];

	if (blox_admin_check_opts(&d->admin_opts, cfg->data_dir, err, sizeof(err))) {
		blox_log(&d->log, BLOX_LOG_ERR, "%s", err);
		return EX_USAGE;
	}
	return 0;
}

/* --print-config: the configuration on stdout, its sources on stderr. */
static int print_config(const struct blox_config *cfg, const struct sources *src)
{
	char *text = blox_config_json(cfg);

	if (!text) {
		fprintf(stderr, "bloxd: out of memory\n");
		return EX_RUNTIME;
	}
	printf("%s\n", text);
	free(text);
	fprintf(stderr,
		"bloxd: subsystems, hosts, namespaces, devices: %s\n"
		"bloxd: listeners: %s\n"
		"bloxd: data directory %s: %s\n",
		src->base, src->listeners, cfg->data_dir, src->data_dir);
	return fflush(stdout) ? EX_RUNTIME : EX_CLEAN;
}

/* ---- Start-up and shut-down steps ---- */

static int loop_start(struct bloxd *d)
{
	struct event_config *ec = event_config_new();

	if (!ec)
		return -ENOMEM;
	/* Emulated latencies are microseconds: no millisecond rounding. */
	event_config_set_flag(ec, EVENT_BASE_FLAG_PRECISE_TIMER);
	d->base = event_base_new_with_config(ec);
	event_config_free(ec);
	return d->base ? 0 : -ENOMEM;
}

/* One pass ran; true when the loop is to end (as event_base_dispatch would). */
static bool loop_pass(struct bloxd *d, int flags)
{
	int rc = event_base_loop(d->base, flags);

	nvmf_tgt_pass_end(&d->tgt);
	return rc != 0 || event_base_got_exit(d->base) || event_base_got_break(d->base);
}

/* Commands received and completed so far: a pass that moved either had I/O. */
static uint64_t loop_work(const struct bloxd *d)
{
	return d->tgt.cmds_received + d->tgt.cmds_completed;
}

/*
 * The loop. With --poll-us, one libevent pass at a time: the target reads
 * the time once per pass (nvmf_tgt_now), and after a pass that received or
 * completed commands the sockets are polled with zero-timeout passes for up
 * to --poll-us, every such pass starting the budget again, before the loop
 * sleeps in epoll_wait again. The host's next command at low queue depth
 * then finds the loop awake (no sleep and wake-up per command), also after
 * a completion that came later than its command (a NAND read's), while an
 * idle daemon, or one that only sees keep-alives, sleeps as before.
 */
static void loop_run(struct bloxd *d)
{
	uint64_t budget_ns = (uint64_t)d->poll_us * 1000;

	if (!budget_ns) {
		/* Off: libevent's own loop, the clock read where asked. */
		event_base_dispatch(d->base);
		return;
	}
	d->tgt.pass.cached = true;
	for (;;) {
		uint64_t seen = loop_work(d), until;

		if (loop_pass(d, EVLOOP_ONCE))
			break;
		if (loop_work(d) == seen)
			continue;
		seen = loop_work(d);
		until = blox_clock_now(&d->clock) + budget_ns;
		for (;;) {
			uint64_t now;

			if (loop_pass(d, EVLOOP_NONBLOCK))
				return;
			now = blox_clock_now(&d->clock);
			if (loop_work(d) != seen) {
				seen = loop_work(d);
				until = now + budget_ns;
			} else if (now >= until) {
				break;
			}
		}
	}
}

static void loop_stop(struct bloxd *d)
{
	event_base_free(d->base);
}

static int target_start(struct bloxd *d)
{
	int rc;

	blox_clock_init_real(&d->clock);
	rc = nvmf_tgt_init(&d->tgt, d->base, &d->clock, &d->log);
	if (!rc)
		d->tgt.lim = d->tgt_limits;
	return rc;
}

static void target_stop(struct bloxd *d)
{
	nvmf_tgt_fini(&d->tgt);
}

/* One reactor per CPU of bloxd's affinity mask (taskset, cgroup cpuset), bounded. */
static unsigned reactors_auto(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	n = CPU_COUNT(&set);
	return (unsigned)BLOX_MAX(1, BLOX_MIN(n, BLOXD_REACTORS_AUTO_MAX));
}

static int reactors_start(struct bloxd *d)
{
	unsigned n = d->nr_reactors ? d->nr_reactors : reactors_auto();
	int rc = blox_reactors_create(d->base, n, d->poll_us, &d->clock, &d->log, &d->reactors);

	if (!rc)
		rc = blox_reactors_start(d->reactors);
	if (!rc)
		blox_log(&d->log, BLOX_LOG_INFO, "%u reactor%s", n, n == 1 ? "" : "s");
	return rc;
}

static void reactors_stop(struct bloxd *d)
{
	if (!d->reactors)
		return;
	blox_reactors_stop(d->reactors);
	blox_reactors_destroy(d->reactors);
	d->reactors = NULL;
}

static int transport_start(struct bloxd *d)
{
	return nvmf_tcp_create(&d->tgt, &d->tcp_limits, d->reactors, &d->tcp);
}

static void transport_stop(struct bloxd *d)
{
	nvmf_tcp_destroy(d->tcp);
}

static int signals_start(struct bloxd *d)
{
	d->sigterm = evsignal_new(d->base, SIGTERM, stop_cb, d);
	d->sigint = evsignal_new(d->base, SIGINT, stop_cb, d);
	d->drain = evtimer_new(d->base, drain_cb, d);
	if (!d->sigterm || !d->sigint || !d->drain)
		return -ENOMEM;
	event_add(d->sigterm, NULL);
	event_add(d->sigint, NULL);
	return 0;
}

static void signals_stop(struct bloxd *d)
{
	if (d->sigterm)
		event_free(d->sigterm);
	if (d->sigint)
		event_free(d->sigint);
	if (d->drain)
		event_free(d->drain);
}

/* Before any store is opened: one bloxd per data directory. */
static int lock_start(struct bloxd *d)
{
	char err[4400];
	int rc = blox_dir_lock(&d->lock, d->cfg->data_dir, err, sizeof(err));

	if (rc)
		blox_log(&d->log, BLOX_LOG_ERR, "%s", err);
	else
		blox_log(&d->log, BLOX_LOG_INFO, "data directory %s (locked: %s)",
			 d->cfg->data_dir, d->lock.path);
	return rc;
}

static void lock_stop(struct bloxd *d)
{
	blox_dir_unlock(&d->lock);
}

static int prov_start(struct bloxd *d)
{
	int rc = blox_prov_create(&d->tgt, d->tcp, d->cfg->data_dir, &d->prov);

	/* Devices spread over the reactors, each living on one. */
	if (!rc && d->reactors && (rc = blox_prov_use_reactors(d->prov, d->reactors)))
		blox_log(&d->log, BLOX_LOG_ERR, "reactors for the devices: %s", strerror(-rc));
	return rc;
}

static void prov_stop(struct bloxd *d)
{
	blox_prov_destroy(d->prov);
}

/* Bound before any store is opened: a busy port changes nothing. */
static int listeners_start(struct bloxd *d)
{
	char err[512];
	int rc = blox_prov_listen(d->prov, d->cfg, err, sizeof(err));

	if (rc) {
		blox_log(&d->log, BLOX_LOG_ERR, "%s", err);
		blox_prov_clear(d->prov);
	}
	return rc;
}

static void listeners_stop(struct bloxd *d)
{
	blox_prov_clear(d->prov);
}

/*
 * About what the stores of @cfg need in the data directory to start: an
 * FTL's recovery writes, and its checkpoint holds a mapping of 4 bytes per
 * 4 KiB (1/1024 of its size), with 1 MiB of room for the rest of each.
 */
static uint64_t start_room(const struct blox_config *cfg)
{
	uint64_t need = BLOX_SPACE_LOW;

	for (size_t i = 0; i < cfg->nr_subsys; i++)
		for (size_t j = 0; j < cfg->subsys[i].nr_ns; j++) {
			const struct blox_cfg_ns *n = &cfg->subsys[i].ns[j];

			if (!strcmp(n->backend, "nand") && !n->store_ram)
				need += (1ull << 20) + n->size / 1024;
		}
	return need;
}

/* "12.5 MiB" */
static const char *mib(uint64_t b, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f MiB", (double)b / (1 << 20));
	return buf;
}

/* A start that ran out of space: say where and how much is needed. */
static void say_no_room(struct bloxd *d)
{
	const char *dir = d->cfg->data_dir;
	uint64_t need = start_room(d->cfg);
	struct blox_space sp;
	char a[32], b[32];

	if (blox_space_get(dir, &sp) || sp.free_bytes >= need)
		return; /* another shortage (a namespace too large): said above */
	blox_log(&d->log, BLOX_LOG_ERR,
		 "data directory %s is full: %s free on its filesystem, the namespaces "
		 "need about %s to recover and checkpoint; free that much there (or give "
		 "--data-dir a larger filesystem) and start again: nothing was changed",
		 dir, mib(sp.free_bytes, a, sizeof(a)), mib(need, b, sizeof(b)));
}

static int config_start(struct bloxd *d)
{
	char err[512];
	int rc = blox_prov_make(d->prov, d->cfg, err, sizeof(err));

	if (rc) {
		blox_log(&d->log, BLOX_LOG_ERR, "%s", err);
		if (rc == -ENOSPC || rc == -EDQUOT)
			say_no_room(d);
		/* A step that fails leaves nothing of itself behind. */
		blox_prov_clear(d->prov);
	}
	return rc;
}

static void config_stop(struct bloxd *d)
{
	blox_prov_clear(d->prov);
}

/* The samples Stats takes its windows from. */
static int telemetry_start(struct bloxd *d)
{
	return blox_telemetry_create(d->prov, &d->tm);
}

static void telemetry_stop(struct bloxd *d)
{
	blox_telemetry_destroy(d->tm);
}

/* Up before the stores too; it answers once the loop runs, after the last step. */
static int admin_start(struct bloxd *d)
{
	char err[512];
	int rc = blox_admin_create(d->prov, d->tm, &d->admin_opts, &d->admin, err, sizeof(err));

	if (rc)
		blox_log(&d->log, BLOX_LOG_ERR, "%s", err);
	return rc;
}

static void admin_stop(struct bloxd *d)
{
	blox_admin_destroy(d->admin);
}

static int health_start(struct bloxd *d)
{
	return blox_health_start(d->prov, 60, &d->health);
}

static void health_stop(struct bloxd *d)
{
	blox_health_stop(d->health);
}

static int metrics_start(struct bloxd *d)
{
	char err[512];
	int rc = 0;

	if (d->metrics_addr &&
	    (rc = blox_metrics_create(d->prov, d->metrics_addr, &d->metrics, err, sizeof(err))))
		blox_log(&d->log, BLOX_LOG_ERR, "%s", err);
	return rc;
}

static void metrics_stop(struct bloxd *d)
{
	blox_metrics_destroy(d->metrics);
}

/* Run in this order; undone in reverse, from the last one done. */
static const struct step {
	const char *name;
	int (*start)(struct bloxd *d);
	void (*stop)(struct bloxd *d);
} steps[] = {
	{ "event loop", loop_start, loop_stop },
	{ "NVMe-oF target", target_start, target_stop },
	{ "reactors", reactors_start, reactors_stop },
	{ "NVMe/TCP transport", transport_start, transport_stop },
	{ "signals", signals_start, signals_stop },
	{ "data directory", lock_start, lock_stop },
	{ "provisioning service", prov_start, prov_stop },
	{ "listeners", listeners_start, listeners_stop },
	{ "telemetry", telemetry_start, telemetry_stop },
	{ "admin API", admin_start, admin_stop },
	{ "metrics endpoint", metrics_start, metrics_stop },
	{ "configuration", config_start, config_stop },
	{ "health counters", health_start, health_stop },
};

/* Undo the first @n steps, last first. */
static void steps_undo(struct bloxd *d, size_t n)
{
	while (n--)
		steps[n].stop(d);
}

/* The exit code of a start that failed in step @s with @rc. */
static int start_exit_code(const struct step *s, int rc)
{
	bool bind = s->start == listeners_start || s->start == admin_start ||
		    s->start == metrics_start;

	if (s->start == lock_start && rc == -EBUSY)
		return EX_LOCKED;
	if (bind && (rc == -EADDRINUSE || rc == -EADDRNOTAVAIL || rc == -EACCES))
		return EX_BIND;
	if ((s->start == listeners_start || s->start == admin_start) && rc == -EINVAL)
		return EX_USAGE;
	if (s->start == config_start && (rc == -ENOSPC || rc == -EDQUOT))
		return EX_CAPACITY;
	return EX_RUNTIME;
}

/* Run every step; on a failure, undo those done. 0, or the exit code. */
static int steps_run(struct bloxd *d)
{
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(steps); i++) {
		int rc = steps[i].start(d);

		if (rc) {
			blox_log(&d->log, BLOX_LOG_ERR, "start-up: %s: %s", steps[i].name,
				 strerror(-rc));
			steps_undo(d, i);
			return start_exit_code(&steps[i], rc);
		}
	}
	return 0;
}

/* READY=1 for the service manager, with a one-line summary. */
static void notify_ready(struct bloxd *d)
{
	size_t nsub = 0, nns = 0, nport = 0;
	const struct nvmf_subsys *s;
	const struct nvmf_ns *ns;
	const struct nvmf_port *p;
	char msg[256];

	TAILQ_FOREACH(s, &d->tgt.subsystems, link) {
		nsub++;
		TAILQ_FOREACH(ns, &s->namespaces, link)
			nns++;
	}
	TAILQ_FOREACH(p, &d->tgt.ports, link)
		nport++;
	snprintf(msg, sizeof(msg),
		 "READY=1\nSTATUS=serving %zu subsystems, %zu namespaces, %zu listeners\n"
		 "MAINPID=%ld",
		 nsub, nns, nport, (long)getpid());
	if (blox_sd_notify(msg))
		blox_log(&d->log, BLOX_LOG_WARN, "NOTIFY_SOCKET %s: cannot send READY=1",
			 getenv("NOTIFY_SOCKET"));
	blox_log(&d->log, BLOX_LOG_INFO,
		 "bloxd %s ready: serving %zu subsystems, %zu namespaces, %zu listeners",
		 BLOX_VERSION, nsub, nns, nport);
}

int main(int argc, char **argv)
{
	struct bloxd d = { .log = { .level = BLOX_LOG_INFO },
			   .shutdown_timeout = 30,
			   .tcp_limits = NVMF_TCP_LIMITS_DEFAULT,
			   .tgt_limits = NVMF_TGT_LIMITS_DEFAULT,
			   .admin_opts = { .max_inflight = 256 },
			   .poll_us = BLOXD_POLL_US };
	struct blox_config cfg;
	struct sources src = { 0 };
	struct args args = { 0 };
	static char stop_dir[4096];
	unsigned long errors;
	int rc;

	d.log.errors = &d.log_errors;
	signal(SIGPIPE, SIG_IGN);
	memset(&cfg, 0, sizeof(cfg));
	rc = parse_args(argc, argv, &args, &d);
	if (rc)
		return rc;
	if (args.syslog && !args.print_config) {
		openlog("bloxd", LOG_PID, LOG_DAEMON);
		d.log.syslog = true;
	}
	rc = load_config(&d, &args, &cfg, &src);
	if (!rc)
		rc = check_admin(&d, &cfg);
	if (!rc && args.print_config)
		rc = print_config(&cfg, &src);
	if (rc || args.print_config) {
		blox_config_free(&cfg);
		return rc;
	}
	blox_log(&d.log, BLOX_LOG_INFO, "configuration: %s; listeners: %s", src.base,
		 src.listeners);
	d.cfg = &cfg;
	rc = steps_run(&d);
	d.cfg = NULL;
	blox_config_free(&cfg);
	if (rc) {
		blox_log(&d.log, BLOX_LOG_ERR, "start-up failed: exit code %d", rc);
		return rc;
	}
	blox_dir_lock_keep(&d.lock);
	snprintf(stop_dir, sizeof(stop_dir), "%s", d.lock.dir);
	notify_ready(&d);
	loop_run(&d);
	errors = __atomic_load_n(&d.log_errors, __ATOMIC_RELAXED);
	/* What bloxctl changed is on disk already; written again for a failed write. */
	blox_admin_save_state(d.admin);
	steps_undo(&d, BLOX_ARRAY_SIZE(steps));
	errors = __atomic_load_n(&d.log_errors, __ATOMIC_RELAXED) - errors;
	if (errors && !d.exit_code) {
		/* A checkpoint, the state or the counts did not reach the disk: not clean. */
		struct blox_space sp;
		char a[32];

		if (!blox_space_get(stop_dir, &sp) && sp.full)
			blox_log(&d.log, BLOX_LOG_ERR,
				 "stop: data directory %s is full (%s free): not everything "
				 "was written (errors above); free space there: the next start "
				 "recovers the namespaces from the flash",
				 stop_dir, mib(sp.free_bytes, a, sizeof(a)));
		else
			blox_log(&d.log, BLOX_LOG_ERR,
				 "stop: %lu error%s above: not everything was written; the next "
				 "start recovers the namespaces from the flash",
				 errors, errors == 1 ? "" : "s");
		d.exit_code = EX_RUNTIME;
	}
	if (d.exit_code)
		blox_log(&d.log, BLOX_LOG_INFO, "stopped (exit code %d)", d.exit_code);
	else
		blox_log(&d.log, BLOX_LOG_INFO, "stopped");
	return d.exit_code;
}
