/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Namespaces made and torn down without stalling the event loop, so that
 * the other namespaces' I/O goes on meanwhile.
 *
 * Create: a "nand" namespace on a device of its own is slow to make (its
 * store file, then the FTL's format or recovery, synchronous store I/O
 * throughout). That part runs on a worker thread (adm_work.c) on a backend
 * nobody else knows of yet; the loop then binds it (real-time driver,
 * kick event), attaches the namespace (AEN), writes the state and
 * answers. Other backends are made at once, on the loop.
 *
 * Delete (of a namespace, or of a subsystem with its namespaces): the
 * namespace is detached at once (AEN; new commands fail) and the state
 * written without it. Once its last command is done, the backend is
 * unbound from the loop and a worker runs the FTL's clean stop on the
 * device by itself, the checkpoint, the store close and the store file's
 * removal; the answer comes when all of that is done.
 *
 * Meanwhile the nsid is claimed: a create of it is refused (ALREADY_EXISTS
 * while it is being made, FAILED_PRECONDITION while its flash is being
 * removed), a delete of it or of its subsystem too. bloxd's shutdown
 * waits until no claim is left (blox_admin_busy()); a create that
 * finishes after the shutdown began is undone (backend destroyed, store
 * file removed) and answered UNAVAILABLE, so no half-made namespace and
 * no store file the state does not list are left behind.
 */
#include "adm_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- Claims ---- */

static void claim_take(struct blox_admin *a, struct adm_claim *c, const char *nqn,
		       uint32_t nsid, bool deleting)
{
	snprintf(c->nqn, sizeof(c->nqn), "%s", nqn);
	c->nsid = nsid;
	c->deleting = deleting;
	TAILQ_INSERT_TAIL(&a->claims, c, link);
}

static void claim_drop(struct blox_admin *a, struct adm_claim *c)
{
	TAILQ_REMOVE(&a->claims, c, link);
}

const struct adm_claim *adm_claim_find(const struct blox_admin *a, const char *nqn,
				       uint32_t nsid)
{
	const struct adm_claim *c;

	TAILQ_FOREACH(c, &a->claims, link)
		if (c->nsid == nsid && !strcmp(c->nqn, nqn))
			return c;
	return NULL;
}

bool adm_subsys_creating(const struct blox_admin *a, const char *nqn)
{
	const struct adm_claim *c;

	TAILQ_FOREACH(c, &a->claims, link)
		if (!c->deleting && !strcmp(c->nqn, nqn))
			return true;
	return false;
}

bool blox_admin_busy(const struct blox_admin *a)
{
	return a && !TAILQ_EMPTY(&a->claims);
}

void blox_admin_stop(struct blox_admin *a)
{
	if (a)
		a->stopping = true;
}

/* ---- Create ---- */

/* A create between its request and its answer (the request's r->priv). */
struct ns_create {
	struct adm_claim claim;
	struct prov_ns_plan plan; /* the provisioning service's, step by step */
	int rc;
	char err[1024];
};

static enum adm_status create_status(int rc)
{
	return rc == -EEXIST ? ADM_S_ALREADY_EXISTS
	       : rc == -EINVAL ? ADM_S_INVALID_ARGUMENT
			       : adm_status_from_errno(rc);
}

/* Record why the create failed: c->err when a step wrote it, else @rc. */
static void create_fail(struct adm_req *r, int rc)
{
	struct ns_create *c = r->priv;

	if (!c->err[0])
		snprintf(c->err, sizeof(c->err), "%s namespace %u: backend: %s", c->claim.nqn,
			 c->plan.cn.nsid, strerror(-rc));
	adm_fail(r, create_status(rc), "%s", c->err);
	blox_log(r->a->log, BLOX_LOG_WARN, "admin: namespace not created: %s", c->err);
}

/* Answer @msg (NULL: the failure recorded) and release the nsid. */
static void create_answer(struct adm_req *r, const ProtobufCMessage *msg)
{
	struct ns_create *c = r->priv;

	claim_drop(r->a, &c->claim);
	adm_closure(msg, r);
}

/* Attach the built namespace, write the state, answer. */
static int create_attach(struct adm_req *r, struct nvmf_subsys *s)
{
	struct ns_create *c = r->priv;
	Blox__Admin__Namespace out;
	struct nvmf_ns *ns;
	struct adm_ns_buf b;
	int rc;

	rc = prov_ns_attach(r->a->prov, s, &c->plan, &ns, c->err, sizeof(c->err));
	if (rc)
		return rc;
	blox_log(r->a->log, BLOX_LOG_INFO,
		 "admin: namespace %u (%s, %lu bytes) created in %s", ns->nsid,
		 c->plan.cn.backend, (unsigned long)c->plan.cn.size, s->nqn);
	if (!adm_persist(r)) {
		create_answer(r, NULL);
		return 0;
	}
	adm_ns_msg(ns, &out, &b);
	if (c->plan.warn[0])
		out.warning = c->plan.warn;
	create_answer(r, &out.base);
	adm_ns_buf_free(&b);
	return 0;
}

/* Worker: the backend, from nothing to a running FTL. */
static void create_work(void *arg)
{
	struct adm_req *r = arg;
	struct ns_create *c = r->priv;
	char why[256];

	c->rc = prov_ns_build(r->a->prov, &c->plan, why, sizeof(why));
	if (c->rc)
		snprintf(c->err, sizeof(c->err), "%s namespace %u: %s", c->claim.nqn,
			 c->plan.cn.nsid, why);
}

/* Worker: what a create made, gone again. */
static void undo_work(void *arg)
{
	struct adm_req *r = arg;
	struct ns_create *c = r->priv;

	prov_ns_discard(&c->plan);
}

static void undo_done(void *arg)
{
	create_answer(arg, NULL);
}

/* Undo a built backend (failure recorded in @r) off the loop, then answer. */
static void create_undo(struct adm_req *r)
{
	struct ns_create *c = r->priv;

	prov_ns_unbind(&c->plan);
	if (adm_work_start(r->a->base, undo_work, undo_done, r)) {
		undo_work(r);
		undo_done(r);
	}
}

static void create_done(void *arg)
{
	struct adm_req *r = arg;
	struct ns_create *c = r->priv;
	struct blox_admin *a = r->a;
	struct nvmf_subsys *s;
	int rc;

	if (c->rc) {
		create_fail(r, c->rc);
		create_answer(r, NULL);
		return;
	}
	if (a->stopping) {
		adm_fail(r, ADM_S_UNAVAILABLE, "bloxd is shutting down: namespace %u of %s "
			 "not created", c->plan.cn.nsid, c->claim.nqn);
		create_undo(r);
		return;
	}
	/* Deleted meanwhile? Look it up again. */
	s = nvmf_subsys_find(a->tgt, c->claim.nqn);
	if (!s) {
		adm_fail(r, ADM_S_NOT_FOUND, "subsystem %s went away", c->claim.nqn);
		create_undo(r);
		return;
	}
	rc = create_attach(r, s);
	if (rc) {
		create_fail(r, rc);
		create_undo(r);
	}
}

void adm_ns_create(struct adm_req *r, struct nvmf_subsys *s, const struct blox_cfg_ns *cn)
{
	struct blox_admin *a = r->a;
	struct ns_create *c = calloc(1, sizeof(*c));
	int rc;

	if (!c) {
		adm_fail(r, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
		adm_closure(NULL, r);
		return;
	}
	r->priv = c;
	claim_take(a, &c->claim, s->nqn, cn->nsid, false);
	rc = prov_ns_plan(a->prov, s, cn, true, &c->plan, c->err, sizeof(c->err));
	if (rc) {
		create_fail(r, rc);
		create_answer(r, NULL);
		return;
	}
	if (!prov_ns_slow(&c->plan)) {
		/* Quick to make: at once, on the loop. */
		create_work(r);
		rc = c->rc;
		/* Once attached, the answer is sent and @c is gone. */
		if (!rc && (rc = create_attach(r, s)))
			prov_ns_discard(&c->plan);
		if (rc) {
			create_fail(r, rc);
			create_answer(r, NULL);
		}
		return;
	}
	if (adm_work_start(a->base, create_work, create_done, r)) {
		/* No thread: the same work, here (the loop waits for it). */
		create_work(r);
		create_done(r);
	}
}

/* ---- Teardown ---- */

/* One namespace on its way out. */
struct adm_gone {
	struct adm_teardown *t;
	struct adm_claim claim;
	struct blox_bdev *bdev; /* once released (its last command done) */
	bool released;
	char *store; /* its store file, or NULL */
	struct prov_dies dies; /* its flash on a device, given back once the backend is gone */
};

struct adm_teardown {
	struct adm_req *r;
	struct blox_admin *a;
	size_t n;
	size_t left; /* namespaces not gone yet, plus a hold by commit */
	bool committed; /* the state without them is written (or failed) */
	bool keep_stores; /* it failed: the state file still lists their flash */
	struct adm_gone gone[];
};

struct adm_teardown *adm_teardown_new(struct adm_req *r, size_t n)
{
	struct adm_teardown *t = calloc(1, sizeof(*t) + n * sizeof(t->gone[0]));

	if (!t)
		return NULL;
	t->r = r;
	t->a = r->a;
	return t;
}

static void teardown_put(struct adm_teardown *t)
{
	if (--t->left)
		return;
	adm_answer_empty(t->r); /* or the failure recorded */
	free(t);
}

/* Worker (or loop, for a backend that cannot leave it). */
static void gone_work(void *arg)
{
	struct adm_gone *g = arg;

	blox_bdev_destroy(g->bdev);
	/* The state first: a crash before this leaves a file, not a hole. */
	if (g->store && !g->t->keep_stores)
		unlink(g->store);
}

static void gone_done(void *arg)
{
	struct adm_gone *g = arg;

	/* The state file lists it no more (else its flash stays held for it). */
	if (!g->t->keep_stores)
		prov_dies_release(g->t->a->prov, &g->dies);
	claim_drop(g->t->a, &g->claim);
	free(g->store);
	teardown_put(g->t);
}

static void gone_start(struct adm_gone *g)
{
	if (blox_bdev_ftl_unbind(g->bdev) &&
	    !adm_work_start(g->t->a->base, gone_work, gone_done, g))
		return;
	/* Not a backend that can leave the loop (quick to free), or no thread. */
	gone_work(g);
	gone_done(g);
}

static void gone_released(void *arg, struct blox_bdev *bdev)
{
	struct adm_gone *g = arg;

	g->bdev = bdev;
	g->released = true;
	if (g->t->committed)
		gone_start(g);
}

void adm_teardown_add(struct adm_teardown *t, struct nvmf_ns *ns)
{
	struct adm_gone *g = &t->gone[t->n++];

	g->t = t;
	claim_take(t->a, &g->claim, ns->subsys->nqn, ns->nsid, true);
	/* The namespace goes: its store path is ours now. */
	t->left++;
	g->store = prov_ns_delete(t->a->prov, ns, gone_released, g, &g->dies);
}

void adm_teardown_commit(struct adm_teardown *t)
{
	t->left++; /* hold: the loop below may see every one of them gone */
	t->keep_stores = !adm_persist(t->r);
	t->committed = true;
	for (size_t i = 0; i < t->n; i++)
		if (t->gone[i].released)
			gone_start(&t->gone[i]);
	teardown_put(t);
}
