/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SMART / health counts across restarts: each namespace's lifetime counts
 * (struct nvmf_ns_health, which the SMART log adds this run's to) kept in
 * DIR/bloxd-health.json, written atomically at start, every period and
 * at a clean stop. The file says whether bloxd was running when it was
 * written: a start that finds "running": true counts an unsafe shutdown.
 *
 *   {"running": true, "namespaces": [{"nqn": "...", "nsid": 1,
 *     "read_bytes": N, "write_bytes": N, "read_commands": N,
 *     "write_commands": N, "power_cycles": N, "power_on_seconds": N,
 *     "unsafe_shutdowns": N, "media_errors": N}]}
 *
 * A file that cannot be read is said in the log and counts start again
 * from zero: health counts are never a reason not to serve.
 *
 * The data directory's free space is watched here too, once a second:
 * when its filesystem fills up (BLOX_SPACE_LOW) the log says so, again
 * at most once a minute while it stays full (with the I/O errors the
 * namespaces answered meanwhile), and once when space is back.
 */
#include "telemetry.h"

#include <errno.h>
#include <event2/event.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* While full, a reminder in the log at most this often. */
#define SPACE_LOG_EVERY_NS (60ull * 1000000000ull)

struct blox_health {
	struct blox_prov *prov;
	struct event *timer;
	struct event *space_timer; /* once a second: the data directory's free space */
	bool full; /* as last seen */
	uint64_t full_since_ns, logged_ns;
	uint64_t errors_at_full, errors_at_log; /* the namespaces' I/O errors then */
	char path[4200];
};

/* The counts of one namespace, by key, in the file's order. */
static const struct {
	const char *key;
	size_t off;
} fields[] = {
	{ "read_bytes", offsetof(struct nvmf_ns_health, read_bytes) },
	{ "write_bytes", offsetof(struct nvmf_ns_health, write_bytes) },
	{ "read_commands", offsetof(struct nvmf_ns_health, read_cmds) },
	{ "write_commands", offsetof(struct nvmf_ns_health, write_cmds) },
	{ "power_cycles", offsetof(struct nvmf_ns_health, power_cycles) },
	{ "power_on_seconds", offsetof(struct nvmf_ns_health, power_on_s) },
	{ "unsafe_shutdowns", offsetof(struct nvmf_ns_health, unsafe_shutdowns) },
	{ "media_errors", offsetof(struct nvmf_ns_health, media_errors) },
};

static uint64_t *field(struct nvmf_ns_health *h, size_t i)
{
	return (uint64_t *)((char *)h + fields[i].off);
}

/* @ns's counts now: earlier runs' and this one's. */
static struct nvmf_ns_health ns_now(const struct nvmf_ns *ns, uint64_t now)
{
	struct nvmf_ns_health h = ns->health;

	h.read_bytes += ns->stats.read_bytes;
	h.write_bytes += ns->stats.write_bytes;
	h.read_cmds += ns->stats.read_cmds;
	h.write_cmds += ns->stats.write_cmds;
	h.media_errors += ns->stats.media_errors;
	h.power_cycles += 1;
	h.power_on_s += (now - ns->created_ns) / 1000000000ull;
	return h;
}

static int save(struct blox_health *h, bool running)
{
	const struct nvmf_tgt *tgt = h->prov->tgt;
	uint64_t now = blox_clock_now(tgt->clock);
	json_object *root = json_object_new_object(), *arr = json_object_new_array();
	const struct nvmf_subsys *s;
	const struct nvmf_ns *ns;
	char err[512];
	int rc = -ENOMEM;

	if (!root || !arr) {
		json_object_put(root);
		json_object_put(arr);
		goto out;
	}
	json_object_object_add(root, "running", json_object_new_boolean(running));
	json_object_object_add(root, "namespaces", arr);
	TAILQ_FOREACH(s, &tgt->subsystems, link)
		TAILQ_FOREACH(ns, &s->namespaces, link) {
			struct nvmf_ns_health c = ns_now(ns, now);
			json_object *o = json_object_new_object();

			json_object_object_add(o, "nqn", json_object_new_string(s->nqn));
			json_object_object_add(o, "nsid", json_object_new_int64(ns->nsid));
			for (size_t i = 0; i < BLOX_ARRAY_SIZE(fields); i++)
				json_object_object_add(o, fields[i].key,
						       json_object_new_uint64(*field(&c, i)));
			json_object_array_add(arr, o);
		}
	rc = blox_state_write(h->path,
			      json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN), err,
			      sizeof(err));
	json_object_put(root);
	if (rc)
		blox_log(h->prov->log, BLOX_LOG_ERR, "health counters: %s", err);
out:
	if (rc == -ENOMEM)
		blox_log(h->prov->log, BLOX_LOG_ERR, "health counters: out of memory");
	return rc;
}

int blox_health_save(struct blox_health *h)
{
	return save(h, true);
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	blox_health_save(arg);
}

/* I/O errors the namespaces answered in this run. */
static uint64_t io_errors(const struct nvmf_tgt *tgt)
{
	const struct nvmf_subsys *s;
	const struct nvmf_ns *ns;
	uint64_t n = 0;

	TAILQ_FOREACH(s, &tgt->subsystems, link)
		TAILQ_FOREACH(ns, &s->namespaces, link)
			n += ns->stats.errors;
	return n;
}

/* The data directory's free space, looked at once a second; said in the log when it runs out. */
static void space_cb(evutil_socket_t fd, short what, void *arg)
{
	struct blox_health *h = arg;
	const struct blox_prov *p = h->prov;
	uint64_t now = blox_clock_now(p->tgt->clock), errs = io_errors(p->tgt);
	struct blox_space sp;
	char fr[32], tot[32];

	(void)fd;
	(void)what;
	if (blox_space_get(p->data_dir, &sp))
		return;
	prov_cap_bytes_str(sp.free_bytes, fr, sizeof(fr));
	prov_cap_bytes_str(sp.total_bytes, tot, sizeof(tot));
	if (sp.full && !h->full) {
		h->full = true;
		h->full_since_ns = h->logged_ns = now;
		h->errors_at_full = h->errors_at_log = errs;
		blox_log(p->log, BLOX_LOG_ERR,
			 "data directory %s is full: %s free of %s; its flash files cannot "
			 "grow (host writes that need new flash fail) and no checkpoint or "
			 "state can be written until space is freed there",
			 p->data_dir, fr, tot);
	} else if (sp.full && now - h->logged_ns >= SPACE_LOG_EVERY_NS) {
		blox_log(p->log, BLOX_LOG_WARN,
			 "data directory %s is still full (%s free): %lu I/O errors answered "
			 "in the last %lu s",
			 p->data_dir, fr, (unsigned long)(errs - h->errors_at_log),
			 (unsigned long)((now - h->logged_ns) / 1000000000ull));
		h->logged_ns = now;
		h->errors_at_log = errs;
	} else if (!sp.full && h->full) {
		h->full = false;
		blox_log(p->log, BLOX_LOG_INFO,
			 "data directory %s has space again: %s free (it was full for %lu s, "
			 "%lu I/O errors answered meanwhile)",
			 p->data_dir, fr, (unsigned long)((now - h->full_since_ns) / 1000000000ull),
			 (unsigned long)(errs - h->errors_at_full));
	}
}

/* The entry for @nqn/@nsid in the file's "namespaces", or NULL. */
static json_object *find_entry(json_object *arr, const char *nqn, uint32_t nsid)
{
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i), *v;

		if (json_object_object_get_ex(e, "nqn", &v) &&
		    json_object_is_type(v, json_type_string) &&
		    !strcmp(json_object_get_string(v), nqn) &&
		    json_object_object_get_ex(e, "nsid", &v) &&
		    json_object_is_type(v, json_type_int) && json_object_get_int64(v) == nsid)
			return e;
	}
	return NULL;
}

/* What the file says into the namespaces; this start counted. */
static void load(struct blox_health *h)
{
	const struct blox_log *log = h->prov->log;
	json_object *root, *arr = NULL, *v;
	struct nvmf_subsys *s;
	struct nvmf_ns *ns;
	bool unclean = false;

	if (access(h->path, F_OK))
		return; /* the first start: every count from zero */
	root = json_object_from_file(h->path);
	if (!root || !json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "namespaces", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		blox_log(log, BLOX_LOG_WARN,
			 "health counters %s: not readable, counting again from zero", h->path);
		json_object_put(root);
		return;
	}
	unclean = json_object_object_get_ex(root, "running", &v) && json_object_get_boolean(v);
	if (unclean)
		blox_log(log, BLOX_LOG_WARN,
			 "the last run did not stop cleanly: an unsafe shutdown for each "
			 "namespace's SMART log");
	TAILQ_FOREACH(s, &h->prov->tgt->subsystems, link)
		TAILQ_FOREACH(ns, &s->namespaces, link) {
			json_object *e = find_entry(arr, s->nqn, ns->nsid);

			if (!e)
				continue;
			for (size_t i = 0; i < BLOX_ARRAY_SIZE(fields); i++)
				if (json_object_object_get_ex(e, fields[i].key, &v) &&
				    json_object_is_type(v, json_type_int))
					*field(&ns->health, i) = json_object_get_uint64(v);
			ns->health.unsafe_shutdowns += unclean;
		}
	json_object_put(root);
}

int blox_health_start(struct blox_prov *p, unsigned period_s, struct blox_health **out)
{
	struct blox_health *h = calloc(1, sizeof(*h));
	char err[256];
	int rc;

	if (!h)
		return -ENOMEM;
	h->prov = p;
	rc = prov_data_file(p, BLOX_HEALTH_FILE, h->path, sizeof(h->path), err, sizeof(err));
	if (rc) {
		blox_log(p->log, BLOX_LOG_ERR, "health counters: %s", err);
		free(h);
		return rc;
	}
	load(h);
	h->timer = event_new(p->tgt->base, -1, EV_PERSIST, timer_cb, h);
	h->space_timer = event_new(p->tgt->base, -1, EV_PERSIST, space_cb, h);
	if (!h->timer || !h->space_timer) {
		if (h->timer)
			event_free(h->timer);
		if (h->space_timer)
			event_free(h->space_timer);
		free(h);
		return -ENOMEM;
	}
	event_add(h->timer, &(struct timeval){ period_s ? period_s : 60, 0 });
	event_add(h->space_timer, &(struct timeval){ 1, 0 });
	/* Said at once: this run counts (and a crash from now on is unsafe). */
	blox_health_save(h);
	*out = h;
	return 0;
}

void blox_health_stop(struct blox_health *h)
{
	if (!h)
		return;
	event_free(h->timer);
	event_free(h->space_timer);
	if (save(h, false) == 0)
		blox_log(h->prov->log, BLOX_LOG_INFO, "health counters saved in %s", h->path);
	free(h);
}
