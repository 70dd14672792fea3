/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Namespace and device entries of the configuration in JSON: read into
 * their parameters (struct blox_ns_params, blox_device_params) and then
 * resolved by params.c, which the admin API's requests go through too;
 * and written back from their parameters for the state file.
 */
#include "config_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* A "nand" or "ftl" object, when present: its fields and @has set. */
static int read_object(json_object *o, const char *key, const char *where,
		       const struct blox_param_table *t, bool *has, void *params,
		       char *err, size_t errlen)
{
	json_object *v;
	char w[192];

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	*has = true;
	snprintf(w, sizeof(w), "%s.%s", where, key);
	return cfg_read_params(t, v, w, params, err, errlen);
}

/* A "zns" object, when present: zone size, Max Open and Max Active. */
static int read_zns(json_object *o, const char *where, struct blox_ns_params *p, char *err,
		    size_t errlen)
{
	static const char *const keys[] = { "zone_size", "max_open", "max_active", NULL };
	uint32_t *lim[] = { &p->zns.max_open, &p->zns.max_active };
	json_object *z;
	bool present;
	char w[192];
	int rc;

	if (!json_object_object_get_ex(o, "zns", &z))
		return 0;
	p->has_zns = true;
	snprintf(w, sizeof(w), "%s.zns", where);
	if (!json_object_is_type(z, json_type_object))
		return blox_fail(err, errlen, "%s: expected an object", w);
	if ((rc = cfg_check_keys(z, w, keys, err, errlen)) ||
	    (rc = cfg_get_u64(z, "zone_size", w, true, &p->zns.zone_size, &present, err,
			      errlen)))
		return rc;
	for (size_t i = 0; i < 2; i++) {
		uint64_t v = 0;

		if ((rc = cfg_get_u64(z, keys[i + 1], w, false, &v, &present, err, errlen)))
			return rc;
		if (v > UINT32_MAX)
			return blox_fail(err, errlen, "%s.%s: too large", w, keys[i + 1]);
		*lim[i] = (uint32_t)v;
	}
	return 0;
}

int cfg_parse_ns(json_object *o, const char *where, struct blox_cfg_ns *ns,
		 char *err, size_t errlen)
{
	static const char *const keys[] = { "nsid", "backend", "size",
					    "block_size", "uuid", "nand", "ftl",
					    "device", "isolation", "qos", "overcommit", "zns", "ana_group",
					    NULL };
	struct blox_ns_params p = { 0 };
	char uuid[40] = "";
	uint64_t v = 0;
	bool present;
	int rc;

	memset(ns, 0, sizeof(*ns));
	if (!json_object_is_type(o, json_type_object))
		return blox_fail(err, errlen, "%s: expected an object", where);
	if ((rc = cfg_check_keys(o, where, keys, err, errlen)))
		return rc;
	if ((rc = cfg_get_u64(o, "nsid", where, false, &v, &present, err, errlen)))
		return rc;
	if (present && v == 0)
		return blox_fail(err, errlen,
				 "%s.nsid: 0 is not a namespace id (1..%u; leave \"nsid\" "
				 "out for the lowest free one)",
				 where, NVMF_MAX_NS);
	if (present && v > NVMF_MAX_NS)
		return blox_fail(err, errlen, "%s.nsid: must be 1..%u", where,
				 NVMF_MAX_NS);
	p.nsid = (uint32_t)v;
	if ((rc = cfg_get_string(o, "backend", where, p.backend, sizeof(p.backend),
				 false, err, errlen)) ||
	    (rc = read_object(o, "nand", where, &blox_nand_table, &p.has_nand, &p.nand,
			      err, errlen)) ||
	    (rc = read_object(o, "ftl", where, &blox_ftl_table, &p.has_ftl, &p.ftl, err,
			      errlen)) ||
	    (rc = read_object(o, "qos", where, &blox_qos_table, &p.has_qos, &p.qos, err,
			      errlen)) ||
	    (rc = read_zns(o, where, &p, err, errlen)) ||
	    (rc = cfg_get_bool(o, "overcommit", where, &p.overcommit, err, errlen)))
		return rc;
	if ((rc = cfg_get_u64(o, "size", where, true, &p.size, &present, err, errlen)))
		return rc;
	if (!present)
		return blox_fail(err, errlen, "%s: 'size' is required", where);
	if ((rc = cfg_get_u64(o, "block_size", where, false, &v, &present, err, errlen)))
		return rc;
	/* 0 would read as "not given"; the rest is checked when resolved. */
	if (present && (v == 0 || v > UINT32_MAX))
		return blox_fail(err, errlen, "%s.block_size: must be 512 or 4096", where);
	p.block_size = present ? (uint32_t)v : 0;
	if ((rc = cfg_get_u64(o, "ana_group", where, false, &v, &present, err, errlen)))
		return rc;
	/* 0 would read as "not given"; the rest is checked when resolved. */
	if (present && (v == 0 || v > UINT32_MAX))
		return blox_fail(err, errlen, "%s.ana_group: must be 1..%u", where, NVMF_ANAGRPMAX);
	p.ana_group = present ? (uint32_t)v : 0;
	if ((rc = cfg_get_string(o, "device", where, p.device, sizeof(p.device), false,
				 err, errlen)) ||
	    (rc = cfg_get_string(o, "isolation", where, p.isolation, sizeof(p.isolation),
				 false, err, errlen)) ||
	    (rc = cfg_get_string(o, "uuid", where, uuid, sizeof(uuid), false, err,
				 errlen)))
		return rc;
	if (uuid[0]) {
		if (blox_uuid_parse(uuid, p.uuid))
			return blox_fail(err, errlen, "%s.uuid: '%s' is not a UUID", where,
					 uuid);
		p.has_uuid = true;
	}
	return blox_ns_resolve(&p, where, ns, err, errlen);
}

int cfg_parse_device(json_object *o, const char *where,
		     struct blox_cfg_device *d, char *err, size_t errlen)
{
	static const char *const keys[] = { "name", "nand", "store", "flashblox", "overcommit",
					    "reactor", NULL };
	struct blox_device_params p = { 0 };
	uint64_t reactor = 0;
	bool has_reactor = false;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return blox_fail(err, errlen, "%s: expected an object", where);
	if ((rc = cfg_check_keys(o, where, keys, err, errlen)) ||
	    (rc = cfg_get_string(o, "name", where, p.name, sizeof(p.name), true, err,
				 errlen)) ||
	    (rc = cfg_get_string(o, "store", where, p.store, sizeof(p.store), false, err,
				 errlen)) ||
	    (rc = read_object(o, "nand", where, &blox_nand_table, &p.has_nand, &p.nand,
			      err, errlen)) ||
	    (rc = read_object(o, "flashblox", where, &blox_fbx_table, &p.has_fbx, &p.fbx, err,
			      errlen)) ||
	    (rc = cfg_get_bool(o, "overcommit", where, &p.overcommit, err, errlen)) ||
	    (rc = cfg_get_u64(o, "reactor", where, false, &reactor, &has_reactor, err, errlen)))
		return rc;
	if (has_reactor) {
		/* Checked against --reactors when the device is made. */
		if (reactor >= 16)
			return blox_fail(err, errlen, "%s.reactor: %llu is over the limit of 15",
					 where, (unsigned long long)reactor);
		p.reactor = (uint32_t)reactor + 1;
	}
	return blox_device_resolve(&p, where, d, err, errlen);
}

json_object *cfg_ns_json(const struct blox_ns_params *p)
{
	json_object *o = json_object_new_object();
	char uuid[37];

	if (!o)
		return NULL;
	if (p->nsid)
		json_object_object_add(o, "nsid", json_object_new_int64(p->nsid));
	json_object_object_add(o, "backend",
			       json_object_new_string(p->backend[0] ? p->backend : "ram"));
	json_object_object_add(o, "size", json_object_new_int64((int64_t)p->size));
	if (p->block_size)
		json_object_object_add(o, "block_size",
				       json_object_new_int64(p->block_size));
	if (p->has_uuid) {
		blox_uuid_str(p->uuid, uuid);
		json_object_object_add(o, "uuid", json_object_new_string(uuid));
	}
	if (p->device[0])
		json_object_object_add(o, "device", json_object_new_string(p->device));
	if (p->ana_group)
		json_object_object_add(o, "ana_group", json_object_new_int64(p->ana_group));
	if (p->isolation[0])
		json_object_object_add(o, "isolation", json_object_new_string(p->isolation));
	if (p->has_nand)
		json_object_object_add(o, "nand", cfg_params_json(&blox_nand_table, &p->nand));
	if (p->has_ftl)
		json_object_object_add(o, "ftl", cfg_params_json(&blox_ftl_table, &p->ftl));
	if (p->has_qos && p->qos.set)
		json_object_object_add(o, "qos", cfg_params_json(&blox_qos_table, &p->qos));
	if (p->has_zns) {
		json_object *z = json_object_new_object();

		if (z && p->zns.zone_size)
			json_object_object_add(z, "zone_size",
					       json_object_new_int64((int64_t)p->zns.zone_size));
		if (z && p->zns.max_open)
			json_object_object_add(z, "max_open", json_object_new_int64(p->zns.max_open));
		if (z && p->zns.max_active)
			json_object_object_add(z, "max_active",
					       json_object_new_int64(p->zns.max_active));
		json_object_object_add(o, "zns", z);
	}
	if (p->overcommit)
		json_object_object_add(o, "overcommit", json_object_new_boolean(true));
	return o;
}

json_object *cfg_device_json(const struct blox_device_params *p)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "name", json_object_new_string(p->name));
	if (p->store[0])
		json_object_object_add(o, "store", json_object_new_string(p->store));
	if (p->has_nand)
		json_object_object_add(o, "nand", cfg_params_json(&blox_nand_table, &p->nand));
	if (p->has_fbx)
		json_object_object_add(o, "flashblox", cfg_params_json(&blox_fbx_table, &p->fbx));
	if (p->overcommit)
		json_object_object_add(o, "overcommit", json_object_new_boolean(true));
	if (p->reactor)
		json_object_object_add(o, "reactor", json_object_new_int64(p->reactor - 1));
	return o;
}
