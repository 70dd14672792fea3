/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Faults injected with --persist, kept in DIR/bloxd-faults.json (written
 * atomically whenever one is injected or cleared) and put back into the
 * registry, with their ids, when bloxd starts:
 *
 *   {"faults": [{"id": 3, "kind": "read-unc", "nqn": "...", "nsid": 1,
 *     "device": "", "die": 0, "lba": 100, "nlb": 8, "count": 0,
 *     "probability": 1, "seed": 0, "after": 0, "min_qd": 0}]}
 *
 * with "host", "listener", "ops", "dist", "delay_ns", "delay_max_ns",
 * "qid" and "duration_ns" for the kinds that have them ("ops" is the mask
 * of BLOX_FAULT_OP_*; 15, "all" before Write Zeroes, Dataset Management
 * and Compare had bits of their own, still matches every I/O command). How often a fault was seen
 * and fired starts again at zero; one with a duration (a listener's stop,
 * a stall) starts it again from the start. A file that
 * cannot be read, or an entry that is not a fault, is said in the log and
 * left out: faults are never a reason not to serve.
 */
#include "adm_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#define ADM_FAULTS_FILE "bloxd-faults.json"

/* The numbers of an entry, by key. */
static const struct {
	const char *key;
	size_t off;
} u64_fields[] = {
	{ "lba", offsetof(struct blox_fault_spec, lba) },
	{ "nlb", offsetof(struct blox_fault_spec, nlb) },
	{ "count", offsetof(struct blox_fault_spec, count) },
	{ "seed", offsetof(struct blox_fault_spec, seed) },
	{ "after", offsetof(struct blox_fault_spec, after) },
	{ "delay_ns", offsetof(struct blox_fault_spec, delay_ns) },
	{ "delay_max_ns", offsetof(struct blox_fault_spec, delay_max_ns) },
	{ "duration_ns", offsetof(struct blox_fault_spec, duration_ns) },
};

static void faults_path(const struct blox_admin *a, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", a->data_dir, ADM_FAULTS_FILE);
}

static json_object *fault_json(const struct blox_fault *f)
{
	const struct blox_fault_spec *s = &f->spec;
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "id", json_object_new_int64(f->id));
	json_object_object_add(o, "kind", json_object_new_string(blox_fault_kind_name(s->kind)));
	json_object_object_add(o, "nqn", json_object_new_string(s->subsys));
	json_object_object_add(o, "nsid", json_object_new_int64(s->nsid));
	json_object_object_add(o, "device", json_object_new_string(s->device));
	json_object_object_add(o, "die", json_object_new_int64(s->die));
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(u64_fields); i++)
		json_object_object_add(
			o, u64_fields[i].key,
			json_object_new_uint64(*(const uint64_t *)((const char *)s + u64_fields[i].off)));
	json_object_object_add(o, "probability", json_object_new_double(s->probability));
	json_object_object_add(o, "min_qd", json_object_new_int64(s->min_qd));
	json_object_object_add(o, "qid", json_object_new_int64(s->qid));
	json_object_object_add(o, "host", json_object_new_string(s->host));
	json_object_object_add(o, "listener", json_object_new_string(s->listener));
	json_object_object_add(o, "ops", json_object_new_int64(s->ops));
	json_object_object_add(o, "dist", json_object_new_string(blox_fault_dist_name(s->dist)));
	return o;
}

int adm_faults_save(struct blox_admin *a, char *err, size_t errlen)
{
	struct blox_fault *fs = calloc(BLOX_FAULT_MAX, sizeof(*fs));
	json_object *root = json_object_new_object(), *arr = json_object_new_array();
	char path[4200];
	size_t n;
	int rc = -ENOMEM;

	if (!fs || !root || !arr) {
		snprintf(err, errlen, "out of memory");
		json_object_put(arr);
		goto out;
	}
	json_object_object_add(root, "faults", arr);
	n = BLOX_MIN(blox_fault_list(a->tgt->faults, fs, BLOX_FAULT_MAX), (size_t)BLOX_FAULT_MAX);
	for (size_t i = 0; i < n; i++)
		if (fs[i].spec.persist)
			json_object_array_add(arr, fault_json(&fs[i]));
	faults_path(a, path, sizeof(path));
	rc = blox_state_write(path, json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY),
			      err, errlen);
out:
	json_object_put(root);
	free(fs);
	return rc;
}

/* Entry @o as a spec: 0, or -EINVAL with a reason. */
static int fault_from_json(json_object *o, struct blox_fault_spec *s, uint32_t *id, char *err,
			   size_t errlen)
{
	json_object *v;
	int k;

	memset(s, 0, sizeof(*s));
	if (!json_object_object_get_ex(o, "id", &v) || json_object_get_int64(v) <= 0 ||
	    json_object_get_int64(v) > UINT32_MAX)
		return snprintf(err, errlen, "no id"), -EINVAL;
	*id = (uint32_t)json_object_get_int64(v);
	if (!json_object_object_get_ex(o, "kind", &v) ||
	    (k = blox_fault_kind_parse(json_object_get_string(v))) < 0)
		return snprintf(err, errlen, "no kind"), -EINVAL;
	s->kind = (enum blox_fault_kind)k;
	if (json_object_object_get_ex(o, "nqn", &v))
		snprintf(s->subsys, sizeof(s->subsys), "%s", json_object_get_string(v));
	if (json_object_object_get_ex(o, "nsid", &v))
		s->nsid = (uint32_t)json_object_get_int64(v);
	if (json_object_object_get_ex(o, "device", &v))
		snprintf(s->device, sizeof(s->device), "%s", json_object_get_string(v));
	if (json_object_object_get_ex(o, "die", &v))
		s->die = (uint32_t)json_object_get_int64(v);
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(u64_fields); i++)
		if (json_object_object_get_ex(o, u64_fields[i].key, &v))
			*(uint64_t *)((char *)s + u64_fields[i].off) = json_object_get_uint64(v);
	s->probability = json_object_object_get_ex(o, "probability", &v) ? json_object_get_double(v)
									   : 1;
	if (json_object_object_get_ex(o, "min_qd", &v))
		s->min_qd = (uint32_t)json_object_get_int64(v);
	if (json_object_object_get_ex(o, "qid", &v))
		s->qid = (uint32_t)json_object_get_int64(v);
	if (json_object_object_get_ex(o, "host", &v))
		snprintf(s->host, sizeof(s->host), "%s", json_object_get_string(v));
	if (json_object_object_get_ex(o, "listener", &v))
		snprintf(s->listener, sizeof(s->listener), "%s", json_object_get_string(v));
	if (json_object_object_get_ex(o, "ops", &v))
		s->ops = (unsigned)json_object_get_int64(v);
	if (json_object_object_get_ex(o, "dist", &v) &&
	    (k = blox_fault_dist_parse(json_object_get_string(v))) >= 0)
		s->dist = (enum blox_fault_dist)k;
	s->persist = true;
	return 0;
}

void adm_faults_load(struct blox_admin *a)
{
	char path[4200], err[256];
	json_object *root, *arr;
	size_t n = 0;

	faults_path(a, path, sizeof(path));
	root = json_object_from_file(path);
	if (!root)
		return; /* none kept (or unreadable: said below only when it exists) */
	if (!json_object_object_get_ex(root, "faults", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		blox_log(a->log, BLOX_LOG_ERR, "%s: no \"faults\" array: none restored", path);
		json_object_put(root);
		return;
	}
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct blox_fault_spec s;
		uint32_t id;

		int rc = fault_from_json(json_object_array_get_idx(arr, i), &s, &id, err, sizeof(err));

		if (!rc && s.duration_ns)
			s.until_ns = blox_clock_now(a->tgt->clock) + s.duration_ns;
		if (rc || blox_fault_add(a->tgt->faults, &s, id, NULL, err, sizeof(err))) {
			blox_log(a->log, BLOX_LOG_ERR, "%s: fault %zu left out: %s", path, i, err);
			continue;
		}
		n++;
	}
	if (n)
		blox_log(a->log, BLOX_LOG_INFO, "%zu faults restored from %s", n, path);
	json_object_put(root);
}
