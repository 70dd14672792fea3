/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Typed getters over the json-c objects of the start-up configuration,
 * shared by the config parsers, and the NAND/FTL parameter tables read
 * from and written to JSON (config file and state file). Strict: unknown keys and wrong types are
 * errors that name the offending field ("where.key").
 */
#include "config_internal.h"
#include "blox_parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *cfg_grow(void *arr, size_t n, size_t elem)
{
	void *p = realloc(arr, (n + 1) * elem);

	if (p)
		memset((char *)p + n * elem, 0, elem);
	return p;
}

int cfg_check_keys(json_object *o, const char *where,
		   const char *const *allowed, char *err, size_t errlen)
{
	json_object_object_foreach(o, key, val) {
		bool ok = false;

		(void)val;
		for (const char *const *a = allowed; *a; a++)
			ok |= !strcmp(*a, key);
		if (!ok)
			return blox_fail(err, errlen, "%s: unknown key '%s'", where, key);
	}
	return 0;
}

int cfg_get_string(json_object *o, const char *key, const char *where,
		   char *dst, size_t dlen, bool required, char *err,
		   size_t errlen)
{
	json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, key, &v)) {
		if (required)
			return blox_fail(err, errlen, "%s: '%s' is required", where, key);
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return blox_fail(err, errlen, "%s.%s: expected a string", where, key);
	s = json_object_get_string(v);
	if (strlen(s) >= dlen)
		return blox_fail(err, errlen, "%s.%s: longer than %zu bytes", where, key,
				dlen - 1);
	snprintf(dst, dlen, "%s", s);
	return 0;
}

int cfg_get_bool(json_object *o, const char *key, const char *where,
		 bool *dst, char *err, size_t errlen)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_boolean))
		return blox_fail(err, errlen, "%s.%s: expected true or false", where, key);
	*dst = json_object_get_boolean(v);
	return 0;
}

/* A non-negative integer, or for sizes also a string such as "64M". */
int cfg_get_u64(json_object *o, const char *key, const char *where,
		bool allow_suffix, uint64_t *dst, bool *present, char *err,
		size_t errlen)
{
	json_object *v;

	*present = json_object_object_get_ex(o, key, &v);
	if (!*present)
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		int64_t i = json_object_get_int64(v);

		if (i < 0)
			return blox_fail(err, errlen, "%s.%s: must not be negative", where, key);
		*dst = (uint64_t)i;
		return 0;
	}
	if (allow_suffix && json_object_is_type(v, json_type_string)) {
		const char *text = json_object_get_string(v), *why;

		if (blox_parse_size_why(text, dst, &why))
			return blox_fail(err, errlen, "%s.%s: '%s' %s", where, key, text, why);
		/* What a JSON integer can hold: the state file writes it as one. */
		if (*dst > (uint64_t)INT64_MAX)
			return blox_fail(err, errlen, "%s.%s: too large (at most %lld bytes)",
					 where, key, (long long)INT64_MAX);
		return 0;
	}
	return blox_fail(err, errlen, "%s.%s: expected %s", where, key,
			allow_suffix ? "a size such as 4096 or \"64M\"" : "an integer");
}

json_object *cfg_get_array(json_object *o, const char *key,
			   const char *where, int *rc, char *err,
			   size_t errlen)
{
	json_object *v;

	*rc = 0;
	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	if (!json_object_is_type(v, json_type_array)) {
		*rc = blox_fail(err, errlen, "%s.%s: expected an array", where, key);
		return NULL;
	}
	return v;
}

int cfg_read_params(const struct blox_param_table *t, json_object *o,
		    const char *where, void *params, char *err, size_t errlen)
{
	char *base = params;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return blox_fail(err, errlen, "%s: expected an object", where);
	if ((rc = cfg_check_keys(o, where, t->keys, err, errlen)))
		return rc;
	for (size_t i = 0; i < t->n; i++) {
		const struct blox_param_field *f = &t->fields[i];
		bool present = json_object_object_get_ex(o, f->key, NULL);
		uint64_t v;

		if (!present)
			continue;
		switch (f->kind) {
		case BLOX_PK_U32:
			rc = cfg_get_u64(o, f->key, where, false, &v, &present, err, errlen);
			/* Past 32 bits: out of range, said by blox_params_check(). */
			*(uint32_t *)(base + f->off) = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
			break;
		case BLOX_PK_BOOL:
			rc = cfg_get_bool(o, f->key, where, (bool *)(base + f->off), err, errlen);
			break;
		case BLOX_PK_STR:
			rc = cfg_get_string(o, f->key, where, base + f->off, f->len, false, err,
					    errlen);
			break;
		}
		if (rc)
			return rc;
		*blox_params_set(params) |= 1u << i;
	}
	return 0;
}

json_object *cfg_params_json(const struct blox_param_table *t, const void *params)
{
	json_object *o = json_object_new_object();
	const char *base = params;

	for (size_t i = 0; o && i < t->n; i++) {
		const struct blox_param_field *f = &t->fields[i];

		if (!blox_param_given(params, i))
			continue;
		if (f->kind == BLOX_PK_U32)
			json_object_object_add(o, f->key, json_object_new_int64(
				*(const uint32_t *)(base + f->off)));
		else if (f->kind == BLOX_PK_BOOL)
			json_object_object_add(o, f->key, json_object_new_boolean(
				*(const bool *)(base + f->off)));
		else
			json_object_object_add(o, f->key,
					       json_object_new_string(base + f->off));
	}
	return o;
}
