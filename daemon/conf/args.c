/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxd's command line and the configuration it starts from: the flags
 * (--help says them all), their defaults and ranges, and the precedence
 * by which the state file, --config, the embedded default and -l/-D make
 * the configuration; --print-config. Nothing is made here: a bad command
 * line or configuration ends the start before any step runs (exit 2).
 */
#include "config_internal.h"
#include "blox_parse.h"
#include "reactor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

void bloxd_args_init(struct bloxd_args *a)
{
	*a = (struct bloxd_args){ .log_level = BLOX_LOG_INFO,
				  .shutdown_timeout = 30,
				  .tcp_limits = NVMF_TCP_LIMITS_DEFAULT,
				  .tgt_limits = NVMF_TGT_LIMITS_DEFAULT,
				  .admin_opts = { .max_inflight = 256 },
				  .poll_us = BLOXD_POLL_US,
				  .referral_probe_ms = BLOX_REFERRAL_PROBE_MS };
}

/* ---- --metrics ---- */

int blox_metrics_addr_resolve(const char *spec, struct addrinfo **ai, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE };
	char addr[NI_MAXHOST], port[6];
	uint64_t pn;
	int rc;

	if ((rc = blox_addr_split(spec, "--metrics", addr, sizeof(addr), port, sizeof(port), err,
				  errlen)))
		return rc;
	if (blox_parse_count(port, 65535, &pn) || pn == 0)
		return blox_fail(err, errlen, "--metrics '%s': port must be 1..65535", spec);
	/* Dotted quads only (getaddrinfo takes "1.2.3" too), IPv6 in brackets only. */
	if (inet_pton(spec[0] == '[' ? AF_INET6 : AF_INET, addr, &(struct in6_addr){ 0 }) != 1)
		return blox_fail(err, errlen, "--metrics '%s': '%s' is not a numeric %s address%s",
				 spec, addr, spec[0] == '[' ? "IPv6" : "IPv4",
				 spec[0] != '[' && strchr(addr, ':')
					 ? " (an IPv6 address goes in brackets)"
					 : "");
	if ((rc = getaddrinfo(addr, port, &hints, ai)))
		return blox_fail(err, errlen, "--metrics '%s': %s", spec, gai_strerror(rc));
	return 0;
}

int blox_metrics_check_addr(const char *spec, char *err, size_t errlen)
{
	struct addrinfo *ai = NULL;
	int rc = blox_metrics_addr_resolve(spec, &ai, err, errlen);

	if (ai)
		freeaddrinfo(ai);
	return rc;
}

/* ---- The flags ---- */

/* --help */
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
		"      --referral-probe-ms N  look at each referral's discovery service\n"
		"                          every N ms; one that fails twice in a row is left\n"
		"                          out of the discovery log until it answers\n"
		"                          (default 5000; 0: never, always listed)\n"
		"      --no-mdns           do not announce the discovery listeners over\n"
		"                          mDNS (_nvme-disc._tcp through avahi-daemon, NVMe\n"
		"                          TP8009); listeners bound to loopback never are\n"
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

/* @text as a count in [@min, @max] for option @name, or 2 (usage) with a message. */
static int count_arg(const char *name, const char *text, uint64_t min, uint64_t max,
		     uint64_t *v)
{
	if (blox_parse_count(text, max, v) || *v < min) {
		fprintf(stderr, "bloxd: --%s: expected %lu..%lu\n", name, (unsigned long)min,
			(unsigned long)max);
		return BLOXD_EX_USAGE;
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

int bloxd_args_parse(int argc, char **argv, struct bloxd_args *a)
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
		{ "no-mdns", no_argument, NULL, 'N' },
		{ "referral-probe-ms", required_argument, NULL, 'F' },
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
	struct nvmf_tcp_limits *tl = &a->tcp_limits;
	struct nvmf_tgt_limits *gl = &a->tgt_limits;
	/* In the order of OPT_LIMIT + i above; their ranges are checked once parsed. */
	uint32_t *const limit[] = { &tl->max_conns, &tl->max_conns_per_host,
				    &tl->icreq_timeout_ms, &tl->connect_timeout_ms,
				    &tl->pdu_timeout_ms, &tl->buffer_pool_mb,
				    &tl->max_conn_buffer_kb, &tl->max_r2t,
				    &gl->max_io_queues, &gl->max_ctrls_per_host,
				    &gl->min_kato_ms, &gl->kato0_timeout_ms,
				    &gl->mdts_kb, &gl->in_capsule_kb,
				    &gl->max_queue_size, &a->admin_opts.max_inflight };
	char err[256];
	uint64_t v;
	int c;

	optind = 0; /* glibc: start afresh, also on a second call */
	while ((c = getopt_long(argc, argv, "c:l:D:vVh", opts, NULL)) != -1) {
		if (c >= OPT_LIMIT && c < OPT_LIMIT + (int)BLOX_ARRAY_SIZE(limit)) {
			if (count_arg(opt_name(opts, c), optarg, 0,
				      86400000, &v))
				return BLOXD_EX_USAGE;
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
			a->admin_opts.socket_path = optarg;
			break;
		case 'G':
			a->admin_opts.group = optarg;
			break;
		case 'T':
			a->admin_opts.tls_listen = optarg;
			break;
		case 'C':
			a->admin_opts.tls_cert = optarg;
			break;
		case 'K':
			a->admin_opts.tls_key = optarg;
			break;
		case 'A':
			a->admin_opts.tls_ca = optarg;
			break;
		case 'I':
			if (count_arg("admin-idle-ms", optarg, 100, 86400000, &v))
				return BLOXD_EX_USAGE;
			a->admin_opts.idle_timeout_ms = (uint32_t)v;
			break;
		case 'W':
			if (count_arg("shutdown-timeout", optarg, 1, 86400, &v))
				return BLOXD_EX_USAGE;
			a->shutdown_timeout = (unsigned)v;
			break;
		case 'U':
			if (count_arg("poll-us", optarg, 0, 1000000, &v))
				return BLOXD_EX_USAGE;
			a->poll_us = (unsigned)v;
			break;
		case 'R':
			if (count_arg("reactors", optarg, 1, BLOX_REACTORS_MAX, &v))
				return BLOXD_EX_USAGE;
			a->nr_reactors = (unsigned)v;
			break;
		case 'P':
			a->print_config = true;
			break;
		case 'Y':
			a->syslog = true;
			break;
		case 'N':
			a->no_mdns = true;
			break;
		case 'F':
			if (count_arg("referral-probe-ms", optarg, 0, 3600000, &v))
				return BLOXD_EX_USAGE;
			if (v && v < 100) {
				fprintf(stderr, "bloxd: --referral-probe-ms %s: 0 (off) or at least 100\n",
					optarg);
				return BLOXD_EX_USAGE;
			}
			a->referral_probe_ms = (unsigned)v;
			break;
		case 'M': {
			if (blox_metrics_check_addr(optarg, err, sizeof(err))) {
				fprintf(stderr, "bloxd: %s\n", err);
				return BLOXD_EX_USAGE;
			}
			a->metrics_addr = optarg;
			break;
		}
		case 'l':
		case 'D':
			if (a->nr_listen == BLOX_ARRAY_SIZE(a->listen)) {
				fprintf(stderr, "bloxd: too many listeners\n");
				return BLOXD_EX_USAGE;
			}
			a->listen[a->nr_listen].spec = optarg;
			a->listen[a->nr_listen++].disc = c == 'D';
			break;
		case 'L':
			if (count_arg("log-level", optarg, 0, 3, &v))
				return BLOXD_EX_USAGE;
			a->log_level = (int)v;
			break;
		case 'v':
			a->log_level = BLOX_LOG_DEBUG;
			break;
		case 'V':
			printf("bloxd %s\n", BLOX_VERSION);
			a->done = true;
			return 0;
		case 'h':
			usage(stdout);
			a->done = true;
			return 0;
		default:
			usage(stderr);
			return BLOXD_EX_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bloxd: unexpected argument '%s'\n", argv[optind]);
		return BLOXD_EX_USAGE;
	}
	if (nvmf_tgt_limits_check(gl, err, sizeof(err))) {
		fprintf(stderr, "bloxd: %s\n", err);
		return BLOXD_EX_USAGE;
	}
	if (((uint64_t)tl->buffer_pool_mb << 10) < 2ull * gl->mdts_kb) {
		fprintf(stderr, "bloxd: --buffer-pool-mb %u: must hold two transfers of "
			"--mdts-kb %u\n", tl->buffer_pool_mb, gl->mdts_kb);
		return BLOXD_EX_USAGE;
	}
	return 0;
}

int bloxd_config_load(const struct bloxd_args *a, const struct blox_log *log,
		      struct blox_config *cfg, struct bloxd_sources *src)
{
	const char *dd = a->data_dir ? a->data_dir : BLOX_DEFAULT_DATA_DIR;
	char state[4200], err[512];
	bool from_state;
	int rc;

	src->data_dir = a->data_dir ? "command line (--data-dir)" : "default";
	if (strlen(dd) >= sizeof(cfg->data_dir)) {
		blox_log(log, BLOX_LOG_ERR, "--data-dir: path too long");
		return BLOXD_EX_USAGE;
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
		blox_log(log, BLOX_LOG_ERR, "%s", err);
		return rc == -ENOMEM ? BLOXD_EX_RUNTIME : BLOXD_EX_USAGE;
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
				blox_log(log, BLOX_LOG_ERR, "%s", err);
				return rc == -ENOMEM ? BLOXD_EX_RUNTIME : BLOXD_EX_USAGE;
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
				blox_log(log, BLOX_LOG_WARN,
					 "listener %s:%s of the state file is not served: "
					 "-l/-D replace the listeners",
					 was[i].addr, was[i].port);
		}
		free(was);
	}
	if (cfg->nr_listeners == 0 && from_state) {
		/* bloxctl removed them all: what it left is what runs. */
		blox_log(log, BLOX_LOG_WARN,
			 "no listener: the state file %s has none (bloxctl listener remove); "
			 "hosts reach nothing until one is added (bloxctl listener add)",
			 state);
	} else if (cfg->nr_listeners == 0) {
		blox_log(log, BLOX_LOG_ERR,
			 "no listener: %s has no \"listeners\" and no -l/-D was given; "
			 "bloxd would serve no host (add \"listeners\" to the file, or -l "
			 "ADDR:PORT)",
			 a->config ? a->config : "the configuration");
		return BLOXD_EX_USAGE;
	}
	return 0;
}

int bloxd_config_print(const struct blox_config *cfg, const struct bloxd_sources *src)
{
	char *text = blox_config_json(cfg);

	if (!text) {
		fprintf(stderr, "bloxd: out of memory\n");
		return BLOXD_EX_RUNTIME;
	}
	printf("%s\n", text);
	free(text);
	fprintf(stderr,
		"bloxd: subsystems, hosts, namespaces, devices: %s\n"
		"bloxd: listeners: %s\n"
		"bloxd: data directory %s: %s\n",
		src->base, src->listeners, cfg->data_dir, src->data_dir);
	return fflush(stdout) ? BLOXD_EX_RUNTIME : BLOXD_EX_CLEAN;
}
