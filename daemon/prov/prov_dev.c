/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provisioning service's devices: each registered NAND device has a
 * FlashBlox resource manager (ftl/flashblox.h) that owns its channel x die
 * grid, and a list of the vSSDs on it. Which dies (or which blocks of the
 * software pool) a vSSD has is the device's own record, like a partition
 * table: it is kept in dev-NAME.vssd.json beside the device's flash and
 * rewritten (atomically) whenever it changes, so a namespace gets exactly
 * its flash back after any restart, whether bloxd starts from a config
 * file or from its state file, and whatever the wear says meanwhile.
 */
#include "prov.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct prov_device *prov_device_find(const struct blox_prov *p, const char *name)
{
	struct prov_device *d;

	TAILQ_FOREACH(d, &p->devices, link)
		if (!strcmp(d->cfg.name, name))
			return d;
	return NULL;
}

static void device_free(struct prov_device *d)
{
	struct prov_vssd *v;

	while ((v = TAILQ_FIRST(&d->vssds))) {
		TAILQ_REMOVE(&d->vssds, v, link);
		free(v);
	}
	fbx_rm_destroy(d->rm);
	free(d);
}

void prov_devices_free(struct blox_prov *p)
{
	struct prov_device *d;

	while ((d = TAILQ_FIRST(&p->devices))) {
		TAILQ_REMOVE(&p->devices, d, link);
		device_free(d);
	}
}

/* ---- The record beside the flash ---- */

static json_object *alloc_json(const struct fbx_alloc *a)
{
	json_object *o = json_object_new_object(), *dies = json_object_new_array();

	json_object_object_add(o, "isolation",
			       json_object_new_string(fbx_isolation_name(a->iso)));
	for (uint32_t i = 0; i < a->res.nr_dies; i++)
		json_object_array_add(dies, json_object_new_int64(a->res.dies[i]));
	json_object_object_add(o, "dies", dies);
	json_object_object_add(o, "first_block", json_object_new_int64(a->res.first_block));
	json_object_object_add(o, "nr_blocks", json_object_new_int64(a->res.nr_blocks));
	return o;
}

/* A vSSD's held dies and its live migration job, with the FTL's own state of it. */
static void mig_json(struct blox_prov *p, struct prov_device *d, const struct prov_vssd *v,
		     json_object *o)
{
	const struct prov_mig *m = prov_mig_of(p, d->cfg.name, v->id);
	uint32_t held[FBX_MAX_MOVES], n = fbx_reserved(d->rm, v->id, held, FBX_MAX_MOVES);
	json_object *h, *j, *moves, *f;

	if (n) {
		h = json_object_new_array();
		for (uint32_t i = 0; i < n; i++)
			json_object_array_add(h, json_object_new_int64(held[i]));
		json_object_object_add(o, "held", h);
	}
	if (!m)
		return;
	j = json_object_new_object();
	json_object_object_add(j, "id", json_object_new_int64(m->id));
	json_object_object_add(j, "why", json_object_new_string(m->why));
	moves = json_object_new_array();
	for (uint32_t i = 0; i < m->nr; i++) {
		json_object *mv = json_object_new_array();

		json_object_array_add(mv, json_object_new_int64(m->moves[i].from_die));
		json_object_array_add(mv, json_object_new_int64(m->moves[i].to_die));
		json_object_array_add(moves, mv);
	}
	json_object_object_add(j, "moves", moves);
	json_object_object_add(j, "cur", json_object_new_int64(m->cur));
	json_object_object_add(j, "reverse", json_object_new_boolean(m->reverse));
	json_object_object_add(j, "state", json_object_new_string(prov_mig_state_name(m->state)));
	json_object_object_add(j, "share", json_object_new_int64(m->share));
	json_object_object_add(j, "error", json_object_new_int64(m->error));
	json_object_object_add(j, "bytes_done", json_object_new_int64((int64_t)m->bytes_done));
	if (m->ftl_active && m->ftl_res.mig_active) {
		f = json_object_new_object();
		json_object_object_add(f, "slot", json_object_new_int64(m->ftl_res.mig_slot));
		json_object_object_add(f, "src", json_object_new_int64(m->ftl_res.mig_src));
		json_object_object_add(f, "cancel", json_object_new_boolean(m->ftl_res.mig_cancel));
		json_object_object_add(f, "share", json_object_new_int64(m->ftl_res.mig_share));
		json_object_object_add(j, "ftl", f);
	}
	json_object_object_add(o, "migration", j);
}

int prov_device_wear_update(struct prov_device *d)
{
	uint64_t *erases = calloc(nand_dies(&d->cfg.nand.geo), sizeof(*erases));

	if (!erases)
		return -ENOMEM;
	blox_nand_dev_die_erases(d->dev, erases);
	fbx_wear_update(d->rm, erases);
	free(erases);
	return 0;
}

int prov_device_save(struct blox_prov *p, struct prov_device *d)
{
	json_object *root, *arr, *wear, *snap;
	struct fbx_wear_state st;
	const struct prov_vssd *v;
	char tmp[4300];
	const char *text;
	int fd, rc = 0;
	size_t len;

	if (!d->alloc_path[0])
		return 0;
	root = json_object_new_object();
	arr = json_object_new_array();
	TAILQ_FOREACH(v, &d->vssds, link) {
		struct fbx_alloc a;
		json_object *o;

		if (!fbx_owner_alloc(d->rm, v->id, &a))
			continue;
		o = alloc_json(&a);
		json_object_object_add(o, "subsystem", json_object_new_string(v->nqn));
		json_object_object_add(o, "nsid", json_object_new_int64(v->nsid));
		mig_json(p, d, v, o);
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "vssds", arr);
	/* Its ended migrations, the newest few, for migrate status after a restart. */
	json_object_object_add(root, "migrations", prov_mig_ended_json(p, d->cfg.name));
	fbx_wear_state_get(d->rm, &st);
	wear = json_object_new_object();
	json_object_object_add(wear, "next_check", json_object_new_double(st.next_check));
	json_object_object_add(wear, "checks", json_object_new_int64((int64_t)st.checks));
	json_object_object_add(wear, "swaps", json_object_new_int64((int64_t)st.swaps));
	snap = json_object_new_array();
	for (uint32_t i = 0; i < nand_dies(&d->cfg.nand.geo); i++)
		json_object_array_add(snap, json_object_new_int64((int64_t)st.snapshot[i]));
	json_object_object_add(wear, "snapshot", snap);
	json_object_object_add(root, "wear", wear);
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY);
	len = strlen(text);
	snprintf(tmp, sizeof(tmp), "%s.tmp", d->alloc_path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len || write(fd, "\n", 1) != 1 ||
	    fsync(fd) || rename(tmp, d->alloc_path))
		rc = -errno ? -errno : -EIO;
	if (fd >= 0)
		close(fd);
	json_object_put(root);
	if (rc) {
		unlink(tmp);
		blox_log(p->log, BLOX_LOG_ERR, "device %s: cannot write %s: %s", d->cfg.name,
			 d->alloc_path, strerror(-rc));
	}
	return rc;
}

static int u32_of(json_object *o, const char *key, uint32_t *out)
{
	json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return -EINVAL;
	n = json_object_get_int64(v);
	if (n < 0 || n > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)n;
	return 0;
}

static struct prov_vssd *vssd_add(struct prov_device *d, const char *nqn, uint32_t nsid)
{
	struct prov_vssd *v = calloc(1, sizeof(*v)), *o;
	uint64_t used = 1; /* tenant 0: the device's own, never a vSSD's */

	if (!v)
		return NULL;
	TAILQ_FOREACH(o, &d->vssds, link)
		used |= 1ull << o->tenant;
	/* The lowest tenant free; past 63 vSSDs the last ones share tenant 63. */
	for (v->tenant = 1; v->tenant < QOS_MAX_TENANTS - 1 && (used >> v->tenant & 1); v->tenant++)
		;
	v->id = ++d->next_id;
	snprintf(v->nqn, sizeof(v->nqn), "%s", nqn);
	v->nsid = nsid;
	TAILQ_INSERT_TAIL(&d->vssds, v, link);
	return v;
}

void prov_vssd_drop(struct prov_device *d, struct prov_vssd *v)
{
	fbx_release(d->rm, v->id);
	TAILQ_REMOVE(&d->vssds, v, link);
	free(v);
}

struct prov_vssd *prov_vssd_by_id(const struct prov_device *d, uint32_t owner)
{
	struct prov_vssd *v;

	TAILQ_FOREACH(v, &d->vssds, link)
		if (v->id == owner)
			return v;
	return NULL;
}

struct prov_vssd *prov_vssd_find(const struct prov_device *d, const char *nqn, uint32_t nsid)
{
	struct prov_vssd *v;

	TAILQ_FOREACH(v, &d->vssds, link)
		if (v->nsid == nsid && !strcmp(v->nqn, nqn))
			return v;
	return NULL;
}

static enum prov_mig_state state_of(const char *s)
{
	for (int st = PM_QUEUED; st <= PM_FAILED; st++)
		if (!strcmp(prov_mig_state_name((enum prov_mig_state)st), s))
			return (enum prov_mig_state)st;
	return PM_FAILED;
}

/* A live migration job of the record, and the FTL's migration to give back. */
static int load_mig(struct blox_prov *p, struct prov_device *d, struct prov_vssd *vs,
		    const struct fbx_alloc *a, json_object *j, size_t i, char *err, size_t errlen)
{
	json_object *moves, *v, *f;
	struct prov_mig *m;
	uint32_t u;

	if (!json_object_object_get_ex(j, "moves", &moves) ||
	    !json_object_is_type(moves, json_type_array) ||
	    json_object_array_length(moves) > FBX_MAX_MOVES || u32_of(j, "cur", &u))
		return blox_fail(err, errlen, "%s: vssds[%zu].migration is not a migration",
				 d->alloc_path, i);
	m = prov_mig_new(p, d, vs->id);
	if (!m)
		return -ENOMEM;
	for (size_t k = 0; k < json_object_array_length(moves); k++) {
		json_object *mv = json_object_array_get_idx(moves, k);

		m->moves[m->nr++] = (struct fbx_move){
			.owner = vs->id,
			.from_die = (uint32_t)json_object_get_int64(json_object_array_get_idx(mv, 0)),
			.to_die = (uint32_t)json_object_get_int64(json_object_array_get_idx(mv, 1)),
		};
	}
	m->cur = u <= m->nr ? u : m->nr;
	if (json_object_object_get_ex(j, "id", &v))
		m->id = (uint32_t)json_object_get_int64(v);
	if (m->id > p->next_mig_id)
		p->next_mig_id = m->id;
	if (json_object_object_get_ex(j, "why", &v))
		snprintf(m->why, sizeof(m->why), "%s", json_object_get_string(v));
	if (json_object_object_get_ex(j, "reverse", &v))
		m->reverse = json_object_get_boolean(v);
	if (json_object_object_get_ex(j, "state", &v))
		m->state = state_of(json_object_get_string(v));
	if (!u32_of(j, "share", &u) && u >= 1 && u <= 1000)
		m->share = u;
	if (json_object_object_get_ex(j, "error", &v))
		m->error = json_object_get_int(v);
	if (json_object_object_get_ex(j, "bytes_done", &v))
		m->bytes_done = (uint64_t)json_object_get_int64(v);
	if (json_object_object_get_ex(j, "ftl", &f)) {
		/* The FTL resumes it when the namespace is made: its resources as saved. */
		vs->mig.nr_dies = a->res.nr_dies;
		memcpy(vs->mig.dies, a->res.dies, sizeof(vs->mig.dies));
		vs->mig.first_block = a->res.first_block;
		vs->mig.nr_blocks = a->res.nr_blocks;
		vs->mig.mig_active = true;
		if (u32_of(f, "slot", &vs->mig.mig_slot) || u32_of(f, "src", &vs->mig.mig_src) ||
		    vs->mig.mig_slot >= a->res.nr_dies)
			return blox_fail(err, errlen, "%s: vssds[%zu].migration.ftl is not an FTL "
					 "migration", d->alloc_path, i);
		if (json_object_object_get_ex(f, "cancel", &v))
			vs->mig.mig_cancel = json_object_get_boolean(v);
		if (!u32_of(f, "share", &u))
			vs->mig.mig_share = u;
		m->ftl_active = true;
		m->ftl_res = vs->mig;
	}
	blox_log(p->log, BLOX_LOG_INFO,
		 "device %s: migration %u of %s namespace %u (%s, move %u of %u) goes on",
		 d->cfg.name, m->id, vs->nqn, vs->nsid, prov_mig_state_name(m->state),
		 m->cur + (m->ftl_active ? 1 : 0), m->nr);
	return 0;
}

/* One vSSD of the record: held for its namespace. */
static int load_vssd(struct blox_prov *p, struct prov_device *d, json_object *o, size_t i,
		     char *err, size_t errlen)
{
	json_object *v, *dies;
	const char *nqn;
	struct fbx_alloc a = { 0 };
	struct prov_vssd *vs;
	uint32_t nsid, count, held[FBX_MAX_MOVES], nheld = 0;
	char why[200];
	int rc;

	if (!json_object_object_get_ex(o, "subsystem", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    strlen(nqn = json_object_get_string(v)) >= NVME_NQN_LENGTH || u32_of(o, "nsid", &nsid) ||
	    !json_object_object_get_ex(o, "isolation", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    fbx_isolation_parse(json_object_get_string(v), &a.iso, &count) ||
	    !json_object_object_get_ex(o, "dies", &dies) ||
	    !json_object_is_type(dies, json_type_array) ||
	    json_object_array_length(dies) > BLOX_FTL_MAX_DIES ||
	    u32_of(o, "first_block", &a.res.first_block) ||
	    u32_of(o, "nr_blocks", &a.res.nr_blocks))
		return blox_fail(err, errlen, "%s: vssds[%zu] is not a vSSD record", d->alloc_path,
				 i);
	a.res.nr_dies = (uint32_t)json_object_array_length(dies);
	for (uint32_t k = 0; k < a.res.nr_dies; k++) {
		json_object *e = json_object_array_get_idx(dies, k);
		int64_t n = json_object_get_int64(e);

		if (!json_object_is_type(e, json_type_int) || n < 0 || n > UINT32_MAX)
			return blox_fail(err, errlen, "%s: vssds[%zu].dies[%u] is not a die",
					 d->alloc_path, i, k);
		a.res.dies[k] = (uint32_t)n;
	}
	if (json_object_object_get_ex(o, "held", &v) && json_object_is_type(v, json_type_array))
		for (size_t k = 0; k < json_object_array_length(v) && nheld < FBX_MAX_MOVES; k++) {
			int64_t die = json_object_get_int64(json_object_array_get_idx(v, k));

			if (die < 0 || die > UINT32_MAX)
				return blox_fail(err, errlen, "%s: vssds[%zu].held[%zu] is not a die",
						 d->alloc_path, i, k);
			held[nheld++] = (uint32_t)die;
		}
	vs = vssd_add(d, nqn, nsid);
	if (!vs)
		return -ENOMEM;
	rc = fbx_take_held(d->rm, vs->id, &a, held, nheld, why, sizeof(why));
	if (rc) {
		TAILQ_REMOVE(&d->vssds, vs, link);
		free(vs);
		return blox_fail(err, errlen, "%s: vssds[%zu] (%s namespace %u): %s",
				 d->alloc_path, i, nqn, nsid, why);
	}
	if (json_object_object_get_ex(o, "migration", &v))
		return load_mig(p, d, vs, &a, v, i, err, errlen);
	return 0;
}

static int device_load(struct blox_prov *p, struct prov_device *d, char *err, size_t errlen)
{
	uint32_t nd = nand_dies(&d->cfg.nand.geo);
	json_object *root, *arr, *wear, *snap, *v;
	uint64_t *erases = calloc(nd, sizeof(*erases)), *sn = NULL;
	int rc = 0;

	if (!erases)
		return -ENOMEM;
	blox_nand_dev_die_erases(d->dev, erases);
	fbx_wear_update(d->rm, erases);
	if (!d->alloc_path[0] || access(d->alloc_path, F_OK)) {
		/* Nothing saved: the first check counts erases from now. */
		fbx_wear_state_set(d->rm, 0, 0, 0, erases);
		free(erases);
		return 0;
	}
	root = json_object_from_file(d->alloc_path);
	if (!root || !json_object_object_get_ex(root, "vssds", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		rc = blox_fail(err, errlen, "%s: not a vSSD record of device %s (%s)",
			       d->alloc_path, d->cfg.name, json_util_get_last_err());
		goto out;
	}
	for (size_t i = 0; !rc && i < json_object_array_length(arr); i++)
		rc = load_vssd(p, d, json_object_array_get_idx(arr, i), i, err, errlen);
	if (!rc && json_object_object_get_ex(root, "migrations", &v))
		prov_mig_ended_load(p, d->cfg.name, v);
	if (!rc && json_object_object_get_ex(root, "wear", &wear) &&
	    json_object_object_get_ex(wear, "snapshot", &snap) &&
	    json_object_is_type(snap, json_type_array) && json_object_array_length(snap) == nd &&
	    (sn = calloc(nd, sizeof(*sn)))) {
		double next = 0;
		uint64_t checks = 0, swaps = 0;

		for (uint32_t i = 0; i < nd; i++)
			sn[i] = (uint64_t)json_object_get_int64(json_object_array_get_idx(snap, i));
		if (json_object_object_get_ex(wear, "next_check", &v))
			next = json_object_get_double(v);
		if (json_object_object_get_ex(wear, "checks", &v))
			checks = (uint64_t)json_object_get_int64(v);
		if (json_object_object_get_ex(wear, "swaps", &v))
			swaps = (uint64_t)json_object_get_int64(v);
		fbx_wear_state_set(d->rm, next, checks, swaps, sn);
	}
out:
	free(sn);
	free(erases);
	json_object_put(root);
	return rc;
}

/* ---- Devices ---- */

int prov_device_create(struct blox_prov *p, const struct blox_cfg_device *cd, char *err,
		       size_t errlen)
{
	struct prov_device *d;
	char path[4200] = "", file[64];
	bool fresh = false; /* its flash file is new: removed if the create fails */
	int rc;

	if (blox_dev_find(&p->registry, cd->name))
		return blox_fail(err, errlen, "device %s: exists already", cd->name), -EEXIST;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	TAILQ_INIT(&d->vssds);
	d->cfg = *cd;
	d->cap = prov_cap_of_device(cd);
	if (!cd->store_ram) {
		snprintf(file, sizeof(file), "dev-%s.nand", cd->name);
		if ((rc = prov_data_file(p, file, path, sizeof(path), err, errlen)))
			goto fail;
		snprintf(file, sizeof(file), "dev-%s.vssd.json", cd->name);
		if ((rc = prov_data_file(p, file, d->alloc_path, sizeof(d->alloc_path), err,
					 errlen)))
			goto fail;
		fresh = access(path, F_OK) != 0;
	}
	rc = fbx_rm_create(&cd->nand.geo, &cd->fbx, &d->rm);
	if (rc) {
		blox_fail(err, errlen, "device %s: %s", cd->name, strerror(-rc));
		goto fail;
	}
	fresh = !cd->store_ram && access(path, F_OK) != 0;
	d->reactor = prov_place(p, cd->reactor);
	rc = blox_nand_dev_open_home(cd->name, &cd->nand, cd->store_ram ? NULL : path,
				     prov_home(p, d->reactor), p->tgt->base, p->tgt->clock,
				     &d->dev);
	if (!rc)
		/* Before any namespace is on it: faults on demand by its name and die. */
		blox_nand_dev_set_faults(d->dev, p->tgt->faults);
	if (!rc)
		blox_log(p->log, BLOX_LOG_INFO, "device %s: %s%s, on reactor %u", cd->name,
			 cd->store_ram ? "flash in RAM" : fresh ? "store file created: "
								 : "store file opened: ",
			 cd->store_ram ? "" : path, d->reactor);
	if (rc) {
		char need[32];

		if (rc == -EFBIG)
			blox_fail(err, errlen,
				  "device %s: its flash file of %s is larger than the filesystem "
				  "of %s allows (%s)",
				  cd->name, prov_cap_bytes_str(d->cap.bytes, need, sizeof(need)),
				  p->data_dir, strerror(-rc));
		else if (rc == -EINVAL && !fresh)
			blox_fail(err, errlen,
				  "device %s: its store file %s holds flash of another geometry "
				  "(left by an earlier device %s made with other options, or not a "
				  "store file): create it with the options it was made with, or "
				  "remove the file (its data is lost) and create it again",
				  cd->name, path, cd->name);
		else
			blox_fail(err, errlen, "device %s: %s", cd->name, strerror(-rc));
		goto fail;
	}
	rc = device_load(p, d, err, errlen);
	if (rc) {
		blox_nand_dev_put(d->dev);
		goto fail;
	}
	/* The registry holds it from now on. */
	rc = blox_dev_register(&p->registry, d->dev);
	blox_nand_dev_put(d->dev);
	if (rc) {
		blox_fail(err, errlen, "device %s: %s", cd->name, strerror(-rc));
		goto fail;
	}
	TAILQ_INSERT_TAIL(&p->devices, d, link);
	return 0;
fail:
	device_free(d);
	if (fresh)
		unlink(path);
	return rc;
}

int prov_device_delete(struct blox_prov *p, const char *name, bool keep_store, char *store,
		       size_t len)
{
	struct prov_device *d = prov_device_find(p, name);
	char path[4200] = "", file[64];

	if (store && len)
		store[0] = '\0';
	if (!d)
		return -ENOENT;
	if (!TAILQ_EMPTY(&d->vssds))
		return -EBUSY;
	if (!d->cfg.store_ram) {
		snprintf(file, sizeof(file), "dev-%s.nand", name);
		if (prov_data_file(p, file, path, sizeof(path), NULL, 0))
			path[0] = '\0';
	}
	TAILQ_REMOVE(&p->devices, d, link);
	blox_dev_unregister(&p->registry, d->dev);
	/*
	 * Its flash goes with it: a create of the same name would otherwise
	 * take the old flash back (same geometry) or fail (another one).
	 */
	if (!keep_store) {
		if (path[0] && unlink(path) && errno != ENOENT)
			blox_log(p->log, BLOX_LOG_WARN, "device %s: removing %s: %s", name, path,
				 strerror(errno));
		if (d->alloc_path[0])
			unlink(d->alloc_path);
	}
	blox_log(p->log, BLOX_LOG_INFO, "device %s deleted; %s%s%s", name,
		 !path[0] ? "its flash was in RAM" : keep_store ? "its store file stays: "
								 : "its store file removed: ",
		 path, keep_store && path[0] ? " (with its vSSD record)" : "");
	if (store && len)
		snprintf(store, len, "%s", path);
	device_free(d);
	return 0;
}

int prov_device_destroy(struct blox_prov *p, const char *name)
{
	return prov_device_delete(p, name, false, NULL, 0);
}

/* ---- Holds ---- */

int prov_vssd_plan(struct blox_prov *p, struct prov_device *d, const char *nqn,
		   const struct blox_cfg_ns *cn, struct fbx_alloc *out, struct prov_vssd **held,
		   bool *exhausted, char *err, size_t errlen)
{
	struct fbx_ask ask = { .iso = cn->iso,
			       .count = cn->iso_count,
			       .units = cn->size / FTL_UNIT };
	struct prov_vssd *v = prov_vssd_find(d, nqn, cn->nsid);
	char why[200];
	int rc;

	(void)p;
	*held = NULL;
	*exhausted = false;
	if (v) {
		/* Its flash from before: exactly that, if it still matches the ask. */
		fbx_owner_alloc(d->rm, v->id, out);
		out->units = ftl_capacity_for(&cn->ftl, &d->cfg.nand.geo, out->res.nr_dies,
					      out->res.nr_blocks);
		if (out->iso != cn->iso || (cn->iso_count && cn->iso != FBX_SOFTWARE &&
					    cn->iso_count != (cn->iso == FBX_CHANNEL
								      ? out->res.nr_dies /
									d->cfg.nand.geo.dies_per_channel
								      : out->res.nr_dies)))
			return blox_fail(err, errlen,
					 "%s namespace %u: device %s holds %s flash for it (%u dies) "
					 "from before, not %s:%u; delete the namespace to change it",
					 nqn, cn->nsid, d->cfg.name, fbx_isolation_name(out->iso),
					 out->res.nr_dies, fbx_isolation_name(cn->iso),
					 cn->iso_count);
		if (ask.units > out->units)
			return blox_fail(err, errlen,
					 "%s namespace %u: its flash on device %s holds %llu bytes, "
					 "less than the %llu asked",
					 nqn, cn->nsid, d->cfg.name,
					 (unsigned long long)out->units * FTL_UNIT,
					 (unsigned long long)cn->size);
		*held = v;
		return 0;
	}
	rc = fbx_plan(d->rm, &ask, &cn->ftl, out, why, sizeof(why));
	if (rc) {
		*exhausted = rc == -ENOSPC;
		return blox_fail(err, errlen, "%s namespace %u: device %s: %s", nqn, cn->nsid,
				 d->cfg.name, why);
	}
	return 0;
}

int prov_vssd_take(struct blox_prov *p, struct prov_device *d, const char *nqn, uint32_t nsid,
		   const struct fbx_alloc *a, struct prov_vssd *held, uint32_t *owner, char *err,
		   size_t errlen)
{
	struct prov_vssd *v = held;
	char why[200];
	int rc;

	if (v) {
		v->claimed = true;
		*owner = v->id;
		return 0;
	}
	v = vssd_add(d, nqn, nsid);
	if (!v)
		return blox_fail(err, errlen, "out of memory"), -ENOMEM;
	rc = fbx_take(d->rm, v->id, a, why, sizeof(why));
	if (!rc) {
		/* New to it: nothing of an earlier owner may be read back. */
		rc = blox_nand_dev_erase(d->dev, a->res.dies, a->res.nr_dies, a->res.first_block,
					 a->res.nr_blocks);
		if (rc)
			snprintf(why, sizeof(why), "erasing its flash: %s", strerror(-rc));
	}
	if (!rc)
		rc = prov_device_save(p, d);
	if (rc) {
		if (why[0] == '\0')
			snprintf(why, sizeof(why), "%s", strerror(-rc));
		prov_vssd_drop(d, v);
		return blox_fail(err, errlen, "%s namespace %u: device %s: %s", nqn, nsid,
				 d->cfg.name, why),
		       rc;
	}
	v->claimed = true;
	*owner = v->id;
	return 0;
}

void prov_vssd_free(struct blox_prov *p, struct prov_device *d, uint32_t owner, bool erase)
{
	struct prov_vssd *v;
	struct fbx_alloc a;

	struct prov_mig *m;

	v = prov_vssd_by_id(d, owner);
	if (!v)
		return;
	/* Its migration ends with it (its backend, and so its FTL, is gone). */
	if ((m = prov_mig_of(p, d->cfg.name, owner))) {
		m->state = PM_CANCELLED;
		m->ftl_active = false;
		blox_log(p->log, BLOX_LOG_INFO, "migration %u: %s namespace %u is gone", m->id,
			 v->nqn, v->nsid);
	}
	if (erase && fbx_owner_alloc(d->rm, owner, &a)) {
		int rc = blox_nand_dev_erase(d->dev, a.res.dies, a.res.nr_dies,
					     a.res.first_block, a.res.nr_blocks);

		if (rc)
			blox_log(p->log, BLOX_LOG_WARN,
				 "device %s: erasing the flash of %s namespace %u: %s", d->cfg.name,
				 v->nqn, v->nsid, strerror(-rc));
	}
	prov_vssd_drop(d, v);
	prov_device_save(p, d);
}

void prov_dies_release(struct blox_prov *p, struct prov_dies *dies)
{
	struct prov_device *d;

	if (!dies->dev[0] || !(d = prov_device_find(p, dies->dev)))
		return;
	prov_vssd_free(p, d, dies->owner, true);
	dies->dev[0] = '\0';
}

void prov_devices_settle(struct blox_prov *p)
{
	struct prov_device *d;
	struct prov_vssd *v, *next;

	TAILQ_FOREACH(d, &p->devices, link)
		for (v = TAILQ_FIRST(&d->vssds); v; v = next) {
			next = TAILQ_NEXT(v, link);
			if (v->claimed)
				continue;
			blox_log(p->log, BLOX_LOG_WARN,
				 "device %s: %s namespace %u is configured no more; its flash is "
				 "erased and free again",
				 d->cfg.name, v->nqn, v->nsid);
			prov_vssd_free(p, d, v->id, true);
		}
}

void prov_devices_faults_cleared(struct blox_prov *p)
{
	struct prov_device *d;

	TAILQ_FOREACH(d, &p->devices, link)
		blox_nand_dev_offline_check(d->dev);
}
