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
 *     "unsafe_shutdowns": N}]}
 *
 * A file that cannot be read is said in the log and counts start again
 * from zero: health counts are never a reason not to serve.
 */
#include "prov.h"
#include "state.h"

#include <errno.h>
#include <event2/event.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct blox_health {
	struct blox_prov *prov;
	struct event *timer;
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
	if (!h->timer) {
		free(h);
		return -ENOMEM;
	}
	event_add(h->timer, &(struct timeval){ period_s ? period_s : 60, 0 });
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
	if (save(h, false) == 0)
		blox_log(h->prov->log, BLOX_LOG_INFO, "health counters saved in %s", h->path);
	free(h);
}
