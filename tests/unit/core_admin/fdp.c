/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FDP events through the NVMe core (daemon/nvmf/fdp_ev.c) on fake
 * backends whose reclaim unit handles and own events the test sets: a
 * backend event is a controller event only if its type was enabled on its
 * handle when it happened (events before an enable, of a handle not
 * enabled, or of a handle the namespace does not have are not reported);
 * the log merges the group's namespaces by time, holds the newest 63, and
 * keeps host and controller events apart; the backend's time limit
 * events are host events (01h), its reallocations controller events (80h)
 * with the LBAs moved in the namespace's blocks; log 20h's ERUTL is the
 * group's smallest time limit; 02h is not a type bloxd reports; an
 * Endurance Group that would mix namespaces with and without placement
 * handles is refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core_admin.h"
#include "fake_nvmf.h"

#define MiB (1024u * 1024u)
#define POOL 0xfd9ull
#define EV_MODIFY 0x81

/* A backend with @nr_ruh handles whose event ring the test writes. */
struct ffd {
	struct blox_bdev base;
	uint32_t nr_ruh;
	uint64_t pool;
	struct blox_bdev_fdp f;
};

static void ffd_submit(struct blox_bdev *b, struct blox_io *io)
{
	io->status = 0;
	blox_io_cq_post(b->cq, io);
}

static void ffd_destroy(struct blox_bdev *b)
{
	free(container_of(b, struct ffd, base));
}

static void ffd_endurance(struct blox_bdev *b, struct blox_bdev_endurance *e)
{
	struct ffd *d = container_of(b, struct ffd, base);

	e->shared_pool = true;
	e->pool_key = d->pool;
	e->total_bytes = b->size;
}

static bool ffd_fdp_info(struct blox_bdev *b, struct blox_bdev_fdp *f)
{
	struct ffd *d = container_of(b, struct ffd, base);

	if (!d->nr_ruh)
		return false;
	*f = d->f;
	f->nr_ruh = d->nr_ruh;
	f->persistent = true;
	f->ru_bytes = 4 * MiB;
	return true;
}

static int ffd_fdp_update(struct blox_bdev *b, uint32_t ruh)
{
	(void)b;
	(void)ruh;
	return 0;
}

static const struct blox_bdev_ops ffd_ops = {
	.name = "fake-fdp",
	.submit = ffd_submit,
	.destroy = ffd_destroy,
	.endurance = ffd_endurance,
	.fdp_info = ffd_fdp_info,
	.fdp_update = ffd_fdp_update,
};

struct fdx {
	struct fake_tgt ft;
	struct nvmf_subsys *s;
	struct fake_q *q;
	struct fake_cmd *c;
	struct ffd *d[3]; /* nsid 1 and 2, in one group */
};

static struct ffd *ffd_new(struct fdx *f, uint32_t nr_ruh, uint64_t pool)
{
	struct ffd *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	d->base.ops = &ffd_ops;
	d->base.size = 64 * MiB;
	d->base.block_size = 4096;
	d->base.cq = &f->ft.tgt.io_cq;
	d->nr_ruh = nr_ruh;
	d->pool = pool;
	return d;
}

/* The backend's next own event: handle @ruh's unit filled at @ms. */
static void backend_event(struct ffd *d, uint32_t ruh, uint64_t ms)
{
	uint64_t seq = ++d->f.ev_seq;

	d->f.ev[(seq - 1) % BLOX_FDP_EVENTS] = (struct blox_bdev_fdp_event){
		.seq = seq, .ns = ms * 1000000ull, .type = BLOX_FDP_EV_RU_FILLED, .ruh = ruh
	};
}

int fdp_setup(void **state)
{
	struct fdx *f = FAKE_FIXTURE_NEW(struct fdx);

	f->s = fake_subsys(&f->ft, FAKE_SUBNQN, true);
	for (uint32_t nsid = 1; nsid <= 2; nsid++) {
		f->d[nsid] = ffd_new(f, nsid == 1 ? 3 : 2, POOL);
		f->d[nsid]->f.ru_time_limit_s = nsid == 1 ? 5 : 3;
		assert_int_equal(nvmf_ns_add(f->s, nsid, &f->d[nsid]->base, NULL, NULL), 0);
	}
	f->q = fake_admin_q(&f->ft, NULL, FAKE_SUBNQN, NULL);
	f->c = fake_cmd_new(&f->ft);
	*state = f;
	return 0;
}

static uint16_t set_events(struct fdx *f, uint32_t nsid, uint16_t ph, bool on, uint8_t type)
{
	struct nvme_sqe *s = fake_prep(&f->ft, f->c, nvme_admin_set_features, nsid);

	s->cdw10 = NVME_FEAT_FID_FDP_EVENTS;
	s->cdw11 = ph | 1u << 16;
	s->cdw12 = on;
	fake_data(f->c, 1, true);
	f->c->buf[0] = type;
	return fake_exec(&f->ft, f->q, f->c);
}

/* Log 23h of the group (LSP bit 0: host events). */
static const struct nvme_fdp_events_log *events(struct fdx *f, bool host)
{
	struct nvme_sqe *s = fake_prep(&f->ft, f->c, nvme_admin_get_log_page, 0);

	s->cdw10 = NVME_LOG_LID_FDP_EVENTS | (uint32_t)host << 8 | (4096u / 4 - 1) << 16;
	s->cdw11 = (uint32_t)f->s->namespaces.tqh_first->endgid << 16;
	fake_data(f->c, 4096, false);
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), 0);
	return (const void *)f->c->buf;
}

static uint64_t ev_ms(const struct nvme_fdp_event *e)
{
	uint64_t ms = 0;

	memcpy(&ms, e->ts.timestamp, 6);
	return ms;
}

/* Only what happened while enabled, on its handle, of the namespace's handles. */
void test_fdp_events_enabled(void **state)
{
	struct fdx *f = *state;
	const struct nvme_fdp_events_log *l;
	uint64_t t0 = FAKE_START_NS / 1000000ull;

	blox_clock_set(&f->ft.clock, FAKE_START_NS + 100 * 1000000ull);
	backend_event(f->d[1], 0, t0 + 1); /* before the enable */
	assert_int_equal(set_events(f, 1, 0, true, EV_MODIFY), 0);
	assert_int_equal(set_events(f, 2, 1, true, EV_MODIFY), 0);
	backend_event(f->d[1], 0, t0 + 10); /* reported */
	backend_event(f->d[1], 1, t0 + 11); /* handle 1 not enabled */
	backend_event(f->d[1], 7, t0 + 12); /* no such handle */
	backend_event(f->d[2], 1, t0 + 5); /* namespace 2, earlier */
	backend_event(f->d[2], 0, t0 + 13); /* its handle 0: not enabled */
	l = events(f, false);
	assert_int_equal(l->n, 2);
	/* Oldest first across the namespaces; RUHIDs numbered over the group. */
	assert_int_equal(l->events[0].nsid, 2);
	assert_int_equal(l->events[0].pid, 1);
	assert_int_equal(l->events[0].ruhid, 3 + 1);
	assert_int_equal(l->events[1].nsid, 1);
	assert_int_equal(l->events[1].pid, 0);
	assert_int_equal(l->events[1].ruhid, 0);
	assert_int_equal(l->events[1].type, EV_MODIFY);
	assert_int_equal(l->events[1].flags,
			 NVME_FDP_EVENT_F_PIV | NVME_FDP_EVENT_F_NSIDV | NVME_FDP_EVENT_F_LV);
	/* In the controller's Timestamp: 100 ms after the start, ms since it was made. */
	assert_true(ev_ms(&l->events[0]) < ev_ms(&l->events[1]));
	assert_int_equal(ev_ms(&l->events[1]) - ev_ms(&l->events[0]), 10 - 5);
	assert_int_equal(events(f, true)->n, 0);

	/* Disabled: what happens from then on is not reported, what was stays. */
	backend_event(f->d[1], 0, t0 + 20); /* while enabled, not yet looked at */
	assert_int_equal(set_events(f, 1, 0, false, EV_MODIFY), 0);
	backend_event(f->d[1], 0, t0 + 21);
	l = events(f, false);
	assert_int_equal(l->n, 3);
	assert_int_equal(l->events[2].nsid, 1);
	assert_int_equal(ev_ms(&l->events[2]) - ev_ms(&l->events[1]), 10);
}

/* More than the backend's ring between two looks: the newest 63 of the group. */
void test_fdp_events_overflow(void **state)
{
	struct fdx *f = *state;
	const struct nvme_fdp_events_log *l;
	uint64_t t0 = FAKE_START_NS / 1000000ull;

	blox_clock_set(&f->ft.clock, FAKE_START_NS + 1000 * 1000000ull);
	assert_int_equal(set_events(f, 1, 2, true, EV_MODIFY), 0);
	for (uint64_t i = 0; i < 200; i++)
		backend_event(f->d[1], 2, t0 + i);
	l = events(f, false);
	assert_int_equal(l->n, 63);
	for (uint32_t i = 1; i < l->n; i++)
		assert_int_equal(ev_ms(&l->events[i]) - ev_ms(&l->events[i - 1]), 1);
	/* Nothing new: the same. */
	assert_int_equal(events(f, false)->n, 63);
	/* An unsupported type refused, nothing changed. */
	assert_int_equal(set_events(f, 1, 2, true, 0x02), ST_INVALID_FIELD); /* never happens */
	assert_int_equal(set_events(f, 1, 3, true, EV_MODIFY), ST_INVALID_FIELD);
}

/* The backend's other events: time limit (a host event), media reallocated. */
void test_fdp_events_kinds(void **state)
{
	struct fdx *f = *state;
	const struct nvme_fdp_events_log *l;
	struct nvme_fdp_event_realloc r;
	const struct nvme_fdp_config_desc *d;
	struct nvme_sqe *s;
	uint64_t t0 = FAKE_START_NS / 1000000ull, seq;

	blox_clock_set(&f->ft.clock, FAKE_START_NS + 100 * 1000000ull);
	assert_int_equal(set_events(f, 1, 1, true, 0x01), 0);
	assert_int_equal(set_events(f, 1, 1, true, 0x80), 0);
	seq = ++f->d[1]->f.ev_seq;
	f->d[1]->f.ev[seq - 1] = (struct blox_bdev_fdp_event){
		.seq = seq, .ns = (t0 + 1) * 1000000ull, .type = BLOX_FDP_EV_RU_TIMEOUT, .ruh = 1
	};
	seq = ++f->d[1]->f.ev_seq;
	f->d[1]->f.ev[seq - 1] = (struct blox_bdev_fdp_event){
		.seq = seq, .ns = (t0 + 2) * 1000000ull, .type = BLOX_FDP_EV_REALLOC, .ruh = 1,
		.moved_bytes = 3 * 4096, .offset = 7 * 4096
	};
	seq = ++f->d[1]->f.ev_seq; /* handle 0: not enabled */
	f->d[1]->f.ev[seq - 1] = (struct blox_bdev_fdp_event){
		.seq = seq, .ns = (t0 + 3) * 1000000ull, .type = BLOX_FDP_EV_REALLOC, .ruh = 0,
		.moved_bytes = 4096
	};
	l = events(f, true);
	assert_int_equal(l->n, 1);
	assert_int_equal(l->events[0].type, 0x01);
	assert_int_equal(l->events[0].pid, 1);
	assert_int_equal(l->events[0].ruhid, 1);
	assert_int_equal(l->events[0].nsid, 1);
	assert_int_equal(l->events[0].flags,
			 NVME_FDP_EVENT_F_PIV | NVME_FDP_EVENT_F_NSIDV | NVME_FDP_EVENT_F_LV);
	l = events(f, false);
	assert_int_equal(l->n, 1);
	assert_int_equal(l->events[0].type, 0x80);
	assert_int_equal(l->events[0].pid, 1);
	memcpy(&r, l->events[0].type_specific, sizeof(r));
	assert_int_equal(r.flags, NVME_FDP_EVENT_REALLOC_F_LBAV);
	assert_int_equal(r.nlbam, 3);
	assert_int_equal(r.lba, 7);

	/* Log 20h: ERUTL, the group's soonest time limit in seconds. */
	s = fake_prep(&f->ft, f->c, nvme_admin_get_log_page, 0);
	s->cdw10 = NVME_LOG_LID_FDP_CONFIGS | (4096u / 4 - 1) << 16;
	s->cdw11 = (uint32_t)f->s->namespaces.tqh_first->endgid << 16;
	fake_data(f->c, 4096, false);
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), 0);
	d = ((const struct nvme_fdp_config_log *)(const void *)f->c->buf)->configs;
	assert_int_equal(d->erutl, 3);
}

/* One group, all with placement handles or none. */
void test_fdp_group_mix(void **state)
{
	struct fdx *f = *state;
	struct ffd *plain = ffd_new(f, 0, POOL), *other = ffd_new(f, 0, POOL + 1);
	struct nvmf_ns *ns = NULL;

	assert_int_equal(nvmf_ns_add(f->s, 3, &plain->base, NULL, &ns), -EMEDIUMTYPE);
	assert_null(nvmf_ns_find(f->s, 3));
	assert_int_equal(nvmf_fdp_group_mix(f->s, &plain->base), 1);
	ffd_destroy(&plain->base); /* not taken */
	assert_int_equal(nvmf_ns_add(f->s, 3, &other->base, NULL, &ns), 0);
	assert_int_not_equal(ns->endgid, f->s->namespaces.tqh_first->endgid);
}
