/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FlashBlox resource manager (flashblox.h): its life cycle, the
 * isolation levels' names, the grid of die owners and its wear, owners and
 * their moves between dies. Allocation is in rm_alloc.c, the wear checks and
 * swaps in rm_wear.c; rm_internal.h holds what they share.
 */
#include "rm_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fbx_rm_why(char *why, size_t len, int rc, const char *fmt, ...)
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
uint32_t fbx_rm_rounds(const struct fbx_rm *rm)
{
	int64_t n = rm->geo.channels, b = rm->p.bound_permille;
	int64_t num = 1000 * (n - 1) - b, den = n * b;

	if (n < 2 || num <= 0)
		return 1;
	return (uint32_t)((num + den - 1) / den);
}

double fbx_rm_check_step(const struct fbx_rm *rm)
{
	if (rm->p.check_erases)
		return (double)rm->p.check_erases / ((double)rm->ndies * rm->geo.planes_per_die *
						     rm->geo.blocks_per_plane);
	return (double)rm->p.rated_pe / ((double)fbx_rm_rounds(rm) * rm->geo.channels);
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
	rm->next_check = fbx_rm_check_step(rm);
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

bool fbx_rm_channel_free(const struct fbx_rm *rm, uint32_t ch)
{
	for (uint32_t d = 0; d < rm->dpc; d++)
		if (rm->owner[ch * rm->dpc + d] != FBX_FREE)
			return false;
	return true;
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
		n += fbx_rm_channel_free(rm, c);
	return n;
}

uint32_t fbx_pool_dies(const struct fbx_rm *rm)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < rm->ndies; i++)
		n += rm->owner[i] == FBX_POOL;
	return n;
}

double fbx_rm_die_wear(const struct fbx_rm *rm, uint32_t die)
{
	uint64_t blocks = (uint64_t)rm->geo.planes_per_die * rm->geo.blocks_per_plane;

	return (double)rm->erases[die] / (double)blocks;
}

double fbx_rm_chan_wear(const struct fbx_rm *rm, uint32_t ch)
{
	double sum = 0;

	for (uint32_t d = 0; d < rm->dpc; d++)
		sum += fbx_rm_die_wear(rm, ch * rm->dpc + d);
	return sum / rm->dpc;
}

double fbx_channel_wear(const struct fbx_rm *rm, uint32_t ch, uint64_t *since_check)
{
	uint64_t n = 0;

	for (uint32_t d = 0; d < rm->dpc; d++)
		n += rm->erases[ch * rm->dpc + d] - rm->snap[ch * rm->dpc + d];
	if (since_check)
		*since_check = n;
	return fbx_rm_chan_wear(rm, ch);
}

double fbx_die_wear(const struct fbx_rm *rm, uint32_t die, uint64_t *since_check)
{
	if (since_check)
		*since_check = rm->erases[die] - rm->snap[die];
	return fbx_rm_die_wear(rm, die);
}

/* ---- owners ---- */

struct fbx_owner *fbx_rm_owner_find(const struct fbx_rm *rm, uint32_t id)
{
	for (uint32_t i = 0; i < rm->nr_owners; i++)
		if (rm->owners[i].id == id)
			return &rm->owners[i];
	return NULL;
}

bool fbx_owner_alloc(const struct fbx_rm *rm, uint32_t owner, struct fbx_alloc *out)
{
	const struct fbx_owner *o = fbx_rm_owner_find(rm, owner);

	if (!o)
		return false;
	if (out)
		*out = o->a;
	return true;
}

bool fbx_rm_in_alloc(const struct fbx_owner *o, uint32_t die)
{
	for (uint32_t i = 0; i < o->a.res.nr_dies; i++)
		if (o->a.res.dies[i] == die)
			return true;
	return false;
}

int fbx_move_switch(struct fbx_rm *rm, const struct fbx_move *m)
{
	struct fbx_owner *o = fbx_rm_owner_find(rm, m->owner);

	if (!o || o->a.iso == FBX_SOFTWARE || m->from_die >= rm->ndies ||
	    m->to_die >= rm->ndies || rm->owner[m->from_die] != m->owner ||
	    !fbx_rm_in_alloc(o, m->from_die) || fbx_rm_in_alloc(o, m->to_die) ||
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
	struct fbx_owner *o = fbx_rm_owner_find(rm, owner);

	if (!o || o->a.iso == FBX_SOFTWARE || die >= rm->ndies)
		return -EINVAL;
	if (rm->owner[die] == owner && !fbx_rm_in_alloc(o, die))
		return 0;
	if (rm->owner[die] != FBX_FREE)
		return -EBUSY;
	rm->owner[die] = owner;
	return 0;
}

int fbx_unreserve(struct fbx_rm *rm, uint32_t owner, uint32_t die)
{
	struct fbx_owner *o = fbx_rm_owner_find(rm, owner);

	if (!o || die >= rm->ndies || rm->owner[die] != owner || fbx_rm_in_alloc(o, die))
		return -EINVAL;
	rm->owner[die] = FBX_FREE;
	return 0;
}

uint32_t fbx_reserved(const struct fbx_rm *rm, uint32_t owner, uint32_t *dies, uint32_t max)
{
	const struct fbx_owner *o = fbx_rm_owner_find(rm, owner);
	uint32_t n = 0;

	if (!o || o->a.iso == FBX_SOFTWARE)
		return 0;
	for (uint32_t d = 0; d < rm->ndies; d++)
		if (rm->owner[d] == owner && !fbx_rm_in_alloc(o, d) && n < max)
			dies[n++] = d;
	return n;
}
