/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What GC's files share (gc.c the driver, gc_read.c the victim's reads and
 * pass 1, gc_move.c pass 2, gc_policy.c the credits GC earns); the rest of
 * the FTL sees GC through ftl_gc.h.
 */
#ifndef BLOX_FTL_GC_INTERNAL_H
#define BLOX_FTL_GC_INTERNAL_H
#include "ftl_internal.h"

/* gc.c */
/* Run GC's state machine; a call from inside it (a completion) repeats it. */
void ftl_gc_continue(struct ftl *f);

/* gc_read.c */
/* The read context of victim page @fpid (FTL_UNMAPPED: a free one); NULL: none. */
struct ftl_gc_rd *ftl_gc_rd_find(struct ftl *f, uint32_t fpid);
/* Read victim page rd->fpid: its OOB only, or data and OOB. false: failed. */
bool ftl_gc_read(struct ftl *f, struct ftl_gc_rd *rd, bool oob_only);
/* Flash page @fpid holds a valid unit. */
bool ftl_gc_page_has_valid(const struct ftl *f, uint32_t fpid);
/* Pass 1: read the victim's OOB into entries. false: wait for a read to complete. */
bool ftl_gc_scan(struct ftl *f);
/* Pass 1 done: sort the entries, and what the victim should gain for the host. */
void ftl_gc_sorted(struct ftl *f, bool rescan);

/* Sort key of an entry: translation pages of the victim first, then by the data's. */
static inline uint32_t ftl_gc_ent_key(const struct ftl_gc_ent *e)
{
	return e->kind == UK_TP ? 0 : 1 + e->lba / FTL_TP_ENTRIES;
}

/* gc_move.c */
/* Pass 2: start the next round. false: every entry is done. */
bool ftl_gc_round(struct ftl *f);
/* Move the round's entries. false: wait and resume. */
bool ftl_gc_move(struct ftl *f);
/* GC waits for room in the write buffer or a stream (on write_wait). Returns false. */
bool ftl_gc_wait_space(struct ftl *f);

/* gc_policy.c: credits */
/* Pass 1 read one more page: the host's share of the gain estimated at the pick. */
void ftl_gc_grant_scan(struct ftl *f);
/* Pass 2 processed @processed entries: the host's share of the gain pass 1 found. */
void ftl_gc_grant(struct ftl *f, uint32_t processed);
/* Pass 2 is done: the rest of the victim's gain, a Media Reallocated event, futility. */
void ftl_gc_victim_done(struct ftl *f);

#endif
