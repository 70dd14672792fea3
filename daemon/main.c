/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxd: the NVMe/TCP target daemon. Reads the command line and the
 * start-up config (daemon/conf: args.c), then builds the daemon as a list
 * of steps (event loop, NVMe-oF target, reactors, TCP transport, signals,
 * data directory, provisioning service, listeners, telemetry, admin API,
 * metrics, configuration, health counters) run in order; a failure undoes the steps done, in reverse. It runs until
 * SIGTERM/SIGINT, then closes every connection, lets in-flight I/O drain,
 * waits for the namespaces the admin API is making or tearing down off
 * the loop, and undoes every step in reverse.
 */
#include <errno.h>
#include <event2/event.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "admin.h"
#include "mdns.h"
#include "reactor.h"

#include <unistd.h>

struct bloxd {
	struct bloxd_args opt; /* the command line */
	struct blox_log log;
	struct blox_clock clock;
	struct event_base *base;
	struct nvmf_tgt tgt;
	struct nvmf_tcp *tcp;
	struct event *sigterm, *sigint, *drain;
	struct blox_dir_lock lock;
	struct blox_prov *prov;
	struct blox_config *cfg; /* during start-up */
	struct blox_telemetry *tm;
	struct blox_admin *admin;
	struct blox_health *health;
	unsigned flush_waits; /* drain passes spent on admin answers not yet written */
	struct blox_metrics *metrics;
	struct blox_mdns *mdns; /* NULL: --no-mdns */
	bool stopping;
	int exit_code;
	struct blox_reactors *reactors;
	unsigned long log_errors; /* error lines logged (d->log.errors) */
};

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
		_exit(BLOXD_EX_RUNTIME);
	_exit(BLOXD_EX_RUNTIME);
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
		 (int)sig, d->opt.shutdown_timeout);
	/* From now on a signal, or the timeout, ends the process at once. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	alarm(d->opt.shutdown_timeout);
	blox_sd_notify("STOPPING=1\nSTATUS=shutting down");
	blox_admin_stop(d->admin);
	/* Hosts browsing for discovery controllers stop finding this one now. */
	if (d->mdns)
		blox_mdns_update(d->mdns, NULL, 0);
	TAILQ_FOREACH(p, &d->tgt.ports, link)
		nvmf_tcp_unlisten(d->tcp, p);
	nvmf_tgt_close_ctrls(&d->tgt);
	nvmf_tcp_close_all(d->tcp);
	event_active(d->drain, 0, 0);
}

/* The admin API's options, checked before anything is made (exit 2). */
static int check_admin(struct bloxd *d, const struct blox_config *cfg)
{
	char err[512];

	if (blox_admin_check_opts(&d->opt.admin_opts, cfg->data_dir, err, sizeof(err))) {
		blox_log(&d->log, BLOX_LOG_ERR, "%s", err);
		return BLOXD_EX_USAGE;
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
	uint64_t budget_ns = (uint64_t)d->opt.poll_us * 1000;

	if (!budget_ns) {
		/* Off: libevent's own loop, the clock read where asked; it may sleep at any time. */
		d->tgt.pass.idle_since = UINT64_MAX;
		event_base_dispatch(d->base);
		return;
	}
	d->tgt.pass.cached = true;
	for (;;) {
		uint64_t seen = loop_work(d), until;

		d->tgt.pass.idle_since = blox_clock_now(&d->clock);
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
		d->tgt.lim = d->opt.tgt_limits;
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
	unsigned n = d->opt.nr_reactors ? d->opt.nr_reactors : reactors_auto();
	int rc = blox_reactors_create(d->base, n, d->opt.poll_us, &d->clock, &d->log, &d->reactors);

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
	return nvmf_tcp_create(&d->tgt, &d->opt.tcp_limits, d->reactors, &d->tcp);
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
	/* The referrals' nodes watched (those of the configuration once it is made). */
	if (!rc)
		rc = blox_prov_probe_referrals(d->prov, d->opt.referral_probe_ms);
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

/* The listeners as the mDNS announcer is to show them (after each change). */
static void mdns_listeners_cb(void *arg)
{
	struct bloxd *d = arg;
	struct blox_mdns_svc svcs[64];
	const struct nvmf_port *p;
	size_t n = 0;

	if (d->stopping)
		return;
	TAILQ_FOREACH(p, &d->tgt.ports, link)
		if (n < BLOX_ARRAY_SIZE(svcs))
			svcs[n++] = (struct blox_mdns_svc){ .addr = p->addr, .port = p->svcid };
	if (blox_mdns_update(d->mdns, svcs, n))
		blox_log(&d->log, BLOX_LOG_WARN, "mDNS: out of memory; announcements not updated");
}

/* Zero-touch discovery: the listeners announced while avahi-daemon runs. */
static int mdns_start(struct bloxd *d)
{
	int rc;

	if (d->opt.no_mdns)
		return 0;
	if ((rc = blox_mdns_create(d->base, &d->log, &d->mdns)))
		return rc;
	mdns_listeners_cb(d);
	blox_prov_on_listeners(d->prov, mdns_listeners_cb, d);
	return 0;
}

static void mdns_stop(struct bloxd *d)
{
	blox_prov_on_listeners(d->prov, NULL, NULL);
	blox_mdns_destroy(d->mdns);
	d->mdns = NULL;
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
	int rc = blox_admin_create(d->prov, d->tm, &d->opt.admin_opts, &d->admin, err, sizeof(err));

	if (rc)
		blox_log(&d->log, BLOX_LOG_ERR, "%s", err);
	else
		blox_admin_set_mdns(d->admin, d->mdns);
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

	if (d->opt.metrics_addr &&
	    (rc = blox_metrics_create(d->prov, d->opt.metrics_addr, &d->metrics, err, sizeof(err))))
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
	{ "mDNS announcer", mdns_start, mdns_stop },
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
		return BLOXD_EX_LOCKED;
	if (bind && (rc == -EADDRINUSE || rc == -EADDRNOTAVAIL || rc == -EACCES))
		return BLOXD_EX_BIND;
	if ((s->start == listeners_start || s->start == admin_start) && rc == -EINVAL)
		return BLOXD_EX_USAGE;
	if (s->start == config_start && (rc == -ENOSPC || rc == -EDQUOT))
		return BLOXD_EX_CAPACITY;
	return BLOXD_EX_RUNTIME;
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
	struct bloxd d = { 0 };
	struct bloxd_args *args = &d.opt;
	struct bloxd_sources src = { 0 };
	struct blox_config cfg;
	static char stop_dir[4096];
	unsigned long errors;
	int rc;

	d.log.errors = &d.log_errors;
	signal(SIGPIPE, SIG_IGN);
	memset(&cfg, 0, sizeof(cfg));
	bloxd_args_init(args);
	rc = bloxd_args_parse(argc, argv, args);
	if (rc || args->done)
		return rc;
	d.log.level = args->log_level;
	if (args->syslog && !args->print_config) {
		openlog("bloxd", LOG_PID, LOG_DAEMON);
		d.log.syslog = true;
	}
	rc = bloxd_config_load(args, &d.log, &cfg, &src);
	if (!rc)
		rc = check_admin(&d, &cfg);
	if (!rc && args->print_config)
		rc = bloxd_config_print(&cfg, &src);
	if (rc || args->print_config) {
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
		d.exit_code = BLOXD_EX_RUNTIME;
	}
	if (d.exit_code)
		blox_log(&d.log, BLOX_LOG_INFO, "stopped (exit code %d)", d.exit_code);
	else
		blox_log(&d.log, BLOX_LOG_INFO, "stopped");
	return d.exit_code;
}
