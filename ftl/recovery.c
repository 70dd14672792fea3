/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checkpoints and recovery.
 *
 * A checkpoint is a run of units in one of the two reserved superblocks
 * (alternating by generation): a header, the GTD, the superblock table and
 * the validity bitmap, each unit tagged UK_CKPT with its index and the
 * generation in its OOB. A checkpoint counts only if every unit is there.
 *
 * Version 2 (BLXCKP2) adds where each stream was writing: its superblock
 * and next unit offset. A version 1 checkpoint still loads, without them.
 *
 * At start: load the newest complete checkpoint (if any), then scan the
 * OOB of every programmed page for units written after it (wseq greater
 * than the checkpoint's). Per LBA (and per translation page) the unit with
 * the highest data version wins (GC copies keep the version of the data
 * they move; ties go to the later write) and is applied on top of the
 * checkpoint's mapping.
 *
 * Then the streams' superblocks are reopened, so that a restart does not
 * leave up to one partly written superblock per stream for GC. Every page
 * carries the stream that programmed it in its OOB. After a clean stop
 * (nothing on flash newer than the checkpoint) a stream resumes where the
 * checkpoint says, once the store agrees; otherwise at the newest
 * superblock the scan found with its pages. A stream resumes only after
 * the last programmed page of that superblock; holes behind it (programs
 * in flight at the crash that never finished) are programmed with padding
 * first, in block order, so no page is ever programmed twice. A page torn
 * by a power cut (programmed, its OOB erased: nand_power_cut()) maps
 * nothing and counts as programmed: the stream goes on after it. Closing
 * the superblock instead cost every stream whose program was torn a
 * superblock per cut, GC's and the translation pages' included, until a
 * rebuild found none free and GC none to write into. In doubt (a
 * programmed page unreadable or not ours, pages of another stream, holes
 * spread wider than the write buffer could have left), the superblock
 * stays closed (full) as before. So does one a Reclaim Unit Handle Update
 * closed: its padding carries FTL_PAD_RU_CLOSED (fdp.c).
 *
 * Dirty translation pages are then written back and a new checkpoint is
 * taken, so the next scan starts from here.
 *
 * All of this runs in sync_io mode: the store is read and programmed
 * directly, before the device takes any timed I/O.
 */
#include "ftl_internal.h"
#include "recovery.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CKPT_MAGIC_V1 0x31504b43584c42ull /* "BLXCKP1": no stream positions */
#define CKPT_MAGIC 0x32504b43584c42ull /* "BLXCKP2" */
/*
 * Room for stream positions; ST_COUNT are used. Was 8: a header written
 * then is followed by zeros in its unit, so it reads as before (and its
 * placement counters as zero).
 */
#define CKPT_STREAMS 24

_Static_assert(ST_COUNT <= CKPT_STREAMS, "checkpoint stream table too small");

/* The first unit of a checkpoint. Version 1 is the prefix up to wl_runs. */
struct ckpt_hdr {
	uint64_t magic;
	uint64_t gen, wseq, dseq;
	uint32_t capacity, nr_tp, nr_sb, units_per_sb;
	uint32_t gtd_units, sb_units, bitmap_units, total_units;
	uint64_t host_writes, units_written_host, units_written_gc,
		units_written_tp, units_padded, gc_runs, wl_runs;
	/* Version 2. */
	uint32_t nr_streams, pad;
	struct ckpt_stream streams[CKPT_STREAMS];
	/* Flexible Data Placement counters (struct ftl's fdp[], ru_updates[]). */
	struct ftl_fdp_ctr fdp[FTL_MAX_RUH + 1];
	uint64_t ru_updates[FTL_MAX_RUH];
	/*
	 * FDP events: fdp_units after the bitmap hold ftl_fdp_ckpt_put()'s
	 * section (0: an instance without handles, or a checkpoint from before
	 * they were kept).
	 */
	uint32_t fdp_units, fdp_pad;
	uint64_t ru_implicit[FTL_MAX_RUH], ru_expired[FTL_MAX_RUH];
	/*
	 * Die slots held dead when it was written (0 in a checkpoint from
	 * before they were kept): held dead at the next start even when the
	 * device has the die back, until the FTL has fixed its translation
	 * pages (dieoff.c).
	 */
	uint32_t dead_slots[BLOX_FTL_MAX_DIES / 32];
};

_Static_assert(sizeof(struct ckpt_hdr) <= FTL_UNIT, "checkpoint header too large");

#define FTL_OOB_ERASED 0xffffffffu /* the magic of an erased (torn) OOB */

struct ckpt_sb {
	uint32_t state, valid, erase_count, pad;
};

struct rec {
	uint32_t kind, lba, ppn, pad;
	uint64_t dseq, wseq;
};

static uint32_t units_for(size_t bytes)
{
	return (uint32_t)((bytes + FTL_UNIT - 1) / FTL_UNIT);
}

static uint64_t bitmap_bytes(const struct ftl *f)
{
	return ((uint64_t)f->nr_sb * f->units_per_sb + 63) / 64 * 8;
}

/* Erase every block of superblock @sb straight in the store. */
static int sb_erase_sync(struct ftl *f, uint32_t sb)
{
	struct nand_store *st = f->env.store;

	for (uint32_t s = 0; s < f->stripe; s++) {
		struct nand_addr a;
		int rc;

		uint32_t fpid = ftl_ppn(f, sb, s * f->slots) / f->slots;

		if (f->slot_dead[(fpid % f->stripe) % f->ndies])
			continue; /* a die gone offline is never erased */
		ftl_fpid_addr(f, ftl_ppn(f, sb, s * f->slots) / f->slots, &a);
		a.page = 0;
		if (st->blocks[nand_block_index(f->geo, &a)].write_ptr == 0)
			continue;
		rc = st->ops->erase(st, nand_block_index(f->geo, &a));
		if (rc)
			return rc;
	}
	f->sbs[sb].freed_gen = f->revivals; /* a die back: erased with the rest */
	return 0;
}

/*
 * The flash page of superblock @sb after page @p (-1: the first) that is
 * not on a die gone offline: a checkpoint's units go on the live dies'
 * pages only, one page after the other.
 */
static uint32_t ckpt_next_page(const struct ftl *f, uint32_t sb, int64_t p)
{
	uint32_t base = ftl_ppn(f, sb, 0) / f->slots;
	uint32_t q = (uint32_t)(p + 1);

	while (q < f->pages_per_block * f->stripe && ftl_fpid_dead(f, base + q))
		q++;
	return q;
}

/*
 * Reading: the next page after @p that is programmed too. Where a
 * checkpoint written while a die was gone skipped it, the die back
 * (replaced) is erased.
 */
static uint32_t ckpt_read_next(const struct ftl *f, uint32_t sb, int64_t p)
{
	uint32_t base = ftl_ppn(f, sb, 0) / f->slots, q = ckpt_next_page(f, sb, p);
	struct nand_addr a;

	while (q < f->pages_per_block * f->stripe && !page_programmed(f, base + q, &a))
		q = ckpt_next_page(f, sb, q);
	return q;
}

int ftl_checkpoint_write(struct ftl *f)
{
	struct nand_store *st = f->env.store;
	uint32_t sb = (uint32_t)((f->ckpt_gen + 1) % FTL_CKPT_SBS);
	struct ckpt_hdr h = { 0 };
	uint8_t *img, *page, *oob_raw;
	size_t hdr_len, gtd_len, sbt_len, bm_len, total;
	struct ckpt_sb *sbt;
	int rc;

	if (!st)
		return 0;
	gtd_len = (size_t)f->nr_tp * sizeof(uint32_t);
	sbt_len = (size_t)f->nr_sb * sizeof(struct ckpt_sb);
	bm_len = bitmap_bytes(f);
	hdr_len = FTL_UNIT;
	h.magic = CKPT_MAGIC;
	h.gen = f->ckpt_gen + 1;
	h.wseq = f->wseq;
	h.dseq = f->dseq;
	h.capacity = f->capacity;
	h.nr_tp = f->nr_tp;
	h.nr_sb = f->nr_sb;
	h.units_per_sb = f->units_per_sb;
	h.gtd_units = units_for(gtd_len);
	h.sb_units = units_for(sbt_len);
	h.bitmap_units = units_for(bm_len);
	h.fdp_units = f->cfg.nr_ruh ? units_for(ftl_fdp_ckpt_bytes()) : 0;
	h.total_units = 1 + h.gtd_units + h.sb_units + h.bitmap_units + h.fdp_units;
	h.host_writes = f->st.host_writes;
	h.units_written_host = f->st.units_written_host;
	h.units_written_gc = f->st.units_written_gc;
	h.units_written_tp = f->st.units_written_tp;
	h.units_padded = f->st.units_padded;
	h.gc_runs = f->st.gc_runs;
	h.wl_runs = f->st.wl_runs;
	h.nr_streams = ST_COUNT;
	for (uint32_t s = 0; s < f->ndies; s++)
		if (f->slot_dead[s])
			h.dead_slots[s / 32] |= 1u << (s % 32);
	memcpy(h.fdp, f->fdp, sizeof(h.fdp));
	memcpy(h.ru_updates, f->ru_updates, sizeof(h.ru_updates));
	memcpy(h.ru_implicit, f->ru_implicit, sizeof(h.ru_implicit));
	memcpy(h.ru_expired, f->ru_expired, sizeof(h.ru_expired));
	for (int s = 0; s < ST_COUNT; s++) {
		const struct ftl_streamstate *ss = &f->streams[s];

		/* A page still in the buffer is not on flash: nothing to resume. */
		h.streams[s] = (struct ckpt_stream){ -1, 0 };
		if (ss->sb >= 0 && !ss->wb && ss->next < f->units_per_sb)
			h.streams[s] = (struct ckpt_stream){ ss->sb, ss->next };
	}
	if (h.total_units > f->units_live)
		return -E2BIG;
	total = (size_t)h.total_units * FTL_UNIT;
	total = (total + f->geo->page_size - 1) / f->geo->page_size * f->geo->page_size;
	img = calloc(1, total);
	page = NULL;
	oob_raw = calloc(1, f->geo->oob_size);
	if (!img || !oob_raw) {
		rc = -ENOMEM;
		goto out;
	}
	memcpy(img, &h, sizeof(h));
	memcpy(img + hdr_len, f->gtd, gtd_len);
	sbt = (struct ckpt_sb *)(img + (size_t)(1 + h.gtd_units) * FTL_UNIT);
	for (uint32_t i = 0; i < f->nr_sb; i++)
		sbt[i] = (struct ckpt_sb){ f->sbs[i].state, f->sbs[i].valid,
					   f->sbs[i].erase_count, 0 };
	memcpy(img + (size_t)(1 + h.gtd_units + h.sb_units) * FTL_UNIT, f->valid,
	       bm_len);
	if (h.fdp_units)
		ftl_fdp_ckpt_put(f, img + (size_t)(1 + h.gtd_units + h.sb_units + h.bitmap_units) *
						  FTL_UNIT);

	rc = sb_erase_sync(f, sb);
	for (uint32_t u = 0, p = ckpt_next_page(f, sb, -1); !rc && u < h.total_units;
	     u += f->slots, p = ckpt_next_page(f, sb, p)) {
		struct ftl_oob oob = { .magic = FTL_OOB_MAGIC, .nslots = f->slots };
		uint32_t fpid = ftl_ppn(f, sb, 0) / f->slots + p;
		struct nand_addr a;

		for (uint32_t s = 0; s < f->slots; s++)
			oob.slot[s] = (struct ftl_oob_slot){
				.lba = u + s,
				.kind = u + s < h.total_units ? UK_CKPT : UK_PAD,
				.wseq = h.wseq,
				.dseq = h.gen,
			};
		memcpy(oob_raw, &oob, sizeof(oob));
		ftl_fpid_addr(f, fpid, &a);
		rc = st->ops->program(st, nand_page_index(f->geo, &a),
				      img + (size_t)u * FTL_UNIT, oob_raw);
	}
	if (!rc)
		rc = st->ops->sync(st);
	if (!rc)
		f->ckpt_gen = h.gen;
out:
	free(img);
	free(page);
	free(oob_raw);
	return rc;
}

/* Load checkpoint superblock @sb into @img (total units); 0 if complete. */
static int ckpt_load(struct ftl *f, uint32_t sb, struct ckpt_hdr *h,
		     uint8_t **img_out)
{
	struct nand_store *st = f->env.store;
	uint8_t *page = malloc(f->geo->page_size);
	uint8_t *oob_raw = malloc(f->geo->oob_size);
	uint8_t *img = NULL;
	struct ftl_oob oob;
	struct nand_addr a;
	uint32_t base, p;
	int rc = -ENOENT;

	if (!page || !oob_raw) {
		rc = -ENOMEM;
		goto out;
	}
	base = ftl_ppn(f, sb, 0) / f->slots;
	p = ckpt_read_next(f, sb, -1);
	if (p >= f->pages_per_block * f->stripe || !page_programmed(f, base + p, &a) ||
	    st->ops->read(st, nand_page_index(f->geo, &a), page, oob_raw))
		goto out;
	memcpy(h, page, sizeof(*h));
	memcpy(&oob, oob_raw, sizeof(oob));
	if (h->magic == CKPT_MAGIC_V1) {
		h->nr_streams = 0; /* written before stream positions were kept */
		h->magic = CKPT_MAGIC;
	}
	if (h->nr_streams > CKPT_STREAMS)
		h->nr_streams = 0;
	if (h->magic != CKPT_MAGIC || oob.magic != FTL_OOB_MAGIC ||
	    oob.slot[0].kind != UK_CKPT || oob.slot[0].dseq != h->gen ||
	    h->nr_tp != f->nr_tp || h->nr_sb != f->nr_sb ||
	    h->units_per_sb != f->units_per_sb || h->capacity != f->capacity ||
	    h->total_units > f->units_per_sb)
		goto out;
	img = calloc((size_t)h->total_units + f->slots, FTL_UNIT);
	if (!img) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t u = 0; u < h->total_units; u += f->slots, p = ckpt_read_next(f, sb, p)) {
		if (p >= f->pages_per_block * f->stripe || !page_programmed(f, base + p, &a) ||
		    st->ops->read(st, nand_page_index(f->geo, &a),
				  img + (size_t)u * FTL_UNIT, oob_raw))
			goto out;
		memcpy(&oob, oob_raw, sizeof(oob));
		for (uint32_t s = 0; s < f->slots && u + s < h->total_units; s++)
			if (oob.magic != FTL_OOB_MAGIC || oob.slot[s].kind != UK_CKPT ||
			    oob.slot[s].lba != u + s || oob.slot[s].dseq != h->gen)
				goto out; /* torn: not every unit made it */
	}
	*img_out = img;
	img = NULL;
	rc = 0;
out:
	free(img);
	free(page);
	free(oob_raw);
	return rc;
}

/*
 * Load the newest complete checkpoint; its write sequence into @ckpt_wseq
 * (0: none), its stream positions into @cs (sb -1 where unknown) and its
 * dead slots into @dead_slots (BLOX_FTL_MAX_DIES bits, zero: none).
 */
static int apply_checkpoint(struct ftl *f, uint64_t *ckpt_wseq,
			    struct ckpt_stream cs[ST_COUNT], uint32_t *dead_slots)
{
	struct ckpt_hdr h[FTL_CKPT_SBS], *best = NULL;
	uint8_t *img[FTL_CKPT_SBS] = { NULL };
	int which = -1;

	for (int i = 0; i < FTL_CKPT_SBS; i++) {
		int rc = ckpt_load(f, (uint32_t)i, &h[i], &img[i]);

		if (rc == -ENOMEM)
			return rc;
		if (!rc && (!best || h[i].gen > best->gen)) {
			best = &h[i];
			which = i;
		}
	}
	*ckpt_wseq = 0;
	for (int s = 0; s < ST_COUNT; s++)
		cs[s] = (struct ckpt_stream){ CKPT_SB_UNKNOWN, 0 };
	if (best) {
		const uint8_t *p = img[which];
		const struct ckpt_sb *sbt;

		memcpy(f->gtd, p + FTL_UNIT, (size_t)f->nr_tp * sizeof(uint32_t));
		sbt = (const void *)(p + (size_t)(1 + best->gtd_units) * FTL_UNIT);
		for (uint32_t i = FTL_CKPT_SBS; i < f->nr_sb; i++) {
			f->sbs[i].state = (uint8_t)sbt[i].state;
			f->sbs[i].erase_count = sbt[i].erase_count;
		}
		memcpy(f->valid,
		       p + (size_t)(1 + best->gtd_units + best->sb_units) * FTL_UNIT,
		       bitmap_bytes(f));
		f->ckpt_gen = best->gen;
		f->wseq = best->wseq;
		f->dseq = best->dseq;
		f->st.host_writes = best->host_writes;
		f->st.units_written_host = best->units_written_host;
		f->st.units_written_gc = best->units_written_gc;
		f->st.units_written_tp = best->units_written_tp;
		f->st.units_padded = best->units_padded;
		f->st.gc_runs = best->gc_runs;
		f->st.wl_runs = best->wl_runs;
		memcpy(f->fdp, best->fdp, sizeof(f->fdp));
		memcpy(f->ru_updates, best->ru_updates, sizeof(f->ru_updates));
		memcpy(f->ru_implicit, best->ru_implicit, sizeof(f->ru_implicit));
		memcpy(f->ru_expired, best->ru_expired, sizeof(f->ru_expired));
		if (f->cfg.nr_ruh && best->fdp_units >= units_for(ftl_fdp_ckpt_bytes()))
			ftl_fdp_ckpt_get(f, p + (size_t)(1 + best->gtd_units + best->sb_units +
							 best->bitmap_units) *
							FTL_UNIT);
		f->st.recovered_from_checkpoint = true;
		*ckpt_wseq = best->wseq;
		for (uint32_t s = 0; s < best->nr_streams && s < ST_COUNT; s++)
			cs[s] = best->streams[s];
		memcpy(dead_slots, best->dead_slots, sizeof(best->dead_slots));
	}
	for (int i = 0; i < FTL_CKPT_SBS; i++)
		free(img[i]);
	return 0;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	/* Translation pages first, then data; per key by version, write order. */
	if (x->kind != y->kind)
		return x->kind > y->kind ? -1 : 1;
	if (x->lba != y->lba)
		return x->lba < y->lba ? -1 : 1;
	if (x->dseq != y->dseq)
		return x->dseq < y->dseq ? -1 : 1;
	return x->wseq < y->wseq ? -1 : x->wseq > y->wseq;
}

/*
 * Read the OOB of every programmed page; collect units newer than @after,
 * and what each superblock holds into @seen.
 */
static int scan(struct ftl *f, uint64_t after, struct rec **out, size_t *n,
		struct sb_seen *seen)
{
	struct nand_store *st = f->env.store;
	uint8_t *oob_raw = malloc(f->geo->oob_size);
	struct rec *recs = NULL;
	size_t cap = 0, cnt = 0;
	uint32_t pages = f->pages_per_block * f->stripe;
	int rc = 0;

	if (!oob_raw)
		return -ENOMEM;
	for (uint32_t sb = FTL_CKPT_SBS; sb < f->nr_sb && !rc; sb++) {
		struct sb_seen *sn = &seen[sb];

		if (f->donor[sb]) {
			f->sbs[sb].state = SB_BAD; /* its blocks stand in for others' (remap.c) */
			continue;
		}
		for (uint32_t p = 0; p < pages && !rc; p++) {
			uint32_t fpid = ftl_ppn(f, sb, 0) / f->slots + p;
			struct ftl_oob oob;
			struct nand_addr a;

			if (ftl_fpid_dead(f, fpid) || !page_programmed(f, fpid, &a))
				continue; /* a die gone offline: what it held is lost */
			if (st->ops->read(st, nand_page_index(f->geo, &a), NULL, oob_raw)) {
				sn->any = sn->bad = true;
				continue;
			}
			memcpy(&oob, oob_raw, sizeof(oob));
			if (oob.magic == FTL_OOB_ERASED) {
				sn->torn++; /* torn by a power cut: programmed, no one's */
				sn->any = true;
				continue;
			}
			if (oob.magic != FTL_OOB_MAGIC) {
				sn->any = sn->bad = true;
				continue;
			}
			if (sn->tagged && oob.stream != sn->stream)
				sn->mixed = true;
			sn->stream = oob.stream;
			sn->any = sn->tagged = true;
			for (uint32_t s = 0; s < f->slots; s++) {
				const struct ftl_oob_slot *os = &oob.slot[s];

				if (os->kind == UK_PAD && os->lba == FTL_PAD_RU_CLOSED)
					sn->closed = true;
				if (os->wseq > sn->top_wseq)
					sn->top_wseq = os->wseq;
				if (os->wseq > f->wseq)
					f->wseq = os->wseq;
				if (os->dseq > f->dseq && os->kind == UK_DATA)
					f->dseq = os->dseq;
				if (os->wseq <= after ||
				    (os->kind != UK_DATA && os->kind != UK_TP))
					continue;
				if (cnt == cap) {
					void *q = realloc(recs, (cap = cap * 2 + 4096) * sizeof(*recs));

					if (!q) {
						rc = -ENOMEM;
						break;
					}
					recs = q;
				}
				recs[cnt++] = (struct rec){ os->kind, os->lba,
							    fpid * f->slots + s, 0,
							    os->dseq, os->wseq };
			}
		}
		/* A superblock holding pages is full until GC takes it (or a
		 * stream is given it back, reopen_streams()). */
		f->sbs[sb].state = sn->any ? SB_FULL : SB_FREE;
		/* Its reclaim unit handle: the stream its pages carry (tag s + 1). */
		f->sbs[sb].ruh = sn->any && !sn->mixed && sn->stream
					 ? ftl_stream_ruh(sn->stream - 1)
					 : FTL_RUH_NONE;
	}
	free(oob_raw);
	*out = recs;
	*n = cnt;
	return rc;
}

static void recount(struct ftl *f)
{
	f->free_sbs = 0;
	for (uint32_t sb = 0; sb < f->nr_sb; sb++) {
		uint32_t base = ftl_ppn(f, sb, 0), v = 0;

		for (uint32_t u = 0; u < f->units_per_sb; u++)
			v += ftl_valid_get(f, base + u);
		f->sbs[sb].valid = v;
		if (sb < FTL_CKPT_SBS)
			f->sbs[sb].state = SB_CKPT;
		else if (f->sbs[sb].state == SB_FREE)
			f->free_sbs++;
	}
}

/* Erase counts come from the store: the most-erased block of each. */
static void load_erase_counts(struct ftl *f)
{
	for (uint32_t sb = 0; sb < f->nr_sb; sb++) {
		uint32_t ec = 0;

		for (uint32_t s = 0; s < f->stripe; s++) {
			struct nand_addr a;
			uint32_t e;

			ftl_fpid_addr(f, ftl_ppn(f, sb, s * f->slots) / f->slots, &a);
			e = f->env.store->blocks[nand_block_index(f->geo, &a)].erase_count;
			ec = e > ec ? e : ec;
		}
		f->sbs[sb].erase_count = ec;
	}
}

/*
 * Validity from the mapping itself: every PPN a translation page maps, and
 * every translation page's own location. Translation pages not resident
 * are read straight from the store.
 */
static int rebuild_valid(struct ftl *f)
{
	uint8_t *page = malloc(f->geo->page_size);

	if (!page)
		return -ENOMEM;
	memset(f->valid, 0, bitmap_bytes(f));
	for (uint32_t tp = 0; tp < f->nr_tp; tp++) {
		const struct ftl_cmt *e = f->cmt_index[tp];
		const uint32_t *map;
		struct nand_addr a;

		if (f->gtd[tp] < FTL_LOST)
			ftl_valid_set(f, f->gtd[tp]);
		if (e) {
			map = e->map;
		} else if (f->gtd[tp] >= FTL_LOST) {
			continue; /* nothing on flash (a lost page loads as lost) */
		} else if ((map = (const uint32_t *)ftl_buffered(f, f->gtd[tp]))) {
			/* written back during the replay, not programmed yet */
		} else {
			ftl_fpid_addr(f, f->gtd[tp] / f->slots, &a);
			if (f->env.store->ops->read(f->env.store, nand_page_index(f->geo, &a),
						    page, NULL))
				continue;
			map = (const uint32_t *)(page + (size_t)(f->gtd[tp] % f->slots) *
							 FTL_UNIT);
		}
		for (uint32_t i = 0; i < FTL_TP_ENTRIES; i++)
			if (map[i] != FTL_UNMAPPED &&
			    map[i] < f->nr_sb * f->units_per_sb)
				ftl_valid_set(f, map[i]);
	}
	free(page);
	return 0;
}

/* Whether the scan (@recs, sorted) found data of @lba written after @w. */
static bool written_after(const struct rec *recs, size_t n, uint32_t lba, uint64_t w)
{
	size_t lo = 0, hi = n;

	/* Data records are sorted by LBA after the translation pages'. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (recs[mid].kind != UK_DATA || recs[mid].lba < lba)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && recs[lo].lba == lba; lo++)
		if (recs[lo].wseq > w)
			return true;
	return false;
}

/*
 * Each LBA a die's loss made lost (records @dr) is lost, unless the scan
 * found it written after the loss or its translation page's copy was taken
 * after it (then the copy holds what became of it).
 */
static int apply_dierecs(struct ftl *f, const struct ftl_dierecs *dr, const uint64_t *tp_wseq,
			 const struct rec *recs, size_t n)
{
	for (uint32_t k = 0; k < dr->n; k++) {
		const struct ftl_dierec *r = &dr->r[k];

		for (uint32_t lba = 0; r->lost && lba < f->capacity; lba++) {
			struct ftl_cmt *e;

			if (!(r->lost[lba / 64] >> (lba % 64) & 1) ||
			    tp_wseq[lba / FTL_TP_ENTRIES] > r->w || written_after(recs, n, lba, r->w))
				continue;
			e = ftl_cmt_get(f, lba / FTL_TP_ENTRIES, NULL);
			if (!e)
				return -EIO;
			if (e->map[lba % FTL_TP_ENTRIES] != FTL_LOST)
				f->st.units_lost++;
			ftl_map_set(f, e, lba, FTL_LOST);
		}
	}
	return 0;
}

int ftl_recover(struct ftl *f, bool *formatted)
{
	uint64_t ckpt_wseq, *tp_wseq = NULL;
	struct ckpt_stream cs[ST_COUNT];
	uint32_t dead_slots[BLOX_FTL_MAX_DIES / 32] = { 0 };
	struct ftl_dierecs dr = { 0 };
	struct sb_seen *seen = NULL;
	struct rec *recs = NULL;
	size_t n = 0;
	bool clean;
	int rc;

	*formatted = false;
	if (!f->env.store) {
		*formatted = true;
		return 0;
	}
	/* Bad blocks remapped to spares (the store keeps it): before anything is read. */
	ftl_remap_load(f);
	rc = ftl_remap_ckpt(f);
	if (rc)
		return rc;
	/* A die migration under way: which die holds each superblock, first. */
	rc = ftl_mig_recover(f);
	if (rc)
		return rc;
	rc = apply_checkpoint(f, &ckpt_wseq, cs, dead_slots);
	if (rc)
		return rc;
	/* Dies' losses (and comings back) after the checkpoint (dieoff_rec.c). */
	rc = ftl_dierec_load(f, ckpt_wseq, &dr);
	if (rc)
		return rc;
	/* A slot the FTL held dead is dead until it says the die is back, whatever the device says. */
	for (uint32_t s = 0; s < f->ndies; s++)
		if (ftl_dierec_dead(&dr, s, dead_slots[s / 32] >> (s % 32) & 1))
			ftl_dieoff_dead_at_start(f, s);
	seen = calloc(f->nr_sb, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	rc = scan(f, ckpt_wseq, &recs, &n, seen);
	if (rc)
		goto out;
	/* Nothing was written after the checkpoint (not even padding). */
	clean = f->st.recovered_from_checkpoint && f->wseq == ckpt_wseq;
	/*
	 * Before anything is written (the replay below writes translation
	 * pages back when it evicts them): they go on where they were.
	 */
	if (f->st.recovered_from_checkpoint || n)
		ftl_reopen_streams(f, seen, cs, clean);
	load_erase_counts(f);
	if (n)
		qsort(recs, n, sizeof(*recs), rec_cmp);
	tp_wseq = calloc(f->nr_tp ? f->nr_tp : 1, sizeof(*tp_wseq));
	if (!tp_wseq) {
		rc = -ENOMEM;
		goto out;
	}
	/*
	 * Translation pages first (sorted first): the newest copy of each.
	 * It holds every mapping change written before it.
	 */
	for (size_t i = 0; i < n && recs[i].kind == UK_TP; i++) {
		const struct rec *r = &recs[i];

		if (i + 1 < n && recs[i + 1].kind == r->kind && recs[i + 1].lba == r->lba)
			continue;
		if (r->lba >= f->nr_tp)
			continue;
		f->gtd[r->lba] = r->ppn;
		tp_wseq[r->lba] = r->dseq; /* when its content was taken */
	}
	/* A copy the checkpoint names on a die gone offline: rebuilt (dieoff_tp.c). */
	rc = ftl_dieoff_rebuild_at_start(f, ckpt_wseq);
	if (rc < 0)
		goto out;
	/*
	 * Then per LBA the newest data version its page does not hold yet: of
	 * an LBA a die's loss made lost, only one written after the loss.
	 */
	for (size_t i = 0; i < n;) {
		const struct rec *best = NULL;
		uint64_t bar = 0;
		size_t j = i;

		if (recs[i].kind != UK_DATA) {
			i++;
			continue;
		}
		if (recs[i].lba < f->capacity) {
			bar = tp_wseq[recs[i].lba / FTL_TP_ENTRIES];
			if (dr.n && ftl_dierec_w(&dr, recs[i].lba) > bar)
				bar = ftl_dierec_w(&dr, recs[i].lba);
		}
		for (; j < n && recs[j].kind == UK_DATA && recs[j].lba == recs[i].lba; j++)
			if (recs[i].lba < f->capacity && recs[j].wseq > bar)
				best = &recs[j]; /* sorted: the last is the newest */
		i = j;
		if (best) {
			struct ftl_cmt *e = ftl_cmt_get(f, best->lba / FTL_TP_ENTRIES, NULL);

			if (!e) {
				rc = -EIO;
				goto out;
			}
			ftl_map_set(f, e, best->lba, best->ppn);
		}
	}
	rc = apply_dierecs(f, &dr, tp_wseq, recs, n);
	if (rc)
		goto out;
	f->st.recovered_units = n; /* units the scan found after the checkpoint */
	rc = rebuild_valid(f);
	if (rc)
		goto out;
	recount(f);
	*formatted = !f->st.recovered_from_checkpoint && n == 0;
	if (*formatted) {
		/* Nothing of ours: start from erased blocks. */
		for (uint32_t sb = FTL_CKPT_SBS; sb < f->nr_sb && !rc; sb++) {
			if (f->donor[sb])
				continue;
			if (f->sbs[sb].state != SB_FREE)
				rc = sb_erase_sync(f, sb);
			f->sbs[sb].state = SB_FREE;
		}
		memset(f->valid, 0, bitmap_bytes(f));
		load_erase_counts(f);
		recount(f);
	}
	/* Dies the device keeps offline: what they held is lost (dieoff.c). */
	if (!rc)
		ftl_dieoff_recovered(f);
	if (!rc)
		rc = ftl_cmt_writeback_all(f);
	if (!rc) {
		ftl_close_pages(f);
		rc = f->fatal ? f->fatal : ftl_checkpoint_write(f);
	}
out:
	ftl_dierec_free(&dr);
	free(seen);
	free(tp_wseq);
	free(recs);
	return rc;
}
