/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_durability's daemon and load: starting bloxd on the round's store,
 * its log, and the random write load (with Flushes or FUA) that a kill
 * interrupts.
 */
#include "durability.h"

/* --- daemon ---------------------------------------------------------- */

void print_log_tail(const struct run *r, int lines)
{
	char cmd[160];

	fprintf(stderr, "---- bloxd log %s (last %d lines but debug) ----\n",
		r->log, lines);
	snprintf(cmd, sizeof(cmd), "grep -v ': debug: ' '%s' | tail -n %d >&2",
		 r->log, lines);
	if (system(cmd) != 0)
		fprintf(stderr, "(no log)\n");
	fprintf(stderr, "---- end of bloxd log ----\n");
}

void make_config(struct run *r)
{
	snprintf(r->subsystems, sizeof(r->subsystems),
		 "[{\"nqn\": \"" SUBNQN "\", \"allow_any_host\": true,"
		 " \"namespaces\": [{\"nsid\": 1, \"backend\": \"nand\","
		 " \"size\": \"64M\", \"block_size\": 4096, \"nand\": {"
		 "\"channels\": 2, \"dies_per_channel\": 2, \"planes_per_die\": 1,"
		 " \"pages_per_block\": 96, \"null_timing\": %s},"
		 " \"ftl\": {\"store\": \"file\", \"plp_ms\": %u}}]}]",
		 r->rd->null_timing ? "true" : "false", r->rd->plp_ms);
}

void log_mark(const struct run *r, const char *what)
{
	FILE *f = fopen(r->log, "a");

	if (f) {
		fprintf(f, "==== test: %s, cycle %u ====\n", what, r->cycle);
		fclose(f);
	}
}

int64_t start_daemon(struct run *r)
{
	const char *lvl = getenv("BLOX_TEST_LOG_LEVEL");
	/* Both I/O queues off reactor 0's thread or on it (qid % 2), whatever
	 * the machine's CPU count would make the default. */
	static const char *const args[] = { "--reactors", "2", NULL };
	struct fx_start_opts o = { .data_dir = r->dir, .log_path = r->log,
				   .log_level = lvl && *lvl ? lvl : "3", .extra_args = args };
	int64_t t0 = fx_now_ms();

	log_mark(r, "start");
	if (fx_start_opts(&r->d, r->subsystems, &o)) {
		print_log_tail(r, 40);
		fail_msg("cycle %u: bloxd did not start on %s", r->cycle, r->dir);
	}
	r->started = true;
	reconnect(r);
	return fx_now_ms() - t0;
}

int64_t reconnect(struct run *r)
{
	struct ini_opts qo;
	int64_t t0 = fx_now_ms();

	ini_opts_init(&qo);
	qo.timeout_ms = Q_TIMEOUT_MS;
	if (fx_ctrl(&r->d, SUBNQN, NULL, NR_QUEUES, &qo, &r->c)) {
		print_log_tail(r, 40);
		fail_msg("cycle %u: no controller after start", r->cycle);
	}
	return fx_now_ms() - t0;
}

void daemon_gone(struct run *r, const char *what, int rc)
{
	bool alive = fx_alive(&r->d);

	print_log_tail(r, 60);
	fail_msg("cycle %u: %s: %s; bloxd %s (exit %d)", r->cycle, what,
		 strerror(-rc), alive ? "alive (hang?)" : "gone",
		 alive ? 0 : r->d.exit_code);
}

/* --- load ------------------------------------------------------------ */

static bool pick_write(struct run *r, uint32_t *slba, uint32_t *nlb)
{
	for (int tries = 0; tries < 8; tries++) {
		uint32_t n = fx_rand(&r->seed) % 10 < 7 ? 1 : MAX_NLB;
		uint32_t span = fx_rand(&r->seed) % 2 ? HOT_LBAS : NLBA;
		uint32_t s = (uint32_t)(fx_rand(&r->seed) % (span - n + 1));
		uint32_t l;

		for (l = s; l < s + n && !r->busy[l]; l++)
			;
		if (l == s + n) {
			*slba = s;
			*nlb = n;
			return true;
		}
	}
	return false;
}

static void submit_write(struct run *r, int qi, struct slot *s, bool fua)
{
	uint32_t slba, nlb;
	int rc;

	if (!pick_write(r, &slba, &nlb))
		return;
	s->id = new_write(r, slba, nlb, fua);
	for (uint32_t i = 0; i < nlb; i++) {
		fill_block(r, s->buf + i * BLK, s->id, slba + i);
		r->busy[slba + i] = 1;
	}
	ini_req_rw(&s->r, nvme_cmd_write, 1, slba, nlb, s->buf, nlb * BLK);
	if (fua)
		s->r.sqe.cdw12 |= 1u << 30;
	s->r.ctx = s;
	s->flush = false;
	s->busy = true;
	rc = ini_submit(r->c->io[qi], &s->r);
	if (rc)
		daemon_gone(r, "write submit", rc);
}

static void submit_flush(struct run *r, int qi, struct slot *s)
{
	int rc;

	ini_req_init(&s->r, nvme_cmd_flush, 1, NULL, 0, INI_DIR_NONE);
	s->r.ctx = s;
	s->flush = true;
	s->busy = true;
	s->mark = r->cseq;
	rc = ini_submit(r->c->io[qi], &s->r);
	if (rc)
		daemon_gone(r, "flush submit", rc);
}

void load(struct run *r, bool crash, struct load_stats *ls)
{
	const struct round *rd = r->rd;
	int span = rd->load_max_ms - rd->load_min_ms;
	int ms = rd->load_min_ms + (int)(fx_rand(&r->seed) % (uint64_t)(span + 1));
	int64_t t0 = fx_now_ms(), end = t0 + ms;
	uint64_t next_flush = r->cseq + 8 + fx_rand(&r->seed) % 400;
	bool flush_out = false, stop = false;
	/* One time in five, and at least once a round (by its second cycle). */
	bool idle_kill = crash && (fx_rand(&r->seed) % 5 == 0 ||
				   (r->cycle >= 2 && !r->idle_kills));
	uint32_t outstanding = 0;
	int rr = 0;

	memset(ls, 0, sizeof(*ls));
	ls->idle_kill = idle_kill;
	r->idle_kills += idle_kill;
	for (;;) {
		struct ini_req *got[MAX_QD];
		int qi, n;

		if (fx_now_ms() >= end) {
			if (crash && !idle_kill)
				break;
			stop = true;
		}
		for (qi = 0; !stop && qi < NR_QUEUES; qi++) {
			for (uint32_t k = 0; k < rd->qd; k++) {
				struct slot *s = &r->slots[qi][k];

				if (s->busy)
					continue;
				if (!rd->fua_only && !flush_out &&
				    r->cseq >= next_flush) {
					submit_flush(r, qi, s);
					flush_out = true;
				} else {
					/* Some FUA writes in flush mode too. */
					submit_write(r, qi, s,
						     rd->fua_only ||
							     fx_rand(&r->seed) % 20 == 0);
				}
				if (s->busy)
					outstanding++;
			}
		}
		if (!outstanding) {
			if (stop)
				break;
			continue;
		}
		for (qi = rr; !ini_queue_outstanding(r->c->io[qi]);)
			qi = (qi + 1) % NR_QUEUES;
		rr = (qi + 1) % NR_QUEUES;
		n = ini_poll(r->c->io[qi], got, MAX_QD);
		if (n < 0)
			daemon_gone(r, "waiting for completions", n);
		for (int i = 0; i < n; i++) {
			struct slot *s = got[i]->ctx;
			uint16_t st = ini_status(&s->r.cqe);

			if (st) {
				print_log_tail(r, 40);
				fail_msg("cycle %u: %s failed with status 0x%x",
					 r->cycle, s->flush ? "flush" : "write", st);
			}
			s->busy = false;
			outstanding--;
			if (s->flush) {
				model_flushed(r, s->mark);
				flush_out = false;
				next_flush = r->cseq + 8 + fx_rand(&r->seed) % 400;
				ls->flushes++;
			} else {
				model_write_done(r, s->id);
				ls->writes++;
				ls->bytes += r->w[s->id].nlb * BLK;
				r->t_fua += r->w[s->id].fua;
			}
		}
	}
	ls->ms = (int)(fx_now_ms() - t0);
	if (!crash)
		return;
	if (idle_kill)
		fx_sleep_ms((int)(fx_rand(&r->seed) % 300));
	if (rd->power_cut) {
		char out[2048];
		int rc;

		/* The namespace's power, cut from the admin API: bloxd stays up. */
		log_mark(r, idle_kill ? "power cut (idle)" : "power cut");
		rc = fx_ctl(&r->d, out, sizeof(out), "fault power-cut %s 1", SUBNQN);
		if (rc) {
			print_log_tail(r, 40);
			fail_msg("cycle %u: bloxctl fault power-cut exited %d: %s", r->cycle, rc,
				 out);
		}
		/* What the cut did, on one line. */
		for (char *p = out; *p; p++)
			if (*p == '\n')
				*p = ';';
		printf("  cycle %2u: %s\n", r->cycle, out);
	} else {
		/* kill -9 by PID, mostly with the load still running. */
		log_mark(r, idle_kill ? "kill -9 (idle)" : "kill -9");
		if (fx_kill(&r->d, SIGKILL) != 128 + SIGKILL)
			fail_msg("cycle %u: bloxd was not killed by SIGKILL (exit %d)",
				 r->cycle, r->d.exit_code);
		r->started = false;
	}
	for (int qi = 0; qi < NR_QUEUES; qi++) {
		for (uint32_t k = 0; k < rd->qd; k++) {
			struct slot *s = &r->slots[qi][k];
			struct wrec *w;

			if (!s->busy)
				continue;
			s->busy = false;
			if (s->flush)
				continue;
			w = &r->w[s->id];
			w->at_kill = true;
			ls->at_kill++;
			for (uint32_t l = w->slba; l < w->slba + w->nlb; l++) {
				r->busy[l] = 0;
				hist_add(&r->hist[l], s->id, AT_KILL);
			}
		}
	}
	ini_ctrl_destroy(r->c);
	r->c = NULL;
}

/* --- rounds' set-up ------------------------------------------------- */

static double dur_scale(void)
{
	const char *e = getenv("BLOX_DURABILITY_SCALE");
	char *end;
	double f;

	if (!e || !*e)
		return 1;
	f = strtod(e, &end);
	if (*end || !(f > 0 && f <= 1000))
		fail_msg("BLOX_DURABILITY_SCALE=%s: not a factor in (0, 1000]", e);
	return f;
}

uint32_t dur_cycles(const struct round *rd)
{
	const char *e = getenv("BLOX_DURABILITY_CYCLES");
	uint32_t n = e && *e ? (uint32_t)strtoul(e, NULL, 0) : rd->cycles;

	return (uint32_t)(n * dur_scale() + 0.5);
}

int dur_budget_ms(const struct round *rd)
{
	return (int)(rd->budget_ms * dur_scale() + 0.5);
}

int dur_setup(void **state)
{
	static uint64_t base_seed;
	struct run *r = calloc(1, sizeof(*r));

	if (!r)
		return -1;
	if (!base_seed)
		base_seed = fx_seed("test_durability");
	r->rd = *state;
	r->seed = base_seed;
	for (const char *p = r->rd->name; *p; p++) /* FNV-1a: one per round */
		r->seed = (r->seed ^ (uint8_t)*p) * 0x100000001b3ull;
	r->pat_seed = fx_rand(&r->seed);
	snprintf(r->dir, sizeof(r->dir), "/tmp/blox-durability-XXXXXX");
	if (!mkdtemp(r->dir)) {
		free(r);
		return -1;
	}
	snprintf(r->log, sizeof(r->log), "%s/bloxd.log", r->dir);
	for (int qi = 0; qi < NR_QUEUES; qi++)
		for (int k = 0; k < MAX_QD; k++) {
			r->slots[qi][k].buf = malloc(MAX_NLB * BLK);
			if (!r->slots[qi][k].buf)
				return -1;
		}
	make_config(r);
	*state = r;
	return 0;
}

int dur_teardown(void **state)
{
	struct run *r = *state;
	char cmd[128];

	if (r->c)
		ini_ctrl_destroy(r->c);
	if (r->started)
		fx_stop(&r->d);
	if (r->ok) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", r->dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", r->dir);
	} else {
		fprintf(stderr, "%s: data dir and bloxd.log kept in %s\n",
			r->rd->name, r->dir);
	}
	for (uint32_t l = 0; l < NLBA; l++)
		free(r->hist[l].e);
	for (int qi = 0; qi < NR_QUEUES; qi++)
		for (int k = 0; k < MAX_QD; k++)
			free(r->slots[qi][k].buf);
	free(r->w);
	free(r);
	return 0;
}
