/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fault registry (blox_fault.h): faults kept in id order in an array,
 * each with its own seeded generator so that whether it fires depends on
 * its seed and the sites it saw only.
 */
#include "blox_fault.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct blox_fault_reg {
	pthread_mutex_t lock; /* everything below */
	struct blox_fault *f; /* by id, ascending */
	size_t n, cap;
	uint32_t next_id;
	uint32_t armed; /* a bit per kind with a fault not spent; read without the lock */
};

static const char *const kind_names[BLOX_FAULT_KINDS] = {
	[BLOX_FAULT_READ_UNC] = "read-unc",
	[BLOX_FAULT_WRITE_FAIL] = "write-fail",
	[BLOX_FAULT_DIE_FAIL] = "die-fail",
	[BLOX_FAULT_ERASE_FAIL] = "erase-fail",
	[BLOX_FAULT_PROGRAM_FAIL] = "program-fail",
	[BLOX_FAULT_DELAY] = "latency",
	[BLOX_FAULT_GC_STORM] = "gc-storm",
	[BLOX_FAULT_LISTENER_STOP] = "listener-stop",
	[BLOX_FAULT_HOST_DROP] = "host-drop",
	[BLOX_FAULT_QUEUE_STALL] = "queue-stall",
	[BLOX_FAULT_KEEPALIVE_DROP] = "ka-ignore",
	[BLOX_FAULT_DIE_OFFLINE] = "die-offline",
};

static const char *const dist_names[] = {
	[BLOX_FAULT_DIST_FIXED] = "fixed",
	[BLOX_FAULT_DIST_UNIFORM] = "uniform",
	[BLOX_FAULT_DIST_EXPONENTIAL] = "exponential",
};

/* What a kind's target is made of. */
enum {
	T_NS = 1u << 0, /* subsys + nsid */
	T_RANGE = 1u << 1, /* lba + nlb */
	T_DIE = 1u << 2, /* device + die */
	T_LISTENER = 1u << 3,
	T_HOST = 1u << 4, /* host, subsys optional */
	T_QUEUE = 1u << 5, /* subsys, host ("": any), qid (0: any) */
	T_OPS = 1u << 6,
	T_SUBSYS = 1u << 7, /* subsys, host ("": any) */
	T_TIME = 1u << 8, /* a duration is needed */
};

static const unsigned kind_target[BLOX_FAULT_KINDS] = {
	[BLOX_FAULT_READ_UNC] = T_NS | T_RANGE,
	[BLOX_FAULT_WRITE_FAIL] = T_NS | T_RANGE,
	[BLOX_FAULT_DIE_FAIL] = T_DIE,
	[BLOX_FAULT_ERASE_FAIL] = T_DIE,
	[BLOX_FAULT_PROGRAM_FAIL] = T_DIE,
	[BLOX_FAULT_DELAY] = T_NS | T_OPS,
	[BLOX_FAULT_GC_STORM] = T_NS,
	[BLOX_FAULT_LISTENER_STOP] = T_LISTENER,
	[BLOX_FAULT_HOST_DROP] = T_HOST,
	[BLOX_FAULT_QUEUE_STALL] = T_QUEUE | T_TIME,
	[BLOX_FAULT_KEEPALIVE_DROP] = T_SUBSYS,
	[BLOX_FAULT_DIE_OFFLINE] = T_DIE,
};

/*
 * What @s's target is made of: its kind's, but a latency of the admin queue
 * or of the Fabrics commands targets controllers.
 */
static unsigned target_of(const struct blox_fault_spec *s)
{
	if (s->kind == BLOX_FAULT_DELAY && (s->ops == BLOX_FAULT_OP_ADMIN ||
					    s->ops == BLOX_FAULT_OP_FABRICS))
		return T_SUBSYS | T_OPS;
	return kind_target[s->kind];
}

const char *blox_fault_kind_name(enum blox_fault_kind k)
{
	return (unsigned)k < BLOX_FAULT_KINDS ? kind_names[k] : NULL;
}

int blox_fault_kind_parse(const char *name)
{
	for (int k = 0; name && k < BLOX_FAULT_KINDS; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	return -1;
}

const char *blox_fault_dist_name(enum blox_fault_dist d)
{
	return (unsigned)d <= BLOX_FAULT_DIST_EXPONENTIAL ? dist_names[d] : NULL;
}

int blox_fault_dist_parse(const char *name)
{
	for (int d = 0; name && d <= BLOX_FAULT_DIST_EXPONENTIAL; d++)
		if (!strcmp(name, dist_names[d]))
			return d;
	return -1;
}

int blox_fault_reg_create(struct blox_fault_reg **out)
{
	struct blox_fault_reg *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	if (pthread_mutex_init(&r->lock, NULL)) {
		free(r);
		return -ENOMEM;
	}
	r->next_id = 1;
	*out = r;
	return 0;
}

void blox_fault_reg_destroy(struct blox_fault_reg *r)
{
	if (!r)
		return;
	pthread_mutex_destroy(&r->lock);
	free(r->f);
	free(r);
}

static int fail(char *err, size_t errlen, const char *msg)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", msg);
	return -EINVAL;
}

static bool named(const char *s)
{
	return s[0] && memchr(s, 0, BLOX_FAULT_NAME_MAX);
}

int blox_fault_spec_check(const struct blox_fault_spec *s, char *err, size_t errlen)
{
	unsigned t;

	if ((unsigned)s->kind >= BLOX_FAULT_KINDS)
		return fail(err, errlen, "unknown fault kind");
	t = target_of(s);
	if (!(s->probability > 0 && s->probability <= 1)) /* NaN fails too */
		return fail(err, errlen, "probability: must be above 0 and at most 1");
	if ((t & T_NS) && (!named(s->subsys) || !s->nsid || s->nsid == UINT32_MAX))
		return fail(err, errlen, "a subsystem and a namespace id are needed");
	if ((t & T_RANGE) && (!s->nlb || s->lba + s->nlb < s->lba))
		return fail(err, errlen, "range: at least one LBA, not past 2^64");
	if ((t & T_DIE) && !named(s->device))
		return fail(err, errlen, "a device is needed");
	if ((t & T_LISTENER) && !named(s->listener))
		return fail(err, errlen, "a listener (ADDR:PORT) is needed");
	if ((t & T_HOST) && !named(s->host))
		return fail(err, errlen, "a host NQN is needed");
	if ((t & (T_QUEUE | T_SUBSYS)) && !named(s->subsys))
		return fail(err, errlen, "a subsystem NQN is needed");
	if ((t & T_TIME) && !s->duration_ns)
		return fail(err, errlen, "a stall needs a duration");
	if (s->duration_ns > BLOX_FAULT_DURATION_MAX_NS)
		return fail(err, errlen, "a duration of at most 24 hours");
	if (s->ops & ~(unsigned)(BLOX_FAULT_OP_ALL | BLOX_FAULT_OP_CTRL))
		return fail(err, errlen, "ops: read, write, flush, the others, all, admin or fabrics");
	if ((s->ops & BLOX_FAULT_OP_CTRL) && s->ops != BLOX_FAULT_OP_ADMIN &&
	    s->ops != BLOX_FAULT_OP_FABRICS)
		return fail(err, errlen, "ops: admin or fabrics alone (controllers' commands, not a "
				 "namespace's)");
	if ((s->ops & BLOX_FAULT_OP_CTRL) && s->nsid)
		return fail(err, errlen, "ops: admin and fabrics target a subsystem's controllers, no "
				 "namespace");
	if (s->kind == BLOX_FAULT_DELAY) {
		if ((unsigned)s->dist > BLOX_FAULT_DIST_EXPONENTIAL)
			return fail(err, errlen, "unknown delay distribution");
		if (!s->delay_ns)
			return fail(err, errlen, "a delay is needed");
		if (s->delay_ns > BLOX_FAULT_DELAY_MAX_NS ||
		    s->delay_max_ns > BLOX_FAULT_DELAY_MAX_NS)
			return fail(err, errlen, "a delay of at most 600 s");
		if (s->dist == BLOX_FAULT_DIST_UNIFORM && s->delay_max_ns < s->delay_ns)
			return fail(err, errlen, "a uniform delay needs a maximum at least its minimum");
		if (s->dist == BLOX_FAULT_DIST_EXPONENTIAL && s->delay_max_ns &&
		    s->delay_max_ns < s->delay_ns)
			return fail(err, errlen, "an exponential delay's cap must be at least its mean");
	}
	return 0;
}

/* splitmix64: a seed of 0 is as good as any. */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A uniform double in [0, 1). */
static double rng_unit(uint64_t *state)
{
	return (double)(rng_next(state) >> 11) * 0x1.0p-53;
}

static size_t index_of(const struct blox_fault_reg *r, uint32_t id)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (r->f[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool spent(const struct blox_fault *f)
{
	return f->spec.count && f->fired >= f->spec.count;
}

bool blox_fault_spent(const struct blox_fault *f, uint64_t now)
{
	return spent(f) || (now && f->spec.until_ns && now >= f->spec.until_ns);
}

/* After a change: which kinds have a fault not spent. Under the lock. */
static void rearm(struct blox_fault_reg *r)
{
	uint32_t m = 0;

	for (size_t i = 0; i < r->n; i++)
		if (!spent(&r->f[i]))
			m |= 1u << r->f[i].spec.kind;
	__atomic_store_n(&r->armed, m, __ATOMIC_RELAXED);
}

static int add_locked(struct blox_fault_reg *r, const struct blox_fault_spec *s, uint32_t id,
		      uint32_t *out_id)
{
	struct blox_fault *f;
	size_t at;

	if (r->n >= BLOX_FAULT_MAX)
		return -ENOSPC;
	if (!id)
		id = r->next_id;
	at = index_of(r, id);
	if (at < r->n && r->f[at].id == id)
		return -EEXIST;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		struct blox_fault *nf = realloc(r->f, cap * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		r->f = nf;
		r->cap = cap;
	}
	memmove(&r->f[at + 1], &r->f[at], (r->n - at) * sizeof(*r->f));
	r->n++;
	f = &r->f[at];
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->spec = *s;
	f->rng = s->seed;
	if (id >= r->next_id)
		r->next_id = id + 1;
	if (out_id)
		*out_id = id;
	rearm(r);
	return 0;
}

int blox_fault_add(struct blox_fault_reg *r, const struct blox_fault_spec *s, uint32_t id,
		   uint32_t *out_id, char *err, size_t errlen)
{
	int rc = blox_fault_spec_check(s, err, errlen);

	if (rc)
		return rc;
	pthread_mutex_lock(&r->lock);
	rc = add_locked(r, s, id, out_id);
	pthread_mutex_unlock(&r->lock);
	return rc;
}

int blox_fault_remove(struct blox_fault_reg *r, uint32_t id)
{
	int rc = -ENOENT;
	size_t at;

	pthread_mutex_lock(&r->lock);
	at = index_of(r, id);
	if (at < r->n && r->f[at].id == id) {
		memmove(&r->f[at], &r->f[at + 1], (r->n - at - 1) * sizeof(*r->f));
		r->n--;
		rearm(r);
		rc = 0;
	}
	pthread_mutex_unlock(&r->lock);
	return rc;
}

size_t blox_fault_clear(struct blox_fault_reg *r)
{
	size_t n;

	pthread_mutex_lock(&r->lock);
	n = r->n;
	r->n = 0;
	rearm(r);
	pthread_mutex_unlock(&r->lock);
	return n;
}

size_t blox_fault_count(struct blox_fault_reg *r)
{
	return blox_fault_list(r, NULL, 0);
}

size_t blox_fault_list(struct blox_fault_reg *r, struct blox_fault *out, size_t max)
{
	size_t n;

	pthread_mutex_lock(&r->lock);
	n = r->n;
	if (out && n && max)
		memcpy(out, r->f, (n < max ? n : max) * sizeof(*out));
	pthread_mutex_unlock(&r->lock);
	return n;
}

bool blox_fault_get(struct blox_fault_reg *r, uint32_t id, struct blox_fault *out)
{
	bool found;
	size_t at;

	pthread_mutex_lock(&r->lock);
	at = index_of(r, id);
	found = at < r->n && r->f[at].id == id;
	if (found && out)
		*out = r->f[at];
	pthread_mutex_unlock(&r->lock);
	return found;
}

bool blox_fault_armed(const struct blox_fault_reg *r, enum blox_fault_kind k)
{
	return r && (__atomic_load_n(&r->armed, __ATOMIC_RELAXED) >> k & 1);
}

/* A name the fault gives ("" is any) against the site's (NULL: not known, no match). */
static bool name_matches(const char *want, const char *have)
{
	return !want[0] || (have && !strcmp(want, have));
}

static bool target_matches(const struct blox_fault_spec *s, const struct blox_fault_site *x)
{
	unsigned t = target_of(s);

	if ((t & (T_NS | T_QUEUE | T_HOST | T_SUBSYS)) && !name_matches(s->subsys, x->subsys))
		return false;
	if ((t & T_NS) && s->nsid != x->nsid)
		return false;
	if ((t & T_RANGE) && (x->lba >= s->lba + s->nlb || x->lba + x->nlb <= s->lba))
		return false;
	if ((t & T_DIE) && (!name_matches(s->device, x->device) || s->die != x->die))
		return false;
	if ((t & T_LISTENER) && !name_matches(s->listener, x->listener))
		return false;
	if ((t & (T_HOST | T_QUEUE | T_SUBSYS)) && !name_matches(s->host, x->host))
		return false;
	if ((t & T_QUEUE) && s->qid && s->qid != x->qid)
		return false;
	if ((t & T_OPS) &&
	    !((s->ops ? s->ops : (unsigned)(BLOX_FAULT_OP_READ | BLOX_FAULT_OP_WRITE)) & x->op))
		return false;
	return true;
}

bool blox_fault_listed(struct blox_fault_reg *r, const struct blox_fault_site *site)
{
	bool hit = false;

	if (!r)
		return false;
	pthread_mutex_lock(&r->lock);
	for (size_t i = 0; i < r->n && !hit; i++)
		hit = r->f[i].spec.kind == site->kind && target_matches(&r->f[i].spec, site);
	pthread_mutex_unlock(&r->lock);
	return hit;
}

bool blox_fault_match(struct blox_fault_reg *r, const struct blox_fault_site *site,
		      struct blox_fault *out)
{
	struct blox_fault *hit = NULL;

	if (!r)
		return false;
	pthread_mutex_lock(&r->lock);
	for (size_t i = 0; i < r->n; i++) {
		struct blox_fault *f = &r->f[i];
		bool started;

		/* A spent fault looks no more: seen counts the sites it could fire at. */
		if (f->spec.kind != site->kind || blox_fault_spent(f, site->now) ||
		    !target_matches(&f->spec, site))
			continue;
		started = f->seen >= f->spec.after && site->qd >= f->spec.min_qd;
		f->seen++;
		if (!started)
			continue;
		/*
		 * A draw whenever it may fire, even after an earlier fault
		 * fired here: its sequence follows its own sites only.
		 */
		if (f->spec.probability < 1 && rng_unit(&f->rng) >= f->spec.probability)
			continue;
		if (hit)
			continue;
		f->fired++;
		hit = f;
	}
	if (hit) {
		if (out)
			*out = *hit;
		if (spent(hit))
			rearm(r);
	}
	pthread_mutex_unlock(&r->lock);
	return hit != NULL;
}

uint64_t blox_fault_delay_ns(struct blox_fault_reg *r, uint32_t id)
{
	const struct blox_fault_spec *s;
	struct blox_fault *f;
	uint64_t v = 0;
	size_t at;
	double d;

	pthread_mutex_lock(&r->lock);
	at = index_of(r, id);
	if (at >= r->n || r->f[at].id != id)
		goto out;
	f = &r->f[at];
	s = &f->spec;
	switch (s->dist) {
	case BLOX_FAULT_DIST_UNIFORM:
		v = s->delay_ns +
		    (uint64_t)(rng_unit(&f->rng) * (double)(s->delay_max_ns - s->delay_ns + 1));
		break;
	case BLOX_FAULT_DIST_EXPONENTIAL:
		d = -log1p(-rng_unit(&f->rng)) * (double)s->delay_ns;
		if (s->delay_max_ns && d > (double)s->delay_max_ns)
			d = (double)s->delay_max_ns;
		v = d > 1e18 ? (uint64_t)1e18 : (uint64_t)d;
		break;
	case BLOX_FAULT_DIST_FIXED:
	default:
		v = s->delay_ns;
	}
	if (v > BLOX_FAULT_DELAY_MAX_NS)
		v = BLOX_FAULT_DELAY_MAX_NS;
out:
	pthread_mutex_unlock(&r->lock);
	return v;
}
