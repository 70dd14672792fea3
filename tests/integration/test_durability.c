/*
 * Crash durability of the "nand" backend (the FTL on emulated flash in a
 * file store under --data-dir), seen from a host over loopback.
 *
 * Each round runs cycles on one store: start bloxd, check what it
 * recovered, put a random write load on it (4 KiB and 64 KiB writes of
 * seeded patterns over two I/O queues, Flushes now and then, or only FUA
 * writes), and kill -9 the daemon at a random moment (mostly mid-load,
 * one time in five after the load drained and a short idle pause, when
 * only background work runs). The test keeps a model of every LBA: the
 * write that the last completed Flush (or FUA completion) made durable,
 * and the writes that may or may not have survived (completed after that
 * Flush was sent, or still in flight at the kill). After a restart every LBA must read back the
 * durable write or one of those later ones; zeroes where data was
 * flushed, an older version, data of another LBA or garbage is a failure.
 * A round ends with a drained load, SIGTERM (exit 0) and a final restart
 * that must give back exactly the last completed write of every LBA.
 *
 * Every block carries a header (magic, write id, LBA) before its seeded
 * pattern, so a wrong block tells which write it came from. bloxd logs at
 * level 3 (or $BLOX_TEST_LOG_LEVEL) into bloxd.log in the round's data
 * dir, which is kept when the round fails. $BLOX_DURABILITY_CYCLES sets
 * the cycle count of every round, $BLOX_DURABILITY_ROUND picks rounds by
 * name (a cmocka filter pattern), $BLOX_TEST_SEED repeats a run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:durability"
#define BLK 4096u
#define NLBA (64u * 1024 * 1024 / BLK)
#define HOT_LBAS (NLBA / 8) /* half the writes go here: many versions */
#define MAX_NLB 16u /* 64 KiB */
#define MAX_QD 32
#define NR_QUEUES 2
#define VERIFY_QD 16
#define MAGIC 0xb10cd0a7u
#define Q_TIMEOUT_MS 30000 /* longer than any sane latency: a hang */
#define AT_KILL UINT64_MAX /* hist entry of a write in flight at a kill */
#define MAX_REPORT 16

struct round {
	const char *name;
	bool null_timing;
	bool fua_only; /* no Flush; every write is FUA */
	uint32_t cycles;
	uint32_t qd; /* per I/O queue */
	int load_min_ms, load_max_ms; /* the kill comes in this window */
	int budget_ms; /* no new cycle after this much time */
};

/* A write that completed after the last durable point, or was in flight
 * at a kill: it may be what an LBA holds. */
struct hent {
	uint32_t id;
	uint64_t cseq; /* completion number, AT_KILL if none */
};

struct hist {
	uint32_t n, cap;
	struct hent *e;
};

/* What the test knows of each write (diagnostics). */
struct wrec {
	uint32_t slba;
	uint16_t nlb;
	uint16_t cycle;
	bool fua, done, at_kill;
	uint64_t cseq;
};

struct slot {
	struct ini_req r;
	uint8_t *buf;
	bool busy, flush;
	uint32_t id; /* write id */
	uint64_t mark; /* flush: write completions before it was sent */
};

struct run {
	const struct round *rd;
	uint64_t seed, pat_seed;
	char dir[64], log[96];
	char subsystems[1024]; /* the config's "subsystems" */
	struct fx_daemon d;
	bool started;
	struct ini_ctrl *c;
	struct slot slots[NR_QUEUES][MAX_QD];
	/* The model. */
	uint32_t dur[NLBA]; /* durable write id; 0: zeroes */
	uint32_t cur[NLBA]; /* latest content as far as known */
	uint8_t busy[NLBA]; /* a write in flight covers it */
	struct hist hist[NLBA];
	struct wrec *w;
	uint32_t nr_w, cap_w; /* write ids are 1..nr_w */
	uint64_t cseq; /* write completions so far */
	uint64_t flushed_mark; /* mark of the last completed flush */
	uint32_t cycle;
	bool ok;
	/* Totals. */
	uint64_t t_writes, t_bytes, t_flushes, t_fua, t_at_kill;
	uint64_t t_verified_durable, t_verified_later, t_restart_ms;
};

struct load_stats {
	uint64_t writes, bytes, flushes, at_kill;
	int ms;
	bool idle_kill; /* drained, then a pause, then the kill */
};

struct verify_stats {
	uint32_t durable; /* non-zero durable data read back */
	uint32_t later; /* a write newer than the durable one */
	uint32_t zero; /* zeroes, and nothing was ever durable */
	uint32_t bad;
};

/* --- patterns -------------------------------------------------------- */

struct blk_hdr {
	uint32_t magic;
	uint32_t id;
	uint64_t lba;
};

static void fill_block(const struct run *r, uint8_t *b, uint32_t id,
		       uint64_t lba)
{
	struct blk_hdr h = { MAGIC, id, lba };
	uint64_t s = r->pat_seed ^ (id * 0x9e3779b97f4a7c15ull) ^
		     (lba * 0xc2b2ae3d27d4eb4full);

	memcpy(b, &h, sizeof(h));
	fx_fill_random(b + sizeof(h), BLK - sizeof(h), &s);
}

enum { BLK_ZERO = 0, BLK_GARBAGE = -1, BLK_OTHER_LBA = -2 };

/* The write id a block read from @lba holds, BLK_ZERO, or an error; for
 * BLK_OTHER_LBA *hdr says whose it is. */
static int64_t classify(const struct run *r, const uint8_t *b, uint64_t lba,
			struct blk_hdr *hdr)
{
	static const uint8_t zero[BLK];
	uint8_t want[BLK];

	memcpy(hdr, b, sizeof(*hdr));
	if (!memcmp(b, zero, BLK))
		return BLK_ZERO;
	if (hdr->magic != MAGIC || hdr->id == 0 || hdr->id > r->nr_w)
		return BLK_GARBAGE;
	fill_block(r, want, hdr->id, hdr->lba);
	if (memcmp(b, want, BLK))
		return BLK_GARBAGE;
	return hdr->lba == lba ? (int64_t)hdr->id : BLK_OTHER_LBA;
}

/* --- the model ------------------------------------------------------- */

static void hist_add(struct hist *h, uint32_t id, uint64_t cseq)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 4;
		h->e = realloc(h->e, h->cap * sizeof(*h->e));
		assert_non_null(h->e);
	}
	h->e[h->n].id = id;
	h->e[h->n++].cseq = cseq;
}

static bool hist_has(const struct hist *h, uint32_t id)
{
	for (uint32_t i = 0; i < h->n; i++)
		if (h->e[i].id == id)
			return true;
	return false;
}

/* A Flush sent after @mark write completions has completed: the last of
 * those to each LBA is durable. */
static void model_flushed(struct run *r, uint64_t mark)
{
	if (mark <= r->flushed_mark)
		return;
	r->flushed_mark = mark;
	for (uint32_t l = 0; l < NLBA; l++) {
		struct hist *h = &r->hist[l];
		uint32_t k = 0;

		while (k < h->n && h->e[k].cseq <= mark)
			k++;
		if (!k)
			continue;
		r->dur[l] = h->e[k - 1].id;
		memmove(h->e, h->e + k, (h->n - k) * sizeof(*h->e));
		h->n -= k;
	}
}

static void model_write_done(struct run *r, uint32_t id)
{
	struct wrec *w = &r->w[id];

	w->done = true;
	w->cseq = ++r->cseq;
	for (uint32_t l = w->slba; l < w->slba + w->nlb; l++) {
		r->busy[l] = 0;
		r->cur[l] = id;
		if (w->fua) {
			/* Durable now; nothing older can come back. */
			r->dur[l] = id;
			r->hist[l].n = 0;
		} else {
			hist_add(&r->hist[l], id, w->cseq);
		}
	}
}

/* After a verify in flush mode, and a Flush: what was read is durable. */
static void model_rebase(struct run *r)
{
	for (uint32_t l = 0; l < NLBA; l++) {
		r->dur[l] = r->cur[l];
		r->hist[l].n = 0;
	}
	r->flushed_mark = r->cseq;
}

static uint32_t new_write(struct run *r, uint32_t slba, uint32_t nlb, bool fua)
{
	struct wrec *w;

	if (r->nr_w + 1 >= r->cap_w) {
		r->cap_w = r->cap_w ? r->cap_w * 2 : 65536;
		r->w = realloc(r->w, r->cap_w * sizeof(*r->w));
		assert_non_null(r->w);
	}
	w = &r->w[++r->nr_w];
	memset(w, 0, sizeof(*w));
	w->slba = slba;
	w->nlb = (uint16_t)nlb;
	w->cycle = (uint16_t)r->cycle;
	w->fua = fua;
	return r->nr_w;
}

static void describe(const struct run *r, uint32_t id, char *s, size_t n)
{
	const struct wrec *w;

	if (id == 0) {
		snprintf(s, n, "zeroes");
		return;
	}
	w = &r->w[id];
	snprintf(s, n, "write #%u (cycle %u, %u KiB at LBA %u%s, %s)", id,
		 w->cycle, w->nlb * 4, w->slba, w->fua ? ", FUA" : "",
		 w->at_kill ? "in flight at the kill"
		 : w->done  ? "completed"
			    : "never completed");
}

/* --- daemon ---------------------------------------------------------- */

static void print_log_tail(const struct run *r, int lines)
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

static void make_config(struct run *r)
{
	snprintf(r->subsystems, sizeof(r->subsystems),
		 "[{\"nqn\": \"" SUBNQN "\", \"allow_any_host\": true,"
		 " \"namespaces\": [{\"nsid\": 1, \"backend\": \"nand\","
		 " \"size\": \"64M\", \"block_size\": 4096, \"nand\": {"
		 "\"channels\": 2, \"dies_per_channel\": 2, \"planes_per_die\": 1,"
		 " \"pages_per_block\": 96, \"null_timing\": %s},"
		 " \"ftl\": {\"store\": \"file\"}}]}]",
		 r->rd->null_timing ? "true" : "false");
}

/* A line of the test's own in bloxd.log, to find a cycle in it. */
static void log_mark(const struct run *r, const char *what)
{
	FILE *f = fopen(r->log, "a");

	if (f) {
		fprintf(f, "==== test: %s, cycle %u ====\n", what, r->cycle);
		fclose(f);
	}
}

/* Start bloxd on the round's data dir and connect; returns ms taken. */
static int64_t start_daemon(struct run *r)
{
	const char *lvl = getenv("BLOX_TEST_LOG_LEVEL");
	struct fx_start_opts o = { .data_dir = r->dir, .log_path = r->log,
				   .log_level = lvl && *lvl ? lvl : "3" };
	struct ini_opts qo;
	int64_t t0 = fx_now_ms();

	log_mark(r, "start");
	if (fx_start_opts(&r->d, r->subsystems, &o)) {
		print_log_tail(r, 40);
		fail_msg("cycle %u: bloxd did not start on %s", r->cycle, r->dir);
	}
	r->started = true;
	ini_opts_init(&qo);
	qo.timeout_ms = Q_TIMEOUT_MS;
	if (fx_ctrl(&r->d, SUBNQN, NULL, NR_QUEUES, &qo, &r->c)) {
		print_log_tail(r, 40);
		fail_msg("cycle %u: no controller after start", r->cycle);
	}
	return fx_now_ms() - t0;
}

static void daemon_gone(struct run *r, const char *what, int rc)
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

/*
 * Random load for a random time in the round's window. @crash: kill -9
 * bloxd at the end, mostly with whatever is in flight, one time in five
 * after draining and a random idle pause (background GC may run then);
 * else stop submitting and drain.
 */
static void load(struct run *r, bool crash, struct load_stats *ls)
{
	const struct round *rd = r->rd;
	int span = rd->load_max_ms - rd->load_min_ms;
	int ms = rd->load_min_ms + (int)(fx_rand(&r->seed) % (uint64_t)(span + 1));
	int64_t t0 = fx_now_ms(), end = t0 + ms;
	uint64_t next_flush = r->cseq + 8 + fx_rand(&r->seed) % 400;
	bool flush_out = false, stop = false;
	bool idle_kill = crash && fx_rand(&r->seed) % 5 == 0;
	uint32_t outstanding = 0;
	int rr = 0;

	memset(ls, 0, sizeof(*ls));
	ls->idle_kill = idle_kill;
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
	/* kill -9 by PID, mostly with the load still running. */
	log_mark(r, idle_kill ? "kill -9 (idle)" : "kill -9");
	if (fx_kill(&r->d, SIGKILL) != 128 + SIGKILL)
		fail_msg("cycle %u: bloxd was not killed by SIGKILL (exit %d)",
			 r->cycle, r->d.exit_code);
	r->started = false;
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

/* --- verify ---------------------------------------------------------- */

static void report_bad(struct run *r, uint32_t lba, int64_t got,
		       const struct blk_hdr *h, bool exact)
{
	char a[160], b[160];
	const struct hist *hs = &r->hist[lba];

	if (got == BLK_GARBAGE)
		snprintf(b, sizeof(b),
			 "garbage (header magic 0x%08x id %u lba %llu)", h->magic,
			 h->id, (unsigned long long)h->lba);
	else if (got == BLK_OTHER_LBA)
		snprintf(b, sizeof(b), "the data of LBA %llu, write #%u",
			 (unsigned long long)h->lba, h->id);
	else
		describe(r, (uint32_t)got, b, sizeof(b));
	describe(r, exact ? r->cur[lba] : r->dur[lba], a, sizeof(a));
	fprintf(stderr, "cycle %u: LBA %u: expected %s%s", r->cycle, lba, a,
		exact ? "" : " (durable)");
	if (!exact)
		for (uint32_t i = 0; i < hs->n && i < 6; i++)
			fprintf(stderr, "%s#%u", i ? ", " : " or maybe ", hs->e[i].id);
	fprintf(stderr, "; read %s%s\n", b,
		got > 0 && !exact && (uint32_t)got < r->dur[lba] ? " (OLDER than durable)" : "");
	/* The last writes of this LBA, newest first. */
	for (uint32_t id = r->nr_w, n = 0; id > 0 && n < 4; id--) {
		const struct wrec *w = &r->w[id];

		if (lba < w->slba || lba >= w->slba + w->nlb)
			continue;
		describe(r, id, a, sizeof(a));
		fprintf(stderr, "    history: %s, completion #%llu\n", a,
			(unsigned long long)w->cseq);
		n++;
	}
	fprintf(stderr, "    last completed flush covered completions up to #%llu\n",
		(unsigned long long)r->flushed_mark);
}

/*
 * Read every LBA and check it against the model: @exact, the latest
 * completed write (after a clean stop); else the durable one or one of
 * the later ones that may have survived. What was read becomes cur[].
 */
static void verify(struct run *r, bool exact, struct verify_stats *vs)
{
	struct ini_queue *q = r->c->io[0];
	struct ini_req reqs[VERIFY_QD];
	uint8_t *bufs = malloc((size_t)VERIFY_QD * MAX_NLB * BLK);
	uint32_t next = 0, done = 0, first_bad = UINT32_MAX;

	assert_non_null(bufs);
	memset(reqs, 0, sizeof(reqs));
	memset(vs, 0, sizeof(*vs));
	while (done < NLBA) {
		struct ini_req *got[VERIFY_QD];
		int n;

		for (int k = 0; k < VERIFY_QD && next < NLBA; k++) {
			if (reqs[k].ctx)
				continue; /* in flight */
			ini_req_rw(&reqs[k], nvme_cmd_read, 1, next, MAX_NLB,
				   bufs + (size_t)k * MAX_NLB * BLK, MAX_NLB * BLK);
			reqs[k].ctx = (void *)(uintptr_t)(next + 1);
			n = ini_submit(q, &reqs[k]);
			if (n)
				daemon_gone(r, "verify read submit", n);
			next += MAX_NLB;
		}
		n = ini_poll(q, got, VERIFY_QD);
		if (n < 0)
			daemon_gone(r, "verify reads", n);
		for (int i = 0; i < n; i++) {
			uint32_t slba = (uint32_t)(uintptr_t)got[i]->ctx - 1;
			const uint8_t *b = got[i]->buf;

			if (ini_status(&got[i]->cqe))
				fail_msg("cycle %u: read of LBA %u: status 0x%x",
					 r->cycle, slba, ini_status(&got[i]->cqe));
			for (uint32_t l = slba; l < slba + MAX_NLB; l++, b += BLK) {
				struct blk_hdr h;
				int64_t id = classify(r, b, l, &h);
				bool good;

				if (exact)
					good = id >= 0 && (uint32_t)id == r->cur[l];
				else
					good = id >= 0 &&
					       ((uint32_t)id == r->dur[l] ||
						hist_has(&r->hist[l], (uint32_t)id));
				if (!good) {
					if (vs->bad++ < MAX_REPORT)
						report_bad(r, l, id, &h, exact);
					if (l < first_bad)
						first_bad = l;
					continue;
				}
				if (id == 0)
					vs->zero++;
				else if ((uint32_t)id == (exact ? r->cur[l] : r->dur[l]))
					vs->durable++;
				else
					vs->later++;
				r->cur[l] = (uint32_t)id;
			}
			got[i]->ctx = NULL;
			done += MAX_NLB;
		}
	}
	free(bufs);
	if (vs->bad) {
		print_log_tail(r, 40);
		fail_msg("cycle %u: %u of %u LBAs wrong after the restart (first "
			 "LBA %u); data dir kept: %s",
			 r->cycle, vs->bad, NLBA, first_bad, r->dir);
	}
}

/* --- rounds ---------------------------------------------------------- */

static uint32_t cycles_of(const struct round *rd)
{
	const char *e = getenv("BLOX_DURABILITY_CYCLES");

	return e && *e ? (uint32_t)strtoul(e, NULL, 0) : rd->cycles;
}

static int setup(void **state)
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

static int teardown(void **state)
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

static void test_round(void **state)
{
	struct run *r = *state;
	const struct round *rd = r->rd;
	uint32_t cycles = cycles_of(rd);
	struct verify_stats vs;
	struct load_stats ls;
	int64_t t0 = fx_now_ms(), ms;
	int rc;

	printf("%s: %s timing, %s, %u I/O queues x QD %u, up to %u cycles in "
	       "%d s, kill after %d..%d ms of load; store in %s\n",
	       rd->name, rd->null_timing ? "null" : "real",
	       rd->fua_only ? "FUA writes only" : "Flush now and then (5% FUA)",
	       NR_QUEUES, rd->qd, cycles, rd->budget_ms / 1000, rd->load_min_ms,
	       rd->load_max_ms, r->dir);
	/* Cycle 0: a new store reads as zeroes. */
	r->t_restart_ms += (uint64_t)start_daemon(r);
	verify(r, false, &vs);
	assert_int_equal(vs.zero, NLBA);
	for (r->cycle = 1; r->cycle <= cycles; r->cycle++) {
		if (fx_now_ms() - t0 > rd->budget_ms) {
			printf("  time budget of %d s used up after %u cycles\n",
			       rd->budget_ms / 1000, r->cycle - 1);
			break;
		}
		load(r, true, &ls);
		r->t_writes += ls.writes;
		r->t_bytes += ls.bytes;
		r->t_flushes += ls.flushes;
		r->t_at_kill += ls.at_kill;
		ms = start_daemon(r);
		r->t_restart_ms += (uint64_t)ms;
		verify(r, false, &vs);
		r->t_verified_durable += vs.durable;
		r->t_verified_later += vs.later;
		if (!rd->fua_only) {
			/* What was read back is now durable, too. */
			rc = ini_flush(r->c->io[0], 1);
			assert_int_equal(rc, 0);
			model_rebase(r);
		}
		printf("  cycle %2u: load %4d ms: %5llu writes (%3llu MiB), %3llu "
		       "flushes, kill -9 %s %2llu writes in flight; restart "
		       "%4lld ms; %u LBAs: %u durable, %u newer, %u zero\n",
		       r->cycle, ls.ms, (unsigned long long)ls.writes,
		       (unsigned long long)(ls.bytes >> 20),
		       (unsigned long long)ls.flushes,
		       ls.idle_kill ? "idle," : "with",
		       (unsigned long long)ls.at_kill, (long long)ms, NLBA,
		       vs.durable, vs.later, vs.zero);
	}
	cycles = r->cycle - 1;
	/* A last drained load, SIGTERM, and an exact check after restart. */
	load(r, false, &ls);
	r->t_writes += ls.writes;
	r->t_bytes += ls.bytes;
	log_mark(r, "SIGTERM");
	rc = fx_stop(&r->d);
	r->started = false;
	ini_ctrl_destroy(r->c);
	r->c = NULL;
	if (rc != 0) {
		print_log_tail(r, 40);
		fail_msg("bloxd exited %d on SIGTERM, not 0", rc);
	}
	ms = start_daemon(r);
	verify(r, true, &vs);
	printf("  final: drained load %d ms (%llu writes), SIGTERM exit 0, "
	       "restart %lld ms, all %u LBAs exactly as last written (%u "
	       "with data, %u zero)\n",
	       ls.ms, (unsigned long long)ls.writes, (long long)ms, NLBA,
	       vs.durable, vs.zero);
	rc = ini_ctrl_shutdown(r->c);
	assert_int_equal(rc, 0);
	ini_ctrl_destroy(r->c);
	r->c = NULL;
	rc = fx_stop(&r->d);
	r->started = false;
	assert_int_equal(rc, 0);
	printf("%s: %u kill -9 cycles in %.1f s: %llu writes (%llu MiB, %llu "
	       "FUA), %llu flushes, %llu writes in flight at kills; "
	       "%llu durable and %llu newer unflushed LBAs verified, mean "
	       "restart %llu ms\n",
	       rd->name, cycles, (double)(fx_now_ms() - t0) / 1000.0,
	       (unsigned long long)r->t_writes,
	       (unsigned long long)(r->t_bytes >> 20),
	       (unsigned long long)r->t_fua, (unsigned long long)r->t_flushes,
	       (unsigned long long)r->t_at_kill,
	       (unsigned long long)r->t_verified_durable,
	       (unsigned long long)r->t_verified_later,
	       (unsigned long long)(r->t_restart_ms / (cycles + 2)));
	fflush(stdout);
	r->ok = true;
}

static const struct round flush_real_timing = {
	"flush_real_timing", false, false, 25, 16, 200, 2500, 75000,
};
static const struct round flush_null_timing = {
	"flush_null_timing", true, false, 20, 32, 100, 1500, 40000,
};
static const struct round fua_real_timing = {
	"fua_real_timing", false, true, 15, 8, 200, 2000, 35000,
};

#define ROUND(r) { #r, test_round, setup, teardown, (void *)&r }

int main(void)
{
	const struct CMUnitTest tests[] = {
		ROUND(flush_real_timing),
		ROUND(flush_null_timing),
		ROUND(fua_real_timing),
	};

	const char *only = getenv("BLOX_DURABILITY_ROUND");

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (only && *only)
		cmocka_set_test_filter(only); /* e.g. flush_null_timing or "fua*" */
	return fx_finish(cmocka_run_group_tests(tests, NULL, NULL));
}
