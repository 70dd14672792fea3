/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Predictable Latency Mode and Read Recovery Levels through the NVMe core
 * (plm.c, admin_cmd.c, logpage.c, ctrl.c): Identify Controller's bits,
 * Set/Get Features 12h, 13h and 14h per NVM Set with the values refused
 * and their status, a DTWIN held until its set may enter it (completion
 * delayed on a loop; refused without one; aborted when the queue goes),
 * the Predictable Latency Per NVM Set log (0Ah) and the Event Aggregate
 * log (0Bh) with their RAE semantics, the asynchronous event notice, a
 * namespace's set leaving. The sets are fake backends whose windows and
 * figures the test sets, beside a ram and a null namespace (no
 * predictable latency); plm_nand.c drives a real "nand" namespace.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <event2/event.h>

#include "core_admin.h"
#include "fake_nvmf.h"
#include "plm.h"

#define ST_ABORTED_SQ 0x008 /* Command Aborted due to SQ Deletion, no DNR */
#define ST_INTERNAL (ST_DNR | 0x006)
#define AEN_PLM (NVME_AER_NOTICE | (NVME_AER_NOTICE_PL_EVENT << 8) | (0x0bu << 16))

/* A backend with predictable latency whose windows and figures the test sets. */
struct fpl {
	struct blox_bdev base;
	const struct blox_clock *clock;
	struct blox_bdev_plm_config cfg;
	int configs, windows, clears;
	enum blox_plm_window win;
	uint64_t busy_until; /* a DTWIN is refused (-EAGAIN) before this time */
	uint16_t events;
	struct blox_bdev_plm_info fig; /* typical figures and estimates returned */
};

static void fpl_submit(struct blox_bdev *b, struct blox_io *io)
{
	io->status = 0;
	blox_io_cq_post(b->cq, io);
}

static void fpl_destroy(struct blox_bdev *b)
{
	free(container_of(b, struct fpl, base));
}

static int fpl_config(struct blox_bdev *b, const struct blox_bdev_plm_config *cfg)
{
	struct fpl *p = container_of(b, struct fpl, base);

	p->cfg = *cfg;
	p->configs++;
	if (!cfg->enable) {
		p->win = BLOX_PLM_OFF;
		p->events = 0;
	} else if (p->win == BLOX_PLM_OFF) {
		p->win = BLOX_PLM_NDWIN;
	}
	return 0;
}

static int fpl_window(struct blox_bdev *b, enum blox_plm_window w, uint64_t *retry)
{
	struct fpl *p = container_of(b, struct fpl, base);
	uint64_t now = blox_clock_now(p->clock);

	p->windows++;
	if (p->win == BLOX_PLM_OFF)
		return -EINVAL;
	if (w == BLOX_PLM_DTWIN && p->win != BLOX_PLM_DTWIN && now < p->busy_until) {
		*retry = p->busy_until - now;
		return -EAGAIN;
	}
	p->win = w;
	return 0;
}

static void fpl_query(struct blox_bdev *b, struct blox_bdev_plm_info *i, bool clear)
{
	struct fpl *p = container_of(b, struct fpl, base);

	*i = p->fig;
	i->window = p->win;
	i->events = p->events;
	if (clear) {
		p->events = 0;
		p->clears++;
	}
}

static const struct blox_bdev_ops fpl_ops = {
	.name = "fake-plm",
	.submit = fpl_submit,
	.destroy = fpl_destroy,
	.plm_config = fpl_config,
	.plm_window = fpl_window,
	.plm_query = fpl_query,
};

/* An event on @p's set, told as its backend would (from the loop). */
static void fpl_raise(struct fpl *p, uint16_t ev)
{
	p->events |= ev;
	if (p->cfg.enable && p->cfg.event)
		p->cfg.event(p->cfg.event_arg);
}

static struct fpl *fpl_add(struct pfx *f, uint32_t nsid)
{
	struct fpl *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	p->base.ops = &fpl_ops;
	p->base.size = 64 * MiB;
	p->base.block_size = 4096;
	p->base.cq = &f->ft.tgt.io_cq;
	p->clock = &f->ft.clock;
	p->fig = (struct blox_bdev_plm_info){
		.reads_typical = 1000000, .writes_typical = 5000, .time_max_ms = 10000,
		.ndwin_min_high_ms = 4200, .ndwin_min_low_ms = 300,
		.reads_estimate = 999999, .writes_estimate = 4321, .time_estimate_ms = 8765,
	};
	assert_int_equal(nvmf_ns_add(f->s, nsid, &p->base, NULL, NULL), 0);
	f->fp[nsid] = p;
	return p;
}

/* 1 ram, 2 and 5 with predictable latency, 7 null. */
static struct pfx *pfx_new(struct event_base *base)
{
	struct pfx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	fake_tgt_init_base(&f->ft, base);
	f->base = base;
	f->s = fake_subsys(&f->ft, FAKE_SUBNQN, true);
	fake_ns(&f->ft, f->s, 1, "ram", 1 * MiB, 512);
	fpl_add(f, 2);
	fpl_add(f, 5);
	fake_ns(&f->ft, f->s, 7, "null", 1 * MiB, 512);
	f->q = fake_admin_q(&f->ft, NULL, FAKE_SUBNQN, NULL);
	f->c = fake_cmd_new(&f->ft);
	return f;
}

int plm_setup(void **state)
{
	*state = pfx_new(NULL);
	return 0;
}

int plm_setup_loop(void **state)
{
	struct event_base *base = event_base_new();

	assert_non_null(base);
	*state = pfx_new(base);
	return 0;
}

int plm_teardown(void **state)
{
	struct pfx *f = *state;
	struct event_base *base = f->base;

	if (base)
		event_base_loop(base, EVLOOP_NONBLOCK); /* namespaces freed later */
	fake_tgt_fini(&f->ft);
	free(f);
	if (base)
		event_base_free(base);
	return 0;
}

/* Set (@set) or Get Features @fid (SEL @sel) with CDW11/12 and, for 13h, @cfg. */
static uint16_t feat(struct pfx *f, bool set, uint8_t fid, uint8_t sel, uint32_t cdw11,
		     uint32_t cdw12, const struct nvme_plm_config *cfg)
{
	struct nvme_sqe *cmd =
		fake_prep(&f->ft, f->c, set ? nvme_admin_set_features : nvme_admin_get_features, 0);

	cmd->cdw10 = fid | (uint32_t)sel << 8;
	cmd->cdw11 = cdw11;
	cmd->cdw12 = cdw12;
	if (fid == NVME_FEAT_FID_PLM_CONFIG) {
		fake_data(f->c, sizeof(*cfg), set);
		memset(f->c->buf, 0xaa, sizeof(*cfg));
		if (set && cfg)
			memcpy(f->c->buf, cfg, sizeof(*cfg));
	}
	return fake_exec(&f->ft, f->q, f->c);
}

uint16_t plm_enable(struct pfx *f, uint16_t set, bool on, const struct nvme_plm_config *cfg)
{
	struct nvme_plm_config zero = { 0 };

	return feat(f, true, NVME_FEAT_FID_PLM_CONFIG, 0, set, on, cfg ? cfg : &zero);
}

uint16_t plm_set_window(struct pfx *f, uint16_t set, uint32_t ws)
{
	return feat(f, true, NVME_FEAT_FID_PLM_WINDOW, 0, set, ws, NULL);
}

/* Log 0Ah of @set (LSI), 512 bytes. */
uint16_t plm_set_log(struct pfx *f, uint32_t set, bool rae)
{
	struct nvme_sqe *cmd = fake_prep(&f->ft, f->c, nvme_admin_get_log_page, 0);

	cmd->cdw10 = NVME_LOG_LID_PREDICTABLE_LAT_NVMSET | (127u << 16) | (rae ? 1u << 15 : 0);
	cmd->cdw11 = set << 16;
	fake_data(f->c, 512, false);
	memset(f->c->buf, 0xaa, 512);
	return fake_exec(&f->ft, f->q, f->c);
}

/* Log 0Bh: the set ids in @ids (0-terminated); its number of entries. */
static uint64_t agg_log(struct pfx *f, bool rae, uint16_t *ids)
{
	uint64_t n;

	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_PREDICTABLE_LAT_AGG,
				      8 + 2 * 1024 + 8, 0, 0, rae),
			 0);
	memcpy(&n, f->c->buf, 8);
	assert_true(n <= 16);
	memcpy(ids, f->c->buf + 8, 2 * n);
	ids[n] = 0;
	for (size_t i = 8 + 2 * n; i < 8 + 2 * 1024 + 8; i++)
		assert_int_equal(f->c->buf[i], 0);
	return n;
}

static struct fake_cmd *aer(struct pfx *f)
{
	struct fake_cmd *c = fake_cmd_new(&f->ft);

	fake_prep(&f->ft, c, nvme_admin_async_event, 0);
	fake_submit(&f->ft, f->q, c);
	assert_int_equal(c->done, 0);
	return c;
}

/* 1. Identify Controller: PLM, Read Recovery Levels 4 and 15, the PLM notice. */
void test_plm_identify(void **state)
{
	struct pfx *f = *state;
	const struct nvme_id_ctrl *id = (const void *)f->c->buf;
	struct fake_q *dq;

	assert_int_equal(fake_identify(&f->ft, f->q, f->c, NVME_IDENTIFY_CNS_CTRL, 0), 0);
	assert_true(id->ctratt & NVME_CTRL_CTRATT_PREDICTABLE_LAT);
	assert_true(id->ctratt & NVME_CTRL_CTRATT_READ_RECV_LVLS);
	assert_true(id->ctratt & NVME_CTRL_CTRATT_NVM_SETS);
	assert_int_equal(id->rrls, 0x8010);
	assert_true(id->oaes & NVME_CTRL_OAES_PLEA);
	assert_int_equal(id->nsetidmax, 1024);
	/* A discovery controller has none of it. */
	dq = fake_admin_q(&f->ft, NULL, FAKE_DISCNQN, NULL);
	assert_int_equal(fake_identify(&f->ft, dq, f->c, NVME_IDENTIFY_CNS_CTRL, 0), 0);
	assert_int_equal(id->ctratt & (NVME_CTRL_CTRATT_PREDICTABLE_LAT |
				       NVME_CTRL_CTRATT_READ_RECV_LVLS),
			 0);
	assert_int_equal(id->rrls, 0);
	/* Discovery log change notices only: no PLM events. */
	assert_int_equal(id->oaes, 1u << 31);
}

/* 2. Feature 13h: set, read back (current and default), thresholds to the backend, disable. */
void test_plm_config(void **state)
{
	struct pfx *f = *state;
	struct fpl *p = f->fp[2];
	struct nvme_plm_config cfg = { .ee = 0x0007, .dtwinrt = 777, .dtwinwt = 55, .dtwintt = 1234 },
			       zero = { 0 };

	/* Disabled by default. */
	assert_int_equal(feat(f, false, NVME_FEAT_FID_PLM_CONFIG, 0, 2, 0, NULL), 0);
	assert_int_equal(f->c->cqe.result, 0);
	assert_memory_equal(f->c->buf, &zero, sizeof(zero));

	assert_int_equal(plm_enable(f, 2, true, &cfg), 0);
	assert_int_equal(p->configs, 1);
	assert_true(p->cfg.enable);
	assert_int_equal(p->cfg.ee, 7);
	assert_int_equal(p->cfg.reads_thresh, 777);
	assert_int_equal(p->cfg.writes_thresh, 55);
	assert_int_equal(p->cfg.time_thresh_ms, 1234);
	assert_non_null(p->cfg.event);
	assert_int_equal(p->win, BLOX_PLM_NDWIN);
	assert_int_equal(f->fp[5]->configs, 0); /* the other set is left alone */

	/* Current: enabled, the structure as set; default: disabled, zeroes. */
	assert_int_equal(feat(f, false, NVME_FEAT_FID_PLM_CONFIG, NVME_GET_FEATURES_SEL_CURRENT, 2,
			      0, NULL),
			 0);
	assert_int_equal(f->c->cqe.result, 1);
	assert_memory_equal(f->c->buf, &cfg, sizeof(cfg));
	assert_int_equal(feat(f, false, NVME_FEAT_FID_PLM_CONFIG, NVME_GET_FEATURES_SEL_DEFAULT, 2,
			      0, NULL),
			 0);
	assert_int_equal(f->c->cqe.result, 0);
	assert_memory_equal(f->c->buf, &zero, sizeof(zero));
	/* Bits 31:16 of CDW11 are not the set. */
	assert_int_equal(feat(f, false, NVME_FEAT_FID_PLM_CONFIG, 0, 0xabcd0002u, 0, NULL), 0);
	assert_int_equal(f->c->cqe.result, 1);

	/* Reserved Enable Event bits are not passed on. */
	cfg.ee = 0xfffa;
	assert_int_equal(plm_enable(f, 2, true, &cfg), 0);
	assert_int_equal(p->cfg.ee, 2);
	assert_int_equal(p->win, BLOX_PLM_NDWIN);

	assert_int_equal(plm_enable(f, 2, false, &zero), 0);
	assert_false(p->cfg.enable);
	assert_int_equal(p->win, BLOX_PLM_OFF);
	assert_int_equal(feat(f, false, NVME_FEAT_FID_PLM_CONFIG, 0, 2, 0, NULL), 0);
	assert_int_equal(f->c->cqe.result, 0);
}

/* 3. Feature 13h refused: no such set, a set without predictable latency, save, no data. */
void test_plm_config_refused(void **state)
{
	struct pfx *f = *state;
	static const uint32_t bad[] = { 0, 3, 8, 1024, 0xffff };
	const struct nvme_error_log_page *e = (const void *)f->c->buf;
	struct nvme_plm_config cfg = { .ee = 1 };

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(bad); i++) {
		assert_int_equal(plm_enable(f, (uint16_t)bad[i], true, &cfg), ST_INVALID_FIELD);
		assert_int_equal(feat(f, false, NVME_FEAT_FID_PLM_CONFIG, 0, bad[i], 0, NULL),
				 ST_INVALID_FIELD);
	}
	/* ram and null namespaces: sets without the mode, either way. */
	assert_int_equal(plm_enable(f, 1, true, &cfg), ST_INVALID_FIELD);
	assert_int_equal(plm_enable(f, 7, false, &cfg), ST_INVALID_FIELD);
	assert_int_equal(feat(f, false, NVME_FEAT_FID_PLM_CONFIG, 0, 1, 0, NULL), ST_INVALID_FIELD);
	assert_int_equal(feat(f, false, NVME_FEAT_FID_PLM_WINDOW, 0, 7, 0, NULL), ST_INVALID_FIELD);
	/* The error log points at CDW11. */
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_ERROR, 64, 0, 0, false), 0);
	assert_int_equal(e->status_field >> 1, ST_INVALID_FIELD);
	assert_int_equal(e->parm_error_location, offsetof(struct nvme_sqe, cdw11));
	/* Not saveable. */
	fake_prep(&f->ft, f->c, nvme_admin_set_features, 0)->cdw10 =
		NVME_FEAT_FID_PLM_CONFIG | 1u << 31;
	f->c->req.cmd.cdw11 = 2;
	f->c->req.cmd.cdw12 = 1;
	fake_data(f->c, 512, true);
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), ST_NOT_SAVEABLE);
	/* The 512-byte structure must come with it. */
	fake_prep(&f->ft, f->c, nvme_admin_set_features, 0)->cdw10 = NVME_FEAT_FID_PLM_CONFIG;
	f->c->req.cmd.cdw11 = 2;
	f->c->req.cmd.cdw12 = 1;
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), ST_SGL_DATA_LEN);
	assert_int_equal(f->fp[2]->configs, 0);
	assert_int_equal(f->fp[2]->win, BLOX_PLM_OFF);
}

/* 4. Feature 14h: only once enabled; DTWIN and NDWIN; reserved selects refused. */
void test_plm_window(void **state)
{
	struct pfx *f = *state;
	struct fpl *p = f->fp[5];
	static const uint32_t ws_bad[] = { 0, 3, 4, 7 };

	assert_int_equal(plm_set_window(f, 5, NVME_FEATURE_PLM_DTWIN), ST_INVALID_FIELD);
	assert_int_equal(feat(f, false, NVME_FEAT_FID_PLM_WINDOW, 0, 5, 0, NULL), ST_INVALID_FIELD);
	assert_int_equal(p->windows, 0);
	assert_int_equal(plm_enable(f, 5, true, NULL), 0);
	assert_int_equal(feat(f, false, NVME_FEAT_FID_PLM_WINDOW, 0, 5, 0, NULL), 0);
	assert_int_equal(f->c->cqe.result, NVME_FEATURE_PLM_NDWIN);
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(ws_bad); i++)
		assert_int_equal(plm_set_window(f, 5, ws_bad[i]), ST_INVALID_FIELD);
	assert_int_equal(p->windows, 0);

	assert_int_equal(plm_set_window(f, 5, NVME_FEATURE_PLM_DTWIN), 0);
	assert_int_equal(p->win, BLOX_PLM_DTWIN);
	assert_int_equal(feat(f, false, NVME_FEAT_FID_PLM_WINDOW, 0, 5, 0, NULL), 0);
	assert_int_equal(f->c->cqe.result, NVME_FEATURE_PLM_DTWIN);
	/* Default: NDWIN; reserved bits of CDW12 above Window Select are ignored. */
	assert_int_equal(feat(f, false, NVME_FEAT_FID_PLM_WINDOW, NVME_GET_FEATURES_SEL_DEFAULT, 5,
			      0, NULL),
			 0);
	assert_int_equal(f->c->cqe.result, NVME_FEATURE_PLM_NDWIN);
	assert_int_equal(plm_set_window(f, 5, 0xfff8u | NVME_FEATURE_PLM_NDWIN), 0);
	assert_int_equal(p->win, BLOX_PLM_NDWIN);
	assert_int_equal(f->fp[2]->windows, 0);

	/* Without a loop a DTWIN that must wait is refused. */
	p->busy_until = blox_clock_now(&f->ft.clock) + 50 * MS;
	assert_int_equal(plm_set_window(f, 5, NVME_FEATURE_PLM_DTWIN), ST_CMD_SEQ);
	assert_int_equal(p->win, BLOX_PLM_NDWIN);
	blox_clock_set(&f->ft.clock, p->busy_until);
	assert_int_equal(plm_set_window(f, 5, NVME_FEATURE_PLM_DTWIN), 0);

	/* Disabled again: the window feature is refused. */
	assert_int_equal(plm_enable(f, 5, false, NULL), 0);
	assert_int_equal(plm_set_window(f, 5, NVME_FEATURE_PLM_NDWIN), ST_INVALID_FIELD);
}

/* Run the loop until @c completes (at most @max_ms). */
void plm_loop_until(struct pfx *f, struct fake_cmd *c, uint64_t max_ms)
{
	uint64_t t0 = blox_clock_now(&f->ft.clock);

	while (!c->done) {
		assert_true(event_base_loop(f->base, EVLOOP_ONCE) >= 0);
		assert_true(blox_clock_now(&f->ft.clock) - t0 < max_ms * MS);
	}
}

/*
 * 5. On a loop a DTWIN asked too early is held and completes once its set
 * may enter it; a held request is aborted when the admin queue goes.
 */
void test_plm_window_held(void **state)
{
	struct pfx *f = *state;
	struct fpl *p = f->fp[2];
	struct fake_cmd *c = fake_cmd_new(&f->ft);
	uint64_t t0;

	assert_int_equal(plm_enable(f, 2, true, NULL), 0);
	t0 = blox_clock_now(&f->ft.clock);
	p->busy_until = t0 + 40 * MS;
	fake_prep(&f->ft, c, nvme_admin_set_features, 0)->cdw10 = NVME_FEAT_FID_PLM_WINDOW;
	c->req.cmd.cdw11 = 2;
	c->req.cmd.cdw12 = NVME_FEATURE_PLM_DTWIN;
	fake_submit(&f->ft, f->q, c);
	assert_int_equal(c->done, 0);
	assert_int_equal(p->win, BLOX_PLM_NDWIN);
	/* Meanwhile the controller answers other commands. */
	assert_int_equal(feat(f, false, NVME_FEAT_FID_RRL, 0, 2, 0, NULL), 0);
	plm_loop_until(f, c, 2000);
	assert_int_equal(fake_status(c), 0);
	assert_true(blox_clock_now(&f->ft.clock) >= p->busy_until);
	assert_int_equal(p->win, BLOX_PLM_DTWIN);
	assert_int_equal(p->windows, 2); /* asked, then again when due */

	/* Held, then the admin queue closes: aborted, nothing left behind. */
	assert_int_equal(plm_set_window(f, 2, NVME_FEATURE_PLM_NDWIN), 0);
	p->busy_until = blox_clock_now(&f->ft.clock) + 10000 * MS;
	c = fake_cmd_new(&f->ft);
	fake_prep(&f->ft, c, nvme_admin_set_features, 0)->cdw10 = NVME_FEAT_FID_PLM_WINDOW;
	c->req.cmd.cdw11 = 2;
	c->req.cmd.cdw12 = NVME_FEATURE_PLM_DTWIN;
	fake_submit(&f->ft, f->q, c);
	assert_int_equal(c->done, 0);
	nvmf_sq_quiesce(&f->q->sq);
	assert_int_equal(c->done, 1);
	assert_int_equal(fake_status(c), ST_ABORTED_SQ);
	assert_int_equal(p->win, BLOX_PLM_NDWIN);
}

/* 6. Log 0Ah: one set's window, figures, estimates, events; RAE. */
void test_plm_log_set(void **state)
{
	struct pfx *f = *state;
	const struct nvme_nvmset_predictable_lat_log *l = (const void *)f->c->buf;
	struct fpl *p = f->fp[5];
	static const uint8_t zero[512];

	/* Not enabled: status 0 (not used), its typical figures, no estimates. */
	assert_int_equal(plm_set_log(f, 5, false), 0);
	assert_int_equal(l->status, 0);
	assert_int_equal(l->event_type, 0);
	assert_int_equal(l->dtwin_rt, 1000000);
	assert_int_equal(l->dtwin_wt, 5000);
	assert_int_equal(l->dtwin_tmax, 10000);
	assert_int_equal(l->ndwin_tmin_hi, 4200);
	assert_int_equal(l->ndwin_tmin_lo, 300);
	assert_int_equal(l->dtwin_re, 0);
	assert_int_equal(l->dtwin_we, 0);
	assert_int_equal(l->dtwin_te, 0);
	/* Sets without the mode: all zero. */
	assert_int_equal(plm_set_log(f, 1, false), 0);
	assert_memory_equal(f->c->buf, zero, 512);
	assert_int_equal(plm_set_log(f, 7, false), 0);
	assert_memory_equal(f->c->buf, zero, 512);
	/* No such set. */
	assert_int_equal(plm_set_log(f, 0, false), ST_INVALID_FIELD);
	assert_int_equal(plm_set_log(f, 3, false), ST_INVALID_FIELD);
	assert_int_equal(plm_set_log(f, 0xffff, false), ST_INVALID_FIELD);

	assert_int_equal(plm_enable(f, 5, true, NULL), 0);
	p->clears = 0;
	p->events = NVME_NVMSET_PL_EVENT_DTWIN_WRITE_WARN | NVME_NVMSET_PL_EVENT_DTWIN_EXCEEDED;
	assert_int_equal(plm_set_log(f, 5, true), 0);
	assert_int_equal(l->status, NVME_NVMSET_PL_STATUS_NDWIN);
	assert_int_equal(l->event_type, 0x4002);
	assert_int_equal(l->dtwin_rt, 1000000);
	assert_int_equal(l->dtwin_wt, 5000);
	assert_int_equal(l->dtwin_tmax, 10000);
	assert_int_equal(l->ndwin_tmin_hi, 4200);
	assert_int_equal(l->ndwin_tmin_lo, 300);
	assert_int_equal(l->dtwin_re, 999999);
	assert_int_equal(l->dtwin_we, 4321);
	assert_int_equal(l->dtwin_te, 8765);
	assert_memory_equal(l->rsvd4, zero, sizeof(l->rsvd4));
	assert_memory_equal(l->rsvd72, zero, sizeof(l->rsvd72));
	assert_memory_equal(l->rsvd152, zero, sizeof(l->rsvd152));
	assert_int_equal(f->c->buf[1], 0);
	assert_int_equal(p->clears, 0); /* RAE set: kept */

	assert_int_equal(plm_set_window(f, 5, NVME_FEATURE_PLM_DTWIN), 0);
	assert_int_equal(plm_set_log(f, 5, false), 0);
	assert_int_equal(l->status, NVME_NVMSET_PL_STATUS_DTWIN);
	assert_int_equal(l->event_type, 0x4002);
	assert_int_equal(p->clears, 1); /* RAE clear: read, so cleared */
	assert_int_equal(plm_set_log(f, 5, false), 0);
	assert_int_equal(l->event_type, 0);

	/* In pieces: the same bytes. */
	{
		uint8_t whole[512];

		assert_int_equal(plm_set_log(f, 5, true), 0);
		memcpy(whole, f->c->buf, 512);
		fake_prep(&f->ft, f->c, nvme_admin_get_log_page, 0)->cdw10 =
			NVME_LOG_LID_PREDICTABLE_LAT_NVMSET | (7u << 16) | 1u << 15;
		f->c->req.cmd.cdw11 = 5u << 16;
		f->c->req.cmd.cdw12 = 128;
		fake_data(f->c, 32, false);
		assert_int_equal(fake_exec(&f->ft, f->q, f->c), 0);
		assert_memory_equal(f->c->buf, whole + 128, 32);
	}
}

/*
 * 7. Events: a set's event sends the notice (once enabled, one until log
 * 0Bh is read with RAE cleared); 0Bh lists the sets with events until
 * their 0Ah is read with RAE cleared.
 */
void test_plm_events(void **state)
{
	struct pfx *f = *state;
	struct fake_cmd *a1, *a2;
	uint16_t ids[17];

	assert_int_equal(plm_enable(f, 2, true, NULL), 0);
	assert_int_equal(plm_enable(f, 5, true, NULL), 0);
	assert_int_equal(agg_log(f, false, ids), 0);

	/* Notices not enabled: nothing sent, the log still lists the set. */
	a1 = aer(f);
	fpl_raise(f->fp[5], NVME_NVMSET_PL_EVENT_DTWIN_TIME_WARN);
	assert_int_equal(a1->done, 0);
	assert_int_equal(agg_log(f, true, ids), 1);
	assert_int_equal(ids[0], 5);

	/* Enabled (bit 12): the pending notice goes at once. */
	assert_int_equal(fake_set_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_ASYNC_EVENT, 1u << 12), 0);
	assert_int_equal(a1->done, 1);
	assert_int_equal(fake_status(a1), 0);
	assert_int_equal(a1->cqe.result & 0xffffffffu, AEN_PLM);

	/* Masked until 0Bh is read with RAE cleared. */
	a2 = aer(f);
	fpl_raise(f->fp[2], NVME_NVMSET_PL_EVENT_DTWIN_EXCURSION);
	assert_int_equal(a2->done, 0);
	assert_int_equal(agg_log(f, true, ids), 2); /* RAE set: still masked */
	assert_int_equal(ids[0], 2);
	assert_int_equal(ids[1], 5);
	assert_int_equal(a2->done, 0);
	assert_int_equal(agg_log(f, false, ids), 2);
	assert_int_equal(a2->done, 1); /* the event since the first notice */
	assert_int_equal(a2->cqe.result & 0xffffffffu, AEN_PLM);

	/* Reading set 5's log with RAE cleared clears it from the aggregate. */
	assert_int_equal(plm_set_log(f, 5, false), 0);
	assert_int_equal(agg_log(f, false, ids), 1);
	assert_int_equal(ids[0], 2);
	assert_int_equal(plm_set_log(f, 2, true), 0);
	assert_int_equal(agg_log(f, false, ids), 1);
	assert_int_equal(plm_set_log(f, 2, false), 0);
	assert_int_equal(agg_log(f, false, ids), 0);

	/* Namespace notices are not held up by these (and the other way round). */
	a1 = aer(f);
	assert_int_equal(fake_set_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_ASYNC_EVENT,
				       (1u << 12) | (1u << 8)),
			 0);
	fpl_raise(f->fp[5], NVME_NVMSET_PL_EVENT_DTWIN_READ_WARN);
	assert_int_equal(a1->done, 1);
	a2 = aer(f);
	fake_ns(&f->ft, f->s, 9, "null", 1 * MiB, 512);
	assert_int_equal(a2->done, 1);
	assert_int_equal(a2->cqe.result & 0xffffffffu,
			 NVME_AER_NOTICE | (NVME_AER_NOTICE_NS_CHANGED << 8) | (0x04u << 16));
	/* A disabled set tells nothing and lists nothing. */
	assert_int_equal(agg_log(f, false, ids), 1);
	assert_int_equal(plm_enable(f, 5, false, NULL), 0);
	assert_int_equal(agg_log(f, false, ids), 0);
	a1 = aer(f);
	fpl_raise(f->fp[5], NVME_NVMSET_PL_EVENT_DTWIN_READ_WARN);
	assert_int_equal(a1->done, 0);
}

/* 8. Feature 12h: per set, default 4, levels 4 and 15 only. */
void test_plm_rrl(void **state)
{
	struct pfx *f = *state;

	for (uint32_t set = 1; set <= 7; set += set == 2 ? 3 : set == 5 ? 2 : 1) {
		assert_int_equal(feat(f, false, NVME_FEAT_FID_RRL, 0, set, 0, NULL), 0);
		assert_int_equal(f->c->cqe.result, 4);
	}
	assert_int_equal(feat(f, true, NVME_FEAT_FID_RRL, 0, 2, 15, NULL), 0);
	assert_int_equal(feat(f, false, NVME_FEAT_FID_RRL, 0, 2, 0, NULL), 0);
	assert_int_equal(f->c->cqe.result, 15);
	assert_int_equal(feat(f, false, NVME_FEAT_FID_RRL, NVME_GET_FEATURES_SEL_DEFAULT, 2, 0,
			      NULL),
			 0);
	assert_int_equal(f->c->cqe.result, 4);
	assert_int_equal(feat(f, false, NVME_FEAT_FID_RRL, 0, 5, 0, NULL), 0);
	assert_int_equal(f->c->cqe.result, 4); /* its own */
	/* A ram set takes a level too (nothing to trade there either). */
	assert_int_equal(feat(f, true, NVME_FEAT_FID_RRL, 0, 1, 15, NULL), 0);
	for (uint32_t rrl = 0; rrl < 16; rrl++)
		if (rrl != 4 && rrl != 15)
			assert_int_equal(feat(f, true, NVME_FEAT_FID_RRL, 0, 2, rrl, NULL),
					 ST_INVALID_FIELD);
	assert_int_equal(feat(f, false, NVME_FEAT_FID_RRL, 0, 2, 0, NULL), 0);
	assert_int_equal(f->c->cqe.result, 15);
	assert_int_equal(feat(f, true, NVME_FEAT_FID_RRL, 0, 2, 0x10 | 4, NULL), 0);
	assert_int_equal(feat(f, true, NVME_FEAT_FID_RRL, 0, 0, 4, NULL), ST_INVALID_FIELD);
	assert_int_equal(feat(f, true, NVME_FEAT_FID_RRL, 0, 3, 4, NULL), ST_INVALID_FIELD);
	assert_int_equal(feat(f, false, NVME_FEAT_FID_RRL, 0, 8, 0, NULL), ST_INVALID_FIELD);
}

/* 9. A namespace leaving: its set is disabled, its backend tells nobody. */
void test_plm_ns_gone(void **state)
{
	struct pfx *f = *state;
	struct fake_cmd *a;

	assert_int_equal(plm_enable(f, 2, true, NULL), 0);
	assert_int_equal(fake_set_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_ASYNC_EVENT, 1u << 12), 0);
	nvmf_ns_detach(nvmf_ns_find(f->s, 2), NULL, NULL);
	/* Freed at once without a loop; f->fp[2] is gone with it. */
	f->fp[2] = NULL;
	a = aer(f);
	assert_int_equal(plm_set_log(f, 2, false), ST_INVALID_FIELD);
	assert_int_equal(a->done, 0);
	/* The other set is as it was. */
	assert_int_equal(plm_enable(f, 5, true, NULL), 0);
	fpl_raise(f->fp[5], NVME_NVMSET_PL_EVENT_DTWIN_EXCEEDED);
	assert_int_equal(a->done, 1);
}

/* A backend that records its disable before it goes. */
static int gone_disables;

static int rec_config(struct blox_bdev *b, const struct blox_bdev_plm_config *cfg)
{
	if (!cfg->enable)
		gone_disables++;
	return fpl_config(b, cfg);
}

/* 10. The disable reaches the backend before it is destroyed. */
void test_plm_ns_gone_disables(void **state)
{
	struct pfx *f = *state;
	static struct blox_bdev_ops ops;

	ops = fpl_ops;
	ops.plm_config = rec_config;
	f->fp[5]->base.ops = &ops;
	gone_disables = 0;
	assert_int_equal(plm_enable(f, 5, true, NULL), 0);
	nvmf_ns_detach(nvmf_ns_find(f->s, 5), NULL, NULL);
	f->fp[5] = NULL;
	assert_int_equal(gone_disables, 1);
	/* A set never enabled is not told anything. */
	f->fp[2]->base.ops = &ops;
	nvmf_ns_detach(nvmf_ns_find(f->s, 2), NULL, NULL);
	f->fp[2] = NULL;
	assert_int_equal(gone_disables, 1);
}
