/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parameters as asked (struct blox_ns_params, blox_device_params and the
 * NAND and FTL parts in them): the field tables, their checks, and the
 * resolution into the configurations the backends run with. The config
 * file, the admin API and the state file differ only in how they read
 * and write the fields (config_params.c, adm_m_ns.c); what is valid and
 * what it means is decided here, once.
 */
#include "conf.h"
#include "adm_limits.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define F_U32(k, st, m, mx, msg)                                        \
	{ .key = k, .kind = BLOX_PK_U32, .off = offsetof(st, m), .max = mx, \
	  .range_msg = msg }
#define F_BOOL(k, st, m) { .key = k, .kind = BLOX_PK_BOOL, .off = offsetof(st, m) }
#define F_STR(k, st, m, vals, msg)                                          \
	{ .key = k, .kind = BLOX_PK_STR, .off = offsetof(st, m),             \
	  .len = sizeof(((st *)0)->m), .values = vals, .values_msg = msg }

/* Times in microseconds: at most 10 s. */
#define US_MAX 10000000u

static const char *const cells[] = { "slc", "mlc", "tlc", "qlc", NULL };
static const char *const policies[] = { "default", "never", "always", "smart", NULL };
static const char *const stores[] = { "file", "ram", NULL };
static const char *const gc_policies[] = { "greedy", "cost-benefit", NULL };
static const char *const ruh_types[] = { "persistent", "initial", NULL };

#define NP struct blox_nand_params
static const struct blox_param_field nand_fields[BLOX_NP_COUNT] = {
	[BLOX_NP_CHANNELS] = F_U32("channels", NP, channels, 64, NULL),
	[BLOX_NP_DIES_PER_CHANNEL] = F_U32("dies_per_channel", NP, dies_per_channel, 64, NULL),
	[BLOX_NP_PLANES_PER_DIE] = F_U32("planes_per_die", NP, planes_per_die, 8, NULL),
	[BLOX_NP_BLOCKS_PER_PLANE] = F_U32("blocks_per_plane", NP, blocks_per_plane, 1u << 20, NULL),
	[BLOX_NP_PAGES_PER_BLOCK] = F_U32("pages_per_block", NP, pages_per_block, 4096, NULL),
	[BLOX_NP_PAGE_SIZE] = F_U32("page_size", NP, page_size, 65536, NULL),
	[BLOX_NP_OOB_SIZE] = F_U32("oob_size", NP, oob_size, 8192, NULL),
	[BLOX_NP_CELL] = F_STR("cell", NP, cell, cells, "is not slc, mlc, tlc or qlc"),
	[BLOX_NP_T_READ_US] = F_U32("t_read_us", NP, t_read_us, US_MAX, "at most 10 s"),
	[BLOX_NP_T_PROG_US] = F_U32("t_prog_us", NP, t_prog_us, US_MAX, "at most 10 s"),
	[BLOX_NP_T_ERASE_US] = F_U32("t_erase_us", NP, t_erase_us, US_MAX, "at most 10 s"),
	[BLOX_NP_T_SUSPEND_US] = F_U32("t_suspend_us", NP, t_suspend_us, US_MAX, "at most 10 s"),
	[BLOX_NP_T_RESUME_US] = F_U32("t_resume_us", NP, t_resume_us, US_MAX, "at most 10 s"),
	[BLOX_NP_NULL_TIMING] = F_BOOL("null_timing", NP, null_timing),
	[BLOX_NP_MULTI_PLANE] = F_BOOL("multi_plane", NP, multi_plane),
	[BLOX_NP_SUSPEND_POLICY] = F_STR("suspend_policy", NP, suspend_policy, policies,
					 "is not default, never, always or smart"),
	[BLOX_NP_BUS_MBPS] = { .key = "bus_mbps", .kind = BLOX_PK_U32,
			       .off = offsetof(NP, bus_mbps), .min = 1, .max = 100000,
			       .range_msg = "must be 1..100000" },
	[BLOX_NP_RELIABILITY] = F_BOOL("reliability", NP, reliability),
	[BLOX_NP_ECC_BITS] = { .key = "ecc_bits", .kind = BLOX_PK_U32, .off = offsetof(NP, ecc_bits),
			       .min = 1, .max = 8192, .range_msg = "must be 1..8192" },
	[BLOX_NP_READ_RETRIES] = F_U32("read_retries", NP, read_retries, 64, NULL),
	[BLOX_NP_AGING] = { .key = "aging", .kind = BLOX_PK_U32, .off = offsetof(NP, aging),
			    .min = 1, .max = 1000000000, .range_msg = "must be 1..1000000000" },
	[BLOX_NP_ERASE_FAIL_PPB] = F_U32("erase_fail_ppb", NP, erase_fail_ppb, 1000000000,
					 NULL),
	[BLOX_NP_RELIABILITY_SEED] = F_U32("reliability_seed", NP, reliability_seed, UINT32_MAX,
					   NULL),
	[BLOX_NP_PROGRAM_FAIL_PPB] = F_U32("program_fail_ppb", NP, program_fail_ppb, 1000000000,
					   NULL),
	[BLOX_NP_FACTORY_BAD_PPM] = F_U32("factory_bad_ppm", NP, factory_bad_ppm,
					  NAND_FACTORY_BAD_PPM_MAX, "at most 100000 (10%)"),
	[BLOX_NP_HUGE_PAGES] = F_BOOL("huge_pages", NP, huge_pages),
};
#undef NP

#define FP struct blox_ftl_params
static const struct blox_param_field ftl_fields[BLOX_FP_COUNT] = {
	[BLOX_FP_STORE] = F_STR("store", FP, store, stores, "is not file or ram"),
	[BLOX_FP_CMT_KIB] = F_U32("cmt_kib", FP, cmt_kib, 1u << 20, NULL),
	[BLOX_FP_MDC] = F_BOOL("mdc", FP, mdc),
	[BLOX_FP_MDC_BYTES] = F_U32("mdc_bytes", FP, mdc_bytes, 1u << 24, NULL),
	[BLOX_FP_MDC_MIN_RUN] = F_U32("mdc_min_run", FP, mdc_min_run, 65535, NULL),
	[BLOX_FP_STREAM_SEPARATION] = F_BOOL("stream_separation", FP, stream_separation),
	[BLOX_FP_OP_PERCENT] = F_U32("op_percent", FP, op_percent, 50, NULL),
	[BLOX_FP_GC_POLICY] = F_STR("gc_policy", FP, gc_policy, gc_policies,
				    "is not greedy or cost-benefit"),
	[BLOX_FP_WRITE_BUFFER_PAGES] = F_U32("write_buffer_pages", FP, write_buffer_pages,
					     4096, NULL),
	[BLOX_FP_WL_THRESHOLD] = F_U32("wl_threshold", FP, wl_threshold, 1u << 20, NULL),
	[BLOX_FP_GC_PIPELINE] = F_BOOL("gc_pipeline", FP, gc_pipeline),
	[BLOX_FP_PLACEMENT_HANDLES] = F_U32("placement_handles", FP, placement_handles,
					    FTL_MAX_RUH, NULL),
	[BLOX_FP_RUH_TYPE] = F_STR("ruh_type", FP, ruh_type, ruh_types,
				   "is not persistent or initial"),
	[BLOX_FP_PLP_MS] = F_U32("plp_ms", FP, plp_ms, 10000, NULL),
	[BLOX_FP_PLP_SUSPEND] = F_BOOL("plp_suspend", FP, plp_suspend),
	[BLOX_FP_RU_TIME_LIMIT_S] = F_U32("ru_time_limit_s", FP, ru_time_limit_s, 31536000, NULL),
};
#undef FP

#define XP struct blox_fbx_params
static const struct blox_param_field fbx_fields[BLOX_XP_COUNT] = {
	[BLOX_XP_BOUND_PERMILLE] = { .key = "bound_permille", .kind = BLOX_PK_U32,
				     .off = offsetof(XP, bound_permille), .min = 1, .max = 10000,
				     .range_msg = "must be 1..10000 (x of the bound 1 + x, in permille)" },
	[BLOX_XP_RATED_PE] = { .key = "rated_pe", .kind = BLOX_PK_U32, .off = offsetof(XP, rated_pe),
			       .min = 1, .max = 10000000, .range_msg = "must be 1..10000000" },
	[BLOX_XP_SWAP_CHECK_ERASES] = F_U32("swap_check_erases", XP, swap_check_erases, 1u << 30,
					    NULL),
	[BLOX_XP_POOL_CHANNELS] = { .key = "pool_channels", .kind = BLOX_PK_U32,
				    .off = offsetof(XP, pool_channels), .min = 1, .max = 64,
				    .range_msg = "must be 1..64" },
	[BLOX_XP_AUTO_SWAP] = F_BOOL("auto_swap", XP, auto_swap),
	[BLOX_XP_SWAP_SHARE] = { .key = "swap_share", .kind = BLOX_PK_U32,
				 .off = offsetof(XP, swap_share), .min = 1, .max = 1000,
				 .range_msg = "must be 1..1000 (permille)" },
	[BLOX_XP_SPARE_CHANNEL] = F_BOOL("spare_channel", XP, spare_channel),
};
#undef XP

#define QP struct blox_qos_params
static const struct blox_param_field qos_fields[BLOX_QP_COUNT] = {
	[BLOX_QP_READ_IOPS] = F_U32("read_iops", QP, read_iops, ADM_QOS_MAX_IOPS, NULL),
	[BLOX_QP_WRITE_IOPS] = F_U32("write_iops", QP, write_iops, ADM_QOS_MAX_IOPS, NULL),
	[BLOX_QP_IOPS] = F_U32("iops", QP, iops, ADM_QOS_MAX_IOPS, NULL),
	[BLOX_QP_READ_MBPS] = F_U32("read_mbps", QP, read_mbps, ADM_QOS_MAX_MBPS, NULL),
	[BLOX_QP_WRITE_MBPS] = F_U32("write_mbps", QP, write_mbps, ADM_QOS_MAX_MBPS, NULL),
	[BLOX_QP_MBPS] = F_U32("mbps", QP, mbps, ADM_QOS_MAX_MBPS, NULL),
	[BLOX_QP_BURST_MS] = { .key = "burst_ms", .kind = BLOX_PK_U32, .off = offsetof(QP, burst_ms),
			       .min = 1, .max = ADM_QOS_MAX_BURST_MS, .range_msg = "must be 1..60000" },
	[BLOX_QP_WEIGHT] = { .key = "weight", .kind = BLOX_PK_U32, .off = offsetof(QP, weight),
			     .min = 1, .max = ADM_QOS_MAX_WEIGHT, .range_msg = "must be 1..1000" },
};
#undef QP

static const char *const qos_keys[BLOX_QP_COUNT + 1] = {
	"read_iops", "write_iops", "iops", "read_mbps", "write_mbps", "mbps", "burst_ms", "weight",
	NULL
};

static const char *const fbx_keys[BLOX_XP_COUNT + 1] = {
	"bound_permille", "rated_pe", "swap_check_erases", "pool_channels", "auto_swap",
	"swap_share", "spare_channel", NULL
};

static const char *const nand_keys[BLOX_NP_COUNT + 1] = {
	"channels", "dies_per_channel", "planes_per_die", "blocks_per_plane",
	"pages_per_block", "page_size", "oob_size", "cell", "t_read_us",
	"t_prog_us", "t_erase_us", "t_suspend_us", "t_resume_us", "null_timing",
	"multi_plane", "suspend_policy", "bus_mbps", "reliability", "ecc_bits", "read_retries",
	"aging", "erase_fail_ppb", "reliability_seed", "program_fail_ppb", "factory_bad_ppm",
	"huge_pages", NULL
};
static const char *const ftl_keys[BLOX_FP_COUNT + 1] = {
	"store", "cmt_kib", "mdc", "mdc_bytes", "mdc_min_run", "stream_separation",
	"op_percent", "gc_policy", "write_buffer_pages", "wl_threshold", "gc_pipeline",
	"placement_handles", "ruh_type", "plp_ms", "plp_suspend", "ru_time_limit_s", NULL
};

const struct blox_param_table blox_nand_table = { "nand", nand_fields, BLOX_NP_COUNT,
						  nand_keys };
const struct blox_param_table blox_ftl_table = { "ftl", ftl_fields, BLOX_FP_COUNT,
						 ftl_keys };
const struct blox_param_table blox_fbx_table = { "flashblox", fbx_fields, BLOX_XP_COUNT,
						 fbx_keys };
const struct blox_param_table blox_qos_table = { "qos", qos_fields, BLOX_QP_COUNT, qos_keys };

void blox_qos_resolve(const struct blox_qos_params *p, struct qos_limits *lim, uint32_t *weight)
{
	*lim = (struct qos_limits){ 0 };
	*weight = 0;
	if (blox_param_given(p, BLOX_QP_READ_IOPS))
		lim->read_iops = p->read_iops;
	if (blox_param_given(p, BLOX_QP_WRITE_IOPS))
		lim->write_iops = p->write_iops;
	if (blox_param_given(p, BLOX_QP_IOPS))
		lim->iops = p->iops;
	if (blox_param_given(p, BLOX_QP_READ_MBPS))
		lim->read_bps = (uint64_t)p->read_mbps * 1000000u;
	if (blox_param_given(p, BLOX_QP_WRITE_MBPS))
		lim->write_bps = (uint64_t)p->write_mbps * 1000000u;
	if (blox_param_given(p, BLOX_QP_MBPS))
		lim->bps = (uint64_t)p->mbps * 1000000u;
	if (blox_param_given(p, BLOX_QP_BURST_MS))
		lim->burst_ms = p->burst_ms;
	if (blox_param_given(p, BLOX_QP_WEIGHT))
		*weight = p->weight;
}

int blox_fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Index of @s in the NULL-terminated @values, or -1. */
static int word_index(const char *const *values, const char *s)
{
	for (int i = 0; values[i]; i++)
		if (!strcmp(values[i], s))
			return i;
	return -1;
}

int blox_params_check(const struct blox_param_table *t, const void *params,
		      const char *where, char *err, size_t errlen)
{
	const char *base = params;

	for (size_t i = 0; i < t->n; i++) {
		const struct blox_param_field *f = &t->fields[i];

		if (!blox_param_given(params, i))
			continue;
		if (f->kind == BLOX_PK_U32) {
			uint32_t v = *(const uint32_t *)(base + f->off);

			if (v >= f->min && v <= f->max)
				continue;
			if (f->range_msg)
				return blox_fail(err, errlen, "%s.%s: %s", where, f->key,
						 f->range_msg);
			return blox_fail(err, errlen, "%s.%s: at most %lu", where, f->key,
					 (unsigned long)f->max);
		}
		if (f->kind == BLOX_PK_STR) {
			const char *v = base + f->off;

			if (!memchr(v, '\0', f->len))
				return blox_fail(err, errlen, "%s.%s: longer than %zu bytes",
						 where, f->key, f->len - 1);
			if (word_index(f->values, v) < 0)
				return blox_fail(err, errlen, "%s.%s: '%s' %s", where, f->key,
						 v, f->values_msg);
		}
	}
	return 0;
}

/* @p's NAND fields over the defaults already in @nc. */
static int nand_resolve(const struct blox_nand_params *p, const char *where,
			struct nand_config *nc, char *err, size_t errlen)
{
	struct nand_geometry *g = &nc->geo;
	const char *why;
	int rc;

#define GIVEN(f) blox_param_given(p, BLOX_NP_##f)
	if ((rc = blox_params_check(&blox_nand_table, p, where, err, errlen)))
		return rc;
	if (GIVEN(CHANNELS))
		g->channels = p->channels;
	if (GIVEN(DIES_PER_CHANNEL))
		g->dies_per_channel = p->dies_per_channel;
	if (GIVEN(PLANES_PER_DIE))
		g->planes_per_die = p->planes_per_die;
	if (GIVEN(BLOCKS_PER_PLANE))
		g->blocks_per_plane = p->blocks_per_plane;
	if (GIVEN(PAGES_PER_BLOCK))
		g->pages_per_block = p->pages_per_block;
	if (GIVEN(PAGE_SIZE))
		g->page_size = p->page_size;
	if (GIVEN(OOB_SIZE))
		g->oob_size = p->oob_size;
	if (GIVEN(CELL)) {
		g->cell = (enum nand_cell)(word_index(cells, p->cell) + 1);
		/* New cell type: its default timing and wear, before any override. */
		nand_timing_default(&nc->timing, g->cell);
		nand_reliability_default(&nc->rel, g->cell);
	}
	for (int i = 0; i < 4; i++) {
		if (GIVEN(T_READ_US))
			nc->timing.t_read_ns[i] = (uint64_t)p->t_read_us * 1000;
		if (GIVEN(T_PROG_US))
			nc->timing.t_prog_ns[i] = (uint64_t)p->t_prog_us * 1000;
	}
	if (GIVEN(T_ERASE_US))
		nc->timing.t_erase_ns = (uint64_t)p->t_erase_us * 1000;
	if (GIVEN(T_SUSPEND_US))
		nc->timing.t_suspend_ns = (uint64_t)p->t_suspend_us * 1000;
	if (GIVEN(T_RESUME_US))
		nc->timing.t_resume_ns = (uint64_t)p->t_resume_us * 1000;
	if (GIVEN(NULL_TIMING))
		nc->timing.null_timing = p->null_timing;
	if (GIVEN(MULTI_PLANE))
		nc->multiplane = p->multi_plane;
	if (GIVEN(HUGE_PAGES))
		nc->huge_pages = p->huge_pages;
	if (GIVEN(BUS_MBPS))
		nc->timing.bus_mbps = p->bus_mbps;
	if (GIVEN(RELIABILITY))
		nc->rel.enabled = p->reliability;
	if (GIVEN(ECC_BITS))
		nc->rel.ecc_bits = p->ecc_bits;
	if (GIVEN(READ_RETRIES))
		nc->rel.retries = p->read_retries;
	if (GIVEN(AGING))
		nc->rel.aging = p->aging;
	if (GIVEN(ERASE_FAIL_PPB))
		nc->rel.erase_fail = p->erase_fail_ppb * 1e-9;
	if (GIVEN(RELIABILITY_SEED))
		nc->rel.seed = p->reliability_seed;
	if (GIVEN(PROGRAM_FAIL_PPB))
		nc->rel.program_fail = p->program_fail_ppb * 1e-9;
	if (GIVEN(FACTORY_BAD_PPM))
		nc->factory_bad_ppm = p->factory_bad_ppm;
	if (GIVEN(SUSPEND_POLICY) && !strcmp(p->suspend_policy, "never"))
		nc->policy = nand_suspend_never;
	else if (GIVEN(SUSPEND_POLICY) && !strcmp(p->suspend_policy, "always"))
		nc->policy = nand_suspend_always;
	else if (GIVEN(SUSPEND_POLICY) && !strcmp(p->suspend_policy, "smart"))
		/* Bound to its device's inputs when the device is made (bdev layer). */
		nc->policy = (struct nand_suspend_policy){ .name = "smart" };
#undef GIVEN
	if (nand_geometry_check(g, &why))
		return blox_fail(err, errlen, "%s: %s", where, why);
	if (nand_reliability_check(&nc->rel, g))
		return blox_fail(err, errlen, "%s.ecc_bits: the ECC codeword (%u bytes) is past the "
				 "%u-byte page", where, nc->rel.codeword_bytes, g->page_size);
	return 0;
}

/* @p's FTL fields over the defaults already in @c. */
static int ftl_resolve(const struct blox_ftl_params *p, const char *where,
		       struct ftl_config *c, bool *store_ram, char *err, size_t errlen)
{
	uint32_t kib = c->cmt_bytes / 1024;
	int rc;

#define GIVEN(f) blox_param_given(p, BLOX_FP_##f)
	if ((rc = blox_params_check(&blox_ftl_table, p, where, err, errlen)))
		return rc;
	*store_ram = GIVEN(STORE) && !strcmp(p->store, "ram");
	if (GIVEN(CMT_KIB))
		kib = p->cmt_kib;
	if (GIVEN(MDC))
		c->mdc_enabled = p->mdc;
	if (GIVEN(MDC_BYTES))
		c->mdc_bytes = p->mdc_bytes;
	if (GIVEN(MDC_MIN_RUN))
		c->mdc_min_run = p->mdc_min_run;
	if (GIVEN(STREAM_SEPARATION))
		c->stream_separation = p->stream_separation;
	if (GIVEN(OP_PERCENT))
		c->op_permille = p->op_percent * 10;
	if (GIVEN(WRITE_BUFFER_PAGES))
		c->write_buffer_pages = p->write_buffer_pages;
	if (GIVEN(WL_THRESHOLD))
		c->wl_threshold = p->wl_threshold;
	if (GIVEN(GC_PIPELINE))
		c->gc_pipeline = p->gc_pipeline;
	if (GIVEN(PLACEMENT_HANDLES))
		c->nr_ruh = p->placement_handles;
	if (GIVEN(PLP_MS))
		c->plp_ms = p->plp_ms;
	if (GIVEN(PLP_SUSPEND))
		c->plp_suspend = p->plp_suspend;
	c->ruh_persistent = !GIVEN(RUH_TYPE) || !strcmp(p->ruh_type, "persistent");
	if (GIVEN(RUH_TYPE) && !c->nr_ruh)
		return blox_fail(err, errlen, "%s.ruh_type: only with placement_handles", where);
	if (GIVEN(RU_TIME_LIMIT_S) && p->ru_time_limit_s && !c->nr_ruh)
		return blox_fail(err, errlen, "%s.ru_time_limit_s: only with placement_handles",
				 where);
	c->ru_time_limit_ns = GIVEN(RU_TIME_LIMIT_S) ? p->ru_time_limit_s * 1000000000ull : 0;
	if (GIVEN(GC_POLICY))
		c->gc_policy = strcmp(p->gc_policy, "greedy") ? FTL_GC_COST_BENEFIT
							       : FTL_GC_GREEDY;
#undef GIVEN
	if (kib < 8)
		return blox_fail(err, errlen, "%s.cmt_kib: at least 8", where);
	if (c->mdc_bytes < 10 || c->mdc_min_run == 0)
		return blox_fail(err, errlen, "%s: mdc_bytes >= 10 and mdc_min_run >= 1",
				 where);
	if (c->write_buffer_pages == 0)
		return blox_fail(err, errlen, "%s.write_buffer_pages: at least 1", where);
	c->cmt_bytes = kib * 1024;
	return 0;
}

static bool name_ok(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
			return false;
	return true;
}

int blox_device_resolve(const struct blox_device_params *p, const char *where,
			struct blox_cfg_device *d, char *err, size_t errlen)
{
	char w[96];
	int rc;

	memset(d, 0, sizeof(*d));
	d->params = *p;
	if (!memchr(p->name, '\0', sizeof(p->name)) || !p->name[0])
		return blox_fail(err, errlen, "%s.name: 1 to %zu characters", where,
				 sizeof(p->name) - 1);
	if (p->store[0] && word_index(stores, p->store) < 0)
		return blox_fail(err, errlen, "%s.store: '%.7s' is not file or ram", where,
				 p->store);
	if (!name_ok(p->name))
		return blox_fail(err, errlen, "%s.name: letters, digits, - and _ only", where);
	snprintf(d->name, sizeof(d->name), "%s", p->name);
	d->store_ram = !strcmp(p->store, "ram");
	d->reactor = (int)p->reactor - 1; /* checked against --reactors where it is made */
	nand_config_default(&d->nand);
	snprintf(w, sizeof(w), "%s.nand", where);
	if (p->has_nand && (rc = nand_resolve(&p->nand, w, &d->nand, err, errlen)))
		return rc;
	fbx_params_default(&d->fbx, d->nand.geo.cell);
	d->auto_swap = true;
	d->swap_share = PROV_DEFAULT_SWAP_SHARE;
	if (p->has_fbx) {
		const struct blox_fbx_params *x = &p->fbx;

		snprintf(w, sizeof(w), "%s.flashblox", where);
		if ((rc = blox_params_check(&blox_fbx_table, x, w, err, errlen)))
			return rc;
		if (blox_param_given(x, BLOX_XP_BOUND_PERMILLE))
			d->fbx.bound_permille = x->bound_permille;
		if (blox_param_given(x, BLOX_XP_RATED_PE))
			d->fbx.rated_pe = x->rated_pe;
		if (blox_param_given(x, BLOX_XP_SWAP_CHECK_ERASES))
			d->fbx.check_erases = x->swap_check_erases;
		if (blox_param_given(x, BLOX_XP_POOL_CHANNELS)) {
			if (x->pool_channels > d->nand.geo.channels)
				return blox_fail(err, errlen,
						 "%s.pool_channels: the device has %u channels", w,
						 d->nand.geo.channels);
			d->fbx.pool_channels = x->pool_channels;
		}
		if (blox_param_given(x, BLOX_XP_AUTO_SWAP))
			d->auto_swap = x->auto_swap;
		if (blox_param_given(x, BLOX_XP_SWAP_SHARE))
			d->swap_share = x->swap_share;
		if (blox_param_given(x, BLOX_XP_SPARE_CHANNEL))
			d->fbx.spare_channel = x->spare_channel;
	}
	return 0;
}

int blox_ns_resolve(const struct blox_ns_params *p, const char *where,
		    struct blox_cfg_ns *ns, char *err, size_t errlen)
{
	bool is_nand, is_timing, is_zns;
	char w[192];
	int rc;

	memset(ns, 0, sizeof(*ns));
	ns->params = *p;
	if (p->nsid > NVMF_MAX_NS)
		return blox_fail(err, errlen, "%s.nsid: must be 1..%u", where, NVMF_MAX_NS);
	ns->nsid = p->nsid;
	if (p->ana_group > NVMF_ANAGRPMAX)
		return blox_fail(err, errlen, "%s.ana_group: must be 1..%u", where, NVMF_ANAGRPMAX);
	snprintf(ns->backend, sizeof(ns->backend), "%s", p->backend[0] ? p->backend : "ram");
	is_nand = !strcmp(ns->backend, "nand");
	is_timing = !strcmp(ns->backend, "nand-timing");
	is_zns = !strcmp(ns->backend, "zns");
	if (strcmp(ns->backend, "ram") && strcmp(ns->backend, "null") && !is_nand &&
	    !is_timing && !is_zns)
		return blox_fail(err, errlen,
				 "%s.backend: '%s' is not one of ram, null, nand, nand-timing, zns",
				 where, ns->backend);
	if (p->has_zns && !is_zns)
		return blox_fail(err, errlen, "%s.zns: only for backend \"zns\"", where);
	nand_config_default(&ns->nand);
	ftl_config_default(&ns->ftl);
	ns->auto_blocks = is_nand || is_zns;
	if (p->has_nand) {
		if (!is_nand && !is_timing && !is_zns)
			return blox_fail(err, errlen,
					 "%s.nand: only for backends \"nand\", \"nand-timing\" and \"zns\"",
					 where);
		snprintf(w, sizeof(w), "%s.nand", where);
		if ((rc = nand_resolve(&p->nand, w, &ns->nand, err, errlen)))
			return rc;
		if (blox_param_given(&p->nand, BLOX_NP_BLOCKS_PER_PLANE))
			ns->auto_blocks = false;
	}
	if (p->has_ftl && blox_param_given(&p->ftl, BLOX_FP_PLACEMENT_HANDLES) && !is_nand) {
		if (is_zns)
			return blox_fail(err, errlen,
					 "%s.ftl.placement_handles: Flexible Data Placement is for "
					 "backend \"nand\" only (a zoned namespace places data by zone)",
					 where);
		return blox_fail(err, errlen,
				 "%s.ftl.placement_handles: Flexible Data Placement is for backend "
				 "\"nand\" only (backend %s has no FTL to place data with)",
				 where, ns->backend);
	}
	if (p->has_ftl) {
		if (!is_nand)
			return blox_fail(err, errlen, "%s.ftl: only for backend \"nand\"",
					 where);
		snprintf(w, sizeof(w), "%s.ftl", where);
		if ((rc = ftl_resolve(&p->ftl, w, &ns->ftl, &ns->store_ram, err, errlen)))
			return rc;
	}
	ns->size = p->size;
	ns->block_size = p->block_size ? p->block_size : 4096;
	if (ns->block_size != 512 && ns->block_size != 4096)
		return blox_fail(err, errlen, "%s.block_size: must be 512 or 4096", where);
	if (ns->size == 0 || ns->size % ns->block_size)
		return blox_fail(err, errlen,
				 "%s.size: must be a non-zero multiple of the block size",
				 where);
	if (!memchr(p->device, '\0', sizeof(p->device)))
		return blox_fail(err, errlen, "%s.device: longer than %zu bytes", where,
				 sizeof(p->device) - 1);
	snprintf(ns->device, sizeof(ns->device), "%s", p->device);
	if (ns->device[0] && !is_nand && !is_zns)
		return blox_fail(err, errlen, "%s.device: only for backends \"nand\" and \"zns\"",
				 where);
	if (ns->device[0] && p->has_nand)
		return blox_fail(err, errlen, "%s.nand: the geometry belongs to device '%s'",
				 where, ns->device);
	if (!memchr(p->isolation, '\0', sizeof(p->isolation)))
		return blox_fail(err, errlen, "%s.isolation: longer than %zu bytes", where,
				 sizeof(p->isolation) - 1);
	if (p->isolation[0] && !ns->device[0])
		return blox_fail(err, errlen,
				 "%s.isolation: only for a namespace on a device (give 'device')",
				 where);
	ns->iso = FBX_CHIP;
	if (p->isolation[0] && fbx_isolation_parse(p->isolation, &ns->iso, &ns->iso_count))
		return blox_fail(err, errlen,
				 "%s.isolation: '%s' is not channel:N, chip:N, channel, chip or software",
				 where, p->isolation);
	if (ns->device[0])
		ns->auto_blocks = false; /* its device's geometry */
	if ((is_nand || is_zns) && ns->nsid == 0)
		return blox_fail(err, errlen,
				 "%s.nsid: required for backend %s (it names the store file)",
				 where, ns->backend);
	if (is_zns && (rc = blox_zns_resolve(ns, where, err, errlen)))
		return rc;
	/* 512: sectors on the FTL's 4 KiB units, which it maps whole (bdev_ftl_sub.c). */
	if (is_nand && ns->size % FTL_UNIT)
		return blox_fail(err, errlen,
				 "%s.size: backend nand takes a multiple of %u bytes (its FTL's unit)",
				 where, FTL_UNIT);
	/* The FTL maps 4 KiB units: a smaller page holds none (fuzz_config). */
	if (is_nand && !ns->device[0] && ns->nand.geo.page_size < FTL_UNIT)
		return blox_fail(err, errlen,
				 "%s.nand.page_size: backend nand needs pages of at least %u bytes "
				 "(its FTL's unit)", where, FTL_UNIT);
	if (is_nand && ns->auto_blocks)
		ns->nand.geo.blocks_per_plane = blox_config_nand_blocks(
			&ns->nand.geo, nand_dies(&ns->nand.geo), ns->size, &ns->ftl);
	if ((is_timing || (is_nand && !ns->device[0])) &&
	    ns->size > nand_capacity(&ns->nand.geo))
		return blox_fail(err, errlen, "%s.size: larger than the NAND geometry's %lu bytes",
				 where, (unsigned long)nand_capacity(&ns->nand.geo));
	ns->has_uuid = p->has_uuid;
	memcpy(ns->uuid, p->uuid, sizeof(ns->uuid));
	if (p->has_qos) {
		snprintf(w, sizeof(w), "%s.qos", where);
		if ((rc = blox_params_check(&blox_qos_table, &p->qos, w, err, errlen)))
			return rc;
		blox_qos_resolve(&p->qos, &ns->qos, &ns->qos_weight);
	}
	return 0;
}

uint32_t blox_config_nand_blocks(const struct nand_geometry *g, uint32_t ndies,
			  uint64_t bytes, const struct ftl_config *c)
{
	uint32_t op_permille = c->op_permille;
	/* Streams beyond the four of an FTL without placement handles: one open superblock each. */
	uint32_t extra = c->nr_ruh ? c->nr_ruh * (c->ruh_persistent ? 2u : 1u) : 2u;
	uint64_t units_per_sb = (uint64_t)g->pages_per_block * g->planes_per_die *
				ndies * (g->page_size / FTL_UNIT);
	uint64_t want = bytes / FTL_UNIT;
	uint64_t data;

	if (units_per_sb == 0 || op_permille >= 1000)
		return 0; /* no FTL fits: its own checks say why */
	data = want * 1000 / (1000 - op_permille) + want / 512 + 1;

	/* Data superblocks, plus checkpoints, open streams and GC headroom. */
	return (uint32_t)((data + units_per_sb - 1) / units_per_sb) + 8 + extra;
}

int blox_uuid_parse(const char *s, uint8_t out[16])
{
	uint8_t u[16];
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
		u[n / 2] = (uint8_t)((n % 2) ? (u[n / 2] | v) : (v << 4));
		n++;
	}
	memcpy(out, u, sizeof(u));
	return 0;
}

void blox_uuid_str(const uint8_t u[16], char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
		 u[11], u[12], u[13], u[14], u[15]);
}
