/*
 * Private to the config parser: the typed JSON getters and the error
 * helper (config_json.c), and the parsers one file hands to another —
 * "nand", "ftl", "devices" (config_nand.c) and namespace entries
 * (config_ns.c) — used by the top level in config.c.
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

#include "mgmt.h"

/* config_json.c */

/* Format the reason into @err; returns -EINVAL. */
int cfg_fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
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
/* An optional integer up to @max; @dst left alone when absent. */
int cfg_get_u32(json_object *o, const char *key, const char *where,
		uint32_t *dst, uint64_t max, char *err, size_t errlen);
/* The array at @key, NULL when absent or (with *@rc set) not an array. */
json_object *cfg_get_array(json_object *o, const char *key,
			   const char *where, int *rc, char *err,
			   size_t errlen);

/* config_nand.c */

/* A "nand" object over the defaults already in @nc. */
int cfg_parse_nand(json_object *o, const char *where, struct nand_config *nc,
		   char *err, size_t errlen);
/* An "ftl" object over the defaults already in @ns->ftl. */
int cfg_parse_ftl(json_object *o, const char *where, struct blox_cfg_ns *ns,
		  char *err, size_t errlen);
/* One "devices" entry into the zeroed @d. */
int cfg_parse_device(json_object *o, const char *where,
		     struct blox_cfg_device *d, char *err, size_t errlen);
/* Split each device's dies evenly over its namespaces, in config order. */
int cfg_assign_devices(struct blox_config *cfg, char *err, size_t errlen);

/* config_ns.c */

/* One "namespaces" entry into the zeroed @ns; sets ns->params on success. */
int cfg_parse_ns(json_object *o, const char *where, struct blox_cfg_ns *ns,
		 char *err, size_t errlen);
/* "<data dir>/<file>", creating the data directory if it is missing. */
int cfg_data_file(const char *data_dir, const char *file, char *out,
		  size_t len, char *err, size_t errlen);

#endif
