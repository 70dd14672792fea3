/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxctl's pure helpers (no I/O besides printing a table): argument
 * parsing, aligned tables, and any protobuf message as JSON.
 */
#ifndef BLOX_CLI_H
#define BLOX_CLI_H

#include <protobuf-c/protobuf-c.h>
#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A count up to 2^32 - 1 (blox_parse_count). 0 or -EINVAL. Sizes: blox_parse_size(). */
int cli_parse_u32(const char *s, uint32_t *out);
/* "ADDR:PORT" or "[V6ADDR]:PORT". 0, -EINVAL, or -ERANGE for a port not 1..65535. */
int cli_parse_addr(const char *s, char *addr, size_t alen, uint32_t *port);
/* 1.5G-style text for @bytes. */
void cli_size_str(uint64_t bytes, char *out, size_t len);
/*
 * Every field of @m (nested, repeated, enums by name, 64-bit as integers);
 * a string field of JSON text (name ending in "_json", e.g. params_json)
 * as the object it holds, left out when empty.
 */
json_object *cli_msg_to_json(const ProtobufCMessage *m);

#define CLI_MAX_COLS 12

struct cli_table {
	size_t ncols, nrows, cap, cur;
	const char *head[CLI_MAX_COLS];
	char **cells; /* nrows * ncols */
	size_t width[CLI_MAX_COLS];
};

/* Column headers, NULL-terminated. */
void cli_table_init(struct cli_table *t, ...);
void cli_table_cell(struct cli_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cli_table_end_row(struct cli_table *t);
/* Print aligned and free the table. */
void cli_table_print(struct cli_table *t, FILE *f);

/*
 * @label, padded to @indent columns, then the printf-style text wrapped
 * at spaces so that no line passes @width columns (but a longer word),
 * its continuation lines indented by @indent.
 */
void cli_wrap(FILE *f, size_t indent, size_t width, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#endif
