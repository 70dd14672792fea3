/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration-test fixture, bloxctl's part: a bloxctl command against a
 * fixture's bloxd, and what more than one test reads from its JSON; and
 * a bloxd on a command line of its own, started again with the same one.
 * See fixture.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"

int fx_ctl(const struct fx_daemon *d, char *out, size_t len, const char *fmt, ...)
{
	const char *ctl = getenv("BLOXCTL");
	char args[2048], cmd[4096];
	va_list ap;
	size_t n = 0;
	FILE *p;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "%s -s %s %s 2>&1", ctl && *ctl ? ctl : "bloxctl",
		 d->admin_sock, args);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (n + 1 < len) {
		size_t k = fread(out + n, 1, len - 1 - n, p);

		if (k == 0)
			break;
		n += k;
	}
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

void fx_mig_status(const struct fx_daemon *d, unsigned id, char *state, size_t len, double *pct)
{
	static char out[65536];
	json_object *o, *arr, *m, *v;

	assert_int_equal(fx_ctl(d, out, sizeof(out), "migrate status %u --json", id), 0);
	o = json_tokener_parse(out);
	if (!o)
		fail_msg("not JSON: %s", out);
	assert_true(json_object_object_get_ex(o, "migrations", &arr));
	m = json_object_array_get_idx(arr, 0);
	assert_non_null(m);
	assert_true(json_object_object_get_ex(m, "state", &v));
	snprintf(state, len, "%s", json_object_get_string(v));
	*pct = json_object_object_get_ex(m, "percent", &v) ? json_object_get_double(v) : 0;
	json_object_put(o);
}

unsigned fx_mig_start(const struct fx_daemon *d, const char *nqn, unsigned nsid,
		      const char *args)
{
	static char out[65536];
	json_object *o, *v;
	unsigned id;

	assert_int_equal(fx_ctl(d, out, sizeof(out), "--json migrate start %s %u %s", nqn, nsid,
				args),
			 0);
	o = json_tokener_parse(out);
	if (!o)
		fail_msg("not JSON: %s", out);
	assert_true(json_object_object_get_ex(o, "id", &v));
	id = (unsigned)json_object_get_int(v);
	json_object_put(o);
	return id;
}

void fx_mig_wait(const struct fx_daemon *d, unsigned id, const char *want, int seconds)
{
	char st[32] = "";
	double pct;

	for (int i = 0; i < seconds * 10; i++) {
		fx_mig_status(d, id, st, sizeof(st), &pct);
		if (!strcmp(st, want))
			return;
		usleep(100000);
	}
	fail_msg("migration %u: %s after %d s, not %s", id, st, seconds, want);
}

uint16_t fx_other_port(const struct fx_daemon *d, uint16_t other)
{
	uint16_t p;

	do
		p = fx_free_port(FX_ADDR);
	while (p == d->nvm_port || p == d->disc_port || (other && p == other));
	return p;
}

uint16_t fx_listener_add(const struct fx_daemon *d, const char *opts)
{
	static char out[4096];
	uint16_t p = fx_other_port(d, 0);

	if (fx_ctl(d, out, sizeof(out), "listener add " FX_ADDR ":%u %s", p, opts)) {
		fprintf(stderr, "listener add " FX_ADDR ":%u %s: %s\n", p, opts, out);
		return 0;
	}
	return p;
}

void fx_own_init(struct fx_own *o, const char *what)
{
	size_t n = 0;

	memset(o, 0, sizeof(*o));
	fx_make_tmp(o->dir, sizeof(o->dir), what);
	snprintf(o->sock, sizeof(o->sock), "%s/adm.sock", o->dir);
	o->nvm_port = fx_free_port(FX_ADDR);
	do
		o->disc_port = fx_free_port(FX_ADDR);
	while (o->disc_port == o->nvm_port);
	snprintf(o->nvm, sizeof(o->nvm), "%s:%u", FX_ADDR, o->nvm_port);
	snprintf(o->disc, sizeof(o->disc), "%s:%u", FX_ADDR, o->disc_port);
	o->argv[n++] = "-l";
	o->argv[n++] = o->nvm;
	o->argv[n++] = "-D";
	o->argv[n++] = o->disc;
	o->argv[n++] = "--data-dir";
	o->argv[n++] = o->dir;
	o->argv[n++] = "--admin-socket";
	o->argv[n++] = o->sock;
	o->argv[n++] = "--log-level";
	o->argv[n++] = "1";
	o->argv[n] = NULL;
}

void fx_own_start(struct fx_own *o)
{
	int rc = fx_start_argv(&o->d, o->argv, FX_ADDR, o->nvm_port, o->disc_port);

	if (rc)
		fail_msg("bloxd did not start (%s, exit %d)", strerror(-rc), o->d.exit_code);
}

void fx_own_stop(struct fx_own *o)
{
	assert_int_equal(fx_stop(&o->d), 0);
}

void fx_own_fini(struct fx_own *o)
{
	if (o->d.pid > 0)
		fx_stop(&o->d);
	fx_rm_tree(o->dir);
}

void fx_restart(struct fx_env *fx, bool kill9)
{
	uint16_t p1 = fx->d.nvm_port, p2 = fx->d.disc_port;
	const char *argv[] = { "--data-dir", fx->data_dir, "--log-level", "1", NULL };

	if (kill9)
		assert_int_equal(fx_kill(&fx->d, SIGKILL), 128 + SIGKILL);
	else
		assert_int_equal(fx_stop(&fx->d), 0);
	assert_int_equal(fx_start_argv(&fx->d, argv, FX_ADDR, p1, p2), 0);
}

int64_t fx_ns_stat(const struct fx_daemon *d, const char *nqn, unsigned nsid, const char *part,
		   const char *key)
{
	static char out[65536];
	json_object *o, *nss, *n, *sub, *v;
	int64_t r = 0;

	assert_int_equal(fx_ctl(d, out, sizeof(out), "--json stats %s %u", nqn, nsid), 0);
	o = json_tokener_parse(out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "namespaces", &nss));
	n = json_object_array_get_idx(nss, 0);
	if (json_object_object_get_ex(n, part, &sub) && json_object_object_get_ex(sub, key, &v))
		r = json_object_get_int64(v);
	json_object_put(o);
	return r;
}

unsigned fx_ns_die(const struct fx_daemon *d, const char *nqn, unsigned nsid)
{
	static char out[65536];
	json_object *o, *alloc, *dies;
	unsigned die;

	assert_int_equal(fx_ctl(d, out, sizeof(out), "--json ns show %s %u", nqn, nsid), 0);
	o = json_tokener_parse(out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "alloc", &alloc));
	assert_true(json_object_object_get_ex(alloc, "dies", &dies));
	die = (unsigned)json_object_get_int(json_object_array_get_idx(dies, 0));
	json_object_put(o);
	return die;
}

void fx_mig_kill9_resume(struct fx_env *fx, unsigned id)
{
	static char out[65536];
	char st[32] = "";
	double pct = 0;

	for (int i = 0; i < 600 && pct < 10; i++) {
		usleep(50000);
		fx_mig_status(&fx->d, id, st, sizeof(st), &pct);
	}
	assert_string_equal(st, "running");
	fx_restart(fx, true);
	assert_int_equal(fx_ctl(&fx->d, out, sizeof(out), "migrate status %u", id), 0);
	assert_non_null(strstr(out, "running"));
	assert_int_equal(fx_ctl(&fx->d, out, sizeof(out), "migrate share %u 1000", id), 0);
	fx_mig_wait(&fx->d, id, "done", 120);
}
