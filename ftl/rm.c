/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FlashBlox resource manager: die ownership, allocation by isolation
 * level, and the choice of wear-balancing swaps (flashblox.h).
 */
#include "flashblox.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fbx_owner {
	uint32_t id;
	struct fbx_alloc a;
};

struct fbx_rm {
	struct nand_geometry geo;
	struct fbx_params p;
	uint32_t ndies, dpc;
	uint32_t *owner; /* per die */
	struct fbx_owner *owners;
	uint32_t nr_owners, cap_owners;
	uint32_t pool_users; /* software vSSDs on the pool */
	uint64_t *erases; /* per die, as last told */
	uint64_t *snap; /* per die, at the last check */
	double next_check;
	uint64_t checks, swaps;
};

static int why_set(char *why, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int why_set(char *why, size_t len, int rc, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return rc;
}

const char *fbx_isolation_name(enum fbx_isolation iso)
{
	switch (iso) {
	case FBX_CHANNEL:
		return "channel";
	case FBX_CHIP:
		return "chip";
	case FBX_SOFTWARE:
		return "software";
	}
	return "?";
}

int fbx_isolation_parse(const char *s, enum fbx_isolation *iso, uint32_t *count)
{
	const char *colon = s ? strchr(s, ':') : NULL;
	size_t n = colon ? (size_t)(colon - s) : (s ? strlen(s) : 0);
	unsigned long v = 0;
	char *end;

	if (!s)
		return -EINVAL;
	if (n == 8 && !strncmp(s, "software", 8)) {
		if (colon)
			return -EINVAL;
		*iso = FBX_SOFTWARE;
		*count = 0;
		return 0;
	}
	if (n == 7 && !strncmp(s, "channel", 7))
		*iso = FBX_CHANNEL;
	else if (n == 4 && !strncmp(s, "chip", 4))
		*iso = FBX_CHIP;
	else
		return -EINVAL;
	if (colon) {
		if (colon[1] < '1' || colon[1] > '9')
			return -EINVAL;
		errno = 0;
		v = strtoul(colon + 1, &end, 10);
		if (errno || *end || v > BLOX_FTL_MAX_DIES)
			return -EINVAL;
	}
	*count = (uint32_t)v;
	return 0;
}

void fbx_params_default(struct fbx_params *p, enum nand_cell cell)
{
	memset(p, 0, sizeof(*p));
	p->pool_channels = 1;
	p->bound_permille = 100;
	p->spare_channel = true;
	switch (cell) {
	case NAND_SLC:
		p->rated_pe = 100000;
		break;
	case NAND_MLC:
		p->rated_pe = 10000;
		break;
	case NAND_QLC:
		p->rated_pe = 1000;
		break;
	case NAND_TLC:
	default:
		p->rated_pe = 3000;
		break;
	}
}

/* K >= (N - 1 - x) / (N x), at least 1; x = bound_permille / 1000. */
static uint32_t rounds(const struct fbx_rm *rm)
{
	int64_t n = rm->geo.channels, b = rm->p.bound_permille;
	int64_t num = 1000 * (n - 1) - b, den = n * b;

	if (n < 2 || num <= 0)
		return 1;
	return (uint32_t)((num + den - 1) / den);
}

static double check_step(const struct fbx_rm *rm)
{
	if (rm->p.check_erases)
		return (double)rm->p.check_erases / ((double)rm->ndies * rm->geo.planes_per_die *
						     rm->geo.blocks_per_plane);
	return (double)rm->p.rated_pe / ((double)rounds(rm) * rm->geo.channels);
}

int fbx_rm_create(const struct nand_geometry *g, const struct fbx_params *p, struct fbx_rm **out)
{
	struct fbx_rm *rm;
	const char *why;

	if (nand_geometry_check(g, &why) || !p->rated_pe || p->bound_permille == 0)
		return -EINVAL;
	rm = calloc(1, sizeof(*rm));
	if (!rm)
		return -ENOMEM;
	rm->geo = *g;
	rm->p = *p;
	if (!rm->p.pool_channels)
		rm->p.pool_channels = 1;
	if (rm->p.pool_channels > g->channels)
		rm->p.pool_channels = g->channels;
	rm->ndies = nand_dies(g);
	rm->dpc = g->dies_per_channel;
	rm->owner = calloc(rm->ndies, sizeof(*rm->owner));
	rm->erases = calloc(rm->ndies, sizeof(*rm->erases));
	rm->snap = calloc(rm->ndies, sizeof(*rm->snap));
	if (!rm->owner || !rm->erases || !rm->snap) {
		fbx_rm_destroy(rm);
		return -ENOMEM;
	}
	rm->next_check = check_step(rm);
	*out = rm;
	return 0;
}

void fbx_rm_destroy(struct fbx_rm *rm)
{
	if (!rm)
		return;
	free(rm->owner);
	free(rm->owners);
	free(rm->erases);
	free(rm->snap);
	free(rm);
}

const struct fbx_params *fbx_rm_params(const struct fbx_rm *rm)
{
	return &rm->p;
}

/* ---- the grid ---- */

static bool channel_free(const struct fbx_rm *rm, uint32_t ch)
{
	for (uint32_t d = 0; d < rm->dpc; d++)
		if (rm->owner[ch * rm->dpc + d] != FBX_FREE)
			return false;
	return true;
}

static uint32_t channel_free_dies(const struct fbx_rm *rm, uint32_t ch)
{
	uint32_t n = 0;

	for (uint32_t d = 0; d < rm->dpc; d++)
		n += rm->owner[ch * rm->dpc + d] == FBX_FREE;
	return n;
}

uint32_t fbx_die_owner(const struct fbx_rm *rm, uint32_t die)
{
	return die < rm->ndies ? rm->owner[die] : FBX_FREE;
}

uint32_t fbx_free_dies(const struct fbx_rm *rm)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < rm->ndies; i++)
		n += rm->owner[i] == FBX_FREE;
	return n;
}

uint32_t fbx_free_channels(const struct fbx_rm *rm)
{
	uint32_t n = 0;

	for (uint32_t c = 0; c < rm->geo.channels; c++)
		n += channel_free(rm, c);
	return n;
}

uint32_t fbx_pool_dies(const struct fbx_rm *rm)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < rm->ndies; i++)
		n += rm->owner[i] == FBX_POOL;
	return n;
}

static double die_wear(const struct fbx_rm *rm, uint32_t die)
{
	uint64_t blocks = (uint64_t)rm->geo.planes_per_die * rm->geo.blocks_per_plane;

	return (double)rm->erases[die] / (double)blocks;
}

static double chan_wear(const struct fbx_rm *rm, uint32_t ch)
{
	double sum = 0;

	for (uint32_t d = 0; d < rm->dpc; d++)
		sum += die_wear(rm, ch * rm->dpc + d);
	return sum / rm->dpc;
}

double fbx_channel_wear(const struct fbx_rm *rm, uint32_t ch, uint64_t *since_check)
{
	uint64_t n = 0;

	for (uint32_t d = 0; d < rm->dpc; d++)
		n += rm->erases[ch * rm->dpc + d] - rm->snap[ch * rm->dpc + d];
	if (since_check)
		*since_check = n;
	return chan_wear(rm, ch);
}

double fbx_die_wear(const struct fbx_rm *rm, uint32_t die, uint64_t *since_check)
{
	if (since_check)
		*since_check = rm->erases[die] - rm->snap[die];
	return die_wear(rm, die);
}

/* ---- owners ---- */

static struct fbx_owner *owner_find(const struct fbx_rm *rm, uint32_t id)
{
	for (uint32_t i = 0; i < rm->nr_owners; i++)
		if (rm->owners[i].id == id)
			return &rm->owners[i];
	return NULL;
}

bool fbx_owner_alloc(const struct fbx_rm *rm, uint32_t owner, struct fbx_alloc *out)
{
	const struct fbx_owner *o = owner_find(rm, owner);

	if (!o)
		return false;
	if (out)
		*out = o->a;
	return true;
}

/* Per-plane blocks of the pool not in any software vSSD's range. */
uint32_t fbx_pool_free_blocks(const struct fbx_rm *rm)
{
	uint32_t used = 0;

	if (!rm->pool_users)
		return 0;
	for (uint32_t i = 0; i < rm->nr_owners; i++)
		if (rm->owners[i].a.iso == FBX_SOFTWARE)
			used += rm->owners[i].a.res.nr_blocks;
	return rm->geo.blocks_per_plane - used;
}

/*
 * The first run of @n blocks per plane that no software vSSD has, or -1
 * with the longest run there is in @largest.
 */
static int64_t pool_range(const struct fbx_rm *rm, uint32_t n, uint32_t *largest)
{
	uint32_t at = 0, best = 0, bpp = rm->geo.blocks_per_plane;

	for (;;) {
		uint32_t next = bpp, end = 0;

		/* The range that starts first at or after @at, or covers it. */
		for (uint32_t i = 0; i < rm->nr_owners; i++) {
			const struct ftl_resources *r = &rm->owners[i].a.res;

			if (rm->owners[i].a.iso != FBX_SOFTWARE || r->first_block + r->nr_blocks <= at)
				continue;
			if (r->first_block < next || (r->first_block == next &&
						      r->first_block + r->nr_blocks > end)) {
				next = r->first_block;
				end = r->first_block + r->nr_blocks;
			}
		}
		if (next > at) {
			if (next - at >= n)
				return at;
			if (next - at > best)
				best = next - at;
		}
		if (next >= bpp)
			break;
		at = end;
	}
	if (largest)
		*largest = best;
	return -1;
}

/* Is a channel kept spare? Only on devices with FBX_SPARE_MIN_CHANNELS or more. */
static bool has_spare(const struct fbx_rm *rm)
{
	return rm->p.spare_channel && rm->geo.channels >= FBX_SPARE_MIN_CHANNELS;
}

/* Whole free channels an allocation may take of @nfree: the spare stays. */
static uint32_t takeable(const struct fbx_rm *rm, uint32_t nfree)
{
	return has_spare(rm) && nfree ? nfree - 1 : nfree;
}

/* What an ask short of channels or dies is told about the spare. */
static const char *spare_note(const struct fbx_rm *rm, uint32_t nfree)
{
	return has_spare(rm) && nfree ? " (and 1 kept spare for wear swaps)" : "";
}

/* Free channels, least worn first (then by index). */
static uint32_t free_channels_by_wear(const struct fbx_rm *rm, uint32_t *out)
{
	uint32_t n = 0;

	for (uint32_t c = 0; c < rm->geo.channels; c++) {
		uint32_t i;

		if (!channel_free(rm, c))
			continue;
		for (i = n; i > 0 && chan_wear(rm, out[i - 1]) > chan_wear(rm, c); i--)
			out[i] = out[i - 1];
		out[i] = c;
		n++;
	}
	return n;
}

static void res_add_channel(const struct fbx_rm *rm, struct ftl_resources *r, uint32_t ch)
{
	for (uint32_t d = 0; d < rm->dpc; d++)
		r->dies[r->nr_dies++] = ch * rm->dpc + d;
}

static void sort_dies(struct ftl_resources *r)
{
	for (uint32_t i = 1; i < r->nr_dies; i++)
		for (uint32_t j = i; j > 0 && r->dies[j - 1] > r->dies[j]; j--) {
			uint32_t t = r->dies[j];

			r->dies[j] = r->dies[j - 1];
			r->dies[j - 1] = t;
		}
}

static uint64_t cap_of(const struct fbx_rm *rm, const struct ftl_config *fc, uint32_t dies,
		       uint32_t blocks)
{
	return ftl_capacity_for(fc, &rm->geo, dies, blocks);
}

static int plan_channel(const struct fbx_rm *rm, const struct fbx_ask *ask,
			const struct ftl_config *fc, struct fbx_alloc *a, char *why, size_t wl)
{
	uint32_t order[BLOX_FTL_MAX_DIES], nfree, want = ask->count, total = rm->geo.channels;
	uint32_t max_ch = BLOX_FTL_MAX_DIES / rm->dpc;

	if (!want) {
		for (want = 1; want <= total && want <= max_ch; want++)
			if (cap_of(rm, fc, want * rm->dpc, rm->geo.blocks_per_plane) >= ask->units)
				break;
		if (want > total || want > max_ch)
			return why_set(why, wl, -EINVAL,
				       "%llu MiB does not fit in the device's %u channels",
				       (unsigned long long)(ask->units * FTL_UNIT >> 20), total);
	}
	if (want > total)
		return why_set(why, wl, -EINVAL, "need %u channels, the device has %u", want,
			       total);
	if (want > max_ch)
		return why_set(why, wl, -EINVAL, "%u channels are more than the %u dies an FTL takes",
			       want, BLOX_FTL_MAX_DIES);
	nfree = free_channels_by_wear(rm, order);
	if (takeable(rm, nfree) < want)
		return why_set(why, wl, -ENOSPC, "need %u free channel%s, %u left%s", want,
			       want == 1 ? "" : "s", takeable(rm, nfree), spare_note(rm, nfree));
	for (uint32_t i = 0; i < want; i++)
		res_add_channel(rm, &a->res, order[i]);
	a->res.first_block = 0;
	a->res.nr_blocks = rm->geo.blocks_per_plane;
	return 0;
}

/*
 * Dies for `chip`: the least-worn free dies of channels already split
 * (some dies taken) first, then of whole free channels, least worn first.
 */
static int plan_chip(const struct fbx_rm *rm, const struct fbx_ask *ask,
		     const struct ftl_config *fc, struct fbx_alloc *a, char *why, size_t wl)
{
	uint32_t want = ask->count, nfree = 0, nwhole, n = 0;
	uint32_t cand[BLOX_FTL_MAX_DIES * 4];
	uint32_t max = rm->ndies < BLOX_FTL_MAX_DIES ? rm->ndies : BLOX_FTL_MAX_DIES;

	if (!want) {
		for (want = 1; want <= max; want++)
			if (cap_of(rm, fc, want, rm->geo.blocks_per_plane) >= ask->units)
				break;
		if (want > max)
			return why_set(why, wl, -EINVAL,
				       "%llu MiB does not fit in %u dies",
				       (unsigned long long)(ask->units * FTL_UNIT >> 20), max);
	}
	if (want > rm->ndies)
		return why_set(why, wl, -EINVAL, "need %u dies, the device has %u", want,
			       rm->ndies);
	if (want > BLOX_FTL_MAX_DIES)
		return why_set(why, wl, -EINVAL, "%u dies are more than the %u an FTL takes", want,
			       BLOX_FTL_MAX_DIES);
	/* The spare channel's dies are not for chips either. */
	nwhole = fbx_free_channels(rm);
	nfree = fbx_free_dies(rm) - (nwhole - takeable(rm, nwhole)) * rm->dpc;
	if (nfree < want)
		return why_set(why, wl, -ENOSPC, "need %u free dies, %u left%s", want, nfree,
			       spare_note(rm, nwhole));
	/* Rank: split channels before whole free ones, then by wear, then by index. */
	for (uint32_t pass = 0; pass < 2 && n < want; pass++) {
		uint32_t chs[1024], nch = 0;

		for (uint32_t c = 0; c < rm->geo.channels && nch < 1024; c++) {
			uint32_t fd = channel_free_dies(rm, c), i;

			if (!fd || (pass == 0) != (fd < rm->dpc))
				continue;
			for (i = nch; i > 0 && chan_wear(rm, chs[i - 1]) > chan_wear(rm, c); i--)
				chs[i] = chs[i - 1];
			chs[i] = c;
			nch++;
		}
		if (pass == 1)
			nch = takeable(rm, nch); /* the most worn whole one stays spare */
		for (uint32_t k = 0; k < nch && n < want; k++)
			for (uint32_t d = 0; d < rm->dpc && n < want; d++) {
				uint32_t die = chs[k] * rm->dpc + d;

				if (rm->owner[die] == FBX_FREE && n < sizeof(cand) / sizeof(cand[0]))
					cand[n++] = die;
			}
	}
	for (uint32_t i = 0; i < want; i++)
		a->res.dies[a->res.nr_dies++] = cand[i];
	sort_dies(&a->res);
	a->res.first_block = 0;
	a->res.nr_blocks = rm->geo.blocks_per_plane;
	return 0;
}

static int plan_software(const struct fbx_rm *rm, const struct fbx_ask *ask,
			 const struct ftl_config *fc, struct fbx_alloc *a, char *why, size_t wl)
{
	uint32_t bpp = rm->geo.blocks_per_plane, blocks, largest = 0;
	int64_t at;

	if (!ask->units)
		return why_set(why, wl, -EINVAL, "a software vSSD needs a size");
	if (ask->count)
		return why_set(why, wl, -EINVAL, "a software vSSD takes no count");
	if (rm->pool_users) {
		for (uint32_t i = 0; i < rm->ndies; i++)
			if (rm->owner[i] == FBX_POOL)
				a->res.dies[a->res.nr_dies++] = i;
	} else {
		uint32_t order[BLOX_FTL_MAX_DIES], nfree = free_channels_by_wear(rm, order);
		uint32_t want = rm->p.pool_channels;

		/* More channels than pool_channels if the first ask needs them. */
		while (want <= rm->geo.channels && want * rm->dpc <= BLOX_FTL_MAX_DIES &&
		       cap_of(rm, fc, want * rm->dpc, bpp) < ask->units)
			want++;
		if (want > rm->geo.channels || want * rm->dpc > BLOX_FTL_MAX_DIES)
			return why_set(why, wl, -EINVAL,
				       "%llu MiB does not fit in a software pool on this device",
				       (unsigned long long)(ask->units * FTL_UNIT >> 20));
		if (takeable(rm, nfree) < want)
			return why_set(why, wl, -ENOSPC,
				       "the software pool needs %u free channel%s, %u left%s", want,
				       want == 1 ? "" : "s", takeable(rm, nfree),
				       spare_note(rm, nfree));
		for (uint32_t i = 0; i < want; i++)
			res_add_channel(rm, &a->res, order[i]);
		sort_dies(&a->res);
	}
	for (blocks = 1; blocks <= bpp; blocks++)
		if (cap_of(rm, fc, a->res.nr_dies, blocks) >= ask->units)
			break;
	if (blocks > bpp)
		return why_set(why, wl, rm->pool_users ? -ENOSPC : -EINVAL,
			       "%llu MiB does not fit in the software pool's %u dies",
			       (unsigned long long)(ask->units * FTL_UNIT >> 20), a->res.nr_dies);
	at = pool_range(rm, blocks, &largest);
	if (at < 0)
		return why_set(why, wl, -ENOSPC,
			       "the software pool has %u free blocks per plane in one run, %u needed",
			       largest, blocks);
	a->res.first_block = (uint32_t)at;
	a->res.nr_blocks = blocks;
	return 0;
}

int fbx_plan(const struct fbx_rm *rm, const struct fbx_ask *ask, const struct ftl_config *fc,
	     struct fbx_alloc *out, char *why, size_t whylen)
{
	int rc;

	memset(out, 0, sizeof(*out));
	out->iso = ask->iso;
	switch (ask->iso) {
	case FBX_CHANNEL:
		rc = plan_channel(rm, ask, fc, out, why, whylen);
		break;
	case FBX_CHIP:
		rc = plan_chip(rm, ask, fc, out, why, whylen);
		break;
	case FBX_SOFTWARE:
		rc = plan_software(rm, ask, fc, out, why, whylen);
		break;
	default:
		return why_set(why, whylen, -EINVAL, "unknown isolation level");
	}
	if (rc)
		return rc;
	out->units = cap_of(rm, fc, out->res.nr_dies, out->res.nr_blocks);
	if (!out->units)
		return why_set(why, whylen, -EINVAL, "%u dies of %u blocks are too small for an FTL",
			       out->res.nr_dies, out->res.nr_blocks);
	if (ask->units > out->units)
		return why_set(why, whylen, -EINVAL, "%s:%u holds %llu MiB, less than the %llu MiB asked",
			       fbx_isolation_name(ask->iso), ask->count,
			       (unsigned long long)(out->units * FTL_UNIT >> 20),
			       (unsigned long long)(ask->units * FTL_UNIT >> 20));
	return 0;
}

int fbx_take(struct fbx_rm *rm, uint32_t owner, const struct fbx_alloc *a, char *why,
	     size_t whylen)
{
	return fbx_take_held(rm, owner, a, NULL, 0, why, whylen);
}

int fbx_take_held(struct fbx_rm *rm, uint32_t owner, const struct fbx_alloc *a,
		  const uint32_t *held, uint32_t nheld, char *why, size_t whylen)
{
	const struct ftl_resources *r = &a->res;
	bool pool = a->iso == FBX_SOFTWARE;

	if (owner == FBX_FREE || owner == FBX_POOL)
		return why_set(why, whylen, -EINVAL, "bad owner id");
	if (owner_find(rm, owner))
		return why_set(why, whylen, -EEXIST, "owner %u has dies already", owner);
	if (!r->nr_dies || r->nr_dies > BLOX_FTL_MAX_DIES || !r->nr_blocks ||
	    r->first_block + r->nr_blocks > rm->geo.blocks_per_plane ||
	    r->first_block + r->nr_blocks < r->first_block)
		return why_set(why, whylen, -EINVAL, "dies or blocks off the device");
	if (!pool && (r->first_block || r->nr_blocks != rm->geo.blocks_per_plane))
		return why_set(why, whylen, -EINVAL, "a %s vSSD has every block of its dies",
			       fbx_isolation_name(a->iso));
	for (uint32_t i = 0; i < r->nr_dies; i++) {
		uint32_t d = r->dies[i];

		if (d >= rm->ndies)
			return why_set(why, whylen, -EINVAL, "die %u is off the device", d);
		for (uint32_t j = 0; j < i; j++)
			if (r->dies[j] == d)
				return why_set(why, whylen, -EINVAL, "die %u given twice", d);
		if (pool) {
			if (rm->pool_users ? rm->owner[d] != FBX_POOL : rm->owner[d] != FBX_FREE)
				return why_set(why, whylen, -EBUSY, "die %u is %s", d,
					       rm->pool_users ? "not in the software pool"
							      : "taken");
		} else if (rm->owner[d] != FBX_FREE) {
			return why_set(why, whylen, -EBUSY, "die %u is taken", d);
		}
	}
	if (nheld && pool)
		return why_set(why, whylen, -EINVAL, "a software vSSD holds no dies");
	for (uint32_t i = 0; i < nheld; i++) {
		if (held[i] >= rm->ndies)
			return why_set(why, whylen, -EINVAL, "held die %u is off the device", held[i]);
		if (rm->owner[held[i]] != FBX_FREE)
			return why_set(why, whylen, -EBUSY, "held die %u is taken", held[i]);
		for (uint32_t j = 0; j < r->nr_dies; j++)
			if (r->dies[j] == held[i])
				return why_set(why, whylen, -EINVAL, "die %u is held and had", held[i]);
	}
	if (a->iso == FBX_CHANNEL) {
		/*
		 * Whole channels: every die of each channel named, counting the
		 * dies held (in the middle of a move a vSSD has part of a channel
		 * and holds the rest).
		 */
		for (uint32_t i = 0; i < r->nr_dies + nheld; i++) {
			uint32_t d = i < r->nr_dies ? r->dies[i] : held[i - r->nr_dies];
			uint32_t ch = d / rm->dpc, n = 0;

			for (uint32_t j = 0; j < r->nr_dies + nheld; j++)
				n += (j < r->nr_dies ? r->dies[j] : held[j - r->nr_dies]) / rm->dpc ==
				     ch;
			if (n != rm->dpc)
				return why_set(why, whylen, -EINVAL, "channel %u is not whole", ch);
		}
	}
	if (pool && rm->pool_users) {
		/* The same dies as the pool, and a block range nobody has. */
		if (r->nr_dies != fbx_pool_dies(rm))
			return why_set(why, whylen, -EINVAL,
				       "a software vSSD is on every die of the pool");
		for (uint32_t i = 0; i < rm->nr_owners; i++) {
			const struct ftl_resources *o = &rm->owners[i].a.res;

			if (rm->owners[i].a.iso == FBX_SOFTWARE &&
			    r->first_block < o->first_block + o->nr_blocks &&
			    o->first_block < r->first_block + r->nr_blocks)
				return why_set(why, whylen, -EBUSY,
					       "blocks %u..%u of the pool are taken", o->first_block,
					       o->first_block + o->nr_blocks - 1);
		}
	}
	if (rm->nr_owners == rm->cap_owners) {
		uint32_t cap = rm->cap_owners ? rm->cap_owners * 2 : 8;
		struct fbx_owner *n = realloc(rm->owners, cap * sizeof(*n));

		if (!n)
			return why_set(why, whylen, -ENOMEM, "out of memory");
		rm->owners = n;
		rm->cap_owners = cap;
	}
	rm->owners[rm->nr_owners].id = owner;
	rm->owners[rm->nr_owners].a = *a;
	rm->nr_owners++;
	for (uint32_t i = 0; i < r->nr_dies; i++)
		rm->owner[r->dies[i]] = pool ? FBX_POOL : owner;
	for (uint32_t i = 0; i < nheld; i++)
		rm->owner[held[i]] = owner;
	if (pool)
		rm->pool_users++;
	return 0;
}

void fbx_release(struct fbx_rm *rm, uint32_t owner)
{
	struct fbx_owner *o = owner_find(rm, owner);

	if (!o)
		return;
	if (o->a.iso == FBX_SOFTWARE) {
		if (--rm->pool_users == 0)
			for (uint32_t i = 0; i < rm->ndies; i++)
				if (rm->owner[i] == FBX_POOL)
					rm->owner[i] = FBX_FREE;
	} else {
		/* Its dies, and those it holds for a migration. */
		for (uint32_t d = 0; d < rm->ndies; d++)
			if (rm->owner[d] == owner)
				rm->owner[d] = FBX_FREE;
	}
	*o = rm->owners[--rm->nr_owners];
}

/* ---- wear ---- */

static bool in_alloc(const struct fbx_owner *o, uint32_t die);

void fbx_wear_update(struct fbx_rm *rm, const uint64_t *die_erases)
{
	memcpy(rm->erases, die_erases, rm->ndies * sizeof(*rm->erases));
}

static double avg_wear(const struct fbx_rm *rm)
{
	double sum = 0;

	for (uint32_t c = 0; c < rm->geo.channels; c++)
		sum += chan_wear(rm, c);
	return sum / rm->geo.channels;
}

void fbx_wear_get(const struct fbx_rm *rm, struct fbx_wear *w)
{
	memset(w, 0, sizeof(*w));
	w->avg = avg_wear(rm);
	for (uint32_t c = 0; c < rm->geo.channels; c++) {
		double cw = chan_wear(rm, c);

		if (c == 0 || cw > w->max) {
			w->max = cw;
			w->max_channel = c;
		}
	}
	w->imbalance = w->avg > 0 ? w->max / w->avg : 1.0;
	w->rounds = rounds(rm);
	w->check_step = check_step(rm);
	w->next_check = rm->next_check;
	w->checks = rm->checks;
	w->swaps = rm->swaps;
}

bool fbx_check_due(const struct fbx_rm *rm)
{
	return avg_wear(rm) >= rm->next_check;
}

/* Channel @ch is whole and belongs to one `channel` vSSD: its id, else 0. */
static uint32_t channel_vssd(const struct fbx_rm *rm, uint32_t ch)
{
	uint32_t id = rm->owner[ch * rm->dpc];
	const struct fbx_owner *o;

	if (id == FBX_FREE || id == FBX_POOL)
		return 0;
	o = owner_find(rm, id);
	if (!o || o->a.iso != FBX_CHANNEL)
		return 0;
	for (uint32_t d = 1; d < rm->dpc; d++)
		if (rm->owner[ch * rm->dpc + d] != id)
			return 0;
	return id;
}

static uint64_t chan_rate(const struct fbx_rm *rm, uint32_t ch)
{
	uint64_t n;

	fbx_channel_wear(rm, ch, &n);
	return n;
}

static void add_channel_moves(const struct fbx_rm *rm, struct fbx_swap *s, uint32_t owner,
			      uint32_t from_ch, uint32_t to_ch)
{
	for (uint32_t d = 0; d < rm->dpc && s->nr < FBX_MAX_MOVES; d++)
		s->moves[s->nr++] = (struct fbx_move){ .owner = owner,
						       .from_die = from_ch * rm->dpc + d,
						       .to_die = to_ch * rm->dpc + d };
}

/* Channel @ch's wear by the next check if it keeps its rate: erases per block. */
static double chan_projected(const struct fbx_rm *rm, uint32_t ch)
{
	double blocks = (double)rm->dpc * rm->geo.planes_per_die * rm->geo.blocks_per_plane;

	return chan_wear(rm, ch) + (double)chan_rate(rm, ch) / blocks;
}

/* Die @die's wear by the next check if it keeps its rate: erases per block. */
static double die_projected(const struct fbx_rm *rm, uint32_t die)
{
	uint64_t r;

	return fbx_die_wear(rm, die, &r) +
	       (double)r / ((double)rm->geo.planes_per_die * rm->geo.blocks_per_plane);
}

/*
 * Where channel @hot's vSSD goes: 1 with the moves, 0 if nowhere helps.
 * The least-worn channel less worn than @hot that is free or another
 * `channel` vSSD's written slower; a free one directly, another vSSD's
 * through a free channel, that vSSD (the cold one) moving to the free
 * channel first, so the hot one lands on the least-worn channel and its
 * worn one rests.
 */
static int channel_dest(const struct fbx_rm *rm, uint32_t hot, struct fbx_swap *out)
{
	uint32_t n = rm->geo.channels, cold = UINT32_MAX, spare = UINT32_MAX;
	uint32_t hot_id = channel_vssd(rm, hot), cold_id;

	for (uint32_t c = 0; c < n; c++) {
		uint32_t id = channel_vssd(rm, c);

		if (c == hot || (!id && !channel_free(rm, c)) || id == hot_id ||
		    chan_wear(rm, c) >= chan_wear(rm, hot))
			continue;
		if (id && chan_rate(rm, c) >= chan_rate(rm, hot))
			continue;
		/* Least worn first; a free channel before an owned one as worn. */
		if (cold == UINT32_MAX || chan_wear(rm, c) < chan_wear(rm, cold) ||
		    (chan_wear(rm, c) == chan_wear(rm, cold) && !id && channel_vssd(rm, cold)))
			cold = c;
	}
	if (cold == UINT32_MAX)
		return 0;
	cold_id = channel_vssd(rm, cold);
	if (!cold_id) {
		add_channel_moves(rm, out, hot_id, hot, cold);
		snprintf(out->why, sizeof(out->why),
			 "channel %u (worn %.1f, %llu erases since the last check) to free channel "
			 "%u (worn %.1f)",
			 hot, chan_wear(rm, hot), (unsigned long long)chan_rate(rm, hot), cold,
			 chan_wear(rm, cold));
		return 1;
	}
	for (uint32_t c = 0; c < n; c++)
		if (channel_free(rm, c) &&
		    (spare == UINT32_MAX || chan_wear(rm, c) < chan_wear(rm, spare)))
			spare = c;
	if (spare == UINT32_MAX) {
		snprintf(out->why, sizeof(out->why),
			 "channels %u and %u should trade, but no channel is free to trade through",
			 hot, cold);
		return 0;
	}
	add_channel_moves(rm, out, cold_id, cold, spare);
	add_channel_moves(rm, out, hot_id, hot, cold);
	snprintf(out->why, sizeof(out->why),
		 "channel %u (worn %.1f, %llu erases since the last check) trades with channel %u "
		 "(worn %.1f), whose vSSD goes to free channel %u",
		 hot, chan_wear(rm, hot), (unsigned long long)chan_rate(rm, hot), cold,
		 chan_wear(rm, cold), spare);
	return 1;
}

/*
 * A `channel` swap: 1 with the moves, 0 with a reason. Candidates are the
 * channels of `channel` vSSDs written at least as fast as the average
 * channel (an idle vSSD gains nothing from a move), the one that will be
 * most worn by the next check (wear plus rate) first, so a vSSD heading
 * past the bound is moved and not only the fastest writer; the first that
 * has somewhere to go moves.
 */
static int channel_swap(const struct fbx_rm *rm, struct fbx_swap *out)
{
	uint32_t n = rm->geo.channels, cand[1024], nc = 0;
	double avg_rate = 0;

	if (rm->dpc * 2 > FBX_MAX_MOVES) {
		snprintf(out->why, sizeof(out->why), "channels too wide to move");
		return 0;
	}
	for (uint32_t c = 0; c < n; c++)
		avg_rate += (double)chan_rate(rm, c) / n;
	for (uint32_t c = 0; c < n && nc < 1024; c++) {
		uint32_t i;

		if (!channel_vssd(rm, c) || !chan_rate(rm, c) || (double)chan_rate(rm, c) < avg_rate)
			continue;
		for (i = nc; i > 0 && chan_projected(rm, cand[i - 1]) < chan_projected(rm, c); i--)
			cand[i] = cand[i - 1];
		cand[i] = c;
		nc++;
	}
	if (!nc) {
		snprintf(out->why, sizeof(out->why), "no channel vSSD written enough to move");
		return 0;
	}
	snprintf(out->why, sizeof(out->why), "no less-worn channel to move channel %u's vSSD to",
		 cand[0]);
	for (uint32_t i = 0; i < nc; i++) {
		char why[sizeof(out->why)];

		snprintf(why, sizeof(why), "%s", out->why);
		if (channel_dest(rm, cand[i], out))
			return 1;
		/* Keep the first reason (the hottest channel's) unless it gave one. */
		if (i && strcmp(why, out->why))
			snprintf(out->why, sizeof(out->why), "%s", why);
	}
	return 0;
}

/*
 * A `chip` move inside a channel, for the die wear of a channel split
 * among `chip` vSSDs (a move inside a channel leaves the channels' wear as
 * it is): in a channel whose most worn die will pass (1 + x) times the
 * channel's average die wear by the next check, the `chip` vSSD on that
 * die moves to the least-worn free die of the channel. 1 with the move, 0
 * with a reason.
 */
static int chip_swap(const struct fbx_rm *rm, struct fbx_swap *out)
{
	double x = rm->p.bound_permille / 1000.0;

	for (uint32_t ch = 0; ch < rm->geo.channels; ch++) {
		uint32_t hot = UINT32_MAX, cold = UINT32_MAX;
		double avg = 0;

		for (uint32_t d = ch * rm->dpc; d < (ch + 1) * rm->dpc; d++) {
			const struct fbx_owner *o = owner_find(rm, rm->owner[d]);

			avg += die_projected(rm, d) / rm->dpc;
			if (rm->owner[d] == FBX_FREE) {
				if (cold == UINT32_MAX || die_wear(rm, d) < die_wear(rm, cold))
					cold = d;
				continue;
			}
			if (!o || o->a.iso != FBX_CHIP || !in_alloc(o, d))
				continue;
			if (hot == UINT32_MAX || die_projected(rm, d) > die_projected(rm, hot))
				hot = d;
		}
		if (hot == UINT32_MAX || cold == UINT32_MAX || avg <= 0 ||
		    die_projected(rm, hot) <= (1 + x) * avg || die_wear(rm, cold) >= die_wear(rm, hot))
			continue;
		out->moves[out->nr++] = (struct fbx_move){ .owner = rm->owner[hot], .from_die = hot,
							   .to_die = cold };
		snprintf(out->why, sizeof(out->why),
			 "die %u (worn %.1f, %.1f by the next check against %.1f in its channel) to "
			 "free die %u (worn %.1f)",
			 hot, die_wear(rm, hot), die_projected(rm, hot), avg, cold, die_wear(rm, cold));
		return 1;
	}
	return 0;
}

int fbx_swap_preview(const struct fbx_rm *rm, struct fbx_swap *out)
{
	double x = rm->p.bound_permille / 1000.0, avg = avg_wear(rm);
	double now_max = 0, next_max = 0, next_avg = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	for (uint32_t c = 0; c < rm->geo.channels; c++) {
		double w = chan_wear(rm, c), pw = chan_projected(rm, c);

		if (w > now_max)
			now_max = w;
		if (pw > next_max)
			next_max = pw;
		next_avg += pw / rm->geo.channels;
	}
	if (avg > 0 && (now_max / avg > 1 + x / 2 || (next_avg > 0 && next_max / next_avg > 1 + x))) {
		rc = channel_swap(rm, out);
	} else {
		snprintf(out->why, sizeof(out->why),
			 "channel wear is even enough (max/avg %.3f now, %.3f by the next check)",
			 avg > 0 ? now_max / avg : 1.0, next_avg > 0 ? next_max / next_avg : 1.0);
	}
	if (!rc) {
		struct fbx_swap chip;

		memset(&chip, 0, sizeof(chip));
		if (chip_swap(rm, &chip)) {
			*out = chip;
			rc = 1;
		}
	}
	return rc;
}

int fbx_swap_check(struct fbx_rm *rm, struct fbx_swap *out)
{
	double avg = avg_wear(rm), step = check_step(rm);
	int rc = fbx_swap_preview(rm, out);

	rm->checks++;
	if (rc)
		rm->swaps++;
	memcpy(rm->snap, rm->erases, rm->ndies * sizeof(*rm->snap));
	while (rm->next_check <= avg)
		rm->next_check += step;
	return rc;
}

static bool in_alloc(const struct fbx_owner *o, uint32_t die)
{
	for (uint32_t i = 0; i < o->a.res.nr_dies; i++)
		if (o->a.res.dies[i] == die)
			return true;
	return false;
}

int fbx_move_switch(struct fbx_rm *rm, const struct fbx_move *m)
{
	struct fbx_owner *o = owner_find(rm, m->owner);

	if (!o || o->a.iso == FBX_SOFTWARE || m->from_die >= rm->ndies ||
	    m->to_die >= rm->ndies || rm->owner[m->from_die] != m->owner ||
	    !in_alloc(o, m->from_die) || in_alloc(o, m->to_die) ||
	    (rm->owner[m->to_die] != FBX_FREE && rm->owner[m->to_die] != m->owner))
		return -EINVAL;
	for (uint32_t i = 0; i < o->a.res.nr_dies; i++)
		if (o->a.res.dies[i] == m->from_die)
			o->a.res.dies[i] = m->to_die;
	rm->owner[m->to_die] = m->owner;
	return 0;
}

int fbx_move_done(struct fbx_rm *rm, const struct fbx_move *m)
{
	int rc = fbx_move_switch(rm, m);

	if (!rc)
		rm->owner[m->from_die] = FBX_FREE;
	return rc;
}

int fbx_reserve(struct fbx_rm *rm, uint32_t owner, uint32_t die)
{
	struct fbx_owner *o = owner_find(rm, owner);

	if (!o || o->a.iso == FBX_SOFTWARE || die >= rm->ndies)
		return -EINVAL;
	if (rm->owner[die] == owner && !in_alloc(o, die))
		return 0;
	if (rm->owner[die] != FBX_FREE)
		return -EBUSY;
	rm->owner[die] = owner;
	return 0;
}

int fbx_unreserve(struct fbx_rm *rm, uint32_t owner, uint32_t die)
{
	struct fbx_owner *o = owner_find(rm, owner);

	if (!o || die >= rm->ndies || rm->owner[die] != owner || in_alloc(o, die))
		return -EINVAL;
	rm->owner[die] = FBX_FREE;
	return 0;
}

uint32_t fbx_reserved(const struct fbx_rm *rm, uint32_t owner, uint32_t *dies, uint32_t max)
{
	const struct fbx_owner *o = owner_find(rm, owner);
	uint32_t n = 0;

	if (!o || o->a.iso == FBX_SOFTWARE)
		return 0;
	for (uint32_t d = 0; d < rm->ndies; d++)
		if (rm->owner[d] == owner && !in_alloc(o, d) && n < max)
			dies[n++] = d;
	return n;
}

void fbx_wear_state_get(const struct fbx_rm *rm, struct fbx_wear_state *st)
{
	st->next_check = rm->next_check;
	st->checks = rm->checks;
	st->swaps = rm->swaps;
	st->snapshot = rm->snap;
}

void fbx_wear_state_set(struct fbx_rm *rm, double next_check, uint64_t checks, uint64_t swaps,
			const uint64_t *snapshot)
{
	if (next_check > 0)
		rm->next_check = next_check;
	rm->checks = checks;
	rm->swaps = swaps;
	if (snapshot)
		memcpy(rm->snap, snapshot, rm->ndies * sizeof(*rm->snap));
}
