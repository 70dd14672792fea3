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
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blox_parse.h"
#include "mgmt.h"

#include <unistd.h>

struct bloxd {
	struct blox_log log;
	struct blox_clock clock;
	struct event_base *base;
	struct nvmf_tgt tgt;
	struct nvmf_tcp *tcp;
	struct event *sigterm, *sigint, *drain;
	struct blox_prov *prov;
	struct blox_config *cfg; /* during start-up */
	struct blox_admin_opts admin_opts;
	struct blox_admin *admin;
	const char *metrics_addr; /* --metrics; NULL: no endpoint */
	struct blox_metrics *metrics;
	bool stopping;
	int exit_code;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bloxd [options]\n"
		"  -c, --config FILE       JSON start-up config (listeners, subsystems,\n"
		"                          namespaces, hosts); without it the embedded\n"
		"                          default: %s, one 1 GiB namespace on\n"
		"                          emulated NAND with an FTL, file-backed in the\n"
		"                          data directory,\n"
		"                          any host, 127.0.0.1:4420 and discovery on :8009\n"
		"  -l, --listen ADDR:PORT  add an NVMe/TCP listener ([V6ADDR]:PORT for IPv6);\n"
		"                          replaces the default listeners\n"
		"  -D, --discovery ADDR:PORT  add a discovery-only listener\n"
		"      --data-dir DIR      where file-backed namespaces keep their flash\n"
		"                          and the admin API its state file\n"
		"                          (default " BLOX_DEFAULT_DATA_DIR "); when\n"
		"                          DIR/" BLOX_STATE_FILE " exists bloxd starts\n"
		"                          from it instead of --config or the default\n"
		"      --admin-socket PATH admin API socket (default " BLOX_DEFAULT_ADMIN_SOCKET ")\n"
		"      --admin-group NAME  group that may use the socket (mode 0660)\n"
		"      --admin-tls ADDR:PORT  also serve the admin API over TLS; needs\n"
		"      --admin-tls-cert F --admin-tls-key F --admin-tls-ca F\n"
		"                          (clients must present a certificate of that CA)\n"
		"      --admin-idle-ms N   close admin clients silent for N ms (60000)\n"
		"      --metrics ADDR:PORT serve OpenMetrics/Prometheus text on\n"
		"                          http://ADDR:PORT/metrics ([V6ADDR]:PORT); off by default\n"
		"      --log-level N       0 error, 1 warn, 2 info (default), 3 debug\n"
		"  -v, --verbose           same as --log-level 3\n"
		"  -V, --version           print the version\n"
		"  -h, --help              this text\n",
		BLOX_DEFAULT_NQN);
}

static void drain_cb(evutil_socket_t fd, short what, void *arg)
{
	struct bloxd *d = arg;

	(void)fd;
	(void)what;
	/* Namespaces being made or torn down off the loop finish first. */
	if (nvmf_tcp_nr_queues(d->tcp) == 0 && !blox_admin_busy(d->admin))
		event_base_loopexit(d->base, NULL);
	else
		event_add(d->drain, &(struct timeval){ 0, 10000 });
}

static void stop_cb(evutil_socket_t sig, short what, void *arg)
{
	struct bloxd *d = arg;
	struct nvmf_port *p;

	(void)what;
	if (d->stopping)
		return;
	d->stopping = true;
	blox_log(&d->log, BLOX_LOG_INFO, "signal %d: shutting down", (int)sig);
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
};

/* @text as a count in [@min, @max] for option @name, or 2 (usage) with a message. */
static int count_arg(const char *name, const char *text, uint64_t min, uint64_t max,
		     uint64_t *v)
{
	if (blox_parse_count(text, max, v) || *v < min) {
		fprintf(stderr, "bloxd: --%s: expected %lu..%lu\n", name, (unsigned long)min,
			(unsigned long)max);
		return 2;
	}
	return 0;
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
		{ "metrics", required_argument, NULL, 'M' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "c:l:D:vVh", opts, NULL)) != -1) {
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
				return 2;
			d->admin_opts.idle_timeout_ms = (uint32_t)v;
			break;
		case 'M': {
			char err[256];

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
				return 2;
			}
			a->listen[a->nr_listen].spec = optarg;
			a->listen[a->nr_listen++].disc = c == 'D';
			break;
		case 'L':
			if (count_arg("log-level", optarg, 0, 3, &v))
				return 2;
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
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "bloxd: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return 0;
}

/*
 * The configuration to start from: the state file in the data directory
 * when there is one (what the admin API changed wins), else --config or
 * the embedded default; then the command line's data directory and
 * listeners over it.
 */
static int load_config(struct bloxd *d, const struct args *a, struct blox_config *cfg)
{
	const char *dd = a->data_dir ? a->data_dir : BLOX_DEFAULT_DATA_DIR;
	const char *config = a->config;
	char state[4200], err[512];
	int rc;

	snprintf(state, sizeof(state), "%s/%s", dd, BLOX_STATE_FILE);
	if (access(state, F_OK) == 0) {
		blox_log(&d->log, BLOX_LOG_INFO, "starting from the state file %s%s", state,
			 config ? " (--config not used)" : "");
		rc = blox_config_load(state, cfg, err, sizeof(err));
		config = state;
	} else {
		rc = config ? blox_config_load(config, cfg, err, sizeof(err))
			    : blox_config_default(cfg);
	}
	if (rc) {
		fprintf(stderr, "bloxd: %s\n", err);
		return 1;
	}
	if (a->nr_listen && !config)
		blox_config_clear_listeners(cfg);
	if (a->data_dir) {
		if (strlen(a->data_dir) >= sizeof(cfg->data_dir)) {
			fprintf(stderr, "bloxd: --data-dir: path too long\n");
			return 2;
		}
		snprintf(cfg->data_dir, sizeof(cfg->data_dir), "%s", a->data_dir);
	}
	for (size_t i = 0; i < a->nr_listen; i++) {
		if (blox_config_add_listener(cfg, a->listen[i].spec, a->listen[i].disc, err,
					     sizeof(err))) {
			fprintf(stderr, "bloxd: %s\n", err);
			return 2;
		}
	}
	if (cfg->nr_listeners == 0) {
		fprintf(stderr, "bloxd: no listener configured\n");
		return 2;
	}
	return 0;
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

static void loop_stop(struct bloxd *d)
{
	event_base_free(d->base);
}

static int target_start(struct bloxd *d)
{
	blox_clock_init_real(&d->clock);
	return nvmf_tgt_init(&d->tgt, d->base, &d->clock, &d->log);
}

static void target_stop(struct bloxd *d)
{
	nvmf_tgt_fini(&d->tgt);
}

static int transport_start(struct bloxd *d)
{
	return nvmf_tcp_create(&d->tgt, &d->tcp);
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

static int prov_start(struct bloxd *d)
{
	return blox_prov_create(&d->tgt, d->tcp, d->cfg->data_dir, &d->prov);
}

static void prov_stop(struct bloxd *d)
{
	blox_prov_destroy(d->prov);
}

static int config_start(struct bloxd *d)
{
	char err[512];
	int rc = blox_prov_apply(d->prov, d->cfg, err, sizeof(err));

	if (rc) {
		blox_log(&d->log, BLOX_LOG_ERR, "%s", err);
		/* A step that fails leaves nothing of itself behind. */
		blox_prov_clear(d->prov);
	}
	return rc;
}

static void config_stop(struct bloxd *d)
{
	blox_prov_clear(d->prov);
}

static int admin_start(struct bloxd *d)
{
	char err[512];
	int rc = blox_admin_create(d->prov, &d->admin_opts, &d->admin, err, sizeof(err));

	if (rc)
		blox_log(&d->log, BLOX_LOG_ERR, "%s", err);
	return rc;
}

static void admin_stop(struct bloxd *d)
{
	blox_admin_destroy(d->admin);
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
	{ "NVMe/TCP transport", transport_start, transport_stop },
	{ "signals", signals_start, signals_stop },
	{ "provisioning service", prov_start, prov_stop },
	{ "configuration", config_start, config_stop },
	{ "admin API", admin_start, admin_stop },
	{ "metrics endpoint", metrics_start, metrics_stop },
};

/* Undo the first @n steps, last first. */
static void steps_undo(struct bloxd *d, size_t n)
{
	while (n--)
		steps[n].stop(d);
}

/* Run every step; on a failure, undo those done. Steps done, or -1. */
static int steps_run(struct bloxd *d)
{
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(steps); i++) {
		int rc = steps[i].start(d);

		if (rc) {
			blox_log(&d->log, BLOX_LOG_ERR, "start-up: %s: %s", steps[i].name,
				 strerror(-rc));
			steps_undo(d, i);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bloxd d = { .log = { .level = BLOX_LOG_INFO } };
	struct blox_config cfg;
	struct args args = { 0 };
	int rc;

	signal(SIGPIPE, SIG_IGN);
	memset(&cfg, 0, sizeof(cfg));
	rc = parse_args(argc, argv, &args, &d);
	if (!rc)
		rc = load_config(&d, &args, &cfg);
	if (rc) {
		blox_config_free(&cfg);
		return rc;
	}
	d.cfg = &cfg;
	rc = steps_run(&d);
	d.cfg = NULL;
	blox_config_free(&cfg);
	if (rc)
		return 1;
	blox_log(&d.log, BLOX_LOG_INFO, "bloxd %s ready", BLOX_VERSION);
	event_base_dispatch(d.base);
	steps_undo(&d, BLOX_ARRAY_SIZE(steps));
	blox_log(&d.log, BLOX_LOG_INFO, "stopped");
	return d.exit_code;
}
