/*
 * BloxAdmin handlers of namespaces. A create builds the JSON of a config
 * "namespaces" entry and runs it through the config parser, so the API
 * and the file accept the same things; the namespace is then made by
 * adm_ns_async.c, off the loop when that is slow. A delete detaches the
 * namespace (hosts hear of it at once) and answers once its last command
 * is done, the state is written, its backend is gone and its store file
 * removed (adm_ns_async.c).
 */
#include "adm_internal.h"
#include "mgmt.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void adm_ns_msg(const struct nvmf_ns *ns, Blox__Admin__Namespace *m, char uuid[37])
{
	blox__admin__namespace__init(m);
	m->nqn = (char *)ns->subsys->nqn;
	m->nsid = ns->nsid;
	m->backend = (char *)ns->bdev->ops->name;
	m->size = ns->bdev->size;
	m->block_size = ns->bdev->block_size;
	adm_uuid_str(ns->uuid, uuid);
	m->uuid = uuid;
	m->inflight = ns->inflight;
	m->params_json = ns->params ? ns->params : (char *)"";
	m->device = (char *)ns->device;
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
	arr->uuid = calloc(n + 1, sizeof(*arr->uuid));
	arr->n = 0;
	if (!arr->m || !arr->p || !arr->uuid)
		return -ENOMEM;
	TAILQ_FOREACH(s, &tgt->subsystems, link)
		if (!only || s == only)
			TAILQ_FOREACH(ns, &s->namespaces, link) {
				adm_ns_msg(ns, &arr->m[arr->n], arr->uuid[arr->n]);
				arr->p[arr->n] = &arr->m[arr->n];
				arr->n++;
			}
	return 0;
}

void adm_ns_array_free(struct adm_ns_array *arr)
{
	free(arr->m);
	free(arr->p);
	free(arr->uuid);
}

/* The request as JSON, without the defaults it leaves out. */
static void put_u(json_object *o, const char *k, uint64_t v)
{
	if (v)
		json_object_object_add(o, k, json_object_new_int64((int64_t)v));
}

static void put_s(json_object *o, const char *k, const char *v)
{
	if (v && v[0])
		json_object_object_add(o, k, json_object_new_string(v));
}

static void put_t(json_object *o, const char *k, Blox__Admin__Toggle t)
{
	if (t == BLOX__ADMIN__TOGGLE__TOGGLE_ON || t == BLOX__ADMIN__TOGGLE__TOGGLE_OFF)
		json_object_object_add(o, k,
				       json_object_new_boolean(t == BLOX__ADMIN__TOGGLE__TOGGLE_ON));
}

/* The request as a config "namespaces" entry: one parser checks both. */
static json_object *ns_request_json(const Blox__Admin__NamespaceCreateRequest *in,
				    uint32_t nsid)
{
	json_object *o = json_object_new_object();

	put_u(o, "nsid", nsid);
	json_object_object_add(o, "backend",
			       json_object_new_string(in->backend[0] ? in->backend : "nand"));
	json_object_object_add(o, "size", json_object_new_int64((int64_t)in->size));
	put_u(o, "block_size", in->block_size);
	put_s(o, "uuid", in->uuid);
	if (in->nand) {
		const Blox__Admin__NandParams *n = in->nand;
		json_object *j = json_object_new_object();

		put_u(j, "channels", n->channels);
		put_u(j, "dies_per_channel", n->dies_per_channel);
		put_u(j, "planes_per_die", n->planes_per_die);
		put_u(j, "blocks_per_plane", n->blocks_per_plane);
		put_u(j, "pages_per_block", n->pages_per_block);
		put_u(j, "page_size", n->page_size);
		put_u(j, "oob_size", n->oob_size);
		put_s(j, "cell", n->cell);
		put_u(j, "t_read_us", n->t_read_us);
		put_u(j, "t_prog_us", n->t_prog_us);
		put_u(j, "t_erase_us", n->t_erase_us);
		put_u(j, "bus_mbps", n->bus_mbps);
		put_u(j, "t_suspend_us", n->t_suspend_us);
		put_u(j, "t_resume_us", n->t_resume_us);
		put_t(j, "null_timing", n->null_timing);
		put_s(j, "suspend_policy", n->suspend_policy);
		put_t(j, "multi_plane", n->multi_plane);
		if (json_object_object_length(j))
			json_object_object_add(o, "nand", j);
		else
			json_object_put(j);
	}
	if (in->ftl) {
		const Blox__Admin__FtlParams *f = in->ftl;
		json_object *j = json_object_new_object();

		put_s(j, "store", f->store);
		put_u(j, "cmt_kib", f->cmt_kib);
		put_t(j, "mdc", f->mdc);
		put_u(j, "mdc_bytes", f->mdc_bytes);
		put_u(j, "mdc_min_run", f->mdc_min_run);
		put_t(j, "stream_separation", f->stream_separation);
		put_u(j, "op_percent", f->op_percent);
		put_s(j, "gc_policy", f->gc_policy);
		put_u(j, "write_buffer_pages", f->write_buffer_pages);
		put_u(j, "wl_threshold", f->wl_threshold);
		if (json_object_object_length(j))
			json_object_object_add(o, "ftl", j);
		else
			json_object_put(j);
	}
	return o;
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
	struct blox_cfg_ns cn;
	json_object *o;
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
	o = ns_request_json(in, nsid);
	rc = blox_config_parse_ns(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
				  &cn, err, sizeof(err));
	json_object_put(o);
	if (rc)
		ADM_FAIL(closure, d, rc == -ENOMEM ? ADM_S_RESOURCE_EXHAUSTED
						   : ADM_S_INVALID_ARGUMENT,
			 "%s", err);
	adm_ns_create(ADM_REQ(d), s, &cn);
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
	if (ns->device[0])
		ADM_FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
			 "namespace %u of %s is on shared device %s, whose die "
			 "split only the config file changes",
			 ns->nsid, in->nqn, ns->device);
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
	char uuid[37];

	if (!ns)
		ADM_FAILED(closure, d);
	adm_ns_msg(ns, &out, uuid);
	closure(&out, d);
}

void adm_m_ns_init(ADM_SVC *svc)
{
	svc->create_namespace = m_create_namespace;
	svc->delete_namespace = m_delete_namespace;
	svc->list_namespaces = m_list_namespaces;
	svc->show_namespace = m_show_namespace;
}
