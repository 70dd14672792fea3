/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared fixture of the loopback integration tests: run a bloxd child
 * process on free loopback ports with a generated JSON config, wait
 * until it accepts connections, stop it with SIGTERM and report its exit
 * status. Plus small helpers the test programs share (random data,
 * controller bring-up against the fixture, fixed host NQNs).
 *
 * The bloxd binary is $BLOXD if set, else the path CMake compiled in.
 */
#ifndef BLOX_FIXTURE_H
#define BLOX_FIXTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ini.h"

#define FX_ADDR "127.0.0.1"
#define FX_HOST_A "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555"
#define FX_HOST_B "nqn.2014-08.org.nvmexpress:uuid:66666666-7777-8888-9999-000000000000"

struct fx_daemon {
	pid_t pid; /* 0 when not running */
	char dir[64]; /* temp dir holding the config */
	char cfg[PATH_MAX];
	uint16_t nvm_port; /* NVM + discovery listener */
	uint16_t disc_port; /* discovery-only listener */
	int exit_code; /* after fx_stop: exit status, 128+signal, or -1 */
	char admin_sock[108]; /* its admin API socket (--admin-socket) */
	char own_data[64]; /* data dir made for it when none was given */
};

/*
 * Start bloxd with a config whose "subsystems" member is the JSON array
 * @subsystems_json; listeners are FX_ADDR:nvm_port and a discovery-only
 * FX_ADDR:disc_port. Waits (up to 10 s) until both ports accept. 0 or
 * -errno.
 */
int fx_start(struct fx_daemon *d, const char *subsystems_json);
/* What fx_start_opts() adds to fx_start(); NULL members: the defaults. */
struct fx_start_opts {
	const char *data_dir; /* --data-dir */
	const char *log_path; /* bloxd's stdout and stderr, appended */
	const char *log_level; /* --log-level; NULL: $BLOX_TEST_LOG_LEVEL or 1 */
	/* NULL-terminated, appended to bloxd's arguments (at most 16). */
	const char *const *extra_args;
	unsigned nofile; /* RLIMIT_NOFILE of bloxd (soft and hard); 0: inherited */
};
/* fx_start() with options; @o NULL is fx_start(). */
int fx_start_opts(struct fx_daemon *d, const char *subsystems_json,
		  const struct fx_start_opts *o);
/*
 * Start bloxd with command-line arguments only (no config file): @argv
 * is a NULL-terminated list appended after the binary name; the ports
 * to wait for are @wait_port (and @wait_port2 if not 0) on @wait_addr.
 */
int fx_start_argv(struct fx_daemon *d, const char *const *argv,
		  const char *wait_addr, uint16_t wait_port,
		  uint16_t wait_port2);
/* fx_start_argv() with bloxd's stdout and stderr appended to @log_path (NULL: inherited). */
int fx_start_argv_log(struct fx_daemon *d, const char *const *argv, const char *log_path,
		      const char *wait_addr, uint16_t wait_port, uint16_t wait_port2);
/* The bloxd binary: $BLOXD, else the one the build made. */
const char *fx_bloxd_path(void);
/*
 * Start bloxd with exactly @args after its name (NULL-terminated: no
 * admin socket or data directory added, no port waited for), its stdout
 * appended to @out_path and its stderr to @log_path (NULL: /dev/null).
 * Its pid (reap it with fx_wait_child()), or -errno.
 */
pid_t fx_spawn_bloxd(const char *const *args, const char *out_path, const char *log_path);
/*
 * fx_spawn_bloxd() run to its end (at most @timeout_ms, then SIGKILL):
 * its stdout into @out (NULL: dropped), its stderr into @err and onto the
 * test's stderr (each NUL-ended). Its exit code, 128+signal, or -1.
 */
int fx_run_bloxd(const char *const *args, char *out, size_t outlen, char *err, size_t errlen,
		 int timeout_ms);
/* A fresh directory /tmp/bloxd-@what-XXXXXX, its path into @out. */
void fx_make_tmp(char *out, size_t len, const char *what);
/* rm -rf @dir (says so on stderr if it could not). */
void fx_rm_tree(const char *dir);
/*
 * SIGTERM the daemon by its pid and wait up to 15 s (then SIGKILL).
 * Returns its exit code (0 is a clean stop; ASan leak reports make it
 * non-zero), 128+signal if killed by a signal. Removes the temp dir.
 */
int fx_stop(struct fx_daemon *d);
/*
 * Send @sig (SIGKILL: a crash) to the daemon by its pid and reap it.
 * Returns its exit code (128+signal when the signal killed it).
 */
int fx_kill(struct fx_daemon *d, int sig);
/* The daemon process is still running. */
bool fx_alive(struct fx_daemon *d);
/*
 * Run "bloxctl -s SOCK <args>" against @d (bloxctl from $BLOXCTL, else
 * the PATH): its output (stdout and stderr) in @out, its exit code
 * returned (128 when it did not exit).
 */
int fx_ctl(const struct fx_daemon *d, char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * Migration @id of @d (bloxctl migrate status ID --json): its state into
 * @state, its percent into *@pct (0 when not given); fails the test when
 * bloxctl does or the answer has no such migration (fixture_ctl.c).
 */
void fx_mig_status(const struct fx_daemon *d, unsigned id, char *state, size_t len, double *pct);
/* bloxctl migrate start @nqn @nsid @args: the migration's id (fails the test on a refusal). */
unsigned fx_mig_start(const struct fx_daemon *d, const char *nqn, unsigned nsid,
		      const char *args);
/* Wait up to @seconds for migration @id to be in state @want (fails the test if not). */
void fx_mig_wait(const struct fx_daemon *d, unsigned id, const char *want, int seconds);
struct fx_env;
/*
 * Stop bloxd (SIGTERM, a clean exit; @kill9: SIGKILL, a crash) and start
 * it again on the program's data directory (fx_group.own_data_dir) and
 * the same ports, with no config: what it serves comes from its state
 * file (fails the test otherwise).
 */
void fx_restart(struct fx_env *fx, bool kill9);
/*
 * Member @key (a number) of object @part of namespace @nsid of @nqn in
 * bloxctl --json stats NQN NSID against @d; 0 when left out.
 */
int64_t fx_ns_stat(const struct fx_daemon *d, const char *nqn, unsigned nsid, const char *part,
		   const char *key);
/* The first die namespace @nsid of @nqn is on (bloxctl ns show --json, alloc.dies). */
unsigned fx_ns_die(const struct fx_daemon *d, const char *nqn, unsigned nsid);
/*
 * Once migration @id is 10% done, kill -9 bloxd and start it again with
 * the same data directory and ports; the migration goes on (running), at
 * share 1000, to its end (fails the test otherwise).
 */
void fx_mig_kill9_resume(struct fx_env *fx, unsigned id);
/*
 * A bloxd on a command line of its own, the same at every start (no
 * config: the embedded default subsystem): -l and -D on free ports of
 * FX_ADDR, --data-dir and --admin-socket in a directory of its own,
 * --log-level 1; argv[0] to argv[9], then NULL (fixture_ctl.c).
 */
struct fx_own {
	struct fx_daemon d;
	char dir[64], sock[108], nvm[32], disc[32];
	uint16_t nvm_port, disc_port;
	const char *argv[16];
};
/* @o zeroed and its command line made, its directory /tmp/bloxd-@what-XXXXXX. */
void fx_own_init(struct fx_own *o, const char *what);
/* Started with that command line; fails the test if it does not come up. */
void fx_own_start(struct fx_own *o);
/* Stopped, exit 0 (fails the test otherwise). */
void fx_own_stop(struct fx_own *o);
/* Stopped if running; its directory removed. */
void fx_own_fini(struct fx_own *o);
/* A currently free TCP port on @addr (bind to port 0 and look). */
uint16_t fx_free_port(const char *addr);
/* A free port on FX_ADDR that is none of @d's and not @other (0: no other). */
uint16_t fx_other_port(const struct fx_daemon *d, uint16_t other);
/*
 * bloxctl listener add FX_ADDR:PORT @opts ("": none) against @d, PORT
 * fx_other_port()'s: that port, or 0 with bloxctl's answer on stderr.
 */
uint16_t fx_listener_add(const struct fx_daemon *d, const char *opts);

/*
 * What a program keeps between the tests of its cmocka group: the daemon
 * and a seed. A program with more puts this first in a struct of its own
 * and gives its size to fx_group_setup().
 */
struct fx_env {
	struct fx_daemon d;
	uint64_t seed;
	char data_dir[64]; /* fx_group.own_data_dir: outlives restarts of bloxd */
	const struct fx_group *group; /* what fx_group_setup() was given */
};

struct fx_group {
	const char *who; /* the program, for its seed line (NULL: no seed) */
	const char *subsystems; /* JSON array, as for fx_start() */
	const char *const *extra_args; /* NULL-terminated, or NULL */
	/* A data directory of the program's own (fx_env.data_dir), removed
	 * at teardown, instead of the one fx_start() makes per start. */
	bool own_data_dir;
	size_t size; /* of the program's struct; 0: a plain struct fx_env */
	/* The program's own set-up of its struct once bloxd runs: 0 or -1. */
	int (*setup)(void *env);
	/* Its own clean-up, first thing at teardown (a failed set-up too). */
	void (*teardown)(void *env);
};

/*
 * cmocka group setup: a zeroed env of g->size in *@state, its seed,
 * bloxd started on g->subsystems, then g->setup. 0, or -1 with nothing
 * left behind.
 */
int fx_group_setup(void **state, const struct fx_group *g);
/*
 * cmocka group teardown: the group's teardown, stop bloxd if it still
 * runs (-1 when it does not exit cleanly, ASan leak reports included),
 * remove the data directory, free the env.
 */
int fx_group_teardown(void **state);

struct CMUnitTest;

/*
 * main() of a test program: @tests as one cmocka group, with
 * fx_group_setup(@g) and fx_group_teardown() around them (@g NULL: no
 * group set-up, the tests bring their own), SIGPIPE ignored (a peer that
 * closes fails a send, not the program). Returns what main returns (see
 * fx_finish()).
 */
int fx_main(const struct fx_group *g, const struct CMUnitTest *tests, size_t n);
#define FX_MAIN(g, tests) fx_main(g, tests, sizeof(tests) / sizeof((tests)[0]))

/*
 * The last test of a group: bloxd still runs and stops cleanly on
 * SIGTERM (exit code 0, so no ASan leak report either). *@state is the
 * group's struct fx_env.
 */
void fx_test_daemon_stops_cleanly(void **state);
#define FX_TEST_DAEMON_STOPS_CLEANLY                                              \
	{ .name = "test_daemon_stops_cleanly", .test_func = fx_test_daemon_stops_cleanly }

/* Bring a controller up on the fixture's NVM port as @hostnqn (NULL: the
 * initiator's default). @qopts NULL: defaults. */
int fx_ctrl(const struct fx_daemon *d, const char *subnqn,
	    const char *hostnqn, uint32_t nr_io,
	    const struct ini_opts *qopts, struct ini_ctrl **out);

/*
 * A controller with one I/O queue on @subnqn as host @hostnqn with host
 * identifier @hostid (reservations tell hosts apart by it), or NULL.
 */
struct ini_ctrl *fx_ctrl_host(const struct fx_daemon *d, const char *subnqn,
			      const char *hostnqn, const uint8_t hostid[16]);

/* Write one random block at @slba and read it back; 0 when equal. */
int fx_rw_check(struct ini_queue *q, uint32_t nsid, uint64_t slba,
		uint32_t block_size);

/*
 * The daemon is alive and a new controller on @subnqn with one I/O queue
 * writes and reads back a random 4 KiB block below @nblocks. 0 or -errno.
 */
int fx_check_daemon(struct fx_daemon *d, const char *subnqn,
		    uint64_t nblocks, uint64_t *seed);

/* An I/O-style SQE with the SGL a host would build (raw-mode tests). */
void fx_make_sqe(struct nvme_sqe *s, uint8_t opcode, uint16_t cid,
		 uint32_t nsid, uint64_t slba, uint32_t nlb, uint32_t len,
		 bool in_capsule);

/* Deterministic pseudo-random data (xorshift64*). */
uint64_t fx_rand(uint64_t *state);
void fx_fill_random(void *buf, size_t len, uint64_t *state);
/* A seed from $BLOX_TEST_SEED or the clock; printed so runs can repeat. */
uint64_t fx_seed(const char *who);

/* Space/NUL-trimmed copy of a fixed-width ASCII field. */
void fx_field_str(char *dst, size_t dlen, const void *src, size_t slen);

/*
 * Return value of main(): with failures, exit at once so the leak report
 * of the cleanups a failed assertion skipped does not bury the failure.
 */
int fx_finish(int failures);

/* Reap child @pid, SIGKILLed after @timeout_ms: its waitpid() status. */
int fx_wait_child(pid_t pid, int timeout_ms);

/* Milliseconds from a monotonic clock. */
int64_t fx_now_ms(void);
void fx_sleep_ms(int ms);

#endif
