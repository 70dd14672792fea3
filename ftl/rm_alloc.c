/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FlashBlox resource manager's allocation: planning dies and blocks for
 * an ask by isolation level (channel, chip, software pool), taking them for an
 * owner and releasing them.
 */
#include "rm_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint32_t channel_free_dies(const struct fbx_rm *rm, uint32_t ch)
{
	uint32_t n = 0;

	for (uint32_t d = 0; d < rm->dpc; d++)
		n += rm->owner[ch * rm->dpc + d] == FBX_FREE;
	return n;
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

		if (!fbx_rm_channel_free(rm, c))
			continue;
		for (i = n; i > 0 && fbx_rm_chan_wear(rm, out[i - 1]) > fbx_rm_chan_wear(rm, c); i--)
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
			return fbx_rm_why(why, wl, -EINVAL,
				       "%llu MiB does not fit in the device's %u channels",
				       (unsigned long long)(ask->units * FTL_UNIT >> 20), total);
	}
	if (want > total)
		return fbx_rm_why(why, wl, -EINVAL, "need %u channels, the device has %u", want,
			       total);
	if (want > max_ch)
		return fbx_rm_why(why, wl, -EINVAL, "%u channels are more than the %u dies an FTL takes",
			       want, BLOX_FTL_MAX_DIES);
	nfree = free_channels_by_wear(rm, order);
	if (takeable(rm, nfree) < want)
		return fbx_rm_why(why, wl, -ENOSPC, "need %u free channel%s, %u left%s", want,
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
			return fbx_rm_why(why, wl, -EINVAL,
				       "%llu MiB does not fit in %u dies",
				       (unsigned long long)(ask->units * FTL_UNIT >> 20), max);
	}
	if (want > rm->ndies)
		return fbx_rm_why(why, wl, -EINVAL, "need %u dies, the device has %u", want,
			       rm->ndies);
	if (want > BLOX_FTL_MAX_DIES)
		return fbx_rm_why(why, wl, -EINVAL, "%u dies are more than the %u an FTL takes", want,
			       BLOX_FTL_MAX_DIES);
	/* The spare channel's dies are not for chips either. */
	nwhole = fbx_free_channels(rm);
	nfree = fbx_free_dies(rm) - (nwhole - takeable(rm, nwhole)) * rm->dpc;
	if (nfree < want)
		return fbx_rm_why(why, wl, -ENOSPC, "need %u free dies, %u left%s", want, nfree,
			       spare_note(rm, nwhole));
	/* Rank: split channels before whole free ones, then by wear, then by index. */
	for (uint32_t pass = 0; pass < 2 && n < want; pass++) {
		uint32_t chs[1024], nch = 0;

		for (uint32_t c = 0; c < rm->geo.channels && nch < 1024; c++) {
			uint32_t fd = channel_free_dies(rm, c), i;

			if (!fd || (pass == 0) != (fd < rm->dpc))
				continue;
			for (i = nch; i > 0 && fbx_rm_chan_wear(rm, chs[i - 1]) > fbx_rm_chan_wear(rm, c); i--)
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
		return fbx_rm_why(why, wl, -EINVAL, "a software vSSD needs a size");
	if (ask->count)
		return fbx_rm_why(why, wl, -EINVAL, "a software vSSD takes no count");
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
			return fbx_rm_why(why, wl, -EINVAL,
				       "%llu MiB does not fit in a software pool on this device",
				       (unsigned long long)(ask->units * FTL_UNIT >> 20));
		if (takeable(rm, nfree) < want)
			return fbx_rm_why(why, wl, -ENOSPC,
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
		return fbx_rm_why(why, wl, rm->pool_users ? -ENOSPC : -EINVAL,
			       "%llu MiB does not fit in the software pool's %u dies",
			       (unsigned long long)(ask->units * FTL_UNIT >> 20), a->res.nr_dies);
	at = pool_range(rm, blocks, &largest);
	if (at < 0)
		return fbx_rm_why(why, wl, -ENOSPC,
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
		return fbx_rm_why(why, whylen, -EINVAL, "unknown isolation level");
	}
	if (rc)
		return rc;
	out->units = cap_of(rm, fc, out->res.nr_dies, out->res.nr_blocks);
	if (!out->units)
		return fbx_rm_why(why, whylen, -EINVAL, "%u dies of %u blocks are too small for an FTL",
			       out->res.nr_dies, out->res.nr_blocks);
	if (ask->units > out->units)
		return fbx_rm_why(why, whylen, -EINVAL, "%s:%u holds %llu MiB, less than the %llu MiB asked",
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
		return fbx_rm_why(why, whylen, -EINVAL, "bad owner id");
	if (fbx_rm_owner_find(rm, owner))
		return fbx_rm_why(why, whylen, -EEXIST, "owner %u has dies already", owner);
	if (!r->nr_dies || r->nr_dies > BLOX_FTL_MAX_DIES || !r->nr_blocks ||
	    r->first_block + r->nr_blocks > rm->geo.blocks_per_plane ||
	    r->first_block + r->nr_blocks < r->first_block)
		return fbx_rm_why(why, whylen, -EINVAL, "dies or blocks off the device");
	if (!pool && (r->first_block || r->nr_blocks != rm->geo.blocks_per_plane))
		return fbx_rm_why(why, whylen, -EINVAL, "a %s vSSD has every block of its dies",
			       fbx_isolation_name(a->iso));
	for (uint32_t i = 0; i < r->nr_dies; i++) {
		uint32_t d = r->dies[i];

		if (d >= rm->ndies)
			return fbx_rm_why(why, whylen, -EINVAL, "die %u is off the device", d);
		for (uint32_t j = 0; j < i; j++)
			if (r->dies[j] == d)
				return fbx_rm_why(why, whylen, -EINVAL, "die %u given twice", d);
		if (pool) {
			if (rm->pool_users ? rm->owner[d] != FBX_POOL : rm->owner[d] != FBX_FREE)
				return fbx_rm_why(why, whylen, -EBUSY, "die %u is %s", d,
					       rm->pool_users ? "not in the software pool"
							      : "taken");
		} else if (rm->owner[d] != FBX_FREE) {
			return fbx_rm_why(why, whylen, -EBUSY, "die %u is taken", d);
		}
	}
	if (nheld && pool)
		return fbx_rm_why(why, whylen, -EINVAL, "a software vSSD holds no dies");
	for (uint32_t i = 0; i < nheld; i++) {
		if (held[i] >= rm->ndies)
			return fbx_rm_why(why, whylen, -EINVAL, "held die %u is off the device", held[i]);
		if (rm->owner[held[i]] != FBX_FREE)
			return fbx_rm_why(why, whylen, -EBUSY, "held die %u is taken", held[i]);
		for (uint32_t j = 0; j < r->nr_dies; j++)
			if (r->dies[j] == held[i])
				return fbx_rm_why(why, whylen, -EINVAL, "die %u is held and had", held[i]);
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
				return fbx_rm_why(why, whylen, -EINVAL, "channel %u is not whole", ch);
		}
	}
	if (pool && rm->pool_users) {
		/* The same dies as the pool, and a block range nobody has. */
		if (r->nr_dies != fbx_pool_dies(rm))
			return fbx_rm_why(why, whylen, -EINVAL,
				       "a software vSSD is on every die of the pool");
		for (uint32_t i = 0; i < rm->nr_owners; i++) {
			const struct ftl_resources *o = &rm->owners[i].a.res;

			if (rm->owners[i].a.iso == FBX_SOFTWARE &&
			    r->first_block < o->first_block + o->nr_blocks &&
			    o->first_block < r->first_block + r->nr_blocks)
				return fbx_rm_why(why, whylen, -EBUSY,
					       "blocks %u..%u of the pool are taken", o->first_block,
					       o->first_block + o->nr_blocks - 1);
		}
	}
	if (rm->nr_owners == rm->cap_owners) {
		uint32_t cap = rm->cap_owners ? rm->cap_owners * 2 : 8;
		struct fbx_owner *n = realloc(rm->owners, cap * sizeof(*n));

		if (!n)
			return fbx_rm_why(why, whylen, -ENOMEM, "out of memory");
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
	struct fbx_owner *o = fbx_rm_owner_find(rm, owner);

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
