/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_durability's model: block patterns, what each LBA may hold after a
 * kill (the durable write, or one completed or in flight since), and the
 * verification of a restarted bloxd against it.
 */
#include "durability.h"

/* --- patterns -------------------------------------------------------- */

void fill_block(const struct run *r, uint8_t *b, uint32_t id,
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

void hist_add(struct hist *h, uint32_t id, uint64_t cseq)
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

void model_flushed(struct run *r, uint64_t mark)
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

void model_write_done(struct run *r, uint32_t id)
{
	struct wrec *w = &r->w[id];

	w->done = true;
	w->cseq = ++r->cseq;
	for (uint32_t l = w->slba; l < w->slba + w->nlb; l++) {
		r->busy[l] = 0;
		r->cur[l] = id;
		if (w->fua || r->rd->plp_ms) {
			/* Durable now (FUA, or a write cache protected against power loss). */
			r->dur[l] = id;
			r->hist[l].n = 0;
		} else {
			hist_add(&r->hist[l], id, w->cseq);
		}
	}
}

void model_rebase(struct run *r)
{
	for (uint32_t l = 0; l < NLBA; l++) {
		r->dur[l] = r->cur[l];
		r->hist[l].n = 0;
	}
	r->flushed_mark = r->cseq;
}

uint32_t new_write(struct run *r, uint32_t slba, uint32_t nlb, bool fua)
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

void verify(struct run *r, bool exact, struct verify_stats *vs)
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
