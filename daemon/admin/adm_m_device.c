/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BloxAdmin handlers of devices: NAND devices that vSSDs share, made and
 * deleted at run time, and shown with their channel x die grid (the
 * owner of every die), free dies, wear per die and channel, the
 * imbalance and what the next swap check would do.
 */
#include "adm_internal.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A Device message and what it points into. */
struct dev_msg {
	Blox__Admin__Device m;
	Blox__Admin__DieInfo *die;
	Blox__Admin__DieInfo **diep;
	Blox__Admin__ChannelWear *ch;
	Blox__Admin__ChannelWear **chp;
	char (*owner)[NVME_NQN_LENGTH + 16];
	char *params;
	char next_swap[200];
};

static void dev_msg_free(struct dev_msg *x)
{
	free(x->die);
	free(x->diep);
	free(x->ch);
	free(x->chp);
	free(x->owner);
	free(x->params);
}

static int dev_msg_fill(const struct blox_prov *p, struct prov_device *d, struct dev_msg *x)
{
	const struct nand_geometry *g = &d->cfg.nand.geo;
	uint32_t nd = nand_dies(g), nch = g->channels;
	json_object *o = cfg_device_json(&d->cfg.params);
	const struct prov_vssd *v;
	struct fbx_swap sw;
	struct fbx_wear w;

	memset(x, 0, sizeof(*x));
	x->die = calloc(nd, sizeof(*x->die));
	x->diep = calloc(nd, sizeof(*x->diep));
	x->ch = calloc(nch, sizeof(*x->ch));
	x->chp = calloc(nch, sizeof(*x->chp));
	x->owner = calloc(nd, sizeof(*x->owner));
	x->params = o ? strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN)) : NULL;
	json_object_put(o);
	/* The wear as the store has it now. */
	if (!x->die || !x->diep || !x->ch || !x->chp || !x->owner || prov_device_wear_update(d))
		return -ENOMEM;
	blox__admin__device__init(&x->m);
	x->m.name = d->cfg.name;
	x->m.store = d->cfg.store_ram ? (char *)"ram" : (char *)"file";
	x->m.reactor = d->reactor;
	x->m.params_json = x->params ? x->params : (char *)"";
	x->m.channels = nch;
	x->m.dies_per_channel = g->dies_per_channel;
	x->m.raw_bytes = nand_capacity(g);
	x->m.free_dies = fbx_free_dies(d->rm);
	x->m.free_channels = fbx_free_channels(d->rm);
	x->m.spare_channel = fbx_rm_params(d->rm)->spare_channel &&
			     x->m.channels >= FBX_SPARE_MIN_CHANNELS;
	x->m.pool_dies = fbx_pool_dies(d->rm);
	x->m.pool_free_blocks = fbx_pool_free_blocks(d->rm);
	TAILQ_FOREACH(v, &d->vssds, link)
		x->m.vssds++;
	for (uint32_t i = 0; i < nd; i++) {
		Blox__Admin__DieInfo *di = &x->die[i];
		struct nand_die_stats die_st, *st = &die_st;
		uint32_t owner = fbx_die_owner(d->rm, i);
		struct fbx_alloc a;

		blox_nand_dev_die_stats(d->dev, i, &die_st);
		blox__admin__die_info__init(di);
		di->die = i;
		di->channel = i / g->dies_per_channel;
		if (owner == FBX_FREE) {
			di->owner = (char *)"free";
		} else if (owner == FBX_POOL) {
			di->owner = (char *)"pool";
			di->isolation = (char *)"software";
		} else {
			v = prov_vssd_by_id(d, owner);
			snprintf(x->owner[i], sizeof(x->owner[i]), "%s/%u", v ? v->nqn : "?",
				 v ? v->nsid : 0);
			di->owner = x->owner[i];
			if (fbx_owner_alloc(d->rm, owner, &a))
				di->isolation = (char *)fbx_isolation_name(a.iso);
		}
		di->wear = fbx_die_wear(d->rm, i, &di->erases_since_check);
		di->erases = (uint64_t)(di->wear * g->planes_per_die * g->blocks_per_plane + 0.5);
		if (st) {
			di->reads = st->ops[NAND_OP_READ];
			di->programs = st->ops[NAND_OP_PROGRAM];
			di->erase_ops = st->ops[NAND_OP_ERASE];
		}
		x->diep[i] = di;
	}
	x->m.n_dies = nd;
	x->m.dies = x->diep;
	for (uint32_t c = 0; c < nch; c++) {
		Blox__Admin__ChannelWear *cw = &x->ch[c];

		blox__admin__channel_wear__init(cw);
		cw->channel = c;
		cw->wear = fbx_channel_wear(d->rm, c, &cw->erases_since_check);
		for (uint32_t k = 0; k < g->dies_per_channel; k++)
			cw->free_dies += fbx_die_owner(d->rm, c * g->dies_per_channel + k) == FBX_FREE;
		x->chp[c] = cw;
	}
	x->m.n_channel_wear = nch;
	x->m.channel_wear = x->chp;
	fbx_wear_get(d->rm, &w);
	x->m.avg_wear = w.avg;
	x->m.max_wear = w.max;
	x->m.imbalance = w.imbalance;
	x->m.bound = 1.0 + fbx_rm_params(d->rm)->bound_permille / 1000.0;
	x->m.rated_pe = fbx_rm_params(d->rm)->rated_pe;
	x->m.rounds = w.rounds;
	x->m.check_step = w.check_step;
	x->m.next_check = w.next_check;
	x->m.checks = w.checks;
	x->m.swaps = w.swaps;
	if (fbx_swap_preview(d->rm, &sw))
		snprintf(x->next_swap, sizeof(x->next_swap), "swap: %s", sw.why);
	else
		snprintf(x->next_swap, sizeof(x->next_swap), "none: %s", sw.why);
	x->m.next_swap = x->next_swap;
	if (!d->cfg.store_ram) {
		char path[4200];

		snprintf(path, sizeof(path), "%s/dev-%s.nand", p->data_dir, d->cfg.name);
		adm_store_usage(path, &x->m.store_bytes, &x->m.store_disk_bytes);
	}
	return 0;
}

static struct prov_device *find_device(struct blox_admin *a, struct adm_req *r,
				       const char *name)
{
	struct prov_device *d = prov_device_find(a->prov, name);

	if (!d)
		adm_fail(r, ADM_S_NOT_FOUND, "device %s not found", name);
	return d;
}

static void m_create_device(ADM_SVC *svc, const Blox__Admin__DeviceCreateRequest *in,
			    Blox__Admin__Device_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct blox_device_params *p = calloc(1, sizeof(*p));
	struct blox_cfg_device *cd = calloc(1, sizeof(*cd));
	struct prov_device *dev;
	struct dev_msg x;
	char err[512], warn[512] = "";
	int rc = -ENOMEM;

	if (!p || !cd)
		goto fail;
	rc = -EINVAL;
	if (strlen(in->name) >= sizeof(p->name) || strlen(in->store) >= sizeof(p->store)) {
		blox_fail(err, sizeof(err), "device.%s: too long",
			  strlen(in->name) >= sizeof(p->name) ? "name" : "store");
		goto fail;
	}
	snprintf(p->name, sizeof(p->name), "%s", in->name);
	snprintf(p->store, sizeof(p->store), "%s", in->store);
	p->has_nand = in->nand != NULL;
	if ((rc = adm_params_from_proto(&blox_nand_table, in->nand ? &in->nand->base : NULL,
					"device.nand", &p->nand, err, sizeof(err))))
		goto fail;
	p->has_nand &= p->nand.set != 0;
	p->has_fbx = in->flashblox != NULL;
	if ((rc = adm_params_from_proto(&blox_fbx_table,
					in->flashblox ? &in->flashblox->base : NULL,
					"device.flashblox", &p->fbx, err, sizeof(err))))
		goto fail;
	p->has_fbx &= p->fbx.set != 0;
	p->overcommit = in->overcommit;
	p->reactor = in->reactor;
	if ((rc = blox_device_resolve(p, "device", cd, err, sizeof(err))) ||
	    (rc = prov_reactor_check(a->prov, cd->reactor, err, sizeof(err))) ||
	    (rc = prov_cap_admit_device(a->prov, cd, warn, sizeof(warn), err, sizeof(err))) ||
	    (rc = prov_device_create(a->prov, cd, err, sizeof(err))))
		goto fail;
	blox_log(a->log, BLOX_LOG_INFO, "admin: device %s created (%u channels x %u dies)",
		 cd->name, cd->nand.geo.channels, cd->nand.geo.dies_per_channel);
	free(p);
	free(cd);
	if (!adm_persist(ADM_REQ(d)))
		ADM_FAILED(closure, d);
	dev = prov_device_find(a->prov, in->name);
	if (!dev || dev_msg_fill(a->prov, dev, &x)) {
		dev_msg_free(&x);
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	if (warn[0])
		x.m.warning = warn;
	closure(&x.m, d);
	dev_msg_free(&x);
	return;
fail:
	free(p);
	free(cd);
	if (rc != -ENOMEM)
		blox_log(a->log, BLOX_LOG_WARN, "admin: device not created: %s", err);
	ADM_FAIL(closure, d,
		 rc == -EEXIST	 ? ADM_S_ALREADY_EXISTS
		 : rc == -EINVAL ? ADM_S_INVALID_ARGUMENT
				 : adm_status_from_errno(rc),
		 "%s", rc == -ENOMEM ? "out of memory" : err);
}

static void m_delete_device(ADM_SVC *svc, const Blox__Admin__DeviceRef *in,
			    Blox__Admin__Empty_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct prov_device *dev = find_device(a, ADM_REQ(d), in->name);
	Blox__Admin__Empty out = BLOX__ADMIN__EMPTY__INIT;
	uint32_t n = 0;
	const struct prov_vssd *v;

	if (!dev)
		ADM_FAILED(closure, d);
	TAILQ_FOREACH(v, &dev->vssds, link)
		n++;
	if (n)
		ADM_FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
			 "device %s has %u vSSD%s on it (namespace %u of %s first); delete them first",
			 in->name, n, n == 1 ? "" : "s", TAILQ_FIRST(&dev->vssds)->nsid,
			 TAILQ_FIRST(&dev->vssds)->nqn);
	if (blox_nand_dev_refs(dev->dev) > 1)
		ADM_FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
			 "device %s is still in use by a namespace being deleted; try again",
			 in->name);
	prov_device_delete(a->prov, in->name, in->keep_store, NULL, 0);
	blox_log(a->log, BLOX_LOG_INFO, "admin: device %s deleted (%s)", in->name,
		 in->keep_store ? "its store file kept, as asked" : "with its store file");
	if (!adm_persist(ADM_REQ(d)))
		ADM_FAILED(closure, d);
	closure(&out, d);
}

static void m_list_devices(ADM_SVC *svc, const Blox__Admin__Empty *in,
			   Blox__Admin__DeviceList_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	Blox__Admin__DeviceList out = BLOX__ADMIN__DEVICE_LIST__INIT;
	struct prov_device *dev;
	struct dev_msg *x;
	size_t n = 0, i = 0;
	int rc = 0;

	(void)in;
	TAILQ_FOREACH(dev, &a->prov->devices, link)
		n++;
	x = calloc(n + 1, sizeof(*x));
	out.devices = calloc(n + 1, sizeof(*out.devices));
	if (!x || !out.devices) {
		free(x);
		free(out.devices);
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	TAILQ_FOREACH(dev, &a->prov->devices, link) {
		rc |= dev_msg_fill(a->prov, dev, &x[i]);
		out.devices[i] = &x[i].m;
		i++;
	}
	out.n_devices = n;
	if (rc)
		adm_fail(ADM_REQ(d), ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	closure(rc ? NULL : &out, d);
	for (i = 0; i < n; i++)
		dev_msg_free(&x[i]);
	free(x);
	free(out.devices);
}

static void m_show_device(ADM_SVC *svc, const Blox__Admin__DeviceRef *in,
			  Blox__Admin__Device_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct prov_device *dev = find_device(a, ADM_REQ(d), in->name);
	struct dev_msg x;

	if (!dev)
		ADM_FAILED(closure, d);
	if (dev_msg_fill(a->prov, dev, &x)) {
		dev_msg_free(&x);
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	closure(&x.m, d);
	dev_msg_free(&x);
}

void adm_m_device_init(ADM_SVC *svc)
{
	svc->create_device = m_create_device;
	svc->delete_device = m_delete_device;
	svc->list_devices = m_list_devices;
	svc->show_device = m_show_device;
}
