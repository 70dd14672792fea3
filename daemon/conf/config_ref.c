/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration's referrals: other discovery services (ADDR:PORT)
 * that the discovery log lists, for a host's connect-all to follow (the
 * top level's "referrals": [{"address": ..., "port": ...}]), read and
 * written back.
 */
#include "config_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cfg_parse_referrals(json_object *root, struct blox_config *cfg, char *err, size_t errlen)
{
	static const char *const keys[] = { "address", "port", NULL };
	json_object *arr;
	int rc = 0;

	arr = cfg_get_array(root, "referrals", "top level", &rc, err, errlen);
	for (size_t i = 0; !rc && arr && i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);
		unsigned char bin[sizeof(struct in6_addr)];
		struct blox_cfg_referral *r;
		char w[32], addr[NVMF_TRADDR_SIZE];
		uint64_t port = 0;
		bool present;
		int fam;

		snprintf(w, sizeof(w), "referrals[%zu]", i);
		if (!json_object_is_type(o, json_type_object))
			return blox_fail(err, errlen, "%s: expected an object", w);
		if ((rc = cfg_check_keys(o, w, keys, err, errlen)) ||
		    (rc = cfg_get_string(o, "address", w, addr, sizeof(addr), true, err, errlen)) ||
		    (rc = cfg_get_u64(o, "port", w, false, &port, &present, err, errlen)))
			return rc;
		if (!present || port == 0 || port > 65535)
			return blox_fail(err, errlen, "%s.port: must be 1..65535", w);
		fam = inet_pton(AF_INET, addr, bin) == 1	? AF_INET
		      : inet_pton(AF_INET6, addr, bin) == 1 ? AF_INET6
							    : 0;
		if (!fam)
			return blox_fail(err, errlen, "%s.address: '%s' is not an IPv4 or IPv6 address",
					 w, addr);
		r = cfg_grow(cfg->referrals, cfg->nr_referrals, sizeof(*r));
		if (!r)
			return -ENOMEM;
		cfg->referrals = r;
		r += cfg->nr_referrals++;
		inet_ntop(fam, bin, r->addr, sizeof(r->addr));
		snprintf(r->port, sizeof(r->port), "%u", (unsigned)port);
		for (size_t j = 0; j + 1 < cfg->nr_referrals; j++)
			if (!strcmp(cfg->referrals[j].addr, r->addr) &&
			    !strcmp(cfg->referrals[j].port, r->port))
				return blox_fail(err, errlen, "%s: %s:%s given twice", w, r->addr,
						 r->port);
	}
	return rc;
}

json_object *cfg_referrals_json(const struct blox_config *cfg)
{
	json_object *arr = json_object_new_array();

	for (size_t i = 0; arr && i < cfg->nr_referrals; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "address", json_object_new_string(cfg->referrals[i].addr));
		json_object_object_add(o, "port", json_object_new_int(atoi(cfg->referrals[i].port)));
		json_object_array_add(arr, o);
	}
	return arr;
}
