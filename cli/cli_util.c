/* SPDX-License-Identifier: BSD-3-Clause */
#include "cli.h"
#include "blox_parse.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int cli_parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;
	int rc = blox_parse_count(s, UINT32_MAX, &v);

	if (rc)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

int cli_parse_addr(const char *s, char *addr, size_t alen, uint32_t *port)
{
	const char *colon;
	size_t n;

	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return -EINVAL;
		n = (size_t)(close - s - 1);
		s++;
		colon = close + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon || strchr(s, ':') != colon)
			return -EINVAL;
		n = (size_t)(colon - s);
	}
	if (n == 0 || n >= alen)
		return -EINVAL;
	if (cli_parse_u32(colon + 1, port) || *port == 0 || *port > 65535)
		return -ERANGE;
	memcpy(addr, s, n);
	addr[n] = '\0';
	return 0;
}

void cli_size_str(uint64_t b, char *out, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)b;
	int i = 0;

	while (v >= 1024 && i < 5) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(out, len, "%lu B", (unsigned long)b);
	else
		snprintf(out, len, "%.*f %s", v < 10 && v != (double)(uint64_t)v ? 1 : 0, v,
			 u[i]);
}

/* A string field that holds JSON text (params_json): its name ends in "_json". */
static bool json_text_field(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && !strcmp(name + n - 5, "_json");
}

/*
 * The JSON text @s as the object (or array) it holds, so that --json nests
 * it instead of quoting it; null when empty, the string itself when it
 * does not parse to an object or array.
 */
static json_object *json_text(const char *s)
{
	json_object *o;

	if (!s || !s[0])
		return NULL;
	o = json_tokener_parse(s);
	if (o && (json_object_is_type(o, json_type_object) ||
		  json_object_is_type(o, json_type_array)))
		return o;
	json_object_put(o);
	return json_object_new_string(s);
}

static json_object *field_json(const ProtobufCFieldDescriptor *f, const void *p)
{
	switch (f->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
		return json_object_new_int(*(const int32_t *)p);
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		return json_object_new_int64(*(const uint32_t *)p);
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		return json_object_new_int64(*(const int64_t *)p);
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		return json_object_new_uint64(*(const uint64_t *)p);
	case PROTOBUF_C_TYPE_FLOAT:
		return json_object_new_double(*(const float *)p);
	case PROTOBUF_C_TYPE_DOUBLE:
		return json_object_new_double(*(const double *)p);
	case PROTOBUF_C_TYPE_BOOL:
		return json_object_new_boolean(*(const protobuf_c_boolean *)p);
	case PROTOBUF_C_TYPE_ENUM: {
		const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(
			f->descriptor, *(const int *)p);

		return v ? json_object_new_string(v->name) : json_object_new_int(*(const int *)p);
	}
	case PROTOBUF_C_TYPE_STRING: {
		const char *s = *(char *const *)p;

		return json_text_field(f->name) ? json_text(s) : json_object_new_string(s ? s : "");
	}
	case PROTOBUF_C_TYPE_BYTES: {
		const ProtobufCBinaryData *b = p;

		return json_object_new_string_len((const char *)b->data, (int)b->len);
	}
	case PROTOBUF_C_TYPE_MESSAGE: {
		const ProtobufCMessage *m = *(ProtobufCMessage *const *)p;

		return m ? cli_msg_to_json(m) : NULL;
	}
	}
	return NULL;
}

static size_t elem_size(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return 8;
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(void *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	default:
		return 4;
	}
}

json_object *cli_msg_to_json(const ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	json_object *o = json_object_new_object();

	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		const char *base = (const char *)m + f->offset;

		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(const size_t *)((const char *)m + f->quantifier_offset);
			const char *arr = *(char *const *)base;
			json_object *a = json_object_new_array();

			for (size_t k = 0; k < n; k++) {
				json_object *v = field_json(f, arr + k * elem_size(f->type));

				if (v)
					json_object_array_add(a, v);
			}
			json_object_object_add(o, f->name, a);
		} else {
			json_object *v = field_json(f, base);

			if (v)
				json_object_object_add(o, f->name, v);
		}
	}
	return o;
}

void cli_table_init(struct cli_table *t, ...)
{
	va_list ap;
	const char *h;

	memset(t, 0, sizeof(*t));
	va_start(ap, t);
	while ((h = va_arg(ap, const char *)) && t->ncols < CLI_MAX_COLS) {
		t->head[t->ncols] = h;
		t->width[t->ncols] = strlen(h);
		t->ncols++;
	}
	va_end(ap);
}

void cli_table_cell(struct cli_table *t, const char *fmt, ...)
{
	char buf[2048];
	size_t idx = t->nrows * t->ncols + t->cur;
	va_list ap;

	if (t->cur >= t->ncols)
		return;
	if (idx >= t->cap) {
		size_t cap = t->cap ? t->cap * 2 : t->ncols * 16;
		char **c = realloc(t->cells, cap * sizeof(*c));

		if (!c)
			return;
		memset(c + t->cap, 0, (cap - t->cap) * sizeof(*c));
		t->cells = c;
		t->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	t->cells[idx] = strdup(buf);
	if (t->cells[idx] && strlen(buf) > t->width[t->cur])
		t->width[t->cur] = strlen(buf);
	t->cur++;
}

void cli_table_end_row(struct cli_table *t)
{
	while (t->cur < t->ncols)
		cli_table_cell(t, "%s", "");
	t->cur = 0;
	t->nrows++;
}

void cli_table_print(struct cli_table *t, FILE *f)
{
	for (size_t c = 0; c < t->ncols; c++)
		fprintf(f, "%-*s%s", c + 1 < t->ncols ? (int)t->width[c] : 0, t->head[c],
			c + 1 < t->ncols ? "  " : "\n");
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++) {
			const char *v = t->cells[r * t->ncols + c];

			fprintf(f, "%-*s%s", c + 1 < t->ncols ? (int)t->width[c] : 0,
				v ? v : "", c + 1 < t->ncols ? "  " : "\n");
		}
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap = 0;
}

void cli_wrap(FILE *f, size_t indent, size_t width, const char *label, const char *fmt, ...)
{
	va_list ap;
	char *text, *save = NULL;
	int len;
	size_t col;

	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0 || !(text = malloc((size_t)len + 1)))
		return;
	va_start(ap, fmt);
	vsnprintf(text, (size_t)len + 1, fmt, ap);
	va_end(ap);
	col = (size_t)fprintf(f, "%-*s", (int)indent, label);
	for (char *w = strtok_r(text, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		size_t wl = strlen(w);

		if (col > indent && col + 1 + wl > width) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fputs(w, f);
		col += wl;
	}
	fputc('\n', f);
	free(text);
}
