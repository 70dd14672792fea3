/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flash that wears: the raw bit error rate of a page from its block's
 * program/erase cycles, the age of its data and the reads of its block
 * since the erase, and what that costs a read: ECC decodes, read retries,
 * or an uncorrectable page.
 *
 * The shape follows published NAND characterization. Mielke, Marquart
 * and Schares ("Bit error rate in NAND Flash memories", IRPS 2008) show
 * the raw bit error rate of MLC parts rising steeply with P/E cycling and
 * with retention after it, and read disturb adding to it. Hetzler's fit
 * of measured MLC data ("The error rate surface for MLC NAND flash",
 * 2012, revised 2014) has the form E = h A^k R^g + 1 / (1 + (b / C)^d):
 * power laws in data age A and reads R whose amplitude grows with cycles
 * C, on top of an offset that rises with C. Here:
 *
 *   RBER = e0 (1 + (C / Cs)^d) + (1 + C / Cs) (r A^k + q R^g)
 *
 * with Cs a third of the cell type's rated cycles (SLC 100k, MLC 10k, TLC
 * 3k, QLC 1k, as the FlashBlox wear model takes them), A in days, R the
 * reads of the block since its erase. The default coefficients
 * (nand_reliability_default()) are not fitted to one part: they are set
 * so that, with a 1 KiB codeword whose hard decode corrects 60 bits, a
 * fresh block reads with no retry, a block at its rated cycles with a
 * year-old page needs a retry now and then, and pages turn uncorrectable
 * a little past twice the rated cycles; every one of them is a setting.
 *
 * A read samples the bit errors of each codeword it covers (Poisson with
 * the page's mean); the worst decides. A read retry moves the read
 * reference voltages and leaves a fraction of the errors (retry_keep per
 * step, never below retry_floor of them: what no reference voltage
 * separates); the first step whose errors the ECC corrects ends the read.
 * Past the last step the page is uncorrectable, and stays so until its
 * block is erased. Each retry costs another array read and transfer. A
 * read of the OOB alone (the FTL's metadata, under a stronger code of its
 * own) is not sampled: GC can always tell what a page held.
 */
#include "engine_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_DAY (86400.0 * 1e9)

void nand_reliability_default(struct nand_reliability *r, enum nand_cell cell)
{
	static const struct {
		uint32_t rated;
		double e0;
	} by_cell[] = {
		[NAND_SLC] = { 100000, 1e-6 },
		[NAND_MLC] = { 10000, 3e-5 },
		[NAND_TLC] = { 3000, 1e-4 },
		[NAND_QLC] = { 1000, 3e-4 },
	};
	uint32_t c = cell >= NAND_SLC && cell <= NAND_QLC ? cell : NAND_TLC;

	*r = (struct nand_reliability){
		.enabled = false,
		.seed = 1,
		.codeword_bytes = 1024,
		.ecc_bits = 60,
		.retries = 7,
		.retry_keep = 0.6,
		.retry_floor = 0.4,
		.aging = 1.0,
		.erase_fail = 1e-6,
		.program_fail = 1e-7,
		.pe_scale = by_cell[c].rated / 3.0,
		.e0 = by_cell[c].e0,
		.pe_exp = 2.7,
		.ret_coef = 2.2e-5,
		.ret_exp = 0.6,
		.rd_coef = 5e-9,
		.rd_exp = 1.0,
	};
}

int nand_reliability_check(const struct nand_reliability *r, const struct nand_geometry *g)
{
	if (!r->enabled)
		return 0;
	if (r->codeword_bytes == 0 || r->codeword_bytes > g->page_size || r->ecc_bits == 0 ||
	    r->retries > 64 || !(r->retry_keep > 0 && r->retry_keep <= 1) ||
	    !(r->erase_fail >= 0 && r->erase_fail <= 1) ||
	    !(r->program_fail >= 0 && r->program_fail <= 1) ||
	    !(r->retry_floor >= 0 && r->retry_floor <= 1) || !(r->aging > 0) ||
	    !(r->pe_scale > 0) || !(r->e0 >= 0) || !(r->pe_exp >= 0) || !(r->ret_coef >= 0) ||
	    !(r->ret_exp >= 0) || !(r->rd_coef >= 0) || !(r->rd_exp >= 0))
		return -EINVAL;
	return 0;
}

double nand_rber(const struct nand_reliability *r, uint32_t pe, double age_days, uint64_t reads)
{
	double w = pe / r->pe_scale;
	double v = r->e0 * (1.0 + pow(w, r->pe_exp));

	v += (1.0 + w) * (r->ret_coef * pow(age_days > 0 ? age_days : 0, r->ret_exp) +
			  r->rd_coef * pow((double)reads, r->rd_exp));
	return v < 0.5 ? v : 0.5;
}

uint32_t nand_retries_needed(const struct nand_reliability *r, uint32_t errors)
{
	for (uint32_t k = 0; k <= r->retries; k++) {
		double left = errors * (r->retry_floor + (1.0 - r->retry_floor) * pow(r->retry_keep, k));

		if (left <= r->ecc_bits)
			return k;
	}
	return UINT32_MAX;
}

/* ---- the device's state ---- */

int nand_rel_init(struct nand_dev *dev)
{
	const struct nand_geometry *g = &dev->cfg.geo;
	uint64_t n = nand_blocks(g);
	struct nand_rel_state *s;

	if (!dev->cfg.rel.enabled || !dev->store)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->rng = dev->cfg.rel.seed ? dev->cfg.rel.seed : 1;
	/* Program failures draw from a stream of their own: reads see the same errors. */
	s->prog_rng = s->rng ^ 0x9e3779b97f4a7c15ull;
	s->reads = calloc(n, sizeof(*s->reads));
	s->prog_ns = malloc(n * sizeof(*s->prog_ns));
	s->bad = calloc(n, sizeof(*s->bad));
	dev->rel = s;
	if (!s->reads || !s->prog_ns || !s->bad) {
		nand_rel_fini(dev);
		return -ENOMEM;
	}
	/* What a store already holds counts as programmed when the device starts. */
	for (uint64_t i = 0; i < n; i++)
		s->prog_ns[i] = dev->store->blocks[i].write_ptr ? 0 : INT64_MIN;
	return 0;
}

void nand_rel_fini(struct nand_dev *dev)
{
	struct nand_rel_state *s = dev->rel;

	if (!s)
		return;
	for (uint64_t i = 0; s->bad && i < nand_blocks(&dev->cfg.geo); i++)
		free(s->bad[i]);
	free(s->bad);
	free(s->reads);
	free(s->prog_ns);
	free(s);
	dev->rel = NULL;
}

/* xorshift64* on @rng: a uniform double in (0, 1). */
static double uniform_of(uint64_t *rng)
{
	*rng ^= *rng >> 12;
	*rng ^= *rng << 25;
	*rng ^= *rng >> 27;
	return ((*rng * 0x2545f4914f6cdd1dull) >> 11) * (1.0 / 9007199254740992.0) +
	       (0.5 / 9007199254740992.0);
}

static double uniform(struct nand_rel_state *s)
{
	return uniform_of(&s->rng);
}

/* A Poisson sample of mean @mean: by products below 30, else the normal approximation. */
static uint32_t poisson(struct nand_rel_state *s, double mean)
{
	if (mean <= 0)
		return 0;
	if (mean < 30) {
		double l = exp(-mean), p = 1.0;
		uint32_t k = 0;

		do {
			k++;
			p *= uniform(s);
		} while (p > l);
		return k - 1;
	}
	{
		double z = sqrt(-2.0 * log(uniform(s))) * cos(6.283185307179586 * uniform(s));
		double v = mean + sqrt(mean) * z + 0.5;

		return v < 0 ? 0 : v > 1e9 ? 1000000000u : (uint32_t)v;
	}
}

static bool page_bad(const struct nand_rel_state *s, uint64_t blk, uint32_t page)
{
	return s->bad[blk] && (s->bad[blk][page / 64] >> (page % 64) & 1);
}

/* Codewords a read of data covers: its segments', or the whole page's. */
static uint32_t read_codewords(const struct nand_dev *dev, const struct nand_op *op)
{
	const struct nand_reliability *r = &dev->cfg.rel;
	uint64_t bytes = 0;

	for (uint32_t i = 0; i < op->nsegs; i++)
		bytes += op->segs[i].len;
	if (op->data)
		bytes = dev->cfg.geo.page_size;
	return (uint32_t)((bytes + r->codeword_bytes - 1) / r->codeword_bytes);
}

uint64_t nand_rel_read_start(struct nand_dev *dev, struct nand_op *op, uint64_t t)
{
	const struct nand_reliability *r = &dev->cfg.rel;
	const struct nand_geometry *g = &dev->cfg.geo;
	struct nand_rel_state *s = dev->rel;
	struct nand_addr a = op->addr;
	uint64_t blk = nand_block_index(g, &a);
	const struct nand_block_meta *m = &dev->store->blocks[blk];
	uint32_t worst = 0, retries, ncw;
	double mean;

	op->uncorrectable = false;
	op->retries = 0;
	if (op->timing_only || a.page >= m->write_ptr)
		return 0; /* an erased page reads clean */
	if (!op->data && !op->nsegs)
		return 0; /* the OOB alone: metadata under a stronger code of its own */
	if (page_bad(s, blk, a.page)) {
		retries = UINT32_MAX;
	} else {
		int64_t p = s->prog_ns[blk];
		double age = p != INT64_MIN && (double)t > (double)p
				     ? ((double)t - (double)p) * r->aging / NS_PER_DAY
				     : 0;

		mean = nand_rber(r, m->erase_count, age, s->reads[blk]) * r->codeword_bytes * 8.0;
		ncw = read_codewords(dev, op);
		for (uint32_t i = 0; i < ncw; i++) {
			uint32_t e = poisson(s, mean);

			worst = e > worst ? e : worst;
		}
		retries = nand_retries_needed(r, worst);
	}
	if (retries == UINT32_MAX) {
		op->uncorrectable = true;
		retries = r->retries;
		dev->stats.rel.uncorrectable++;
	}
	op->retries = retries;
	dev->stats.rel.reads++;
	dev->stats.rel.retries += retries;
	dev->stats.rel.reads_retried += retries > 0;
	if (worst > dev->stats.rel.max_errors)
		dev->stats.rel.max_errors = worst;
	/* Each retry: the array read again and the data out to the decoder again. */
	return retries * (nand_array_time(dev, op) + nand_bus_time(dev, op));
}

void nand_rel_complete(struct nand_dev *dev, struct nand_op *op, uint64_t t)
{
	const struct nand_geometry *g = &dev->cfg.geo;
	struct nand_rel_state *s = dev->rel;

	for (uint32_t p = 0; p < op->nplanes; p++) {
		struct nand_addr a = nand_plane_addr(op, p);
		uint64_t blk = nand_block_index(g, &a);

		switch (op->kind) {
		case NAND_OP_READ:
			s->reads[blk]++;
			if (op->uncorrectable) {
				uint32_t words = (g->pages_per_block + 63) / 64;

				if (!s->bad[blk])
					s->bad[blk] = calloc(words, sizeof(uint64_t));
				if (s->bad[blk])
					s->bad[blk][a.page / 64] |= 1ull << (a.page % 64);
			}
			break;
		case NAND_OP_PROGRAM:
			if (a.page == 0 || s->prog_ns[blk] == INT64_MIN)
				s->prog_ns[blk] = (int64_t)t;
			break;
		case NAND_OP_ERASE:
			s->reads[blk] = 0;
			s->prog_ns[blk] = INT64_MIN;
			free(s->bad[blk]);
			s->bad[blk] = NULL;
			break;
		default:
			break;
		}
	}
}

void nand_reliability_age(struct nand_dev *dev, uint64_t ns)
{
	struct nand_rel_state *s = dev->rel;

	for (uint64_t i = 0; s && i < nand_blocks(&dev->cfg.geo); i++)
		if (s->prog_ns[i] != INT64_MIN)
			s->prog_ns[i] -= (int64_t)(ns > INT64_MAX / 2 ? INT64_MAX / 2 : ns);
}

bool nand_rel_erase_fails(struct nand_dev *dev, struct nand_op *op)
{
	const struct nand_reliability *r = &dev->cfg.rel;
	const struct nand_geometry *g = &dev->cfg.geo;
	bool failed = false;

	for (uint32_t p = 0; p < op->nplanes; p++) {
		struct nand_addr a = nand_plane_addr(op, p);
		struct nand_block_meta *m;
		double w, chance;

		m = &dev->store->blocks[nand_block_index(g, &a)];
		w = m->erase_count / r->pe_scale;
		chance = r->erase_fail * (1.0 + pow(w, r->pe_exp));
		if (chance > 0 && uniform(dev->rel) < chance) {
			m->flags |= NAND_BLOCK_BAD;
			dev->stats.rel.erase_failures++;
			failed = true;
		}
	}
	return failed;
}

/* Mark @op's blocks bad (every plane of a multi-plane op). */
static void mark_bad(struct nand_dev *dev, const struct nand_op *op)
{
	for (uint32_t p = 0; p < op->nplanes; p++) {
		struct nand_addr a = nand_plane_addr(op, p);

		dev->store->blocks[nand_block_index(&dev->cfg.geo, &a)].flags |= NAND_BLOCK_BAD;
	}
}

/* Whether an injected fault of kind @k fails @op (on a die of this device). */
bool nand_fault_fires(struct nand_dev *dev, const struct nand_op *op, enum blox_fault_kind k)
{
	struct blox_fault_site site = {
		.kind = k,
		.device = dev->fault_name,
		.die = nand_die_index(&dev->cfg.geo, &op->addr),
		.qd = 1,
	};

	return blox_fault_armed(dev->faults, k) && blox_fault_match(dev->faults, &site, NULL);
}

bool nand_fault_erase_fails(struct nand_dev *dev, struct nand_op *op)
{
	if (!nand_fault_fires(dev, op, BLOX_FAULT_ERASE_FAIL))
		return false;
	mark_bad(dev, op);
	dev->stats.rel.erase_failures++;
	return true;
}

bool nand_fault_read_fails(struct nand_dev *dev, const struct nand_op *op)
{
	/* The OOB alone is the FTL's metadata under a stronger code: as the model, not failed. */
	if (!op->data && !op->nsegs)
		return false;
	if (!nand_fault_fires(dev, op, BLOX_FAULT_DIE_FAIL))
		return false;
	dev->stats.rel.uncorrectable++;
	return true;
}

bool nand_program_fails(struct nand_dev *dev, struct nand_op *op)
{
	const struct nand_reliability *r = &dev->cfg.rel;
	uint32_t die = nand_die_index(&dev->cfg.geo, &op->addr);
	bool failed = false;

	if (dev->fail_programs[die] || nand_fault_fires(dev, op, BLOX_FAULT_PROGRAM_FAIL)) {
		if (dev->fail_programs[die])
			dev->fail_programs[die]--;
		failed = true;
	} else if (dev->rel && r->program_fail > 0) {
		const struct nand_block_meta *m =
			&dev->store->blocks[nand_block_index(&dev->cfg.geo, &op->addr)];
		double w = m->erase_count / r->pe_scale;

		failed = uniform_of(&dev->rel->prog_rng) < r->program_fail * (1.0 + pow(w, r->pe_exp));
	}
	if (failed) {
		mark_bad(dev, op);
		dev->stats.rel.program_failures++;
	}
	return failed;
}

int nand_fail_programs(struct nand_dev *dev, uint32_t die, uint32_t n)
{
	if (die >= dev->nr_dies)
		return -ERANGE;
	if (!dev->store)
		return -EINVAL;
	dev->fail_programs[die] = n;
	return 0;
}

uint32_t nand_programs_to_fail(const struct nand_dev *dev, uint32_t die)
{
	return die < dev->nr_dies ? dev->fail_programs[die] : 0;
}

/* ---- factory bad blocks ---- */

/*
 * NAND ships with some blocks bad: datasheets guarantee a minimum of valid
 * blocks per LUN, e.g. Micron's MT29F NAND at 4016 of 4096 (NVB, about 2%
 * invalid at most), and block 0 of each plane always valid. Each block is
 * bad with the chance asked, from a hash of the seed and its index (not a
 * generator stream, so which blocks are bad depends on nothing else).
 */
bool nand_factory_bad(const struct nand_geometry *g, uint64_t block, uint32_t ppm,
		      uint64_t seed)
{
	uint64_t z = (seed ? seed : 1) ^ ((block + 1) * 0x9e3779b97f4a7c15ull);

	if (!ppm || block % g->blocks_per_plane == 0)
		return false;
	/* splitmix64's finalizer */
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return z % 1000000u < ppm;
}

int nand_factory_mark(struct nand_dev *dev)
{
	const struct nand_geometry *g = &dev->cfg.geo;
	struct nand_store *st = dev->store;
	uint64_t n = nand_blocks(g);
	bool changed = false;

	if (!st)
		return 0;
	for (uint64_t i = 0; i < n; i++) {
		struct nand_block_meta *m = &st->blocks[i];

		if (!(m->flags & NAND_BLOCK_FACTORY_BAD) &&
		    nand_factory_bad(g, i, dev->cfg.factory_bad_ppm, dev->cfg.rel.seed)) {
			m->flags |= NAND_BLOCK_BAD | NAND_BLOCK_FACTORY_BAD;
			changed = true;
		}
		dev->stats.factory_bad_blocks += !!(m->flags & NAND_BLOCK_FACTORY_BAD);
	}
	return changed ? st->ops->sync(st) : 0;
}
