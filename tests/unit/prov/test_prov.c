/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the provisioning service (daemon/prov/prov.c): a
 * configuration applied through it (shared device dies given out and
 * owned, records kept), namespaces made from typed parameters in steps,
 * the state file written from its records and read back to the same
 * parameters, the device registry, and the parameter tables against the
 * admin API's messages, and power cuts of a device with a vSSD with
 * power-loss protection on it.
 */
#include <errno.h>
#include <event2/event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blox_admin.pb-c.h"
#include "prov.h"

/* A RAM device of 8 dies, two namespaces on it, one RAM namespace. */
static const char cfg_json[] =
	"{\"devices\":[{\"name\":\"ssd0\",\"store\":\"ram\",\"nand\":"
	"{\"channels\":4,\"dies_per_channel\":2,\"planes_per_die\":1,"
	"\"pages_per_block\":96,\"null_timing\":true}}],"
	"\"subsystems\":[{\"nqn\":\"nqn.2026-12.io.blox:a\",\"allow_any_host\":true,"
	"\"hosts\":[\"nqn.2014-08.org.nvmexpress:h1\"],\"namespaces\":["
	"{\"nsid\":1,\"backend\":\"nand\",\"size\":\"32M\",\"device\":\"ssd0\","
	"\"isolation\":\"channel:1\","
	"\"ftl\":{\"op_percent\":20,\"gc_policy\":\"cost-benefit\",\"mdc\":false}},"
	"{\"nsid\":2,\"backend\":\"nand\",\"size\":\"16M\",\"device\":\"ssd0\","
	"\"isolation\":\"chip:1\"},"
	"{\"nsid\":5,\"backend\":\"ram\",\"size\":\"1M\",\"block_size\":512,"
	"\"uuid\":\"01234567-89ab-cdef-0123-456789abcdef\"}]}]}";

struct fx {
	struct event_base *base;
	struct blox_clock clock;
	struct blox_log log;
	struct nvmf_tgt tgt;
	struct blox_prov *prov;
	struct blox_config cfg;
};

static int setup_json(void **state, const char *json)
{
	struct fx *f = calloc(1, sizeof(*f));
	char err[256];

	assert_non_null(f);
	f->base = event_base_new();
	assert_non_null(f->base);
	f->log.level = -1;
	blox_clock_init_virtual(&f->clock, 1);
	assert_int_equal(nvmf_tgt_init(&f->tgt, f->base, &f->clock, &f->log), 0);
	assert_int_equal(blox_prov_create(&f->tgt, NULL, "/nonexistent", &f->prov), 0);
	if (blox_config_parse(json, &f->cfg, err, sizeof(err)))
		fail_msg("%s", err);
	if (blox_prov_apply(f->prov, &f->cfg, err, sizeof(err)))
		fail_msg("%s", err);
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_json(state, cfg_json);
}

/* The same device, namespace 1 with power-loss protection (plp_ms 5), namespace 2 without. */
static const char cfg_plp_json[] =
	"{\"devices\":[{\"name\":\"ssd0\",\"store\":\"ram\",\"nand\":"
	"{\"channels\":4,\"dies_per_channel\":2,\"planes_per_die\":1,"
	"\"pages_per_block\":96,\"null_timing\":true}}],"
	"\"subsystems\":[{\"nqn\":\"nqn.2026-12.io.blox:a\",\"allow_any_host\":true,"
	"\"namespaces\":["
	"{\"nsid\":1,\"backend\":\"nand\",\"size\":\"16M\",\"device\":\"ssd0\","
	"\"isolation\":\"chip:1\",\"ftl\":{\"plp_ms\":5}},"
	"{\"nsid\":2,\"backend\":\"nand\",\"size\":\"16M\",\"device\":\"ssd0\","
	"\"isolation\":\"chip:1\"}]}]}";

static int setup_plp(void **state)
{
	return setup_json(state, cfg_plp_json);
}

static int teardown(void **state)
{
	struct fx *f = *state;

	blox_config_free(&f->cfg);
	blox_prov_clear(f->prov);
	blox_prov_destroy(f->prov);
	nvmf_tgt_fini(&f->tgt);
	event_base_free(f->base);
	free(f);
	return 0;
}

static struct prov_device *first_device(struct fx *f)
{
	return TAILQ_FIRST(&f->prov->devices);
}

/* @ns's dies on its device, as the resource manager has them. */
static struct fbx_alloc ns_alloc(const struct nvmf_ns *ns)
{
	const struct prov_ns_rec *r = prov_ns_rec(ns);
	struct fbx_alloc a;

	assert_non_null(r);
	assert_non_null(r->dev);
	assert_true(fbx_owner_alloc(r->dev->rm, r->owner, &a));
	return a;
}

/* 1. Applied: the device is registered, each vSSD has what its isolation asks, records kept. */
static void test_apply_records(void **state)
{
	struct fx *f = *state;
	struct nvmf_subsys *s = nvmf_subsys_find(&f->tgt, "nqn.2026-12.io.blox:a");
	struct prov_device *d = first_device(f);
	const struct prov_ns_rec *r1, *r2, *r5;
	struct fbx_alloc a1, a2;

	assert_non_null(s);
	assert_non_null(d);
	assert_ptr_equal(blox_dev_find(&f->prov->registry, "ssd0"), d->dev);
	r1 = prov_ns_rec(nvmf_ns_find(s, 1));
	r2 = prov_ns_rec(nvmf_ns_find(s, 2));
	r5 = prov_ns_rec(nvmf_ns_find(s, 5));
	assert_non_null(r1);
	assert_non_null(r2);
	assert_non_null(r5);
	/* channel:1 takes channel 0 whole; chip:1 a die of a whole free channel (1). */
	a1 = ns_alloc(nvmf_ns_find(s, 1));
	a2 = ns_alloc(nvmf_ns_find(s, 2));
	assert_int_equal(a1.iso, FBX_CHANNEL);
	assert_int_equal(a1.res.nr_dies, 2);
	assert_int_equal(a1.res.dies[0], 0);
	assert_int_equal(a1.res.dies[1], 1);
	assert_int_equal(a2.iso, FBX_CHIP);
	assert_int_equal(a2.res.nr_dies, 1);
	assert_int_equal(a2.res.dies[0], 2);
	assert_int_equal(fbx_die_owner(d->rm, 0), r1->owner);
	assert_int_equal(fbx_die_owner(d->rm, 2), r2->owner);
	assert_int_equal(fbx_free_dies(d->rm), 5);
	assert_ptr_equal(r1->dev, d);
	assert_null(r5->dev);
	assert_null(r5->store_path);
	assert_int_equal(r5->params.block_size, 512);
	assert_true(r5->params.has_uuid);
	/* A device with vSSDs on it stays. */
	assert_int_equal(prov_device_destroy(f->prov, "ssd0"), -EBUSY);
	assert_int_equal(prov_device_destroy(f->prov, "nope"), -ENOENT);
}

/* 2. What does not fit is refused with the reason, as "it does not fit now" (-ENOSPC). */
static void test_does_not_fit(void **state)
{
	struct fx *f = *state;
	struct nvmf_subsys *s = nvmf_subsys_find(&f->tgt, "nqn.2026-12.io.blox:a");
	struct blox_cfg_ns cn = f->cfg.subsys[0].ns[1];
	struct prov_ns_plan *pl = malloc(sizeof(*pl));
	char err[512];

	assert_non_null(pl);
	cn.nsid = 3;
	cn.iso = FBX_CHANNEL;
	cn.iso_count = 3;
	assert_int_equal(prov_ns_plan(f->prov, s, &cn, true, pl, err, sizeof(err)), -ENOSPC);
	assert_string_equal(err, "nqn.2026-12.io.blox:a namespace 3: device ssd0: need 3 free "
				 "channels, 1 left (and 1 kept spare for wear swaps)");
	cn.iso = FBX_CHIP;
	cn.iso_count = 6;
	assert_int_equal(prov_ns_plan(f->prov, s, &cn, true, pl, err, sizeof(err)), -ENOSPC);
	assert_string_equal(err, "nqn.2026-12.io.blox:a namespace 3: device ssd0: need 6 free "
				 "dies, 3 left (and 1 kept spare for wear swaps)");
	/* A bad ask (never fits this device) is not "exhausted". */
	cn.iso_count = 9;
	assert_int_equal(prov_ns_plan(f->prov, s, &cn, true, pl, err, sizeof(err)), -EINVAL);
	free(pl);
}

/* 3. Deleting a namespace gives its dies back once its backend is gone; a new one can have them. */
static void test_delete_frees_dies(void **state)
{
	struct fx *f = *state;
	struct nvmf_subsys *s = nvmf_subsys_find(&f->tgt, "nqn.2026-12.io.blox:a");
	struct blox_cfg_ns cn = f->cfg.subsys[0].ns[1];
	struct prov_device *d = first_device(f);
	struct prov_ns_plan *pl = malloc(sizeof(*pl));
	struct prov_dies dies;
	struct nvmf_ns *ns;
	char err[512];

	assert_non_null(pl);
	/* No released callback: the backend goes with the namespace. */
	assert_null(prov_ns_delete(f->prov, nvmf_ns_find(s, 2), NULL, NULL, &dies));
	event_base_loop(f->base, EVLOOP_NONBLOCK);
	assert_null(nvmf_ns_find(s, 2));
	assert_string_equal(dies.dev, "ssd0");
	/* Held until the caller says the backend is gone. */
	assert_int_equal(fbx_free_dies(d->rm), 5);
	prov_dies_release(f->prov, &dies);
	assert_int_equal(fbx_free_dies(d->rm), 6);
	assert_int_equal(fbx_free_channels(d->rm), 3);
	cn.nsid = 3;
	if (prov_ns_plan(f->prov, s, &cn, true, pl, err, sizeof(err)) ||
	    prov_ns_build(f->prov, pl, err, sizeof(err)))
		fail_msg("%s", err);
	assert_false(prov_ns_slow(pl)); /* on a shared device: on the loop */
	if (prov_ns_attach(f->prov, s, pl, &ns, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(ns->nsid, 3);
	assert_int_equal(ns_alloc(ns).res.dies[0], 2);
	assert_int_equal(fbx_free_dies(d->rm), 5);
	free(pl);
}

/* 4. A namespace made from typed parameters alone; a bad one names its field. */
static void test_typed_create(void **state)
{
	struct fx *f = *state;
	struct nvmf_subsys *s = nvmf_subsys_find(&f->tgt, "nqn.2026-12.io.blox:a");
	struct blox_ns_params p = { .nsid = 9, .backend = "null", .size = 1 << 20 };
	struct blox_cfg_ns *cn = malloc(sizeof(*cn));
	struct nvmf_ns *ns;
	char err[512];

	assert_non_null(cn);
	if (blox_ns_resolve(&p, "namespace", cn, err, sizeof(err)) ||
	    prov_ns_create(f->prov, s, cn, true, &ns, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(ns->nsid, 9);
	assert_int_equal(prov_ns_rec(ns)->params.size, 1 << 20);
	/* The same nsid again: refused by the core, the error says which. */
	assert_int_equal(prov_ns_create(f->prov, s, cn, true, &ns, err, sizeof(err)), -EEXIST);
	assert_string_equal(err, "nqn.2026-12.io.blox:a namespace 9: nsid in use");

	p.nand.set = 1u << BLOX_NP_CHANNELS;
	p.nand.channels = 65;
	p.has_nand = true;
	snprintf(p.backend, sizeof(p.backend), "nand-timing");
	assert_int_equal(blox_ns_resolve(&p, "namespace", cn, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "namespace.nand.channels: at most 64");
	p.nand.channels = 2;
	p.nand.set |= 1u << BLOX_NP_SUSPEND_POLICY;
	snprintf(p.nand.suspend_policy, sizeof(p.nand.suspend_policy), "sometimes");
	assert_int_equal(blox_ns_resolve(&p, "namespace", cn, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "namespace.nand.suspend_policy: 'sometimes' is not "
				 "default, never, always or smart");
	free(cn);
}

/* The fields given in @a and @b (tables @t) are the same. */
static void check_same_fields(const struct blox_param_table *t, const void *a, const void *b)
{
	assert_int_equal(*(const uint32_t *)a, *(const uint32_t *)b);
	for (size_t i = 0; i < t->n; i++) {
		const struct blox_param_field *f = &t->fields[i];
		size_t len = f->kind == BLOX_PK_U32 ? sizeof(uint32_t)
			     : f->kind == BLOX_PK_BOOL ? sizeof(bool)
						       : f->len;

		if (blox_param_given(a, i))
			assert_memory_equal((const char *)a + f->off,
					    (const char *)b + f->off, len);
	}
}

/* Field by field: padding is nobody's business. */
static void check_same_ns(const struct blox_ns_params *a, const struct blox_ns_params *b)
{
	assert_int_equal(a->nsid, b->nsid);
	assert_string_equal(a->backend, b->backend);
	assert_int_equal(a->size, b->size);
	assert_int_equal(a->block_size, b->block_size);
	assert_int_equal(a->has_uuid, b->has_uuid);
	assert_memory_equal(a->uuid, b->uuid, sizeof(a->uuid));
	assert_string_equal(a->device, b->device);
	assert_int_equal(a->has_nand, b->has_nand);
	assert_int_equal(a->has_ftl, b->has_ftl);
	check_same_fields(&blox_nand_table, &a->nand, &b->nand);
	check_same_fields(&blox_ftl_table, &a->ftl, &b->ftl);
}

/* 5. The state file from the records reads back to the same parameters. */
static void test_state_round_trip(void **state)
{
	struct fx *f = *state;
	const struct blox_device_params *da, *db;
	struct blox_config back;
	char *text = blox_state_json(f->prov);
	char err[256];

	assert_non_null(text);
	if (blox_config_parse(text, &back, err, sizeof(err)))
		fail_msg("%s\n%s", err, text);
	assert_int_equal(back.nr_devices, 1);
	da = &back.devices[0].params;
	db = &f->cfg.devices[0].params;
	assert_string_equal(da->name, db->name);
	assert_string_equal(da->store, db->store);
	assert_int_equal(da->has_nand, db->has_nand);
	check_same_fields(&blox_nand_table, &da->nand, &db->nand);
	assert_int_equal(back.subsys[0].nr_hosts, 1);
	assert_int_equal(back.nr_subsys, 1);
	assert_int_equal(back.subsys[0].nr_ns, f->cfg.subsys[0].nr_ns);
	for (size_t i = 0; i < back.subsys[0].nr_ns; i++) {
		check_same_ns(&back.subsys[0].ns[i].params, &f->cfg.subsys[0].ns[i].params);
		assert_string_equal(back.subsys[0].ns[i].params.isolation,
				    f->cfg.subsys[0].ns[i].params.isolation);
		assert_int_equal(back.subsys[0].ns[i].iso, f->cfg.subsys[0].ns[i].iso);
		assert_int_equal(back.subsys[0].ns[i].iso_count, f->cfg.subsys[0].ns[i].iso_count);
	}
	blox_config_free(&back);
	free(text);
}

/* 6. The registry: names are unique, lookups find them. */
static void test_registry(void **state)
{
	struct fx *f = *state;
	struct blox_cfg_device d = f->cfg.devices[0];
	struct blox_dev_registry reg;
	struct blox_nand_dev *nd;
	char err[256];

	assert_int_equal(prov_device_create(f->prov, &d, err, sizeof(err)), -EEXIST);
	assert_string_equal(err, "device ssd0: exists already");
	blox_dev_registry_init(&reg);
	assert_int_equal(blox_nand_dev_open("x", &d.nand, NULL, f->base, &f->clock, &nd), 0);
	assert_int_equal(blox_dev_register(&reg, nd), 0);
	assert_int_equal(blox_nand_dev_refs(nd), 2);
	assert_int_equal(blox_dev_register(&reg, nd), -EINVAL);
	assert_ptr_equal(blox_dev_find(&reg, "x"), nd);
	assert_null(blox_dev_find(&reg, "y"));
	assert_string_equal(blox_nand_dev_name(nd), "x");
	blox_nand_dev_put(nd);
	blox_dev_registry_fini(&reg);
	assert_null(blox_dev_find(&reg, "x"));
	/* A second device under its own name. */
	snprintf(d.name, sizeof(d.name), "ssd1");
	if (prov_device_create(f->prov, &d, err, sizeof(err)))
		fail_msg("%s", err);
	assert_non_null(blox_dev_find(&f->prov->registry, "ssd1"));
	assert_int_equal(prov_device_destroy(f->prov, "ssd1"), 0);
	assert_null(blox_dev_find(&f->prov->registry, "ssd1"));
}

/* Every field of @t is in the protobuf message @d by name, of a matching type. */
static void check_table(const struct blox_param_table *t, const ProtobufCMessageDescriptor *d)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct blox_param_field *f = &t->fields[i];
		const ProtobufCFieldDescriptor *fd =
			protobuf_c_message_descriptor_get_field_by_name(d, f->key);

		if (!fd)
			fail_msg("%s.%s: not in %s", t->name, f->key, d->name);
		if ((f->kind == BLOX_PK_U32 && fd->type != PROTOBUF_C_TYPE_UINT32) ||
		    (f->kind == BLOX_PK_BOOL && fd->type != PROTOBUF_C_TYPE_ENUM) ||
		    (f->kind == BLOX_PK_STR && fd->type != PROTOBUF_C_TYPE_STRING))
			fail_msg("%s.%s: type %d in %s", t->name, f->key, (int)fd->type, d->name);
		assert_string_equal(t->keys[i], f->key);
	}
	assert_null(t->keys[t->n]);
	/* And the message has nothing the table lacks. */
	assert_int_equal(d->n_fields, t->n);
}

/* 7. The admin API's NAND and FTL messages carry exactly the tables' fields. */
static void test_tables_match_proto(void **state)
{
	(void)state;
	check_table(&blox_nand_table, &blox__admin__nand_params__descriptor);
	check_table(&blox_ftl_table, &blox__admin__ftl_params__descriptor);
	check_table(&blox_fbx_table, &blox__admin__flash_blox_params__descriptor);
	check_table(&blox_qos_table, &blox__admin__qos_params__descriptor);
}

/*
 * 8. Power cuts on a device with a protected vSSD: alone it is refused,
 * saying to cut the device, with nothing counted; the device's cut takes
 * both, the protected one with the device's hold-up, each counting an
 * unsafe shutdown.
 */
static void test_power_cut_plp(void **state)
{
	struct fx *f = *state;
	struct nvmf_subsys *s = nvmf_subsys_find(&f->tgt, "nqn.2026-12.io.blox:a");
	struct nvmf_ns *ns1 = nvmf_ns_find(s, 1), *ns2 = nvmf_ns_find(s, 2);
	struct prov_dev_power_cut outs[4];
	struct prov_power_cut one;
	char err[512];
	uint32_t n = 0;

	assert_int_equal(prov_ns_power_cut(f->prov, ns1, &one, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "namespace 1 of nqn.2026-12.io.blox:a (a vSSD on device ssd0)"));
	assert_non_null(strstr(err, "cut the device instead"));
	assert_int_equal(ns1->health.unsafe_shutdowns, 0);
	/* Its unprotected neighbour is still cut alone. */
	if (prov_ns_power_cut(f->prov, ns2, &one, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(one.bdev.holdup_ms, 0);
	assert_int_equal(ns2->health.unsafe_shutdowns, 1);
	/* The device: both, one hold-up. */
	if (prov_device_power_cut(f->prov, "ssd0", outs, 4, &n, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(n, 2);
	for (uint32_t i = 0; i < n; i++) {
		bool plp = outs[i].ns == ns1;

		assert_true(plp || outs[i].ns == ns2);
		assert_int_equal(outs[i].cut.bdev.holdup_ms, plp ? 5 : 0);
		assert_int_equal(outs[i].cut.bdev.bytes_lost, 0);
		assert_int_equal(outs[i].cut.unsafe_shutdowns, plp ? 1 : 2);
	}
	assert_int_equal(ns1->health.unsafe_shutdowns, 1);
	assert_int_equal(ns2->health.unsafe_shutdowns, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_apply_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_does_not_fit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_delete_frees_dies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_typed_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registry, setup, teardown),
		cmocka_unit_test(test_tables_match_proto),
		cmocka_unit_test_setup_teardown(test_power_cut_plp, setup_plp, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
