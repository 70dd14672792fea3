/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BloxAdmin handlers of namespaces. A create copies the request into the
 * typed namespace parameters (struct blox_ns_params) field by field, by
 * the names the config file uses too, and resolves them with the same
 * checks (params.c), so the API and the file accept the same things; the
 * provisioning service then makes it (adm_ns_async.c), off the loop when
 * that is slow. A delete detaches the
 * namespace (hosts hear of it at once) and answers once its last command
 * is done, the state is written, its backend is gone and its store file
 * removed (adm_ns_async.c).
 */
#include "adm_internal.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * Bytes the FTL of @rec holds on @fa: ftl_capacity_for() of its dies and
 * blocks at the namespace's over-provisioning. Worked out here rather
 * than taken from fa->units: an allocation read back from the state file
 * (a restart) names its dies and blocks only, and its units stay 0.
 */
static uint64_t vssd_capacity(const struct prov_ns_rec *rec, const struct fbx_alloc *fa)
{
	struct blox_cfg_ns *cn = malloc(sizeof(*cn));
	uint64_t units = fa->units;
	char err[256];

	if (cn && !blox_ns_resolve(&rec->params, "namespace", cn, err, sizeof(err)))
		units = ftl_capacity_for(&cn->ftl, &rec->dev->cfg.nand.geo, fa->res.nr_dies,
					 fa->res.nr_blocks);
	free(cn);
	return units * FTL_UNIT;
}

void adm_store_usage(const char *path, uint64_t *bytes, uint64_t *disk)
{
	struct stat st;

	*bytes = *disk = 0;
	if (path && path[0] && !stat(path, &st)) {
		*bytes = (uint64_t)st.st_size;
		*disk = (uint64_t)st.st_blocks * 512;
	}
}

/*
 * Its reservations: type, generation, PTPL and each registrant with the
 * host NQNs of the controllers connected with its host identifier (an
 * operator knows hosts by NQN). Without memory, the registrants are left
 * out.
 */
static void resv_msg(const struct nvmf_ns *ns, Blox__Admin__Namespace *m, struct adm_ns_buf *b)
{
	struct nvmf_resv_view v;
	const struct nvmf_ctrl *c;
	size_t nc = adm_nr_ctrls(ns->subsys);

	nvmf_ns_resv_view(ns, &v);
	blox__admin__reservations__init(&b->resv);
	b->resv.generation = v.gen;
	b->resv.type = v.rtype;
	b->resv.type_name = (char *)nvmf_resv_type_name(v.rtype);
	b->resv.ptpl = v.ptpl;
	m->reservations = &b->resv;
	if (!v.nr)
		return;
	b->regs = calloc(v.nr, sizeof(*b->regs));
	b->regp = calloc(v.nr, sizeof(*b->regp));
	b->ids = calloc(v.nr, sizeof(*b->ids));
	b->nqns = calloc(v.nr * nc + 1, sizeof(*b->nqns));
	if (!b->regs || !b->regp || !b->ids || !b->nqns)
		return;
	for (uint32_t i = 0; i < v.nr; i++) {
		Blox__Admin__Registrant *g = &b->regs[i];
		uint8_t id[16];
		bool holder;

		blox__admin__registrant__init(g);
		nvmf_ns_resv_registrant(ns, i, id, &g->key, &holder);
		g->holder = holder;
		blox_uuid_str(id, b->ids[i]);
		g->hostid = b->ids[i];
		g->hostnqns = b->nqns + i * nc;
		TAILQ_FOREACH(c, &ns->subsys->ctrls, link)
			if (!memcmp(c->hostid, id, 16) && g->n_hostnqns < nc)
				g->hostnqns[g->n_hostnqns++] = (char *)c->hostnqn;
		b->regp[i] = g;
	}
	b->resv.registrants = b->regp;
	b->resv.n_registrants = v.nr;
}

/* A zoned namespace's zones: their geometry and how many are in each state. */
static void zones_msg(const struct nvmf_ns *ns, Blox__Admin__Namespace *m, struct adm_ns_buf *b)
{
	static const uint8_t filters[] = { 1, 2, 3, 4, 5, 6, 7 }; /* Report Zones' filters, by state */
	uint32_t *counts[] = { &b->zones.empty,	 &b->zones.implicitly_open,
			       &b->zones.explicitly_open, &b->zones.closed,
			       &b->zones.full,	 &b->zones.read_only,
			       &b->zones.offline };
	struct blox_bdev_zone_info zi;

	if (!blox_bdev_zone_info(ns->bdev, &zi))
		return;
	blox__admin__zone_summary__init(&b->zones);
	b->zones.zone_size = zi.zone_size * ns->bdev->block_size;
	b->zones.zone_capacity = zi.zone_cap * ns->bdev->block_size;
	b->zones.zones = zi.nr_zones;
	b->zones.max_open = zi.max_open;
	b->zones.max_active = zi.max_active;
	for (size_t i = 0; i < sizeof(filters); i++)
		*counts[i] = blox_bdev_zone_report(ns->bdev, 0, filters[i], NULL, 0);
	m->zones = &b->zones;
}

void adm_ns_buf_free(struct adm_ns_buf *b)
{
	free(b->params);
	free(b->regs);
	free(b->regp);
	free(b->ids);
	free(b->nqns);
}

void adm_ns_msg(const struct nvmf_ns *ns, Blox__Admin__Namespace *m, struct adm_ns_buf *b)
{
	const struct prov_ns_rec *rec = prov_ns_rec(ns);
	json_object *o = rec ? cfg_ns_json(&rec->params) : NULL;

	memset(b, 0, sizeof(*b));
	b->params = o ? strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN))
		      : NULL;
	json_object_put(o);
	blox__admin__namespace__init(m);
	m->nqn = (char *)ns->subsys->nqn;
	m->nsid = ns->nsid;
	m->backend = (char *)ns->bdev->ops->name;
	m->size = ns->bdev->size;
	m->block_size = ns->bdev->block_size;
	blox_uuid_str(ns->uuid, b->uuid);
	m->uuid = b->uuid;
	m->inflight = ns->inflight;
	m->ana_group = ns->anagrpid;
	m->params_json = b->params ? b->params : (char *)"";
	m->device = rec && rec->dev ? rec->dev->cfg.name : (char *)"";
	adm_store_usage(rec ? rec->store_path : NULL, &m->store_bytes, &m->store_disk_bytes);
	blox__admin__vssd_alloc__init(&b->alloc);
	if (rec && rec->dev && fbx_owner_alloc(rec->dev->rm, rec->owner, &b->fa)) {
		b->alloc.isolation = (char *)fbx_isolation_name(b->fa.iso);
		b->alloc.n_dies = b->fa.res.nr_dies;
		b->alloc.dies = b->fa.res.dies;
		b->alloc.first_block = b->fa.res.first_block;
		b->alloc.nr_blocks = b->fa.res.nr_blocks;
		b->alloc.capacity = vssd_capacity(rec, &b->fa);
		m->alloc = &b->alloc;
	}
	resv_msg(ns, m, b);
	zones_msg(ns, m, b);
}

int adm_ns_array_fill(struct adm_ns_array *arr, const struct nvmf_subsys *only,
		      const struct nvmf_tgt *tgt)
{
	const struct nvmf_subsys *s;
	const struct nvmf_ns *ns;
	size_t n = 0;

	TAILQ_FOREACH(s, &tgt->subsystems, link)
		if (!only || s == only)
			TAILQ_FOREACH(ns, &s->namespaces, link)
				n++;
	arr->m = calloc(n + 1, sizeof(*arr->m));
	arr->p = calloc(n + 1, sizeof(*arr->p));
	arr->buf = calloc(n + 1, sizeof(*arr->buf));
	arr->n = 0;
	if (!arr->m || !arr->p || !arr->buf)
		return -ENOMEM;
	TAILQ_FOREACH(s, &tgt->subsystems, link)
		if (!only || s == only)
			TAILQ_FOREACH(ns, &s->namespaces, link) {
				adm_ns_msg(ns, &arr->m[arr->n], &arr->buf[arr->n]);
				arr->p[arr->n] = &arr->m[arr->n];
				arr->n++;
			}
	return 0;
}

void adm_ns_array_free(struct adm_ns_array *arr)
{
	free(arr->m);
	free(arr->p);
	for (size_t i = 0; arr->buf && i < arr->n; i++)
		adm_ns_buf_free(&arr->buf[i]);
	free(arr->buf);
}

/*
 * The fields of table @t that the protobuf message @m sets (a number not
 * 0, a Toggle not DEFAULT, a string not empty), found by name, into
 * @params with their bits. -EINVAL with a reason for a string too long.
 */
int adm_params_from_proto(const struct blox_param_table *t, const ProtobufCMessage *m,
			  const char *where, void *params, char *err, size_t errlen)
{
	char *base = params;

	for (size_t i = 0; m && i < t->n; i++) {
		const struct blox_param_field *f = &t->fields[i];
		const ProtobufCFieldDescriptor *fd =
			protobuf_c_message_descriptor_get_field_by_name(m->descriptor, f->key);
		const char *v;

		if (!fd)
			continue;
		v = (const char *)m + fd->offset;
		if (f->kind == BLOX_PK_U32 && fd->type == PROTOBUF_C_TYPE_UINT32) {
			if (!*(const uint32_t *)v)
				continue;
			*(uint32_t *)(base + f->off) = *(const uint32_t *)v;
		} else if (f->kind == BLOX_PK_BOOL && fd->type == PROTOBUF_C_TYPE_ENUM) {
			int tg = *(const int *)v;

			if (tg != BLOX__ADMIN__TOGGLE__TOGGLE_ON &&
			    tg != BLOX__ADMIN__TOGGLE__TOGGLE_OFF)
				continue;
			*(bool *)(base + f->off) = tg == BLOX__ADMIN__TOGGLE__TOGGLE_ON;
		} else if (f->kind == BLOX_PK_STR && fd->type == PROTOBUF_C_TYPE_STRING) {
			const char *str = *(const char *const *)v;

			if (!str || !str[0])
				continue;
			if (strlen(str) >= f->len)
				return blox_fail(err, errlen, "%s.%s: longer than %zu bytes",
						 where, f->key, f->len - 1);
			snprintf(base + f->off, f->len, "%s", str);
		} else {
			continue;
		}
		*blox_params_set(params) |= 1u << i;
	}
	return 0;
}

/* The request as namespace parameters, resolved into @cn. */
static int ns_from_request(const Blox__Admin__NamespaceCreateRequest *in, uint32_t nsid,
			   struct blox_cfg_ns *cn, char *err, size_t errlen)
{
	struct blox_ns_params *p = calloc(1, sizeof(*p));
	int rc;

	if (!p)
		return -ENOMEM;
	p->nsid = nsid;
	rc = -EINVAL;
	if (strlen(in->backend) >= sizeof(p->backend)) {
		blox_fail(err, errlen, "namespace.backend: '%s' is not one of ram, null, "
			  "nand, nand-timing, zns", in->backend);
		goto out;
	}
	if (in->zns) {
		p->has_zns = true;
		p->zns.zone_size = in->zns->zone_size;
		p->zns.max_open = in->zns->max_open;
		p->zns.max_active = in->zns->max_active;
	}
	snprintf(p->backend, sizeof(p->backend), "%s", in->backend[0] ? in->backend : "nand");
	p->size = in->size;
	p->block_size = in->block_size;
	p->overcommit = in->overcommit;
	p->ana_group = in->ana_group;
	if (in->uuid[0]) {
		if (blox_uuid_parse(in->uuid, p->uuid)) {
			blox_fail(err, errlen, "namespace.uuid: '%s' is not a UUID", in->uuid);
			goto out;
		}
		p->has_uuid = true;
	}
	if (strlen(in->device) >= sizeof(p->device) || strlen(in->isolation) >= sizeof(p->isolation)) {
		blox_fail(err, errlen, "namespace.%s: too long",
			  strlen(in->device) >= sizeof(p->device) ? "device" : "isolation");
		goto out;
	}
	snprintf(p->device, sizeof(p->device), "%s", in->device);
	snprintf(p->isolation, sizeof(p->isolation), "%s", in->isolation);
	p->has_nand = in->nand != NULL;
	p->has_ftl = in->ftl != NULL;
	if ((rc = adm_params_from_proto(&blox_nand_table, in->nand ? &in->nand->base : NULL,
					"namespace.nand", &p->nand, err, errlen)) ||
	    (rc = adm_params_from_proto(&blox_ftl_table, in->ftl ? &in->ftl->base : NULL,
					"namespace.ftl", &p->ftl, err, errlen)))
		goto out;
	p->has_qos = in->qos != NULL;
	if ((rc = adm_params_from_proto(&blox_qos_table, in->qos ? &in->qos->base : NULL,
					"namespace.qos", &p->qos, err, errlen)))
		goto out;
	/* Empty objects are no objects (as a request without them). */
	p->has_nand &= p->nand.set != 0;
	p->has_ftl &= p->ftl.set != 0;
	p->has_qos &= p->qos.set != 0;
	rc = blox_ns_resolve(p, "namespace", cn, err, errlen);
out:
	free(p);
	return rc;
}

/*
 * Record why @nsid of @nqn cannot be created or deleted now, if it is
 * being made (status @creating) or torn down.
 */
static bool refuse_claimed(struct blox_admin *a, struct adm_req *r, const char *nqn,
			   uint32_t nsid, enum adm_status creating)
{
	const struct adm_claim *c = adm_claim_find(a, nqn, nsid);

	if (!c)
		return false;
	if (c->deleting)
		adm_fail(r, ADM_S_FAILED_PRECONDITION,
			 "namespace %u of %s is still being deleted (its flash is being "
			 "removed); try again when that is done", nsid, nqn);
	else
		adm_fail(r, creating, "namespace %u of %s is being created", nsid, nqn);
	return true;
}

static void m_create_namespace(ADM_SVC *svc, const Blox__Admin__NamespaceCreateRequest *in,
			       Blox__Admin__Namespace_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct nvmf_subsys *s = adm_find_subsys(a, ADM_REQ(d), in->nqn);
	struct blox_cfg_ns *cn;
	char err[512];
	uint32_t nsid = in->nsid;
	int rc;

	if (!s)
		ADM_FAILED(closure, d);
	if (a->stopping)
		ADM_FAIL(closure, d, ADM_S_UNAVAILABLE, "bloxd is shutting down");
	if (nsid > NVMF_MAX_NS)
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT, "nsid %u: must be 1..%u",
			 nsid, NVMF_MAX_NS);
	if (nsid && nvmf_ns_find(s, nsid))
		ADM_FAIL(closure, d, ADM_S_ALREADY_EXISTS,
			 "namespace %u already exists in %s", nsid, s->nqn);
	if (nsid && refuse_claimed(a, ADM_REQ(d), s->nqn, nsid, ADM_S_ALREADY_EXISTS))
		ADM_FAILED(closure, d);
	if (!nsid) {
		for (nsid = 1; nsid <= NVMF_MAX_NS && (nvmf_ns_find(s, nsid) ||
						       adm_claim_find(a, s->nqn, nsid));
		     nsid++)
			;
		if (nsid > NVMF_MAX_NS)
			ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED,
				 "%s has %u namespaces, the limit", s->nqn, NVMF_MAX_NS);
	}
	cn = malloc(sizeof(*cn));
	rc = cn ? ns_from_request(in, nsid, cn, err, sizeof(err)) : -ENOMEM;
	if (rc) {
		free(cn);
		ADM_FAIL(closure, d, rc == -ENOMEM ? ADM_S_RESOURCE_EXHAUSTED
						   : ADM_S_INVALID_ARGUMENT,
			 "%s", rc == -ENOMEM ? "out of memory" : err);
	}
	adm_ns_create(ADM_REQ(d), s, cn);
	free(cn);
}

static struct nvmf_ns *find_ns(struct blox_admin *a, struct adm_req *r,
			       const char *nqn, uint32_t nsid)
{
	struct nvmf_subsys *s = adm_find_subsys(a, r, nqn);
	struct nvmf_ns *ns;

	if (!s)
		return NULL;
	ns = nvmf_ns_find(s, nsid);
	if (!ns)
		adm_fail(r, ADM_S_NOT_FOUND, "namespace %u not found in %s", nsid, nqn);
	return ns;
}

static void m_delete_namespace(ADM_SVC *svc, const Blox__Admin__NamespaceRef *in,
			       Blox__Admin__Empty_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct nvmf_ns *ns = find_ns(a, ADM_REQ(d), in->nqn, in->nsid);
	struct adm_teardown *t;
	uint32_t nc;

	if (!ns) {
		refuse_claimed(a, ADM_REQ(d), in->nqn, in->nsid, ADM_S_FAILED_PRECONDITION);
		ADM_FAILED(closure, d);
	}
	nc = adm_nr_ctrls(ns->subsys);
	if (nc && !in->force)
		ADM_FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
			 "namespace %u of %s is in use: %u controllers connected; "
			 "force to delete it under them", ns->nsid, in->nqn, nc);
	t = adm_teardown_new(ADM_REQ(d), 1);
	if (!t)
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	blox_log(a->log, BLOX_LOG_INFO, "admin: namespace %u of %s deleted%s",
		 ns->nsid, in->nqn, nc ? " (forced)" : "");
	adm_teardown_add(t, ns);
	adm_teardown_commit(t);
}

static void m_list_namespaces(ADM_SVC *svc, const Blox__Admin__NamespaceListRequest *in,
			      Blox__Admin__NamespaceList_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	Blox__Admin__NamespaceList out = BLOX__ADMIN__NAMESPACE_LIST__INIT;
	struct nvmf_subsys *s = NULL;
	struct adm_ns_array arr = { 0 };

	if (in->nqn[0] && !(s = adm_find_subsys(a, ADM_REQ(d), in->nqn)))
		ADM_FAILED(closure, d);
	if (adm_ns_array_fill(&arr, s, a->tgt)) {
		adm_ns_array_free(&arr);
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	out.n_namespaces = arr.n;
	out.namespaces = arr.p;
	closure(&out, d);
	adm_ns_array_free(&arr);
}

static void m_show_namespace(ADM_SVC *svc, const Blox__Admin__NamespaceRef *in,
			     Blox__Admin__Namespace_Closure closure, void *d)
{
	struct nvmf_ns *ns = find_ns(ADM_OF(svc), ADM_REQ(d), in->nqn, in->nsid);
	Blox__Admin__Namespace out;
	struct adm_ns_buf b;

	if (!ns)
		ADM_FAILED(closure, d);
	adm_ns_msg(ns, &out, &b);
	closure(&out, d);
	adm_ns_buf_free(&b);
}

static void m_clear_reservations(ADM_SVC *svc, const Blox__Admin__NamespaceRef *in,
				 Blox__Admin__Namespace_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct nvmf_ns *ns = find_ns(a, ADM_REQ(d), in->nqn, in->nsid);
	Blox__Admin__Namespace out;
	struct adm_ns_buf b;
	struct nvmf_resv_view v;
	int rc;

	if (!ns)
		ADM_FAILED(closure, d);
	nvmf_ns_resv_view(ns, &v);
	rc = nvmf_ns_resv_clear(ns);
	if (rc)
		ADM_FAIL(closure, d, ADM_S_INTERNAL, "reservations of namespace %u of %s: %s",
			 ns->nsid, in->nqn, strerror(-rc));
	blox_log(a->log, BLOX_LOG_INFO,
		 "admin: reservations of namespace %u of %s cleared (%u registrants, type %u)",
		 ns->nsid, in->nqn, v.nr, v.rtype);
	adm_ns_msg(ns, &out, &b);
	closure(&out, d);
	adm_ns_buf_free(&b);
}

void adm_m_ns_init(ADM_SVC *svc)
{
	svc->create_namespace = m_create_namespace;
	svc->delete_namespace = m_delete_namespace;
	svc->list_namespaces = m_list_namespaces;
	svc->show_namespace = m_show_namespace;
	svc->clear_reservations = m_clear_reservations;
}
