/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to daemon/conf: the typed JSON getters and the parameter
 * tables in JSON (config_json.c), namespace and device entries
 * (config_ns.c), used by the top level in config.c and by the state file.
 *
 * Every function that can fail writes a one-line reason naming the
 * offending field ("where.key") to @err and returns a negative errno.
 */
#ifndef BLOX_CONFIG_INTERNAL_H
#define BLOX_CONFIG_INTERNAL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf.h"

/* config.c */

/* The 1-based line and column of byte @off of @text (a tab is one column). */
void cfg_text_pos(const char *text, size_t off, unsigned *line, unsigned *col);

/* config_json.c */

/* @arr (of @n elements of @elem bytes) grown by one zeroed element. */
void *cfg_grow(void *arr, size_t n, size_t elem);
/* Refuse any key of @o not in the NULL-terminated @allowed. */
int cfg_check_keys(json_object *o, const char *where,
		   const char *const *allowed, char *err, size_t errlen);
/* A string into @dst (of @dlen bytes); left alone when absent unless @required. */
int cfg_get_string(json_object *o, const char *key, const char *where,
		   char *dst, size_t dlen, bool required, char *err,
		   size_t errlen);
/* An optional true or false; @dst left alone when absent. */
int cfg_get_bool(json_object *o, const char *key, const char *where,
		 bool *dst, char *err, size_t errlen);
/* A non-negative integer, or with @allow_suffix also a size such as "64M". */
int cfg_get_u64(json_object *o, const char *key, const char *where,
		bool allow_suffix, uint64_t *dst, bool *present, char *err,
		size_t errlen);
/* The array at @key, NULL when absent or (with *@rc set) not an array. */
json_object *cfg_get_array(json_object *o, const char *key,
			   const char *where, int *rc, char *err,
			   size_t errlen);
/*
 * The fields of table @t present in the object @o into @params (a struct
 * blox_nand_params or blox_ftl_params), their bits set. Types only: the
 * values are checked when resolved.
 */
int cfg_read_params(const struct blox_param_table *t, json_object *o,
		    const char *where, void *params, char *err, size_t errlen);
/* The fields given in @params as a JSON object. */
json_object *cfg_params_json(const struct blox_param_table *t, const void *params);

/* config_ns.c: a "namespaces" entry, and a "devices" entry. */
/* The top level's "referrals" (config_ref.c), read into @cfg and written back. */
int cfg_parse_referrals(json_object *root, struct blox_config *cfg, char *err, size_t errlen);
json_object *cfg_referrals_json(const struct blox_config *cfg);
int cfg_parse_ns(json_object *o, const char *where, struct blox_cfg_ns *ns,
		 char *err, size_t errlen);
int cfg_parse_device(json_object *o, const char *where,
		     struct blox_cfg_device *d, char *err, size_t errlen);

#endif
