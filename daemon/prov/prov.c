/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provisioning service: the one place that makes and unmakes what the
 * target serves, through typed calls. Devices are opened and registered
 * by name; subsystems, hosts and listeners are added; a namespace is
 * planned (checks, its store file, its dies), built (its backend) and
 * attached (hosts see it), and the service keeps a record of it (how it
 * was asked for, where its flash is) as the namespace's owner, which the
 * state file is written from. The config loader (blox_prov_apply), the
 * admin API (adm_*.c) and the state file go through here; no JSON is made
 * or read on the way.
 *
 * Which flash a namespace gets is decided here: a namespace on a device
 * of its own gets all of it; on a registered device, its vSSD gets what
 * the device's FlashBlox resource manager gives for its isolation level
 * and size, or exactly what it had before a restart (prov_dev.c).
 */
#include "prov.h"
#include "reactor.h"

#include <errno.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int blox_prov_create(struct nvmf_tgt *tgt, struct nvmf_tcp *tcp, const char *data_dir,
		     struct blox_prov **out)
{
	struct blox_prov *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->tgt = tgt;
	p->tcp = tcp;
	p->log = tgt->log;
	snprintf(p->data_dir, sizeof(p->data_dir), "%s",
		 data_dir && data_dir[0] ? data_dir : BLOX_DEFAULT_DATA_DIR);
	/* Reservations with Persist Through Power Loss are kept beside the rest. */
	if (nvmf_tgt_set_resv_dir(tgt, p->data_dir)) {
		free(p);
		return -ENOMEM;
	}
	blox_dev_registry_init(&p->registry);
	TAILQ_INIT(&p->devices);
	TAILQ_INIT(&p->migs);
	TAILQ_INIT(&p->probes);
	*out = p;
	return 0;
}

void blox_prov_clear(struct blox_prov *p)
{
	struct nvmf_subsys *s;
	struct nvmf_port *port;

	while ((s = TAILQ_FIRST(&p->tgt->subsystems)))
		if (nvmf_subsys_destroy(s))
			break;
	while ((port = TAILQ_FIRST(&p->tgt->ports)))
		prov_listener_remove(p, port);
}

static void rec_free(void *arg);

void blox_prov_destroy(struct blox_prov *p)
{
	struct nvmf_subsys *s;
	struct nvmf_ns *ns;

	if (!p)
		return;
	/* Namespaces still there (controllers held them) outlive the devices' records. */
	TAILQ_FOREACH(s, &p->tgt->subsystems, link)
		TAILQ_FOREACH(ns, &s->namespaces, link)
			if (ns->owner_free == rec_free)
				((struct prov_ns_rec *)ns->owner)->dev = NULL;
	prov_migs_free(p);
	prov_probes_free(p);
	prov_devices_free(p);
	blox_dev_registry_fini(&p->registry);
	for (unsigned k = 1; k < p->nr_reactors; k++)
		blox_bdev_home_destroy(p->homes[k]);
	free(p);
}

_Static_assert(PROV_REACTORS_MAX == BLOX_REACTORS_MAX, "one home per reactor");

int blox_prov_use_reactors(struct blox_prov *p, struct blox_reactors *rs)
{
	unsigned n = blox_reactors_count(rs);

	if (p->nr_reactors > 1 || !TAILQ_EMPTY(&p->devices))
		return -EBUSY;
	for (unsigned k = 1; k < n; k++) {
		int rc = blox_bdev_home_create(blox_reactor_at(rs, k), blox_reactor_at(rs, 0),
					       &p->homes[k]);

		if (rc) {
			while (--k)
				blox_bdev_home_destroy(p->homes[k]);
			return rc;
		}
	}
	p->nr_reactors = n;
	p->rs = rs;
	return 0;
}

uint64_t prov_reactor_cpu_ns(const struct blox_prov *p, unsigned k)
{
	struct timespec ts;

	if (p->rs && k < p->nr_reactors)
		return blox_reactor_cpu_ns(blox_reactor_at(p->rs, k));
	/* No reactors given (tests): the caller's thread is the core's. */
	if (k || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

unsigned prov_place(const struct blox_prov *p, int want)
{
	unsigned n = p->nr_reactors ? p->nr_reactors : 1, count[PROV_REACTORS_MAX] = { 0 };
	const struct prov_device *d;
	const struct nvmf_subsys *s;
	const struct nvmf_ns *ns;
	unsigned best;

	if (want >= 0 && (unsigned)want < n)
		return (unsigned)want;
	/* A config or state file from a run with more reactors: placed as if not pinned. */
	if (want >= 0)
		blox_log(p->log, BLOX_LOG_WARN,
			 "a device pinned to reactor %d: bloxd runs %u reactor%s now (--reactors); "
			 "placed on the least busy one instead", want, n, n == 1 ? "" : "s");
	TAILQ_FOREACH(d, &p->devices, link)
		count[d->reactor]++;
	TAILQ_FOREACH(s, &p->tgt->subsystems, link)
		TAILQ_FOREACH(ns, &s->namespaces, link) {
			const struct prov_ns_rec *rec = prov_ns_rec(ns);

			if (rec && rec->homed)
				count[rec->reactor]++;
		}
	/* The core's reactor (0) also runs the NVMe core and the admin API: last. */
	best = n - 1;
	for (unsigned k = n - 1; k-- > 0;)
		if (count[k] < count[best])
			best = k;
	return best;
}

struct blox_bdev_home *prov_home(const struct blox_prov *p, unsigned reactor)
{
	return reactor < p->nr_reactors ? p->homes[reactor] : NULL;
}

int prov_reactor_check(const struct blox_prov *p, int want, char *err, size_t errlen)
{
	unsigned n = p->nr_reactors ? p->nr_reactors : 1;

	if (want >= 0 && (unsigned)want >= n)
		return blox_fail(err, errlen,
				 "reactor %d: bloxd runs %u reactor%s (0..%u; see --reactors)", want,
				 n, n == 1 ? "" : "s", n - 1),
		       -EINVAL;
	return 0;
}

int blox_prov_device_reactor(const struct blox_prov *p, const char *name)
{
	const struct prov_device *d;

	TAILQ_FOREACH(d, &p->devices, link)
		if (!strcmp(d->cfg.name, name))
			return (int)d->reactor;
	return -ENOENT;
}

const char *blox_prov_data_dir(const struct blox_prov *p)
{
	return p->data_dir;
}

/* ---- Files in the data directory ---- */

int prov_data_file(const struct blox_prov *p, const char *file, char *out, size_t len,
		   char *err, size_t errlen)
{
	if (mkdir(p->data_dir, 0750) && errno != EEXIST)
		return blox_fail(err, errlen, "data directory %s: %s (see --data-dir)",
				 p->data_dir, strerror(errno));
	if ((size_t)snprintf(out, len, "%s/%s", p->data_dir, file) >= len)
		return blox_fail(err, errlen, "data directory path too long");
	return 0;
}

void prov_store_file(const char *nqn, uint32_t nsid, char *out, size_t len)
{
	unsigned char md[SHA256_DIGEST_LENGTH];

	SHA256((const unsigned char *)nqn, strlen(nqn), md);
	snprintf(out, len, "ns-%02x%02x%02x%02x%02x%02x%02x%02x-%u.nand", md[0], md[1], md[2],
		 md[3], md[4], md[5], md[6], md[7], nsid);
}

/* The store file of a namespace: stable for its subsystem NQN and nsid. */
static int store_path(const struct blox_prov *p, const char *nqn, uint32_t nsid,
		      char *out, size_t len, char *err, size_t errlen)
{
	char file[64];

	prov_store_file(nqn, nsid, file, sizeof(file));
	return prov_data_file(p, file, out, len, err, errlen);
}

/* ---- Namespaces ---- */

static void rec_free(void *arg)
{
	struct prov_ns_rec *rec = arg;

	if (!rec)
		return;
	/*
	 * Its flash on a device stays its own: given back only by a delete
	 * (prov_dies_release(), once the backend is gone), never by a stop.
	 */
	free(rec->store_path);
	free(rec);
}

const struct prov_ns_rec *prov_ns_rec(const struct nvmf_ns *ns)
{
	return ns->owner_free == rec_free ? ns->owner : NULL;
}

bool qos_none(const struct qos_limits *l)
{
	return !l->read_iops && !l->write_iops && !l->iops && !l->read_bps && !l->write_bps &&
	       !l->bps;
}

char *prov_ns_delete(struct blox_prov *p, struct nvmf_ns *ns,
		     void (*released)(void *arg, struct blox_bdev *bdev), void *arg,
		     struct prov_dies *dies)
{
	struct prov_ns_rec *rec = ns->owner_free == rec_free ? ns->owner : NULL;
	char *path = rec ? rec->store_path : NULL;

	memset(dies, 0, sizeof(*dies));
	if (rec && rec->dev) {
		snprintf(dies->dev, sizeof(dies->dev), "%s", rec->dev->cfg.name);
		dies->owner = rec->owner;
	}
	if (rec)
		rec->store_path = NULL;
	/* Commands its limits hold go now: the delete waits for them to end. */
	if (ns->bdev->qos) {
		struct qos_limits none = { 0 };

		blox_bdev_qos_set(ns->bdev, &none, p->tgt->base, p->tgt->clock);
	}
	nvmf_ns_detach(ns, released, arg);
	return path;
}

/*
 * Refuse namespace @cn of @s when another namespace of the target has the
 * UUID it would get (given, or derived from the NQN and nsid): hosts drop
 * a namespace whose UUID another they see has. -EINVAL with the other's
 * nsid and subsystem, as the config file's check says it (config.c).
 */
static int ns_uuid_check(const struct blox_prov *p, const struct nvmf_subsys *s,
			 const struct blox_cfg_ns *cn, char *err, size_t errlen)
{
	const struct nvmf_ns *other;
	uint32_t nsid = cn->nsid;
	uint8_t uuid[16];
	char str[37];

	/* No nsid: the lowest free, as nvmf_ns_add() will take. */
	if (!nsid)
		for (nsid = 1; nsid <= NVMF_MAX_NS && nvmf_ns_find(s, nsid); nsid++)
			;
	if (nsid > NVMF_MAX_NS || (cn->nsid && nvmf_ns_find(s, nsid)))
		return 0; /* no nsid for it: said when it is taken */
	if (cn->has_uuid)
		memcpy(uuid, cn->uuid, sizeof(uuid));
	else
		nvmf_ns_default_uuid(s->nqn, nsid, uuid);
	other = nvmf_tgt_find_uuid(p->tgt, uuid);
	if (!other)
		return 0;
	blox_uuid_str(uuid, str);
	if (cn->has_uuid)
		blox_fail(err, errlen, "%s namespace %u: UUID %s is already the UUID of namespace "
			  "%u of %s", s->nqn, nsid, str, other->nsid, other->subsys->nqn);
	else
		blox_fail(err, errlen, "%s namespace %u: %s, the UUID it gets with none given "
			  "(derived from its NQN and nsid), is already the UUID of namespace %u "
			  "of %s; give it a UUID of its own", s->nqn, nsid, str, other->nsid,
			  other->subsys->nqn);
	return -EINVAL;
}

/* A zoned vSSD's size in whole zones of the dies it gets, a block of each a zone. */
static int zns_fits(const struct prov_ns_plan *pl, const char *nqn, char *err, size_t errlen)
{
	const struct nand_geometry *g = &pl->dev->cfg.nand.geo;
	uint64_t zb = blox_zns_zone_bytes(g, pl->bp.nr_dies, &pl->cn.params.zns);

	if (!zb || pl->cn.size % zb || pl->cn.size / zb > pl->bp.nr_blocks)
		return blox_fail(err, errlen,
				 "%s namespace %u: a zoned namespace is whole zones of its dies' "
				 "blocks: %u dies of device %s make zones of %llu bytes, %u of "
				 "them at most; %llu bytes asked",
				 nqn, pl->cn.nsid, pl->bp.nr_dies, pl->dev->cfg.name,
				 (unsigned long long)zb, pl->bp.nr_blocks,
				 (unsigned long long)pl->cn.size),
		       -EINVAL;
	return 0;
}

int prov_ns_plan(struct blox_prov *p, const struct nvmf_subsys *s,
		 const struct blox_cfg_ns *cn, bool fresh, struct prov_ns_plan *pl,
		 char *err, size_t errlen)
{
	int rc;

	memset(pl, 0, sizeof(*pl));
	if ((rc = ns_uuid_check(p, s, cn, err, errlen)))
		return rc;
	pl->prov = p;
	snprintf(pl->nqn, sizeof(pl->nqn), "%s", s->nqn);
	pl->cn = *cn;
	pl->cap = prov_cap_of_ns(cn);
	if (fresh) {
		char what[320];

		snprintf(what, sizeof(what), "%snamespace %u of %s",
			 pl->cap.kind == PROV_CAP_RAM ? "RAM " : "", cn->nsid, s->nqn);
		if ((rc = prov_cap_admit(p, &pl->cap, what, pl->warn, sizeof(pl->warn), err,
					 errlen)))
			return rc;
	}
	pl->bp = (struct blox_bdev_params){ .backend = pl->cn.backend,
					    .size = pl->cn.size,
					    .block_size = pl->cn.block_size,
					    .nand = &pl->cn.nand,
					    .ftl = &pl->cn.ftl,
					    .base = p->tgt->base,
					    .clock = p->tgt->clock,
					    .log = p->log,
					    .zone_size = cn->params.zns.zone_size,
					    .max_open = cn->params.zns.max_open,
					    .max_active = cn->params.zns.max_active };
	if (cn->device[0]) {
		bool exhausted;

		pl->dev = prov_device_find(p, cn->device);
		if (!pl->dev)
			return blox_fail(err, errlen, "%s namespace %u: no device '%s'", s->nqn,
					 cn->nsid, cn->device),
			       -ENOENT;
		rc = prov_vssd_plan(p, pl->dev, s->nqn, cn, &pl->alloc, &pl->held, &exhausted,
				    err, errlen);
		if (rc)
			return exhausted ? -ENOSPC : rc;
		pl->bp.shared = pl->dev->dev;
		pl->bp.dies = pl->alloc.res.dies;
		pl->bp.nr_dies = pl->alloc.res.nr_dies;
		pl->bp.first_block = pl->alloc.res.first_block;
		pl->bp.nr_blocks = pl->alloc.res.nr_blocks;
		pl->bp.shared_pool = pl->alloc.iso == FBX_SOFTWARE;
		/*
		 * A software vSSD shares its dies by weight: unless told, its GC
		 * keeps them busy between victims so that it can use its share
		 * (docs/QOS_RESULTS.md, fair sharing).
		 */
		if (pl->bp.shared_pool && !(cn->params.has_ftl &&
					    blox_param_given(&cn->params.ftl, BLOX_FP_GC_PIPELINE)))
			pl->cn.ftl.gc_pipeline = true;
		if (pl->held && pl->held->mig.mig_active)
			pl->bp.mig = &pl->held->mig;
		if (cn->zoned && (rc = zns_fits(pl, s->nqn, err, errlen)))
			return rc;
	} else if ((!strcmp(cn->backend, "nand") && !cn->store_ram) || cn->zoned) {
		rc = store_path(p, s->nqn, cn->nsid, pl->store, sizeof(pl->store), err, errlen);
		if (rc)
			return rc;
		if (access(pl->store, F_OK) == 0) {
			if (fresh)
				return blox_fail(err, errlen,
						 "%s namespace %u: store file %s exists (flash of an "
						 "earlier namespace); remove it to create a new one",
						 s->nqn, cn->nsid, pl->store),
				       -EEXIST;
		} else {
			pl->fresh_store = true;
		}
		pl->bp.store_path = pl->store;
	}
	if ((!strcmp(cn->backend, "nand") || !strcmp(cn->backend, "zns")) && !pl->dev) {
		/* Faults for its dies name it "NQN/NSID" (bloxctl fault inject ... NQN NSID --die N). */
		snprintf(pl->fault_name, sizeof(pl->fault_name), "%.223s/%u", s->nqn, cn->nsid);
		pl->bp.faults = p->tgt->faults;
		pl->bp.fault_name = pl->fault_name;
	}
	return 0;
}

bool prov_ns_slow(const struct prov_ns_plan *pl)
{
	return !strcmp(pl->cn.backend, "nand") && !pl->dev;
}

/* A built plan that is not attached lets go of its allocation: a hold from before stays. */
static void plan_untake(struct prov_ns_plan *pl)
{
	if (!pl->taken)
		return;
	pl->taken = false;
	if (pl->held)
		pl->held->claimed = false;
	else
		prov_vssd_free(pl->prov, pl->dev, pl->owner, true);
}

int prov_ns_build(struct blox_prov *p, struct prov_ns_plan *pl, char *err, size_t errlen)
{
	int rc;

	if (pl->dev) {
		/* On the loop: its flash is taken (a new allocation erased) before the FTL looks. */
		struct prov_vssd *v;

		rc = prov_vssd_take(p, pl->dev, pl->nqn, pl->cn.nsid, &pl->alloc, pl->held,
				    &pl->owner, err, errlen);
		if (rc)
			return rc;
		pl->taken = true;
		v = prov_vssd_by_id(pl->dev, pl->owner);
		if (v)
			pl->bp.tenant = v->tenant;
		/* Its share of the dies, before its FTL sends them anything. */
		blox_nand_dev_set_weight(pl->dev->dev, pl->bp.tenant,
					 pl->cn.qos_weight ? pl->cn.qos_weight : 1);
	}
	if (prov_ns_slow(pl))
		rc = blox_bdev_ftl_prepare(&pl->bp, &pl->bdev);
	else
		rc = blox_bdev_create(&pl->bp, &p->tgt->io_cq, &pl->bdev);
	if (rc) {
		char need[32];

		pl->bdev = NULL;
		plan_untake(pl);
		/* A store file the failed create made is not anybody's flash. */
		if (pl->fresh_store)
			unlink(pl->store);
		if (rc == -EFBIG)
			blox_fail(err, errlen,
				  "its flash file of %s is larger than the filesystem of %s "
				  "allows (%s)",
				  prov_cap_bytes_str(pl->cap.bytes, need, sizeof(need)), p->data_dir,
				  strerror(-rc));
		else
			blox_fail(err, errlen, "backend: %s", strerror(-rc));
	}
	return rc;
}

int prov_ns_attach(struct blox_prov *p, struct nvmf_subsys *s, struct prov_ns_plan *pl,
		   struct nvmf_ns **out, char *err, size_t errlen)
{
	struct prov_ns_rec *rec = calloc(1, sizeof(*rec));
	struct nvmf_ns *ns;
	int rc;

	if (!rec || (pl->store[0] && !(rec->store_path = strdup(pl->store)))) {
		rc = -ENOMEM;
		blox_fail(err, errlen, "%s namespace %u: out of memory", s->nqn, pl->cn.nsid);
		goto fail;
	}
	if (prov_ns_slow(pl)) {
		/* A device of its own: on a reactor like any device. */
		rec->reactor = prov_place(p, -1);
		rc = blox_bdev_ftl_bind_home(pl->bdev, prov_home(p, rec->reactor), p->tgt->base,
					     &p->tgt->io_cq);
		rec->homed = !rc;
		if (rc) {
			blox_fail(err, errlen, "%s namespace %u: backend: %s", s->nqn,
				  pl->cn.nsid, strerror(-rc));
			goto fail;
		}
	}
	rc = nvmf_ns_add(s, pl->cn.nsid, pl->bdev, pl->cn.has_uuid ? pl->cn.uuid : NULL,
			 &ns);
	if (rc == -ENOTUNIQ) {
		/* Its UUID was taken since the plan (another create finished first). */
		rc = ns_uuid_check(p, s, &pl->cn, err, errlen);
		if (!rc)
			rc = blox_fail(err, errlen, "%s namespace %u: its NGUID is another "
				       "namespace's", s->nqn, pl->cn.nsid);
		goto fail;
	}
	if (rc == -EMEDIUMTYPE) {
		/* A software vSSD joins the Endurance Group of the others on its device. */
		blox_fail(err, errlen,
			  "%s namespace %u: software vSSDs of device %s share one Endurance "
			  "Group, and namespace %u there %s placement handles: with Flexible "
			  "Data Placement every namespace of the group has them (NVMe 2.1), so "
			  "give all of them placement_handles or none",
			  s->nqn, pl->cn.nsid, pl->dev ? pl->dev->cfg.name : "?",
			  nvmf_fdp_group_mix(s, pl->bdev),
			  pl->cn.ftl.nr_ruh ? "has no" : "has");
		goto fail;
	}
	if (rc) {
		blox_fail(err, errlen, "%s namespace %u: %s", s->nqn, pl->cn.nsid,
			  rc == -EEXIST ? "nsid in use" : strerror(-rc));
		goto fail;
	}
	if (pl->cn.params.ana_group)
		nvmf_ns_set_ana_group(ns, pl->cn.params.ana_group); /* checked by blox_ns_resolve() */
	/* The namespace owns the backend now; the service keeps its record. */
	pl->bdev = NULL;
	rec->params = pl->cn.params;
	rec->params.nsid = ns->nsid;
	rec->dev = pl->dev;
	rec->owner = pl->owner;
	rec->tenant = pl->bp.tenant;
	rec->cap = pl->cap;
	pl->taken = false; /* the namespace's now */
	/* Its limits, before a host can send it anything. */
	if (!qos_none(&pl->cn.qos) &&
	    blox_bdev_qos_set(ns->bdev, &pl->cn.qos, p->tgt->base, p->tgt->clock))
		blox_log(p->log, BLOX_LOG_ERR, "%s namespace %u: its QoS limits: out of memory",
			 s->nqn, ns->nsid);
	ns->owner = rec;
	ns->owner_free = rec_free;
	if (pl->store[0])
		blox_log(p->log, BLOX_LOG_INFO, "%s namespace %u: store file %s: %s", s->nqn,
			 ns->nsid, pl->fresh_store ? "created" : "opened", pl->store);
	else
		blox_log(p->log, BLOX_LOG_INFO, "%s namespace %u: backend %s%s%s", s->nqn,
			 ns->nsid, pl->cn.backend, pl->dev ? " on device " : "",
			 pl->dev ? pl->dev->cfg.name : "");
	if (pl->dev) {
		struct prov_mig *m = prov_mig_of(p, pl->dev->cfg.name, pl->owner);

		/* A migration of it from before a restart goes on. */
		if (m)
			prov_mig_resumed(p, m);
		prov_mig_kick(p);
	}
	if (out)
		*out = ns;
	return 0;
fail:
	rec_free(rec);
	return rc;
}

void prov_ns_unbind(struct prov_ns_plan *pl)
{
	if (pl->bdev)
		blox_bdev_ftl_unbind(pl->bdev);
}

void prov_ns_discard(struct prov_ns_plan *pl)
{
	if (pl->bdev)
		blox_bdev_destroy(pl->bdev);
	pl->bdev = NULL;
	plan_untake(pl);
	if (pl->fresh_store)
		unlink(pl->store);
}

int prov_ns_create(struct blox_prov *p, struct nvmf_subsys *s, const struct blox_cfg_ns *cn,
		   bool fresh, struct nvmf_ns **out, char *err, size_t errlen)
{
	struct prov_ns_plan *pl = malloc(sizeof(*pl));
	char why[256];
	int rc;

	if (!pl)
		return -ENOMEM;
	rc = prov_ns_plan(p, s, cn, fresh, pl, err, errlen);
	if (!rc && (rc = prov_ns_build(p, pl, why, sizeof(why))))
		blox_fail(err, errlen, "%s namespace %u: %s", s->nqn, cn->nsid, why);
	if (!rc && (rc = prov_ns_attach(p, s, pl, out, err, errlen))) {
		prov_ns_unbind(pl);
		prov_ns_discard(pl);
	}
	free(pl);
	return rc;
}

/* ---- A whole configuration ---- */

int blox_prov_listen(struct blox_prov *p, const struct blox_config *cfg, char *err,
		     size_t errlen)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < cfg->nr_listeners; i++)
		rc = prov_listener_add(p, &cfg->listeners[i], NULL, err, errlen);
	for (size_t i = 0; !rc && i < cfg->nr_referrals; i++)
		rc = prov_referral_add(p, cfg->referrals[i].addr, cfg->referrals[i].port, err, errlen);
	return rc;
}

int blox_prov_make(struct blox_prov *p, struct blox_config *cfg, char *err, size_t errlen)
{
	int rc = blox_config_plan(cfg, err, errlen);

	/* Nothing is made when the capacity is not there (-ENOSPC). */
	if (!rc)
		rc = prov_cap_plan(p, cfg, err, errlen);
	for (size_t i = 0; !rc && i < cfg->nr_devices; i++)
		rc = prov_device_create(p, &cfg->devices[i], err, errlen);
	for (size_t i = 0; !rc && i < cfg->nr_subsys; i++) {
		const struct blox_cfg_subsys *cs = &cfg->subsys[i];
		struct nvmf_subsys *s;

		rc = prov_subsys_create(p, cs, &s, err, errlen);
		for (size_t n = 0; !rc && n < cs->nr_ns; n++)
			rc = prov_ns_create(p, s, &cs->ns[n], false, NULL, err, errlen);
	}
	if (!rc)
		prov_devices_settle(p);
	return rc;
}

int blox_prov_apply(struct blox_prov *p, struct blox_config *cfg, char *err, size_t errlen)
{
	int rc = blox_prov_listen(p, cfg, err, errlen);

	return rc ? rc : blox_prov_make(p, cfg, err, errlen);
}
