/*
 * JSON start-up configuration (json-c). Strict: unknown keys and wrong
 * types are errors that name the offending field, because a typo in a
 * storage config should never silently produce a different device.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <openssl/sha.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

static int fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void *grow(void *arr, size_t n, size_t elem)
{
	void *p = realloc(arr, (n + 1) * elem);

	if (p)
		memset((char *)p + n * elem, 0, elem);
	return p;
}

static int listener_add(struct blox_config *cfg, const char *addr,
			const char *port, bool disc)
{
	struct blox_cfg_listener *l = grow(cfg->listeners, cfg->nr_listeners,
					   sizeof(*l));

	if (!l)
		return -ENOMEM;
	cfg->listeners = l;
	l += cfg->nr_listeners++;
	snprintf(l->addr, sizeof(l->addr), "%s", addr);
	snprintf(l->port, sizeof(l->port), "%s", port);
	l->discovery_only = disc;
	return 0;
}

/* 8 TLC dies on 4 channels; 24 MiB superblocks suit a 1 GiB disk. */
static const char default_json[] =
	"{\"listeners\": ["
	"{\"address\": \"127.0.0.1\", \"port\": 4420},"
	"{\"address\": \"127.0.0.1\", \"port\": 8009, \"discovery_only\": true}],"
	"\"subsystems\": [{\"nqn\": \"" BLOX_DEFAULT_NQN "\", \"allow_any_host\": true,"
	"\"namespaces\": [{\"nsid\": 1, \"backend\": \"nand\", \"size\": 1073741824,"
	"\"nand\": {\"channels\": 4, \"dies_per_channel\": 2, \"planes_per_die\": 1,"
	"\"pages_per_block\": 192}}]}]}";

int blox_config_default(struct blox_config *cfg)
{
	char err[256];

	return blox_config_parse(default_json, cfg, err, sizeof(err));
}

void blox_config_clear_listeners(struct blox_config *cfg)
{
	free(cfg->listeners);
	cfg->listeners = NULL;
	cfg->nr_listeners = 0;
}

int blox_config_add_listener(struct blox_config *cfg, const char *spec,
			     bool disc, char *err, size_t errlen)
{
	char addr[NVMF_TRADDR_SIZE];
	const char *colon, *port;
	size_t alen;

	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (!close || close[1] != ':')
			return fail(err, errlen, "listener '%s': expected [ADDR]:PORT",
				    spec);
		alen = (size_t)(close - spec - 1);
		memcpy(addr, spec + 1, BLOX_MIN(alen, sizeof(addr) - 1));
		port = close + 2;
	} else {
		colon = strrchr(spec, ':');
		if (!colon)
			return fail(err, errlen, "listener '%s': expected ADDR:PORT",
				    spec);
		alen = (size_t)(colon - spec);
		memcpy(addr, spec, BLOX_MIN(alen, sizeof(addr) - 1));
		port = colon + 1;
	}
	if (alen == 0 || alen >= sizeof(addr) || !*port || strlen(port) > 5)
		return fail(err, errlen, "listener '%s': bad address or port", spec);
	addr[alen] = '\0';
	return listener_add(cfg, addr, port, disc) ? -ENOMEM : 0;
}

/* ---- JSON helpers ---- */

static int check_keys(json_object *o, const char *where,
		      const char *const *allowed, char *err, size_t errlen)
{
	json_object_object_foreach(o, key, val) {
		bool ok = false;

		(void)val;
		for (const char *const *a = allowed; *a; a++)
			ok |= !strcmp(*a, key);
		if (!ok)
			return fail(err, errlen, "%s: unknown key '%s'", where, key);
	}
	return 0;
}

static int get_string(json_object *o, const char *key, const char *where,
		      char *dst, size_t dlen, bool required, char *err,
		      size_t errlen)
{
	json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, key, &v)) {
		if (required)
			return fail(err, errlen, "%s: '%s' is required", where, key);
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return fail(err, errlen, "%s.%s: expected a string", where, key);
	s = json_object_get_string(v);
	if (strlen(s) >= dlen)
		return fail(err, errlen, "%s.%s: longer than %zu bytes", where, key,
			    dlen - 1);
	snprintf(dst, dlen, "%s", s);
	return 0;
}

static int get_bool(json_object *o, const char *key, const char *where,
		    bool *dst, char *err, size_t errlen)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_boolean))
		return fail(err, errlen, "%s.%s: expected true or false", where, key);
	*dst = json_object_get_boolean(v);
	return 0;
}

/* A non-negative integer, or for sizes also a string such as "64M". */
static int get_u64(json_object *o, const char *key, const char *where,
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
			return fail(err, errlen, "%s.%s: must not be negative", where, key);
		*dst = (uint64_t)i;
		return 0;
	}
	if (allow_suffix && json_object_is_type(v, json_type_string) &&
	    blox_parse_size(json_object_get_string(v), dst) == 0)
		return 0;
	return fail(err, errlen, "%s.%s: expected %s", where, key,
		    allow_suffix ? "a size such as 4096 or \"64M\"" : "an integer");
}

static json_object *get_array(json_object *o, const char *key,
			      const char *where, int *rc, char *err,
			      size_t errlen)
{
	json_object *v;

	*rc = 0;
	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	if (!json_object_is_type(v, json_type_array)) {
		*rc = fail(err, errlen, "%s.%s: expected an array", where, key);
		return NULL;
	}
	return v;
}

/* Canonical 8-4-4-4-12 hex form only. */
static int parse_uuid(const char *s, uint8_t out[16])
{
	size_t n = 0;

	if (strlen(s) != 36)
		return -EINVAL;
	for (size_t i = 0; i < 36; i++) {
		char c = s[i];
		unsigned v;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (c != '-')
				return -EINVAL;
			continue;
		}
		if (!isxdigit((unsigned char)c))
			return -EINVAL;
		v = (unsigned)(isdigit((unsigned char)c) ? c - '0'
							 : tolower((unsigned char)c) - 'a' + 10);
		out[n / 2] = (uint8_t)((n % 2) ? (out[n / 2] | v) : (v << 4));
		n++;
	}
	return 0;
}

/* Optional unsigned field into a uint32_t, bounded. */
static int get_u32(json_object *o, const char *key, const char *where,
		   uint32_t *dst, uint64_t max, char *err, size_t errlen)
{
	uint64_t v = 0;
	bool present;
	int rc = get_u64(o, key, where, false, &v, &present, err, errlen);

	if (rc || !present)
		return rc;
	if (v > max)
		return fail(err, errlen, "%s.%s: at most %lu", where, key,
			    (unsigned long)max);
	*dst = (uint32_t)v;
	return 0;
}

/* A time in microseconds (integer) into nanoseconds, for every page type. */
static int get_us(json_object *o, const char *key, const char *where,
		  uint64_t *dst, size_t n, char *err, size_t errlen)
{
	uint64_t v = 0;
	bool present;
	int rc = get_u64(o, key, where, false, &v, &present, err, errlen);

	if (rc || !present)
		return rc;
	if (v > 10000000)
		return fail(err, errlen, "%s.%s: at most 10 s", where, key);
	for (size_t i = 0; i < n; i++)
		dst[i] = v * 1000;
	return 0;
}

static int parse_nand(json_object *o, const char *where, struct nand_config *nc,
		      char *err, size_t errlen)
{
	static const char *const keys[] = {
		"channels", "dies_per_channel", "planes_per_die", "blocks_per_plane",
		"pages_per_block", "page_size", "oob_size", "cell", "t_read_us",
		"t_prog_us", "t_erase_us", "bus_mbps", "t_suspend_us",
		"t_resume_us", "null_timing", "suspend_policy", "multi_plane", NULL
	};
	struct nand_geometry *g = &nc->geo;
	char cell[8] = "", pol[16] = "";
	const char *why;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return fail(err, errlen, "%s: expected an object", where);
	if ((rc = check_keys(o, where, keys, err, errlen)) ||
	    (rc = get_u32(o, "channels", where, &g->channels, 64, err, errlen)) ||
	    (rc = get_u32(o, "dies_per_channel", where, &g->dies_per_channel, 64,
			  err, errlen)) ||
	    (rc = get_u32(o, "planes_per_die", where, &g->planes_per_die, 8, err,
			  errlen)) ||
	    (rc = get_u32(o, "blocks_per_plane", where, &g->blocks_per_plane,
			  1u << 20, err, errlen)) ||
	    (rc = get_u32(o, "pages_per_block", where, &g->pages_per_block, 4096,
			  err, errlen)) ||
	    (rc = get_u32(o, "page_size", where, &g->page_size, 65536, err,
			  errlen)) ||
	    (rc = get_u32(o, "oob_size", where, &g->oob_size, 8192, err, errlen)) ||
	    (rc = get_string(o, "cell", where, cell, sizeof(cell), false, err,
			     errlen)))
		return rc;
	if (cell[0]) {
		static const char *const names[] = { "slc", "mlc", "tlc", "qlc" };
		size_t i;

		for (i = 0; i < 4 && strcmp(cell, names[i]); i++)
			;
		if (i == 4)
			return fail(err, errlen, "%s.cell: '%s' is not slc, mlc, tlc or qlc",
				    where, cell);
		g->cell = (enum nand_cell)(i + 1);
		/* New cell type: its default timing, before any override. */
		nand_timing_default(&nc->timing, g->cell);
	}
	if ((rc = get_us(o, "t_read_us", where, nc->timing.t_read_ns, 4, err,
			 errlen)) ||
	    (rc = get_us(o, "t_prog_us", where, nc->timing.t_prog_ns, 4, err,
			 errlen)) ||
	    (rc = get_us(o, "t_erase_us", where, &nc->timing.t_erase_ns, 1, err,
			 errlen)) ||
	    (rc = get_us(o, "t_suspend_us", where, &nc->timing.t_suspend_ns, 1,
			 err, errlen)) ||
	    (rc = get_us(o, "t_resume_us", where, &nc->timing.t_resume_ns, 1, err,
			 errlen)) ||
	    (rc = get_bool(o, "null_timing", where, &nc->timing.null_timing, err,
			   errlen)) ||
	    (rc = get_bool(o, "multi_plane", where, &nc->multiplane, err, errlen)) ||
	    (rc = get_string(o, "suspend_policy", where, pol, sizeof(pol), false,
			     err, errlen)))
		return rc;
	{
		uint64_t v;
		bool present;

		rc = get_u64(o, "bus_mbps", where, false, &v, &present, err, errlen);
		if (rc)
			return rc;
		if (present && (v == 0 || v > 100000))
			return fail(err, errlen, "%s.bus_mbps: must be 1..100000", where);
		if (present)
			nc->timing.bus_mbps = v;
	}
	if (!strcmp(pol, "never"))
		nc->policy = nand_suspend_never;
	else if (!strcmp(pol, "always"))
		nc->policy = nand_suspend_always;
	else if (pol[0] && strcmp(pol, "default"))
		return fail(err, errlen,
			    "%s.suspend_policy: '%s' is not default, never or always",
			    where, pol);
	if (nand_geometry_check(g, &why))
		return fail(err, errlen, "%s: %s", where, why);
	return 0;
}

static int parse_ftl(json_object *o, const char *where, struct blox_cfg_ns *ns,
		     char *err, size_t errlen)
{
	static const char *const keys[] = { "store", "cmt_kib", "mdc", "mdc_bytes",
					    "mdc_min_run", "stream_separation",
					    "op_percent", "gc_policy",
					    "write_buffer_pages", "wl_threshold",
					    NULL };
	struct ftl_config *c = &ns->ftl;
	char store[8] = "", pol[16] = "";
	uint32_t kib = c->cmt_bytes / 1024, op = c->op_permille / 10;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return fail(err, errlen, "%s: expected an object", where);
	if ((rc = check_keys(o, where, keys, err, errlen)) ||
	    (rc = get_string(o, "store", where, store, sizeof(store), false, err,
			     errlen)) ||
	    (rc = get_u32(o, "cmt_kib", where, &kib, 1u << 20, err, errlen)) ||
	    (rc = get_bool(o, "mdc", where, &c->mdc_enabled, err, errlen)) ||
	    (rc = get_u32(o, "mdc_bytes", where, &c->mdc_bytes, 1u << 24, err,
			  errlen)) ||
	    (rc = get_u32(o, "mdc_min_run", where, &c->mdc_min_run, 65535, err,
			  errlen)) ||
	    (rc = get_bool(o, "stream_separation", where, &c->stream_separation,
			   err, errlen)) ||
	    (rc = get_u32(o, "op_percent", where, &op, 50, err, errlen)) ||
	    (rc = get_u32(o, "write_buffer_pages", where, &c->write_buffer_pages,
			  4096, err, errlen)) ||
	    (rc = get_u32(o, "wl_threshold", where, &c->wl_threshold, 1u << 20,
			  err, errlen)) ||
	    (rc = get_string(o, "gc_policy", where, pol, sizeof(pol), false, err,
			     errlen)))
		return rc;
	if (store[0] && strcmp(store, "file") && strcmp(store, "ram"))
		return fail(err, errlen, "%s.store: '%s' is not file or ram", where,
			    store);
	ns->store_ram = !strcmp(store, "ram");
	if (kib < 8)
		return fail(err, errlen, "%s.cmt_kib: at least 8", where);
	if (c->mdc_bytes < 10 || c->mdc_min_run == 0)
		return fail(err, errlen, "%s: mdc_bytes >= 10 and mdc_min_run >= 1",
			    where);
	if (c->write_buffer_pages == 0)
		return fail(err, errlen, "%s.write_buffer_pages: at least 1", where);
	if (pol[0] && !strcmp(pol, "greedy"))
		c->gc_policy = FTL_GC_GREEDY;
	else if (pol[0] && !strcmp(pol, "cost-benefit"))
		c->gc_policy = FTL_GC_COST_BENEFIT;
	else if (pol[0])
		return fail(err, errlen, "%s.gc_policy: '%s' is not greedy or cost-benefit",
			    where, pol);
	c->cmt_bytes = kib * 1024;
	c->op_permille = op * 10;
	return 0;
}

uint32_t blox_config_nand_blocks(const struct nand_geometry *g, uint32_t ndies,
				 uint64_t bytes, uint32_t op_permille)
{
	uint64_t units_per_sb = (uint64_t)g->pages_per_block * g->planes_per_die *
				ndies * (g->page_size / FTL_UNIT);
	uint64_t want = bytes / FTL_UNIT;
	uint64_t data = want * 1000 / (1000 - op_permille) + want / 512 + 1;

	/* Data superblocks, plus checkpoints, open streams and GC headroom. */
	return (uint32_t)((data + units_per_sb - 1) / units_per_sb) + 10;
}

void blox_config_size_nand(struct blox_cfg_ns *ns)
{
	struct nand_geometry *g = &ns->nand.geo;

	g->blocks_per_plane =
		blox_config_nand_blocks(g, nand_dies(g), ns->size, ns->ftl.op_permille);
}

static int parse_ns(json_object *o, const char *where, struct blox_cfg_ns *ns,
		    char *err, size_t errlen)
{
	static const char *const keys[] = { "nsid", "backend", "size",
					    "block_size", "uuid", "nand", "ftl",
					    "device", NULL };
	json_object *nand;
	char uuid[40] = "";
	uint64_t v = 0;
	bool present;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return fail(err, errlen, "%s: expected an object", where);
	if ((rc = check_keys(o, where, keys, err, errlen)))
		return rc;
	if ((rc = get_u64(o, "nsid", where, false, &v, &present, err, errlen)))
		return rc;
	if (present && (v == 0 || v > NVMF_MAX_NS))
		return fail(err, errlen, "%s.nsid: must be 1..%u", where, NVMF_MAX_NS);
	ns->nsid = (uint32_t)v;
	snprintf(ns->backend, sizeof(ns->backend), "ram");
	if ((rc = get_string(o, "backend", where, ns->backend, sizeof(ns->backend),
			     false, err, errlen)))
		return rc;
	bool is_nand = !strcmp(ns->backend, "nand"),
	     is_timing = !strcmp(ns->backend, "nand-timing");

	if (strcmp(ns->backend, "ram") && strcmp(ns->backend, "null") && !is_nand &&
	    !is_timing)
		return fail(err, errlen,
			    "%s.backend: '%s' is not one of ram, null, nand, nand-timing",
			    where, ns->backend);
	nand_config_default(&ns->nand);
	ftl_config_default(&ns->ftl);
	ns->auto_blocks = is_nand;
	if (json_object_object_get_ex(o, "nand", &nand)) {
		char w[192];
		json_object *bpp;

		if (!is_nand && !is_timing)
			return fail(err, errlen,
				    "%s.nand: only for backends \"nand\" and \"nand-timing\"",
				    where);
		snprintf(w, sizeof(w), "%s.nand", where);
		if ((rc = parse_nand(nand, w, &ns->nand, err, errlen)))
			return rc;
		if (json_object_object_get_ex(nand, "blocks_per_plane", &bpp))
			ns->auto_blocks = false;
	}
	if (json_object_object_get_ex(o, "ftl", &nand)) {
		char w[192];

		if (!is_nand)
			return fail(err, errlen, "%s.ftl: only for backend \"nand\"",
				    where);
		snprintf(w, sizeof(w), "%s.ftl", where);
		if ((rc = parse_ftl(nand, w, ns, err, errlen)))
			return rc;
	}
	if ((rc = get_u64(o, "size", where, true, &ns->size, &present, err, errlen)))
		return rc;
	if (!present)
		return fail(err, errlen, "%s: 'size' is required", where);
	v = 4096;
	if ((rc = get_u64(o, "block_size", where, false, &v, &present, err, errlen)))
		return rc;
	if (v != 512 && v != 4096)
		return fail(err, errlen, "%s.block_size: must be 512 or 4096", where);
	ns->block_size = (uint32_t)v;
	if (ns->size == 0 || ns->size % ns->block_size)
		return fail(err, errlen,
			    "%s.size: must be a non-zero multiple of the block size",
			    where);
	if ((rc = get_string(o, "device", where, ns->device, sizeof(ns->device),
			     false, err, errlen)))
		return rc;
	if (ns->device[0] && !is_nand)
		return fail(err, errlen, "%s.device: only for backend \"nand\"", where);
	if (ns->device[0] && json_object_object_get_ex(o, "nand", &nand))
		return fail(err, errlen,
			    "%s.nand: the geometry belongs to device '%s'", where,
			    ns->device);
	if (ns->device[0])
		ns->auto_blocks = false; /* sized with its device */
	if (is_nand && ns->nsid == 0)
		return fail(err, errlen, "%s.nsid: required for backend nand (it names the store file)",
			    where);
	if (is_nand && ns->block_size != FTL_UNIT)
		return fail(err, errlen, "%s.block_size: backend nand takes 4096 only",
			    where);
	if (is_nand && ns->auto_blocks)
		blox_config_size_nand(ns);
	if ((is_timing || (is_nand && !ns->device[0])) &&
	    ns->size > nand_capacity(&ns->nand.geo))
		return fail(err, errlen,
			    "%s.size: larger than the NAND geometry's %lu bytes", where,
			    (unsigned long)nand_capacity(&ns->nand.geo));
	if ((rc = get_string(o, "uuid", where, uuid, sizeof(uuid), false, err,
			     errlen)))
		return rc;
	if (uuid[0]) {
		if (parse_uuid(uuid, ns->uuid))
			return fail(err, errlen, "%s.uuid: '%s' is not a UUID", where,
				    uuid);
		ns->has_uuid = true;
	}
	ns->params = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	return ns->params ? 0 : -ENOMEM;
}

int blox_config_parse_ns(const char *json, struct blox_cfg_ns *ns, char *err,
			 size_t errlen)
{
	json_object *o = json_tokener_parse(json);
	int rc;

	memset(ns, 0, sizeof(*ns));
	if (!o)
		return fail(err, errlen, "namespace: not valid JSON");
	rc = parse_ns(o, "namespace", ns, err, errlen);
	json_object_put(o);
	if (rc) {
		free(ns->params);
		ns->params = NULL;
	}
	return rc;
}

static int parse_subsys(json_object *o, const char *where,
			struct blox_cfg_subsys *s, char *err, size_t errlen)
{
	static const char *const keys[] = { "nqn", "serial", "model",
					    "allow_any_host", "hosts",
					    "namespaces", NULL };
	json_object *arr;
	char w[128];
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return fail(err, errlen, "%s: expected an object", where);
	if ((rc = check_keys(o, where, keys, err, errlen)) ||
	    (rc = get_string(o, "nqn", where, s->nqn, sizeof(s->nqn), true, err,
			     errlen)) ||
	    (rc = get_string(o, "serial", where, s->serial, sizeof(s->serial),
			     false, err, errlen)) ||
	    (rc = get_string(o, "model", where, s->model, sizeof(s->model), false,
			     err, errlen)) ||
	    (rc = get_bool(o, "allow_any_host", where, &s->allow_any_host, err,
			   errlen)))
		return rc;
	if (!nvmf_nqn_valid(s->nqn) || !strcmp(s->nqn, NVME_DISC_SUBSYS_NAME))
		return fail(err, errlen, "%s.nqn: '%s' is not a usable NQN", where,
			    s->nqn);

	arr = get_array(o, "hosts", where, &rc, err, errlen);
	if (rc)
		return rc;
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *h = json_object_array_get_idx(arr, i);
		void *p;

		if (!json_object_is_type(h, json_type_string) ||
		    !nvmf_nqn_valid(json_object_get_string(h)))
			return fail(err, errlen, "%s.hosts[%zu]: expected a host NQN",
				    where, i);
		p = grow(s->hosts, s->nr_hosts, sizeof(*s->hosts));
		if (!p)
			return -ENOMEM;
		s->hosts = p;
		snprintf(s->hosts[s->nr_hosts++], NVME_NQN_LENGTH, "%s",
			 json_object_get_string(h));
	}

	arr = get_array(o, "namespaces", where, &rc, err, errlen);
	if (rc)
		return rc;
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		void *p = grow(s->ns, s->nr_ns, sizeof(*s->ns));

		if (!p)
			return -ENOMEM;
		s->ns = p;
		snprintf(w, sizeof(w), "%s.namespaces[%zu]", where, i);
		rc = parse_ns(json_object_array_get_idx(arr, i), w, &s->ns[s->nr_ns++],
			      err, errlen);
		if (rc)
			return rc;
		for (size_t j = 0; j + 1 < s->nr_ns; j++)
			if (s->ns[j].nsid && s->ns[j].nsid == s->ns[s->nr_ns - 1].nsid)
				return fail(err, errlen, "%s.nsid: %u used twice", w,
					    s->ns[j].nsid);
	}
	return 0;
}

static int parse_device(json_object *o, const char *where,
			struct blox_cfg_device *d, char *err, size_t errlen)
{
	static const char *const keys[] = { "name", "nand", "store", NULL };
	char store[8] = "", w[96];
	json_object *nand, *bpp;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return fail(err, errlen, "%s: expected an object", where);
	if ((rc = check_keys(o, where, keys, err, errlen)) ||
	    (rc = get_string(o, "name", where, d->name, sizeof(d->name), true, err,
			     errlen)) ||
	    (rc = get_string(o, "store", where, store, sizeof(store), false, err,
			     errlen)))
		return rc;
	if (store[0] && strcmp(store, "file") && strcmp(store, "ram"))
		return fail(err, errlen, "%s.store: '%s' is not file or ram", where,
			    store);
	d->store_ram = !strcmp(store, "ram");
	for (const char *c = d->name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_')
			return fail(err, errlen, "%s.name: letters, digits, - and _ only",
				    where);
	nand_config_default(&d->nand);
	d->auto_blocks = true;
	if (json_object_object_get_ex(o, "nand", &nand)) {
		snprintf(w, sizeof(w), "%s.nand", where);
		if ((rc = parse_nand(nand, w, &d->nand, err, errlen)))
			return rc;
		if (json_object_object_get_ex(nand, "blocks_per_plane", &bpp))
			d->auto_blocks = false;
	}
	return 0;
}

/* Split each device's dies evenly over its namespaces, in config order. */
static int assign_devices(struct blox_config *cfg, char *err, size_t errlen)
{
	for (size_t di = 0; di < cfg->nr_devices; di++) {
		struct blox_cfg_device *d = &cfg->devices[di];
		uint32_t dies = nand_dies(&d->nand.geo), k = 0, i = 0, next = 0;
		uint32_t need = 0;

		for (size_t si = 0; si < cfg->nr_subsys; si++)
			for (size_t n = 0; n < cfg->subsys[si].nr_ns; n++)
				k += !strcmp(cfg->subsys[si].ns[n].device, d->name);
		if (k > dies)
			return fail(err, errlen,
				    "device %s: %u namespaces but only %u dies", d->name,
				    k, dies);
		for (size_t si = 0; si < cfg->nr_subsys; si++) {
			for (size_t n = 0; n < cfg->subsys[si].nr_ns; n++) {
				struct blox_cfg_ns *ns = &cfg->subsys[si].ns[n];
				uint32_t b;

				if (strcmp(ns->device, d->name))
					continue;
				ns->first_die = next;
				ns->nr_dies = dies / k + (i < dies % k ? 1 : 0);
				next += ns->nr_dies;
				i++;
				ns->nand = d->nand;
				b = blox_config_nand_blocks(&d->nand.geo, ns->nr_dies, ns->size,
							    ns->ftl.op_permille);
				need = b > need ? b : need;
			}
		}
		if (d->auto_blocks && need)
			d->nand.geo.blocks_per_plane = need;
	}
	for (size_t si = 0; si < cfg->nr_subsys; si++)
		for (size_t n = 0; n < cfg->subsys[si].nr_ns; n++) {
			struct blox_cfg_ns *ns = &cfg->subsys[si].ns[n];
			size_t di;

			if (!ns->device[0])
				continue;
			for (di = 0; di < cfg->nr_devices; di++)
				if (!strcmp(cfg->devices[di].name, ns->device))
					break;
			if (di == cfg->nr_devices)
				return fail(err, errlen, "%s namespace %u: no device '%s'",
					    cfg->subsys[si].nqn, ns->nsid, ns->device);
			ns->nand = cfg->devices[di].nand;
		}
	return 0;
}

static int parse_listener(json_object *o, const char *where,
			  struct blox_config *cfg, char *err, size_t errlen)
{
	static const char *const keys[] = { "address", "port", "discovery_only",
					    NULL };
	char addr[NVMF_TRADDR_SIZE], port[8];
	bool disc = false, present;
	uint64_t pnum = 0;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return fail(err, errlen, "%s: expected an object", where);
	if ((rc = check_keys(o, where, keys, err, errlen)) ||
	    (rc = get_string(o, "address", where, addr, sizeof(addr), true, err,
			     errlen)) ||
	    (rc = get_u64(o, "port", where, false, &pnum, &present, err, errlen)) ||
	    (rc = get_bool(o, "discovery_only", where, &disc, err, errlen)))
		return rc;
	if (!present || pnum == 0 || pnum > 65535)
		return fail(err, errlen, "%s.port: must be 1..65535", where);
	snprintf(port, sizeof(port), "%u", (unsigned)pnum);
	return listener_add(cfg, addr, port, disc);
}

int blox_config_parse(const char *text, struct blox_config *cfg, char *err,
		      size_t errlen)
{
	static const char *const keys[] = { "listeners", "subsystems", "devices",
					    NULL };
	enum json_tokener_error jerr;
	struct json_tokener *tok;
	json_object *root, *arr;
	char w[64];
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	/* The terminating NUL ends a bare number as well. */
	root = json_tokener_parse_ex(tok, text, (int)strlen(text) + 1);
	jerr = json_tokener_get_error(tok);
	if (root && jerr == json_tokener_success) {
		/* One JSON value and nothing but white space after it. */
		const char *end = text + json_tokener_get_parse_end(tok);

		while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
			end++;
		if (*end) {
			json_object_put(root);
			json_tokener_free(tok);
			return fail(err, errlen, "not valid JSON: text after the end");
		}
	}
	json_tokener_free(tok);
	if (!root || jerr != json_tokener_success) {
		json_object_put(root);
		return fail(err, errlen, "not valid JSON: %s",
			    json_tokener_error_desc(jerr == json_tokener_success
							    ? json_tokener_continue
							    : jerr));
	}
	if (!json_object_is_type(root, json_type_object)) {
		rc = fail(err, errlen, "top level: expected an object");
		goto out;
	}
	if ((rc = check_keys(root, "top level", keys, err, errlen)))
		goto out;
	arr = get_array(root, "listeners", "top level", &rc, err, errlen);
	for (size_t i = 0; !rc && arr && i < json_object_array_length(arr); i++) {
		snprintf(w, sizeof(w), "listeners[%zu]", i);
		rc = parse_listener(json_object_array_get_idx(arr, i), w, cfg, err,
				    errlen);
	}
	if (rc)
		goto out;
	arr = get_array(root, "devices", "top level", &rc, err, errlen);
	if (!rc && arr) {
		cfg->devices_json = strdup(json_object_to_json_string_ext(
			arr, JSON_C_TO_STRING_PLAIN));
		if (!cfg->devices_json)
			rc = -ENOMEM;
	}
	for (size_t i = 0; !rc && arr && i < json_object_array_length(arr); i++) {
		void *p = grow(cfg->devices, cfg->nr_devices, sizeof(*cfg->devices));

		if (!p) {
			rc = -ENOMEM;
			break;
		}
		cfg->devices = p;
		snprintf(w, sizeof(w), "devices[%zu]", i);
		rc = parse_device(json_object_array_get_idx(arr, i), w,
				  &cfg->devices[cfg->nr_devices++], err, errlen);
		for (size_t j = 0; !rc && j + 1 < cfg->nr_devices; j++)
			if (!strcmp(cfg->devices[j].name, cfg->devices[i].name))
				rc = fail(err, errlen, "%s.name: '%s' used twice", w,
					  cfg->devices[i].name);
	}
	if (rc)
		goto out;
	arr = get_array(root, "subsystems", "top level", &rc, err, errlen);
	for (size_t i = 0; !rc && arr && i < json_object_array_length(arr); i++) {
		void *p = grow(cfg->subsys, cfg->nr_subsys, sizeof(*cfg->subsys));

		if (!p) {
			rc = -ENOMEM;
			break;
		}
		cfg->subsys = p;
		snprintf(w, sizeof(w), "subsystems[%zu]", i);
		rc = parse_subsys(json_object_array_get_idx(arr, i), w,
				  &cfg->subsys[cfg->nr_subsys++], err, errlen);
		for (size_t j = 0; !rc && j + 1 < cfg->nr_subsys; j++)
			if (!strcmp(cfg->subsys[j].nqn, cfg->subsys[i].nqn))
				rc = fail(err, errlen, "%s.nqn: '%s' used twice", w,
					  cfg->subsys[i].nqn);
	}
	if (!rc)
		rc = assign_devices(cfg, err, errlen);
out:
	json_object_put(root);
	if (rc)
		blox_config_free(cfg);
	return rc;
}

int blox_config_load(const char *path, struct blox_config *cfg, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	if (!f) {
		int e = errno;

		fail(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *p = realloc(buf, cap = cap * 2 + 8192);

			if (!p) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = p;
		}
		size_t n = fread(buf + len, 1, cap - len - 1, f);

		len += n;
		if (n == 0)
			break;
	}
	rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (rc) {
		free(buf);
		return fail(err, errlen, "%s: read error", path), rc;
	}
	buf[len] = '\0';
	rc = blox_config_parse(buf, cfg, err, errlen);
	free(buf);
	if (rc) {
		char tmp[256];

		snprintf(tmp, sizeof(tmp), "%s", err);
		snprintf(err, errlen, "%s: %s", path, tmp);
	}
	return rc;
}

/* "<data dir>/<file>", creating the data directory if it is missing. */
static int data_file(const char *data_dir, const char *file, char *out,
		     size_t len, char *err, size_t errlen)
{
	const char *dir = data_dir[0] ? data_dir : BLOX_DEFAULT_DATA_DIR;

	if (mkdir(dir, 0750) && errno != EEXIST)
		return fail(err, errlen, "data directory %s: %s (see --data-dir)", dir,
			    strerror(errno));
	if ((size_t)snprintf(out, len, "%s/%s", dir, file) >= len)
		return fail(err, errlen, "data directory path too long");
	return 0;
}

/* The store file of a namespace: stable for its subsystem NQN and nsid. */
int blox_config_store_path(const char *data_dir, const char *nqn, uint32_t nsid,
			   char *out, size_t len, char *err, size_t errlen)
{
	unsigned char md[SHA256_DIGEST_LENGTH];
	char file[64];

	SHA256((const unsigned char *)nqn, strlen(nqn), md);
	snprintf(file, sizeof(file), "ns-%02x%02x%02x%02x%02x%02x%02x%02x-%u.nand",
		 md[0], md[1], md[2], md[3], md[4], md[5], md[6], md[7], nsid);
	return data_file(data_dir, file, out, len, err, errlen);
}

/* The store file of a shared device. */
static int device_path(const struct blox_config *cfg, const char *name,
		       char *out, size_t len, char *err, size_t errlen)
{
	char file[64];

	snprintf(file, sizeof(file), "dev-%s.nand", name);
	return data_file(cfg->data_dir, file, out, len, err, errlen);
}

static int apply_subsystems(const struct blox_config *cfg, struct nvmf_tgt *tgt,
			    struct blox_nand_dev **devs, char *err, size_t errlen);

int blox_config_ns_plan(const char *data_dir, const struct nvmf_subsys *s,
			const struct blox_cfg_ns *cn, struct blox_nand_dev *shared,
			bool fresh, struct blox_bdev_params *bp, char *store,
			size_t storelen, char *err, size_t errlen)
{
	const struct nvmf_tgt *tgt = s->tgt;
	int rc;

	*bp = (struct blox_bdev_params){ .backend = cn->backend,
					 .size = cn->size,
					 .block_size = cn->block_size,
					 .nand = &cn->nand,
					 .ftl = &cn->ftl,
					 .base = tgt->base,
					 .clock = tgt->clock,
					 .log = tgt->log };
	store[0] = '\0';
	if (cn->device[0]) {
		if (!shared)
			return fail(err, errlen, "%s namespace %u: no device '%s'", s->nqn,
				    cn->nsid, cn->device);
		bp->shared = shared;
		bp->first_die = cn->first_die;
		bp->nr_dies = cn->nr_dies;
	} else if (!strcmp(cn->backend, "nand") && !cn->store_ram) {
		rc = blox_config_store_path(data_dir, s->nqn, cn->nsid, store, storelen,
					    err, errlen);
		if (rc)
			return rc;
		if (fresh && access(store, F_OK) == 0)
			return fail(err, errlen,
				    "%s namespace %u: store file %s exists (flash of an "
				    "earlier namespace); remove it to create a new one",
				    s->nqn, cn->nsid, store), -EEXIST;
		bp->store_path = store;
	}
	return 0;
}

int blox_config_ns_attach(struct nvmf_subsys *s, const struct blox_cfg_ns *cn,
			  struct blox_bdev *bdev, const char *store_path,
			  struct nvmf_ns **out, char *err, size_t errlen)
{
	/* The namespace keeps how it was made and where its flash is. */
	char *params = cn->params ? strdup(cn->params) : NULL;
	char *store = store_path ? strdup(store_path) : NULL;
	struct nvmf_ns *ns;
	int rc;

	if ((cn->params && !params) || (store_path && !store)) {
		rc = -ENOMEM;
		fail(err, errlen, "%s namespace %u: out of memory", s->nqn, cn->nsid);
		goto free_strings;
	}
	rc = nvmf_ns_add(s, cn->nsid, bdev, cn->has_uuid ? cn->uuid : NULL, &ns);
	if (rc) {
		fail(err, errlen, "%s namespace %u: %s", s->nqn, cn->nsid,
		     rc == -EEXIST ? "nsid in use" : strerror(-rc));
		goto free_strings;
	}
	ns->params = params;
	ns->store_path = store;
	snprintf(ns->device, sizeof(ns->device), "%s", cn->device);
	if (out)
		*out = ns;
	return 0;

free_strings:
	free(params);
	free(store);
	return rc;
}

int blox_config_create_ns(const char *data_dir, struct nvmf_subsys *s,
			  const struct blox_cfg_ns *cn, struct blox_nand_dev *shared,
			  bool fresh, struct nvmf_ns **out, char *err, size_t errlen)
{
	struct blox_bdev_params bp;
	struct blox_bdev *bdev;
	char store[4200];
	int rc;

	rc = blox_config_ns_plan(data_dir, s, cn, shared, fresh, &bp, store,
				 sizeof(store), err, errlen);
	if (rc)
		return rc;
	rc = blox_bdev_create(&bp, &s->tgt->io_cq, &bdev);
	if (rc)
		return fail(err, errlen, "%s namespace %u: backend: %s", s->nqn,
			    cn->nsid, strerror(-rc)), rc;
	rc = blox_config_ns_attach(s, cn, bdev, bp.store_path, out, err, errlen);
	if (rc)
		blox_bdev_destroy(bdev);
	return rc;
}

static int apply_listeners(const struct blox_config *cfg, struct nvmf_tgt *tgt,
			   struct nvmf_tcp *tcp, char *err, size_t errlen);

int blox_config_apply(const struct blox_config *cfg, struct nvmf_tgt *tgt,
		      struct nvmf_tcp *tcp, char *err, size_t errlen)
{
	struct blox_nand_dev **devs = calloc(cfg->nr_devices + 1, sizeof(*devs));
	int rc = 0;

	if (!devs)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->nr_devices && !rc; i++) {
		const struct blox_cfg_device *d = &cfg->devices[i];
		char path[4200];

		if (!d->store_ram) {
			rc = device_path(cfg, d->name, path, sizeof(path), err, errlen);
			if (rc)
				break;
		}
		rc = blox_nand_dev_open(&d->nand, d->store_ram ? NULL : path, tgt->base,
					tgt->clock, &devs[i]);
		if (rc)
			fail(err, errlen, "device %s: %s%s", d->name, strerror(-rc),
			     rc == -EINVAL ? " (a store file of another geometry?)" : "");
	}
	if (!rc)
		rc = apply_subsystems(cfg, tgt, devs, err, errlen);
	/* Namespaces hold their own references to the devices. */
	for (size_t i = 0; i < cfg->nr_devices; i++)
		blox_nand_dev_put(devs[i]);
	free(devs);
	if (rc)
		return rc;
	return apply_listeners(cfg, tgt, tcp, err, errlen);
}

static int apply_subsystems(const struct blox_config *cfg, struct nvmf_tgt *tgt,
			    struct blox_nand_dev **devs, char *err, size_t errlen)
{
	int rc;

	for (size_t i = 0; i < cfg->nr_subsys; i++) {
		const struct blox_cfg_subsys *cs = &cfg->subsys[i];
		struct nvmf_subsys *s;

		rc = nvmf_subsys_create(tgt, cs->nqn, &s);
		if (rc)
			return fail(err, errlen, "subsystem %s: %s", cs->nqn,
				    strerror(-rc)), rc;
		if (cs->serial[0])
			snprintf(s->serial, sizeof(s->serial), "%s", cs->serial);
		if (cs->model[0])
			snprintf(s->model, sizeof(s->model), "%s", cs->model);
		s->allow_any_host = cs->allow_any_host;
		for (size_t h = 0; h < cs->nr_hosts; h++) {
			rc = nvmf_subsys_add_host(s, cs->hosts[h]);
			if (rc && rc != -EEXIST)
				return fail(err, errlen, "subsystem %s: host %s: %s",
					    cs->nqn, cs->hosts[h], strerror(-rc)), rc;
		}
		for (size_t n = 0; n < cs->nr_ns; n++) {
			const struct blox_cfg_ns *cn = &cs->ns[n];
			struct blox_nand_dev *shared = NULL;

			for (size_t di = 0; cn->device[0] && di < cfg->nr_devices; di++)
				if (!strcmp(cfg->devices[di].name, cn->device))
					shared = devs[di];
			rc = blox_config_create_ns(cfg->data_dir, s, cn, shared, false,
						   NULL, err, errlen);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static int apply_listeners(const struct blox_config *cfg, struct nvmf_tgt *tgt,
			   struct nvmf_tcp *tcp, char *err, size_t errlen)
{
	int rc;

	for (size_t i = 0; i < cfg->nr_listeners; i++) {
		const struct blox_cfg_listener *cl = &cfg->listeners[i];
		struct nvmf_port *p;

		rc = nvmf_port_add(tgt, cl->addr, cl->port, cl->discovery_only, &p);
		if (rc)
			return fail(err, errlen, "listener %s:%s: %s", cl->addr,
				    cl->port,
				    rc == -EINVAL ? "bad address or port"
						  : strerror(-rc)), rc;
		rc = nvmf_tcp_listen(tcp, p);
		if (rc) {
			nvmf_port_remove(p);
			return fail(err, errlen, "listener %s:%s: %s", cl->addr,
				    cl->port, strerror(-rc)), rc;
		}
	}
	return 0;
}

void blox_config_free(struct blox_config *cfg)
{
	for (size_t i = 0; i < cfg->nr_subsys; i++) {
		free(cfg->subsys[i].hosts);
		for (size_t n = 0; n < cfg->subsys[i].nr_ns; n++)
			free(cfg->subsys[i].ns[n].params);
		free(cfg->subsys[i].ns);
	}
	free(cfg->devices_json);
	free(cfg->subsys);
	free(cfg->listeners);
	free(cfg->devices);
	memset(cfg, 0, sizeof(*cfg));
}
