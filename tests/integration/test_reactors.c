/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxd with several reactors (--reactors 2, then 4): I/O queues move to
 * reactor qid % N after their Connect, everything else stays on reactor
 * 0. Over loopback, with a thread per initiator I/O queue:
 *
 * - the queues land where they should (bloxctl ctrl list --json, status
 *   --json) and verified I/O (write a pattern, read it back, compare) runs
 *   on every namespace (ram of two block sizes, nand-timing, two nand on
 *   two devices) from queues on every reactor at once;
 * - namespaces created and deleted through bloxctl while I/O runs: I/O to
 *   the deleted one ends with an NVMe status, the rest goes on;
 * - a controller whose I/O queues live on reactors 1..N-1 loses its admin
 *   connection, or its keep-alive timeout expires: bloxd closes its
 *   queues, and the host gets a new one; a client (bloxperf) killed with
 *   SIGKILL mid-I/O leaves nothing behind;
 * - SIGTERM with I/O on every reactor: exit 0, and bloxd starts again;
 * - NAND devices live on reactors of their own (the two own-device nand
 *   namespaces above are spread over them, the core's reactor last): a
 *   registered device made with bloxctl lands off reactor 0, one pinned
 *   with --reactor lands there, one past --reactors is refused; vSSDs on
 *   it serve verified I/O from queues on every reactor while other vSSDs
 *   are created, written and deleted on it and it is migrated online to
 *   another channel.
 *
 * No timing is asserted: the deadlines only turn a hang into a failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"
#include "reactors.h"

/*
 * ram 4 KiB, ram 512 B, nand-timing, nand twice: every namespace backend
 * with data, and two NAND devices (each nand namespace has its own) serving
 * at once.
 */
const struct nsg nss[NR_NS] = {
	{ 1, 4096, (32u << 20) / 4096 },
	{ 2, 512, (16u << 20) / 512 },
	{ 3, 4096, (32u << 20) / 4096 },
	{ 4, 4096, (16u << 20) / 4096 },
	{ 5, 4096, (16u << 20) / 4096 },
};

const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"  {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"32M\", \"block_size\": 4096},"
	"  {\"nsid\": 2, \"backend\": \"ram\", \"size\": \"16M\", \"block_size\": 512},"
	"  {\"nsid\": 3, \"backend\": \"nand-timing\", \"size\": \"32M\", \"nand\": {"
	"   \"channels\": 2, \"dies_per_channel\": 1, \"planes_per_die\": 1,"
	"   \"blocks_per_plane\": 64, \"pages_per_block\": 96, \"t_read_us\": 50}},"
	"  {\"nsid\": 4, \"backend\": \"nand\", \"size\": \"16M\", \"nand\": {"
	"   \"channels\": 2, \"dies_per_channel\": 2, \"planes_per_die\": 1,"
	"   \"pages_per_block\": 96}},"
	"  {\"nsid\": 5, \"backend\": \"nand\", \"size\": \"16M\", \"nand\": {"
	"   \"channels\": 1, \"dies_per_channel\": 4, \"planes_per_die\": 2,"
	"   \"pages_per_block\": 96}}"
	"] } ]";

static const char *const args2[] = { "--reactors", "2", NULL };
static const char *const args4[] = { "--reactors", "4", NULL };

static int env_setup(void *p)
{
	struct env *e = p;

	e->n = (unsigned)atoi(e->fx.group->extra_args[1]);
	return e->n >= 2 ? 0 : -1;
}

/* bloxctl @fmt into e->out; its exit code. */
int ctl(struct env *e, const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = fx_ctl(&e->fx.d, e->out, sizeof(e->out), "%s", cmd);
	if (rc)
		fprintf(stderr, "bloxctl %s: exit %d: %s\n", cmd, rc, e->out);
	return rc;
}

struct ini_ctrl *ctrl_up(struct env *e, const char *host, uint32_t nr_io)
{
	struct ini_ctrl *c = NULL;
	struct ini_opts o;

	ini_opts_init(&o);
	o.timeout_ms = Q_TIMEOUT_MS;
	o.depth = 64;
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, host, nr_io, &o, &c), 0);
	return c;
}

/* ---- What bloxctl says ---- */

json_object *ctl_json(struct env *e, const char *cmd)
{
	json_object *o;

	assert_int_equal(ctl(e, "--json %s", cmd), 0);
	o = json_tokener_parse(e->out);
	if (!o)
		fprintf(stderr, "not JSON: %s\n", e->out);
	assert_non_null(o);
	return o;
}

uint64_t jnum(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no %s in %s", key, json_object_to_json_string(o));
	return (uint64_t)json_object_get_int64(v);
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no %s in %s", key, json_object_to_json_string(o));
	return json_object_get_string(v);
}

/* The controllers of SUBNQN (a reference the caller puts). */
static json_object *ctrls(struct env *e, json_object **root)
{
	json_object *arr;

	*root = ctl_json(e, "ctrl list " SUBNQN);
	if (!json_object_object_get_ex(*root, "controllers", &arr))
		return NULL; /* none: an empty repeated field is left out */
	return arr;
}

/*
 * Every queue of every controller of SUBNQN is on reactor qid % N (the
 * admin queue on 0), the I/O queues of controller @cntlid (0: of all)
 * cover the reactors in @want (a bit each); bloxctl status says N reactors,
 * each with its queues.
 */
static void check_placement(struct env *e, uint16_t cntlid, uint32_t want)
{
	json_object *root, *arr = ctrls(e, &root), *st, *rq;
	uint32_t seen = 0;
	size_t n;

	assert_non_null(arr);
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *c = json_object_array_get_idx(arr, i), *qs;
		bool mine = !cntlid || jnum(c, "cntlid") == cntlid;

		assert_true(json_object_object_get_ex(c, "queues", &qs));
		for (size_t k = 0; k < json_object_array_length(qs); k++) {
			json_object *q = json_object_array_get_idx(qs, k);
			uint32_t qid = (uint32_t)jnum(q, "qid"), r = (uint32_t)jnum(q, "reactor");

			if (r != (qid ? qid % e->n : 0))
				fail_msg("controller %llu queue %u on reactor %u, not %u",
					 (unsigned long long)jnum(c, "cntlid"), qid, r,
					 qid ? qid % e->n : 0);
			if (mine && qid)
				seen |= 1u << r;
		}
	}
	json_object_put(root);
	if ((seen & want) != want)
		fail_msg("I/O queues on reactors 0x%x, wanted 0x%x", seen, want);

	st = ctl_json(e, "status");
	assert_int_equal(jnum(st, "reactors"), e->n);
	assert_true(json_object_object_get_ex(st, "reactor_queues", &rq));
	n = json_object_array_length(rq);
	assert_int_equal(n, e->n);
	for (size_t i = 0; i < n; i++)
		if ((want >> i & 1) && !json_object_get_int64(json_object_array_get_idx(rq, i)))
			fail_msg("status: no queue on reactor %zu: %s", i, json_object_to_json_string(st));
	json_object_put(st);
	/* The table says it too. */
	assert_int_equal(ctl(e, "ctrl list " SUBNQN), 0);
	assert_non_null(strstr(e->out, "@r1"));
}

/* Controllers of SUBNQN from @host now. */
static unsigned host_ctrls(struct env *e, const char *host)
{
	json_object *root, *arr = ctrls(e, &root);
	unsigned n = 0;

	for (size_t i = 0; arr && i < json_object_array_length(arr); i++)
		n += !strcmp(jstr(json_object_array_get_idx(arr, i), "host_nqn"), host);
	json_object_put(root);
	return n;
}

/* Wait until @host has no controller left on SUBNQN. */
static void wait_host_gone(struct env *e, const char *host)
{
	int64_t end = fx_now_ms() + WAIT_MS;

	while (host_ctrls(e, host)) {
		if (fx_now_ms() > end)
			fail_msg("%s still has a controller %d s on: %s", host, WAIT_MS / 1000,
				 e->out);
		fx_sleep_ms(50);
	}
}

/* Shut controller *@c down and free it. */
void ctrl_down(struct ini_ctrl **c)
{
	int rc = ini_ctrl_shutdown(*c);

	ini_ctrl_destroy(*c);
	*c = NULL;
	assert_int_equal(rc, 0);
}

/* After each test, passed or not: no worker runs, no controller is left. */
static int cleanup(void **state)
{
	struct env *e = *state;

	workers_join(e->wa, MAX_WORKERS, true);
	workers_join(e->wb, MAX_WORKERS, true);
	ini_ctrl_destroy(e->ca);
	ini_ctrl_destroy(e->cb);
	ini_ctrl_destroy(e->cc);
	e->ca = e->cb = e->cc = NULL;
	return 0;
}

/*
 * A new controller of @host, N+1 queues, two verified rounds on every
 * namespace each, in the LBA regions from @id0 (workers e->wb).
 */
static void fresh_ctrl_works(struct env *e, const char *host, unsigned id0)
{
	unsigned n;

	e->cc = ctrl_up(e, host, e->n + 1);
	n = workers_on(e->wb, e->cc, id0, NULL, 2 * NR_NS);
	workers_join(e->wb, n, false);
	workers_check_ok(e->wb, n, host);
	ctrl_down(&e->cc);
}

static uint32_t all_reactors(const struct env *e)
{
	return (1u << e->n) - 1;
}

/* ---- Tests ---- */

/* Two hosts, N+1 I/O queues each (qid % N covers every reactor), verified I/O. */
static void test_io_every_reactor(void **state)
{
	struct env *e = *state;
	unsigned na, nb;

	e->ca = ctrl_up(e, FX_HOST_A, e->n + 1);
	e->cb = ctrl_up(e, FX_HOST_B, e->n + 1);
	check_placement(e, e->ca->cntlid, all_reactors(e));
	check_placement(e, e->cb->cntlid, all_reactors(e));
	na = workers_on(e->wa, e->ca, 0, NULL, 3 * NR_NS);
	nb = workers_on(e->wb, e->cb, na, NULL, 3 * NR_NS);
	workers_join(e->wa, na, false);
	workers_join(e->wb, nb, false);
	workers_check_ok(e->wa, na, "io A");
	workers_check_ok(e->wb, nb, "io B");
	ctrl_down(&e->ca);
	ctrl_down(&e->cb);
	assert_int_equal(host_ctrls(e, FX_HOST_A) + host_ctrls(e, FX_HOST_B), 0);
}

/*
 * I/O on every namespace from host A's queues (every reactor) while
 * bloxctl creates a namespace, host B's queues (every reactor) write and
 * read it, and bloxctl deletes it: B's I/O ends with an NVMe status, A's
 * goes on without error. A second namespace comes and goes with no I/O.
 */
static void test_ns_create_delete_under_io(void **state)
{
	struct env *e = *state;
	struct worker *wa = e->wa, *wb = e->wb;
	unsigned na;

	e->ca = ctrl_up(e, FX_HOST_A, e->n + 1);
	e->cb = ctrl_up(e, FX_HOST_B, e->n);
	check_placement(e, e->cb->cntlid, all_reactors(e));
	na = workers_on(wa, e->ca, 0, NULL, 0);
	assert_true(workers_wait_rounds(wa, na, 1));
	for (unsigned it = 0; it < 3; it++) {
		const struct nsg doomed = { DOOMED_NSID + it, 4096, (16u << 20) / 4096 };
		struct ini_ctrl *b = e->cb;
		struct ini_req rd;
		uint8_t buf[4096];
		unsigned nb;

		assert_int_equal(ctl(e, "ns create %s --nsid %u --size 16M --backend ram", SUBNQN,
				     doomed.nsid), 0);
		assert_int_equal(ctl(e, "ns create %s --nsid %u --size 16M --backend %s", SUBNQN,
				     CHURN_NSID, it & 1 ? "nand-timing" : "ram"), 0);
		e->doomed = doomed;
		nb = workers_on(wb, b, na, &e->doomed, 0);
		assert_true(workers_wait_rounds(wb, nb, 1));
		assert_int_equal(ctl(e, "ns delete %s %u --force", SUBNQN, CHURN_NSID), 0);
		assert_int_equal(ctl(e, "ns delete %s %u --force", SUBNQN, doomed.nsid), 0);
		/* B's workers stop at their first error: an NVMe status, no hang. */
		if (!workers_wait_finished(wb, nb))
			fail_msg("I/O to deleted namespace %u still running", doomed.nsid);
		workers_join(wb, nb, false);
		for (unsigned i = 0; i < nb; i++) {
			if (wb[i].rc != -EIO)
				fail_msg("worker on qid %u after the delete of %u: %s",
					 ini_queue_qid(wb[i].q), doomed.nsid, wb[i].why);
			fprintf(stderr, "qid %u: nsid %u deleted: status 0x%x\n",
				ini_queue_qid(wb[i].q), doomed.nsid, wb[i].status);
		}
		/* Its queues are fine: the namespace is just gone. */
		for (uint32_t q = 0; q < b->nr_io; q++) {
			ini_req_rw(&rd, nvme_cmd_read, doomed.nsid, 0, 1, buf, sizeof(buf));
			assert_int_equal(ini_exec(b->io[q], &rd), 0);
			assert_int_equal(INI_SC_CODE(ini_status(&rd.cqe)), NVME_SC_INVALID_NS);
			assert_int_equal(fx_rw_check(b->io[q], 1, nss[0].nblocks - 1 - q, 4096), 0);
		}
		for (unsigned i = 0; i < na; i++)
			if (atomic_load(&wa[i].finished))
				fail_msg("worker on qid %u stopped: %s", ini_queue_qid(wa[i].q),
					 wa[i].why);
	}
	workers_join(wa, na, true);
	workers_check_ok(wa, na, "namespaces under I/O");
	ctrl_down(&e->ca);
	ctrl_down(&e->cb);
}

/*
 * Host B's controller with N-1 I/O queues (qids 1..N-1: reactors 1..N-1)
 * loses its admin connection mid-I/O: bloxd ends the controller and
 * closes those queues (the workers see the connection go or an NVMe
 * status, never a timeout or bad data), host A's I/O goes on, and B gets
 * a new controller that works.
 */
static void test_admin_drop_under_io(void **state)
{
	struct env *e = *state;
	struct worker *wa = e->wa, *wb = e->wb;
	unsigned na, nb;

	e->ca = ctrl_up(e, FX_HOST_A, e->n + 1);
	e->cb = ctrl_up(e, FX_HOST_B, e->n - 1);
	check_placement(e, e->cb->cntlid, all_reactors(e) & ~1u);
	na = workers_on(wa, e->ca, 0, NULL, 0);
	nb = workers_on(wb, e->cb, na, NULL, 0);
	assert_true(workers_wait_rounds(wb, nb, 1));
	ini_queue_destroy(e->cb->admin);
	e->cb->admin = NULL;
	if (!workers_wait_finished(wb, nb))
		fail_msg("bloxd did not close the I/O queues of a controller whose admin "
			 "connection went");
	workers_join(wb, nb, false);
	for (unsigned i = 0; i < nb; i++) {
		fprintf(stderr, "qid %u after the admin connection went: %s\n",
			ini_queue_qid(wb[i].q), wb[i].why);
		assert_int_not_equal(wb[i].rc, 0);
		assert_int_not_equal(wb[i].rc, -ETIMEDOUT);
		assert_int_not_equal(wb[i].rc, -EILSEQ);
	}
	ini_ctrl_destroy(e->cb);
	e->cb = NULL;
	wait_host_gone(e, FX_HOST_B);
	fresh_ctrl_works(e, FX_HOST_B, na); /* the regions B's first workers had */
	for (unsigned i = 0; i < na; i++)
		if (atomic_load(&wa[i].finished))
			fail_msg("worker on qid %u stopped: %s", ini_queue_qid(wa[i].q), wa[i].why);
	workers_join(wa, na, true);
	workers_check_ok(wa, na, "bystander");
	ctrl_down(&e->ca);
}

/*
 * Host C's controller with a 1 s keep-alive timeout and N-1 I/O queues
 * (reactors 1..N-1) does verified I/O on them, then stays silent: bloxd
 * ends it when the timeout expires and closes every one of its
 * connections, the I/O queues on the other reactors too; C connects again.
 */
static void test_kato_expiry_closes_queues(void **state)
{
	struct env *e = *state;
	struct ini_ctrl_args a;
	uint16_t st = 0;
	unsigned n;

	ini_ctrl_args_init(&a, FX_ADDR, e->fx.d.nvm_port, SUBNQN);
	a.hostnqn = FX_HOST_C;
	a.kato_ms = 1000;
	a.nr_io = e->n - 1;
	a.qopts.timeout_ms = Q_TIMEOUT_MS;
	assert_int_equal(ini_ctrl_connect(&a, &e->cc, &st), 0);
	check_placement(e, e->cc->cntlid, all_reactors(e) & ~1u);
	n = workers_on(e->wb, e->cc, 0, NULL, NR_NS);
	workers_join(e->wb, n, false);
	workers_check_ok(e->wb, n, "before the keep-alive timeout");
	for (uint32_t i = 0; i < e->cc->nr_io; i++)
		if (ini_wait_closed(e->cc->io[i], WAIT_MS))
			fail_msg("I/O queue %u on reactor %u still open %d s after the keep-alive "
				 "timeout", i + 1, (i + 1) % e->n, WAIT_MS / 1000);
	assert_int_equal(ini_wait_closed(e->cc->admin, WAIT_MS), 0);
	ini_ctrl_destroy(e->cc);
	e->cc = NULL;
	wait_host_gone(e, FX_HOST_C);
	fresh_ctrl_works(e, FX_HOST_C, 0);
}

/*
 * bloxperf (two controllers of host C, N+1 queues each: every reactor)
 * killed with SIGKILL mid-I/O: bloxd drops its controllers, host C
 * connects again and its verified I/O works.
 */
static void test_client_killed_under_io(void **state)
{
	struct env *e = *state;
	const char *bin = getenv("BLOXPERF");
	char port[8], queues[8];
	int64_t end = fx_now_ms() + WAIT_MS;
	bool busy = false;
	pid_t pid;
	int st;

	snprintf(port, sizeof(port), "%u", e->fx.d.nvm_port);
	snprintf(queues, sizeof(queues), "%u", e->n + 1);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execlp(bin && *bin ? bin : "bloxperf", "bloxperf", "-a", FX_ADDR, "-p", port,
		       "-n", SUBNQN, "--hostnqn", FX_HOST_C, "-N", "1", "-q", "16", "-o",
		       "16384", "-w", "randrw", "-Q", queues, "-C", "2", "-t", "120",
		       (char *)NULL);
		_exit(127);
	}
	/* Until every I/O queue of its two controllers has run commands. */
	while (!busy && fx_now_ms() < end && !waitpid(pid, &st, WNOHANG)) {
		json_object *root, *arr = ctrls(e, &root);
		unsigned active = 0;

		for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
			json_object *c = json_object_array_get_idx(arr, i), *qs;

			if (strcmp(jstr(c, "host_nqn"), FX_HOST_C) ||
			    !json_object_object_get_ex(c, "queues", &qs))
				continue;
			for (size_t k = 0; k < json_object_array_length(qs); k++) {
				json_object *q = json_object_array_get_idx(qs, k);

				active += jnum(q, "qid") && jnum(q, "commands") > 1;
			}
		}
		json_object_put(root);
		busy = active == 2 * (e->n + 1);
		if (!busy)
			fx_sleep_ms(50);
	}
	if (!busy) {
		kill(pid, SIGKILL);
		fx_wait_child(pid, WAIT_MS);
		fail_msg("bloxperf's queues never all ran I/O (or it ended by itself)");
	}
	assert_int_equal(kill(pid, SIGKILL), 0);
	st = fx_wait_child(pid, WAIT_MS);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	wait_host_gone(e, FX_HOST_C);
	assert_true(fx_alive(&e->fx.d));
	fresh_ctrl_works(e, FX_HOST_C, 0);
}

/*
 * SIGTERM with verified I/O running on every reactor: bloxd exits 0
 * (the workers see their connections close, never bad data), and starts
 * again with its reactors.
 */
static void test_sigterm_under_io(void **state)
{
	struct env *e = *state;
	struct fx_start_opts o = { .extra_args = e->fx.group->extra_args };
	struct worker *w = e->wa;
	unsigned n;

	e->ca = ctrl_up(e, FX_HOST_A, e->n + 1);
	e->cb = ctrl_up(e, FX_HOST_B, e->n + 1);
	n = workers_on(w, e->ca, 0, NULL, 0);
	n += workers_on(w + n, e->cb, n, NULL, 0);
	assert_true(workers_wait_rounds(w, n, 1));
	assert_int_equal(fx_stop(&e->fx.d), 0);
	if (!workers_wait_finished(w, n))
		fail_msg("I/O still running after bloxd stopped");
	workers_join(w, n, false);
	for (unsigned i = 0; i < n; i++) {
		assert_int_not_equal(w[i].rc, 0);
		assert_int_not_equal(w[i].rc, -ETIMEDOUT);
		assert_int_not_equal(w[i].rc, -EILSEQ);
	}
	ini_ctrl_destroy(e->ca);
	ini_ctrl_destroy(e->cb);
	e->ca = e->cb = NULL;
	assert_int_equal(fx_start_opts(&e->fx.d, subsystems, &o), 0);
	e->ca = ctrl_up(e, FX_HOST_A, e->n + 1);
	check_placement(e, e->ca->cntlid, all_reactors(e));
	n = workers_on(w, e->ca, 0, NULL, NR_NS);
	workers_join(w, n, false);
	workers_check_ok(w, n, "after the restart");
	ctrl_down(&e->ca);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_io_every_reactor, cleanup),
	cmocka_unit_test_teardown(test_ns_create_delete_under_io, cleanup),
	cmocka_unit_test_teardown(test_admin_drop_under_io, cleanup),
	cmocka_unit_test_teardown(test_kato_expiry_closes_queues, cleanup),
	cmocka_unit_test_teardown(test_client_killed_under_io, cleanup),
	cmocka_unit_test_teardown(test_vssds_on_device_reactor, cleanup),
	cmocka_unit_test_teardown(test_sigterm_under_io, cleanup),
	cmocka_unit_test_teardown(test_pinned_past_reactors, cleanup),
	FX_TEST_DAEMON_STOPS_CLEANLY,
};

int main(void)
{
	struct fx_group g = { .who = "test_reactors", .subsystems = subsystems,
			      .size = sizeof(struct env), .setup = env_setup };
	int rc;

	g.extra_args = args2;
	rc = FX_MAIN(&g, tests);
	if (rc)
		return rc;
	g.extra_args = args4;
	return FX_MAIN(&g, tests);
}
