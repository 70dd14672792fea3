/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FlashBlox resource manager's wear balancing: the die erase counts it
 * is told, the periodic checks and the channel or chip swap each one picks,
 * and the check state kept across restarts.
 */
#include "rm_internal.h"

#include <stdio.h>
#include <string.h>

void fbx_wear_update(struct fbx_rm *rm, const uint64_t *die_erases)
{
	memcpy(rm->erases, die_erases, rm->ndies * sizeof(*rm->erases));
}

static double avg_wear(const struct fbx_rm *rm)
{
	double sum = 0;

	for (uint32_t c = 0; c < rm->geo.channels; c++)
		sum += fbx_rm_chan_wear(rm, c);
	return sum / rm->geo.channels;
}

void fbx_wear_get(const struct fbx_rm *rm, struct fbx_wear *w)
{
	memset(w, 0, sizeof(*w));
	w->avg = avg_wear(rm);
	for (uint32_t c = 0; c < rm->geo.channels; c++) {
		double cw = fbx_rm_chan_wear(rm, c);

		if (c == 0 || cw > w->max) {
			w->max = cw;
			w->max_channel = c;
		}
	}
	w->imbalance = w->avg > 0 ? w->max / w->avg : 1.0;
	w->rounds = fbx_rm_rounds(rm);
	w->check_step = fbx_rm_check_step(rm);
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
	o = fbx_rm_owner_find(rm, id);
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

	return fbx_rm_chan_wear(rm, ch) + (double)chan_rate(rm, ch) / blocks;
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

		if (c == hot || (!id && !fbx_rm_channel_free(rm, c)) || id == hot_id ||
		    fbx_rm_chan_wear(rm, c) >= fbx_rm_chan_wear(rm, hot))
			continue;
		if (id && chan_rate(rm, c) >= chan_rate(rm, hot))
			continue;
		/* Least worn first; a free channel before an owned one as worn. */
		if (cold == UINT32_MAX || fbx_rm_chan_wear(rm, c) < fbx_rm_chan_wear(rm, cold) ||
		    (fbx_rm_chan_wear(rm, c) == fbx_rm_chan_wear(rm, cold) && !id && channel_vssd(rm, cold)))
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
			 hot, fbx_rm_chan_wear(rm, hot), (unsigned long long)chan_rate(rm, hot), cold,
			 fbx_rm_chan_wear(rm, cold));
		return 1;
	}
	for (uint32_t c = 0; c < n; c++)
		if (fbx_rm_channel_free(rm, c) &&
		    (spare == UINT32_MAX || fbx_rm_chan_wear(rm, c) < fbx_rm_chan_wear(rm, spare)))
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
		 hot, fbx_rm_chan_wear(rm, hot), (unsigned long long)chan_rate(rm, hot), cold,
		 fbx_rm_chan_wear(rm, cold), spare);
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
			const struct fbx_owner *o = fbx_rm_owner_find(rm, rm->owner[d]);

			avg += die_projected(rm, d) / rm->dpc;
			if (rm->owner[d] == FBX_FREE) {
				if (cold == UINT32_MAX || fbx_rm_die_wear(rm, d) < fbx_rm_die_wear(rm, cold))
					cold = d;
				continue;
			}
			if (!o || o->a.iso != FBX_CHIP || !fbx_rm_in_alloc(o, d))
				continue;
			if (hot == UINT32_MAX || die_projected(rm, d) > die_projected(rm, hot))
				hot = d;
		}
		if (hot == UINT32_MAX || cold == UINT32_MAX || avg <= 0 ||
		    die_projected(rm, hot) <= (1 + x) * avg || fbx_rm_die_wear(rm, cold) >= fbx_rm_die_wear(rm, hot))
			continue;
		out->moves[out->nr++] = (struct fbx_move){ .owner = rm->owner[hot], .from_die = hot,
							   .to_die = cold };
		snprintf(out->why, sizeof(out->why),
			 "die %u (worn %.1f, %.1f by the next check against %.1f in its channel) to "
			 "free die %u (worn %.1f)",
			 hot, fbx_rm_die_wear(rm, hot), die_projected(rm, hot), avg, cold, fbx_rm_die_wear(rm, cold));
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
		double w = fbx_rm_chan_wear(rm, c), pw = chan_projected(rm, c);

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
	double avg = avg_wear(rm), step = fbx_rm_check_step(rm);
	int rc = fbx_swap_preview(rm, out);

	rm->checks++;
	if (rc)
		rm->swaps++;
	memcpy(rm->snap, rm->erases, rm->ndies * sizeof(*rm->snap));
	while (rm->next_check <= avg)
		rm->next_check += step;
	return rc;
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
