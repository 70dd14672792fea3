/*
 * The "nand" and "ftl" objects of the configuration, the shared
 * "devices" and the even split of each device's dies over the
 * namespaces on it; also the sizing of a geometry to a namespace.
 */
#include "config_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* A time in microseconds (integer) into nanoseconds, for every page type. */
static int get_us(json_object *o, const char *key, const char *where,
		  uint64_t *dst, size_t n, char *err, size_t errlen)
{
	uint64_t v = 0;
	bool present;
	int rc = cfg_get_u64(o, key, where, false, &v, &present, err, errlen);

	if (rc || !present)
		return rc;
	if (v > 10000000)
		return cfg_fail(err, errlen, "%s.%s: at most 10 s", where, key);
	for (size_t i = 0; i < n; i++)
		dst[i] = v * 1000;
	return 0;
}

int cfg_parse_nand(json_object *o, const char *where, struct nand_config *nc,
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
		return cfg_fail(err, errlen, "%s: expected an object", where);
	if ((rc = cfg_check_keys(o, where, keys, err, errlen)) ||
	    (rc = cfg_get_u32(o, "channels", where, &g->channels, 64, err, errlen)) ||
	    (rc = cfg_get_u32(o, "dies_per_channel", where, &g->dies_per_channel, 64,
			      err, errlen)) ||
	    (rc = cfg_get_u32(o, "planes_per_die", where, &g->planes_per_die, 8, err,
			      errlen)) ||
	    (rc = cfg_get_u32(o, "blocks_per_plane", where, &g->blocks_per_plane,
			      1u << 20, err, errlen)) ||
	    (rc = cfg_get_u32(o, "pages_per_block", where, &g->pages_per_block, 4096,
			      err, errlen)) ||
	    (rc = cfg_get_u32(o, "page_size", where, &g->page_size, 65536, err,
			      errlen)) ||
	    (rc = cfg_get_u32(o, "oob_size", where, &g->oob_size, 8192, err, errlen)) ||
	    (rc = cfg_get_string(o, "cell", where, cell, sizeof(cell), false, err,
				 errlen)))
		return rc;
	if (cell[0]) {
		static const char *const names[] = { "slc", "mlc", "tlc", "qlc" };
		size_t i;

		for (i = 0; i < 4 && strcmp(cell, names[i]); i++)
			;
		if (i == 4)
			return cfg_fail(err, errlen, "%s.cell: '%s' is not slc, mlc, tlc or qlc",
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
	    (rc = cfg_get_bool(o, "null_timing", where, &nc->timing.null_timing, err,
			       errlen)) ||
	    (rc = cfg_get_bool(o, "multi_plane", where, &nc->multiplane, err, errlen)) ||
	    (rc = cfg_get_string(o, "suspend_policy", where, pol, sizeof(pol), false,
				 err, errlen)))
		return rc;
	{
		uint64_t v;
		bool present;

		rc = cfg_get_u64(o, "bus_mbps", where, false, &v, &present, err, errlen);
		if (rc)
			return rc;
		if (present && (v == 0 || v > 100000))
			return cfg_fail(err, errlen, "%s.bus_mbps: must be 1..100000",
					where);
		if (present)
			nc->timing.bus_mbps = v;
	}
	if (!strcmp(pol, "never"))
		nc->policy = nand_suspend_never;
	else if (!strcmp(pol, "always"))
		nc->policy = nand_suspend_always;
	else if (pol[0] && strcmp(pol, "default"))
		return cfg_fail(err, errlen,
				"%s.suspend_policy: '%s' is not default, never or always",
				where, pol);
	if (nand_geometry_check(g, &why))
		return cfg_fail(err, errlen, "%s: %s", where, why);
	return 0;
}

int cfg_parse_ftl(json_object *o, const char *where, struct blox_cfg_ns *ns,
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
		return cfg_fail(err, errlen, "%s: expected an object", where);
	if ((rc = cfg_check_keys(o, where, keys, err, errlen)) ||
	    (rc = cfg_get_string(o, "store", where, store, sizeof(store), false, err,
				 errlen)) ||
	    (rc = cfg_get_u32(o, "cmt_kib", where, &kib, 1u << 20, err, errlen)) ||
	    (rc = cfg_get_bool(o, "mdc", where, &c->mdc_enabled, err, errlen)) ||
	    (rc = cfg_get_u32(o, "mdc_bytes", where, &c->mdc_bytes, 1u << 24, err,
			      errlen)) ||
	    (rc = cfg_get_u32(o, "mdc_min_run", where, &c->mdc_min_run, 65535, err,
			      errlen)) ||
	    (rc = cfg_get_bool(o, "stream_separation", where, &c->stream_separation,
			       err, errlen)) ||
	    (rc = cfg_get_u32(o, "op_percent", where, &op, 50, err, errlen)) ||
	    (rc = cfg_get_u32(o, "write_buffer_pages", where, &c->write_buffer_pages,
			      4096, err, errlen)) ||
	    (rc = cfg_get_u32(o, "wl_threshold", where, &c->wl_threshold, 1u << 20,
			      err, errlen)) ||
	    (rc = cfg_get_string(o, "gc_policy", where, pol, sizeof(pol), false, err,
				 errlen)))
		return rc;
	if (store[0] && strcmp(store, "file") && strcmp(store, "ram"))
		return cfg_fail(err, errlen, "%s.store: '%s' is not file or ram", where,
				store);
	ns->store_ram = !strcmp(store, "ram");
	if (kib < 8)
		return cfg_fail(err, errlen, "%s.cmt_kib: at least 8", where);
	if (c->mdc_bytes < 10 || c->mdc_min_run == 0)
		return cfg_fail(err, errlen, "%s: mdc_bytes >= 10 and mdc_min_run >= 1",
				where);
	if (c->write_buffer_pages == 0)
		return cfg_fail(err, errlen, "%s.write_buffer_pages: at least 1", where);
	if (pol[0] && !strcmp(pol, "greedy"))
		c->gc_policy = FTL_GC_GREEDY;
	else if (pol[0] && !strcmp(pol, "cost-benefit"))
		c->gc_policy = FTL_GC_COST_BENEFIT;
	else if (pol[0])
		return cfg_fail(err, errlen, "%s.gc_policy: '%s' is not greedy or cost-benefit",
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

int cfg_parse_device(json_object *o, const char *where,
		     struct blox_cfg_device *d, char *err, size_t errlen)
{
	static const char *const keys[] = { "name", "nand", "store", NULL };
	char store[8] = "", w[96];
	json_object *nand, *bpp;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return cfg_fail(err, errlen, "%s: expected an object", where);
	if ((rc = cfg_check_keys(o, where, keys, err, errlen)) ||
	    (rc = cfg_get_string(o, "name", where, d->name, sizeof(d->name), true, err,
				 errlen)) ||
	    (rc = cfg_get_string(o, "store", where, store, sizeof(store), false, err,
				 errlen)))
		return rc;
	if (store[0] && strcmp(store, "file") && strcmp(store, "ram"))
		return cfg_fail(err, errlen, "%s.store: '%s' is not file or ram", where,
				store);
	d->store_ram = !strcmp(store, "ram");
	for (const char *c = d->name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_')
			return cfg_fail(err, errlen,
					"%s.name: letters, digits, - and _ only", where);
	nand_config_default(&d->nand);
	d->auto_blocks = true;
	if (json_object_object_get_ex(o, "nand", &nand)) {
		snprintf(w, sizeof(w), "%s.nand", where);
		if ((rc = cfg_parse_nand(nand, w, &d->nand, err, errlen)))
			return rc;
		if (json_object_object_get_ex(nand, "blocks_per_plane", &bpp))
			d->auto_blocks = false;
	}
	return 0;
}

/* Split each device's dies evenly over its namespaces, in config order. */
int cfg_assign_devices(struct blox_config *cfg, char *err, size_t errlen)
{
	for (size_t di = 0; di < cfg->nr_devices; di++) {
		struct blox_cfg_device *d = &cfg->devices[di];
		uint32_t dies = nand_dies(&d->nand.geo), k = 0, i = 0, next = 0;
		uint32_t need = 0;

		for (size_t si = 0; si < cfg->nr_subsys; si++)
			for (size_t n = 0; n < cfg->subsys[si].nr_ns; n++)
				k += !strcmp(cfg->subsys[si].ns[n].device, d->name);
		if (k > dies)
			return cfg_fail(err, errlen,
					"device %s: %u namespaces but only %u dies",
					d->name, k, dies);
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
				return cfg_fail(err, errlen, "%s namespace %u: no device '%s'",
						cfg->subsys[si].nqn, ns->nsid,
						ns->device);
			ns->nand = cfg->devices[di].nand;
		}
	return 0;
}
