/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reservation state machine of a namespace (resv.h): registrations,
 * the reservation, and what each action of Reservation Register, Acquire
 * and Release does to them, after the NVMe base specification's
 * "Reservations" section and the NVM command set's command-behaviour
 * table. Pure: the caller passes the host, the command's fields and its
 * data, and learns what to tell other hosts through a callback.
 */
#include "resv.h"

#include "nvme_spec.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ST_CONFLICT (NVME_SC_RESERVATION_CONFLICT | NVME_SC_DNR)
#define ST_INVALID (NVME_SC_INVALID_FIELD | NVME_SC_DNR)

void nvmf_resv_init(struct nvmf_resv *r)
{
	memset(r, 0, sizeof(*r));
}

void nvmf_resv_fini(struct nvmf_resv *r)
{
	free(r->regs);
	r->regs = NULL;
	r->nr = r->cap = 0;
}

static bool all_regs(uint8_t rtype)
{
	return rtype == NVMF_RESV_WE_AR || rtype == NVMF_RESV_EA_AR;
}

static bool regs_only(uint8_t rtype)
{
	return rtype == NVMF_RESV_WE_RO || rtype == NVMF_RESV_EA_RO;
}

static bool rtype_valid(uint8_t rtype)
{
	return rtype >= NVMF_RESV_WE && rtype <= NVMF_RESV_EA_AR;
}

static int find(const struct nvmf_resv *r, const uint8_t host[16])
{
	for (uint32_t i = 0; i < r->nr; i++)
		if (!memcmp(r->regs[i].hostid, host, 16))
			return (int)i;
	return -1;
}

const struct nvmf_resv_reg *nvmf_resv_find(const struct nvmf_resv *r, const uint8_t host[16])
{
	int i = find(r, host);

	return i < 0 ? NULL : &r->regs[i];
}

bool nvmf_resv_is_holder(const struct nvmf_resv *r, const uint8_t host[16])
{
	if (r->rtype == NVMF_RESV_NONE || find(r, host) < 0)
		return false;
	return all_regs(r->rtype) || !memcmp(r->holder, host, 16);
}

static void tell(const struct nvmf_resv_cb *cb, const uint8_t host[16], enum nvmf_resv_event ev)
{
	if (cb && cb->event)
		cb->event(cb->arg, host, ev);
}

/* Every registrant but @except is told @ev. */
static void tell_others(const struct nvmf_resv *r, const uint8_t except[16],
			enum nvmf_resv_event ev, const struct nvmf_resv_cb *cb)
{
	for (uint32_t i = 0; i < r->nr; i++)
		if (memcmp(r->regs[i].hostid, except, 16))
			tell(cb, r->regs[i].hostid, ev);
}

static void set_holder(struct nvmf_resv *r, const uint8_t host[16], uint8_t rtype)
{
	r->rtype = rtype;
	memcpy(r->holder, host, 16);
}

static void drop_reservation(struct nvmf_resv *r)
{
	r->rtype = NVMF_RESV_NONE;
	memset(r->holder, 0, 16);
}

/*
 * Registrant @i goes. A holder's reservation goes with it, unless it is of
 * an All Registrants type and registrants remain; the registrants left of
 * a Registrants Only reservation learn that it was released.
 */
static void unregister_at(struct nvmf_resv *r, uint32_t i, const struct nvmf_resv_cb *cb)
{
	uint8_t host[16];
	bool was_holder = r->rtype != NVMF_RESV_NONE && !all_regs(r->rtype) &&
			  !memcmp(r->holder, r->regs[i].hostid, 16);

	memcpy(host, r->regs[i].hostid, 16);
	memmove(&r->regs[i], &r->regs[i + 1], (r->nr - i - 1) * sizeof(r->regs[0]));
	r->nr--;
	if (all_regs(r->rtype) && r->nr == 0) {
		drop_reservation(r);
	} else if (was_holder) {
		uint8_t rtype = r->rtype;

		drop_reservation(r);
		if (regs_only(rtype))
			tell_others(r, host, NVMF_RESV_EV_RELEASED, cb);
	}
}

static int add(struct nvmf_resv *r, const uint8_t host[16], uint64_t key)
{
	if (r->nr == r->cap) {
		uint32_t cap = r->cap ? r->cap * 2 : 4;
		struct nvmf_resv_reg *n;

		if (r->nr >= NVMF_RESV_MAX_REGS)
			return -1;
		n = realloc(r->regs, cap * sizeof(*n));
		if (!n)
			return -1;
		r->regs = n;
		r->cap = cap;
	}
	memcpy(r->regs[r->nr].hostid, host, 16);
	r->regs[r->nr].key = key;
	r->nr++;
	return 0;
}

/* ---- Reservation Register ---- */

uint16_t nvmf_resv_register(struct nvmf_resv *r, const uint8_t host[16], uint32_t cdw10,
			    uint64_t crkey, uint64_t nrkey, const struct nvmf_resv_cb *cb)
{
	uint32_t act = NVMF_RESV_ACTION(cdw10), cptpl = NVMF_RESV_CPTPL(cdw10);
	bool iekey = cdw10 & NVMF_RESV_IEKEY;
	int i = find(r, host);

	if (act > NVMF_RESV_REPLACE || cptpl == 1)
		return ST_INVALID;
	/* PTPL can be set only where the state is kept across restarts. */
	if (cptpl == NVMF_RESV_CPTPL_SET && !r->ptpl_capable)
		return ST_INVALID;
	switch (act) {
	case NVMF_RESV_REGISTER:
		/* CRKEY and IEKEY do not matter: registering again with the same key is no error. */
		if (i >= 0) {
			if (r->regs[i].key != nrkey)
				return ST_CONFLICT;
		} else if (add(r, host, nrkey)) {
			return NVME_SC_INTERNAL;
		}
		break;
	case NVMF_RESV_UNREGISTER:
		if (i < 0 || (!iekey && r->regs[i].key != crkey))
			return ST_CONFLICT;
		unregister_at(r, (uint32_t)i, cb);
		break;
	case NVMF_RESV_REPLACE:
		if (i < 0 || (!iekey && r->regs[i].key != crkey))
			return ST_CONFLICT;
		r->regs[i].key = nrkey;
		break;
	}
	if (cptpl == NVMF_RESV_CPTPL_CLEAR)
		r->ptpl = false;
	else if (cptpl == NVMF_RESV_CPTPL_SET)
		r->ptpl = true;
	r->gen++;
	return 0;
}

/* ---- Reservation Acquire ---- */

/*
 * Registrants whose key is @key go, @self too unless @spare_self; they
 * are told their registration was preempted (but @self). Whether any went.
 */
static bool unregister_key(struct nvmf_resv *r, uint64_t key, const uint8_t self[16],
			   bool spare_self, const struct nvmf_resv_cb *cb)
{
	bool any = false;

	for (uint32_t i = 0; i < r->nr;) {
		struct nvmf_resv_reg *g = &r->regs[i];
		bool is_self = !memcmp(g->hostid, self, 16);
		uint8_t gone[16];

		if (g->key != key || (is_self && spare_self)) {
			i++;
			continue;
		}
		memcpy(gone, g->hostid, 16);
		unregister_at(r, i, cb);
		if (!is_self)
			tell(cb, gone, NVMF_RESV_EV_REG_PREEMPTED);
		any = true;
	}
	return any;
}

/* Every registrant but @self goes, told so. */
static void unregister_others(struct nvmf_resv *r, const uint8_t self[16],
			      const struct nvmf_resv_cb *cb)
{
	for (uint32_t i = 0; i < r->nr;) {
		uint8_t gone[16];

		if (!memcmp(r->regs[i].hostid, self, 16)) {
			i++;
			continue;
		}
		memcpy(gone, r->regs[i].hostid, 16);
		unregister_at(r, i, cb);
		tell(cb, gone, NVMF_RESV_EV_REG_PREEMPTED);
	}
}

static uint16_t preempt(struct nvmf_resv *r, const uint8_t host[16], uint8_t rtype,
			uint64_t prkey, const struct nvmf_resv_cb *cb)
{
	uint8_t old = r->rtype;

	if (old == NVMF_RESV_NONE) /* registrations only */
		return unregister_key(r, prkey, host, false, cb) ? 0 : ST_CONFLICT;
	if (all_regs(old)) {
		if (prkey) /* registrations only; the reservation stays theirs */
			return unregister_key(r, prkey, host, false, cb) ? 0 : ST_CONFLICT;
		/* PRKEY 0: the host takes the reservation alone, every other registrant goes. */
		set_holder(r, host, rtype);
		unregister_others(r, host, cb);
	} else if (prkey == nvmf_resv_find(r, r->holder)->key) {
		/* The holder (maybe the host itself) is preempted: a new reservation is the host's. */
		set_holder(r, host, rtype);
		unregister_key(r, prkey, host, true, cb);
	} else if (prkey) {
		return unregister_key(r, prkey, host, false, cb) ? 0 : ST_CONFLICT;
	} else {
		return ST_INVALID;
	}
	if (old != rtype)
		tell_others(r, host, NVMF_RESV_EV_RELEASED, cb);
	return 0;
}

uint16_t nvmf_resv_acquire(struct nvmf_resv *r, const uint8_t host[16], uint32_t cdw10,
			   uint64_t crkey, uint64_t prkey, const struct nvmf_resv_cb *cb)
{
	uint32_t act = NVMF_RESV_ACTION(cdw10);
	uint8_t rtype = (uint8_t)NVMF_RESV_RTYPE(cdw10);
	const struct nvmf_resv_reg *me;
	uint16_t st;

	/* IEKEY of Acquire and Release is reserved since NVMe 1.3 (RESCAP bit 7). */
	if (act > NVMF_RESV_PREEMPT_ABORT || (cdw10 & NVMF_RESV_IEKEY) || !rtype_valid(rtype))
		return ST_INVALID;
	me = nvmf_resv_find(r, host);
	if (!me || me->key != crkey)
		return ST_CONFLICT;
	if (act == NVMF_RESV_ACQUIRE) {
		if (r->rtype == NVMF_RESV_NONE) {
			set_holder(r, host, rtype);
			return 0;
		}
		/* Acquiring what the host holds already is no error; anything else is. */
		return nvmf_resv_is_holder(r, host) && r->rtype == rtype ? 0 : ST_CONFLICT;
	}
	st = preempt(r, host, rtype, prkey, cb);
	if (!st)
		r->gen++;
	return st;
}

/* ---- Reservation Release ---- */

uint16_t nvmf_resv_release(struct nvmf_resv *r, const uint8_t host[16], uint32_t cdw10,
			   uint64_t crkey, const struct nvmf_resv_cb *cb)
{
	uint32_t act = NVMF_RESV_ACTION(cdw10);
	uint8_t rtype = (uint8_t)NVMF_RESV_RTYPE(cdw10), old = r->rtype;
	const struct nvmf_resv_reg *me;

	if (act > NVMF_RESV_CLEAR || (cdw10 & NVMF_RESV_IEKEY))
		return ST_INVALID;
	me = nvmf_resv_find(r, host);
	if (!me || me->key != crkey)
		return ST_CONFLICT;
	if (act == NVMF_RESV_CLEAR) {
		tell_others(r, host, NVMF_RESV_EV_RESV_PREEMPTED, cb);
		nvmf_resv_clear_all(r);
		return 0;
	}
	/* A registrant that holds nothing releases nothing, successfully. */
	if (!nvmf_resv_is_holder(r, host))
		return 0;
	if (rtype != old)
		return ST_INVALID;
	drop_reservation(r);
	if (old != NVMF_RESV_WE && old != NVMF_RESV_EA)
		tell_others(r, host, NVMF_RESV_EV_RELEASED, cb);
	return 0;
}

void nvmf_resv_clear_all(struct nvmf_resv *r)
{
	r->nr = 0;
	drop_reservation(r);
	r->gen++;
}

/* ---- Reservation Report ---- */

uint16_t nvmf_resv_report(const struct nvmf_resv *r, bool eds, uint8_t *out, size_t len)
{
	uint8_t hdr[NVMF_RESV_REPORT_HDR_EXT] = { 0 };
	size_t off = NVMF_RESV_REPORT_HDR_EXT;

	if (!eds)
		return NVME_SC_HOSTID_FORMAT | NVME_SC_DNR;
	memset(out, 0, len);
	le32_put(hdr, r->gen);
	hdr[4] = r->rtype;
	le16_put(hdr + 5, (uint16_t)r->nr);
	hdr[9] = r->ptpl;
	memcpy(out, hdr, len < sizeof(hdr) ? len : sizeof(hdr));
	for (uint32_t i = 0; i < r->nr && off < len; i++, off += NVMF_RESV_REPORT_ENTRY_EXT) {
		uint8_t e[NVMF_RESV_REPORT_ENTRY_EXT] = { 0 };
		size_t n = len - off;

		/* Registrations belong to hosts, not controllers: CNTLID FFFFh. */
		le16_put(e, 0xffff);
		e[2] = nvmf_resv_is_holder(r, r->regs[i].hostid);
		le64_put(e + 8, r->regs[i].key);
		memcpy(e + 16, r->regs[i].hostid, 16);
		memcpy(out + off, e, n < sizeof(e) ? n : sizeof(e));
	}
	return 0;
}

/* ---- access ---- */

enum nvmf_resv_class nvmf_resv_opc_class(uint8_t opc)
{
	switch (opc) {
	case nvme_cmd_read:
	case nvme_cmd_compare:
	case nvme_cmd_verify:
	case nvme_zns_cmd_mgmt_recv:
		return NVMF_RESV_CLASS_READ;
	case nvme_cmd_flush:
	case nvme_cmd_write:
	case nvme_cmd_write_uncor:
	case nvme_cmd_write_zeroes:
	case nvme_cmd_dsm:
	case nvme_cmd_copy:
	case nvme_zns_cmd_mgmt_send:
	case nvme_zns_cmd_append:
		return NVMF_RESV_CLASS_WRITE;
	default:
		return NVMF_RESV_CLASS_OTHER;
	}
}

uint16_t nvmf_resv_access(const struct nvmf_resv *r, const uint8_t host[16], uint8_t opc)
{
	enum nvmf_resv_class c = nvmf_resv_opc_class(opc);
	bool excl_access, registrant;

	if (r->rtype == NVMF_RESV_NONE || c == NVMF_RESV_CLASS_OTHER ||
	    nvmf_resv_is_holder(r, host))
		return 0;
	excl_access = r->rtype == NVMF_RESV_EA || r->rtype == NVMF_RESV_EA_RO ||
		      r->rtype == NVMF_RESV_EA_AR;
	if (c == NVMF_RESV_CLASS_READ && !excl_access)
		return 0; /* Write Exclusive types: anyone reads */
	/* Registrants Only and All Registrants types let registrants in. */
	registrant = find(r, host) >= 0;
	if (registrant && r->rtype != NVMF_RESV_WE && r->rtype != NVMF_RESV_EA)
		return 0;
	return ST_CONFLICT;
}

int nvmf_resv_copy(struct nvmf_resv *dst, const struct nvmf_resv *src)
{
	struct nvmf_resv_reg *regs = NULL;

	if (src->nr) {
		regs = malloc(src->nr * sizeof(*regs));
		if (!regs)
			return -ENOMEM;
		memcpy(regs, src->regs, src->nr * sizeof(*regs));
	}
	free(dst->regs);
	*dst = *src;
	dst->regs = regs;
	dst->cap = src->nr;
	return 0;
}

/* ---- the persisted form ---- */

#define STATE_MAGIC "blox-resv 1"

static void hex16(char out[33], const uint8_t id[16])
{
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", id[i]);
}

static int unhex16(uint8_t id[16], const char *s)
{
	for (int i = 0; i < 16; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -EINVAL;
		id[i] = (uint8_t)v;
	}
	return s[32] == '\0' ? 0 : -EINVAL;
}

char *nvmf_resv_encode(const struct nvmf_resv *r)
{
	/* The header's lines, then one of at most 60 bytes per registrant. */
	size_t cap = 160 + (size_t)r->nr * 64, n;
	char *buf = malloc(cap), id[33];

	if (!buf)
		return NULL;
	hex16(id, r->holder);
	n = (size_t)snprintf(buf, cap, STATE_MAGIC "\nptpl %d\ngen %" PRIu32 "\nrtype %u\nholder %s\n",
			     r->ptpl, r->gen, r->rtype, id);
	for (uint32_t i = 0; i < r->nr && n < cap; i++) {
		hex16(id, r->regs[i].hostid);
		n += (size_t)snprintf(buf + n, cap - n, "reg %s %016" PRIx64 "\n", id, r->regs[i].key);
	}
	return buf;
}

int nvmf_resv_decode(struct nvmf_resv *r, const char *text)
{
	const char *p = text, *nl;
	bool magic = false;

	while (*p) {
		char line[128], word[16], arg[64];
		unsigned long long v;
		size_t len;
		int k;

		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		if (len >= sizeof(line))
			return -EINVAL;
		memcpy(line, p, len);
		line[len] = '\0';
		p += len + (nl ? 1 : 0);
		if (!magic) {
			if (strcmp(line, STATE_MAGIC))
				return -EINVAL;
			magic = true;
			continue;
		}
		k = sscanf(line, "%15s %63s %llx", word, arg, &v);
		if (k == 3 && !strcmp(word, "reg")) {
			uint8_t id[16];

			if (unhex16(id, arg) || find(r, id) >= 0 || add(r, id, v))
				return -EINVAL;
		} else if (k == 2 && !strcmp(word, "holder")) {
			if (unhex16(r->holder, arg))
				return -EINVAL;
		} else if (k == 2 && !strcmp(word, "ptpl")) {
			r->ptpl = !strcmp(arg, "1");
		} else if (k == 2 && !strcmp(word, "gen")) {
			r->gen = (uint32_t)strtoul(arg, NULL, 10);
		} else if (k == 2 && !strcmp(word, "rtype")) {
			r->rtype = (uint8_t)strtoul(arg, NULL, 10);
			if (r->rtype && !rtype_valid(r->rtype))
				return -EINVAL;
		} else {
			return -EINVAL;
		}
	}
	if (!magic)
		return -EINVAL;
	/* A reservation needs its holder among the registrants (or, All Registrants, any). */
	if (r->rtype && (r->nr == 0 || (!all_regs(r->rtype) && find(r, r->holder) < 0)))
		return -EINVAL;
	return 0;
}
