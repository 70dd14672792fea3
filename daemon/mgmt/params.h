/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to daemon/mgmt: the fields of the NAND and FTL parameters as
 * tables, so that the config file's JSON, the admin API's protobuf
 * messages and the state file read and write them the same way, by the
 * same names, with one set of checks.
 */
#ifndef BLOX_PARAMS_H
#define BLOX_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "mgmt.h"

enum blox_param_kind {
	BLOX_PK_U32, /* an integer up to @max; 0 given counts as given */
	BLOX_PK_BOOL,
	BLOX_PK_STR, /* text of fewer than @len bytes, one of @values */
};

struct blox_param_field {
	const char *key; /* as in the config file and the .proto */
	enum blox_param_kind kind;
	size_t off; /* in the parameter struct */
	size_t len; /* BLOX_PK_STR: the buffer */
	uint32_t min, max; /* BLOX_PK_U32 */
	/* BLOX_PK_U32: out of range ("%s.%s: " is put before it); NULL: "at most MAX" */
	const char *range_msg;
	/* BLOX_PK_STR: the values allowed and how to say so */
	const char *const *values;
	const char *values_msg; /* e.g. "is not file or ram" */
};

struct blox_param_table {
	const char *name; /* "nand", "ftl" */
	const struct blox_param_field *fields;
	size_t n; /* field i is bit 1u << i of the struct's 'set' */
	const char *const *keys; /* the keys, NULL-terminated */
};

extern const struct blox_param_table blox_nand_table, blox_ftl_table, blox_fbx_table,
	blox_qos_table;

/* A namespace's QoS parameters as the limits the backend holds it to, and its weight. */
void blox_qos_resolve(const struct blox_qos_params *p, struct qos_limits *lim, uint32_t *weight);

/* Permille of the dies' time a wear-balancing swap takes unless the device says. */
#define PROV_DEFAULT_SWAP_SHARE 250

/* The 'set' bits of a parameter struct (its first member). */
static inline uint32_t *blox_params_set(void *params)
{
	return (uint32_t *)params;
}

/* Is field @i of @params given? */
static inline int blox_param_given(const void *params, size_t i)
{
	return (*(const uint32_t *)params >> i) & 1u;
}

/*
 * Check the values given in @params against @t (ranges, allowed words).
 * -EINVAL with "@where.key: ..." in @err.
 */
int blox_params_check(const struct blox_param_table *t, const void *params,
		      const char *where, char *err, size_t errlen);

/* Canonical 8-4-4-4-12 hex form only. 0 or -EINVAL. */
int blox_uuid_parse(const char *s, uint8_t out[16]);
void blox_uuid_str(const uint8_t u[16], char out[37]);

/* Format the reason into @err; returns -EINVAL. */
int blox_fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
