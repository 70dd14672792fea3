/*
 * Namespaces: a "namespaces" entry of the configuration (also what the
 * admin API's namespace create parses), the store file of a namespace,
 * and creating a namespace with its backend, in one go or in steps
 * (plan, then attach a backend made elsewhere).
 */
#include "config_internal.h"

#include <ctype.h>
#include <errno.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Canonical 8-4-4-4-12 hex form only. */
static int parse_uuid(const char *s, uint8_t out[16])
{
	size_t n = 0;

	if (strlen(s) != 36)
		return -EINVAL;
	for (size_t i = 0; i < 36; i++) {
		char c = s[i];
		unsigned v;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (c != '-')
				return -EINVAL;
			continue;
		}
		if (!isxdigit((unsigned char)c))
			return -EINVAL;
		v = (unsigned)(isdigit((unsigned char)c) ? c - '0'
							 : tolower((unsigned char)c) - 'a' + 10);
		out[n / 2] = (uint8_t)((n % 2) ? (out[n / 2] | v) : (v << 4));
		n++;
	}
	return 0;
}

int cfg_parse_ns(json_object *o, const char *where, struct blox_cfg_ns *ns,
		 char *err, size_t errlen)
{
	static const char *const keys[] = { "nsid", "backend", "size",
					    "block_size", "uuid", "nand", "ftl",
					    "device", NULL };
	json_object *nand;
	char uuid[40] = "";
	uint64_t v = 0;
	bool present;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return cfg_fail(err, errlen, "%s: expected an object", where);
	if ((rc = cfg_check_keys(o, where, keys, err, errlen)))
		return rc;
	if ((rc = cfg_get_u64(o, "nsid", where, false, &v, &present, err, errlen)))
		return rc;
	if (present && (v == 0 || v > NVMF_MAX_NS))
		return cfg_fail(err, errlen, "%s.nsid: must be 1..%u", where,
				NVMF_MAX_NS);
	ns->nsid = (uint32_t)v;
	snprintf(ns->backend, sizeof(ns->backend), "ram");
	if ((rc = cfg_get_string(o, "backend", where, ns->backend, sizeof(ns->backend),
				 false, err, errlen)))
		return rc;
	bool is_nand = !strcmp(ns->backend, "nand"),
	     is_timing = !strcmp(ns->backend, "nand-timing");

	if (strcmp(ns->backend, "ram") && strcmp(ns->backend, "null") && !is_nand &&
	    !is_timing)
		return cfg_fail(err, errlen,
				"%s.backend: '%s' is not one of ram, null, nand, nand-timing",
				where, ns->backend);
	nand_config_default(&ns->nand);
	ftl_config_default(&ns->ftl);
	ns->auto_blocks = is_nand;
	if (json_object_object_get_ex(o, "nand", &nand)) {
		char w[192];
		json_object *bpp;

		if (!is_nand && !is_timing)
			return cfg_fail(err, errlen,
					"%s.nand: only for backends \"nand\" and \"nand-timing\"",
					where);
		snprintf(w, sizeof(w), "%s.nand", where);
		if ((rc = cfg_parse_nand(nand, w, &ns->nand, err, errlen)))
			return rc;
		if (json_object_object_get_ex(nand, "blocks_per_plane", &bpp))
			ns->auto_blocks = false;
	}
	if (json_object_object_get_ex(o, "ftl", &nand)) {
		char w[192];

		if (!is_nand)
			return cfg_fail(err, errlen, "%s.ftl: only for backend \"nand\"",
					where);
		snprintf(w, sizeof(w), "%s.ftl", where);
		if ((rc = cfg_parse_ftl(nand, w, ns, err, errlen)))
			return rc;
	}
	if ((rc = cfg_get_u64(o, "size", where, true, &ns->size, &present, err, errlen)))
		return rc;
	if (!present)
		return cfg_fail(err, errlen, "%s: 'size' is required", where);
	v = 4096;
	if ((rc = cfg_get_u64(o, "block_size", where, false, &v, &present, err, errlen)))
		return rc;
	if (v != 512 && v != 4096)
		return cfg_fail(err, errlen, "%s.block_size: must be 512 or 4096", where);
	ns->block_size = (uint32_t)v;
	if (ns->size == 0 || ns->size % ns->block_size)
		return cfg_fail(err, errlen,
				"%s.size: must be a non-zero multiple of the block size",
				where);
	if ((rc = cfg_get_string(o, "device", where, ns->device, sizeof(ns->device),
				 false, err, errlen)))
		return rc;
	if (ns->device[0] && !is_nand)
		return cfg_fail(err, errlen, "%s.device: only for backend \"nand\"",
				where);
	if (ns->device[0] && json_object_object_get_ex(o, "nand", &nand))
		return cfg_fail(err, errlen,
				"%s.nand: the geometry belongs to device '%s'", where,
				ns->device);
	if (ns->device[0])
		ns->auto_blocks = false; /* sized with its device */
	if (is_nand && ns->nsid == 0)
		return cfg_fail(err, errlen, "%s.nsid: required for backend nand (it names the store file)",
				where);
	if (is_nand && ns->block_size != FTL_UNIT)
		return cfg_fail(err, errlen,
				"%s.block_size: backend nand takes 4096 only", where);
	if (is_nand && ns->auto_blocks)
		blox_config_size_nand(ns);
	if ((is_timing || (is_nand && !ns->device[0])) &&
	    ns->size > nand_capacity(&ns->nand.geo))
		return cfg_fail(err, errlen,
				"%s.size: larger than the NAND geometry's %lu bytes",
				where, (unsigned long)nand_capacity(&ns->nand.geo));
	if ((rc = cfg_get_string(o, "uuid", where, uuid, sizeof(uuid), false, err,
				 errlen)))
		return rc;
	if (uuid[0]) {
		if (parse_uuid(uuid, ns->uuid))
			return cfg_fail(err, errlen, "%s.uuid: '%s' is not a UUID", where,
					uuid);
		ns->has_uuid = true;
	}
	ns->params = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	return ns->params ? 0 : -ENOMEM;
}

int blox_config_parse_ns(const char *json, struct blox_cfg_ns *ns, char *err,
			 size_t errlen)
{
	json_object *o = json_tokener_parse(json);
	int rc;

	memset(ns, 0, sizeof(*ns));
	if (!o)
		return cfg_fail(err, errlen, "namespace: not valid JSON");
	rc = cfg_parse_ns(o, "namespace", ns, err, errlen);
	json_object_put(o);
	if (rc) {
		free(ns->params);
		ns->params = NULL;
	}
	return rc;
}

/* "<data dir>/<file>", creating the data directory if it is missing. */
int cfg_data_file(const char *data_dir, const char *file, char *out,
		  size_t len, char *err, size_t errlen)
{
	const char *dir = data_dir[0] ? data_dir : BLOX_DEFAULT_DATA_DIR;

	if (mkdir(dir, 0750) && errno != EEXIST)
		return cfg_fail(err, errlen, "data directory %s: %s (see --data-dir)",
				dir, strerror(errno));
	if ((size_t)snprintf(out, len, "%s/%s", dir, file) >= len)
		return cfg_fail(err, errlen, "data directory path too long");
	return 0;
}

/* The store file of a namespace: stable for its subsystem NQN and nsid. */
int blox_config_store_path(const char *data_dir, const char *nqn, uint32_t nsid,
			   char *out, size_t len, char *err, size_t errlen)
{
	unsigned char md[SHA256_DIGEST_LENGTH];
	char file[64];

	SHA256((const unsigned char *)nqn, strlen(nqn), md);
	snprintf(file, sizeof(file), "ns-%02x%02x%02x%02x%02x%02x%02x%02x-%u.nand",
		 md[0], md[1], md[2], md[3], md[4], md[5], md[6], md[7], nsid);
	return cfg_data_file(data_dir, file, out, len, err, errlen);
}

int blox_config_ns_plan(const char *data_dir, const struct nvmf_subsys *s,
			const struct blox_cfg_ns *cn, struct blox_nand_dev *shared,
			bool fresh, struct blox_bdev_params *bp, char *store,
			size_t storelen, char *err, size_t errlen)
{
	const struct nvmf_tgt *tgt = s->tgt;
	int rc;

	*bp = (struct blox_bdev_params){ .backend = cn->backend,
					 .size = cn->size,
					 .block_size = cn->block_size,
					 .nand = &cn->nand,
					 .ftl = &cn->ftl,
					 .base = tgt->base,
					 .clock = tgt->clock,
					 .log = tgt->log };
	store[0] = '\0';
	if (cn->device[0]) {
		if (!shared)
			return cfg_fail(err, errlen, "%s namespace %u: no device '%s'", s->nqn,
					cn->nsid, cn->device);
		bp->shared = shared;
		bp->first_die = cn->first_die;
		bp->nr_dies = cn->nr_dies;
	} else if (!strcmp(cn->backend, "nand") && !cn->store_ram) {
		rc = blox_config_store_path(data_dir, s->nqn, cn->nsid, store, storelen,
					    err, errlen);
		if (rc)
			return rc;
		if (fresh && access(store, F_OK) == 0)
			return cfg_fail(err, errlen,
					"%s namespace %u: store file %s exists (flash of an "
					"earlier namespace); remove it to create a new one",
					s->nqn, cn->nsid, store), -EEXIST;
		bp->store_path = store;
	}
	return 0;
}

int blox_config_ns_attach(struct nvmf_subsys *s, const struct blox_cfg_ns *cn,
			  struct blox_bdev *bdev, const char *store_path,
			  struct nvmf_ns **out, char *err, size_t errlen)
{
	/* The namespace keeps how it was made and where its flash is. */
	char *params = cn->params ? strdup(cn->params) : NULL;
	char *store = store_path ? strdup(store_path) : NULL;
	struct nvmf_ns *ns;
	int rc;

	if ((cn->params && !params) || (store_path && !store)) {
		rc = -ENOMEM;
		cfg_fail(err, errlen, "%s namespace %u: out of memory", s->nqn, cn->nsid);
		goto free_strings;
	}
	rc = nvmf_ns_add(s, cn->nsid, bdev, cn->has_uuid ? cn->uuid : NULL, &ns);
	if (rc) {
		cfg_fail(err, errlen, "%s namespace %u: %s", s->nqn, cn->nsid,
			 rc == -EEXIST ? "nsid in use" : strerror(-rc));
		goto free_strings;
	}
	ns->params = params;
	ns->store_path = store;
	snprintf(ns->device, sizeof(ns->device), "%s", cn->device);
	if (out)
		*out = ns;
	return 0;

free_strings:
	free(params);
	free(store);
	return rc;
}

int blox_config_create_ns(const char *data_dir, struct nvmf_subsys *s,
			  const struct blox_cfg_ns *cn, struct blox_nand_dev *shared,
			  bool fresh, struct nvmf_ns **out, char *err, size_t errlen)
{
	struct blox_bdev_params bp;
	struct blox_bdev *bdev;
	char store[4200];
	int rc;

	rc = blox_config_ns_plan(data_dir, s, cn, shared, fresh, &bp, store,
				 sizeof(store), err, errlen);
	if (rc)
		return rc;
	rc = blox_bdev_create(&bp, &s->tgt->io_cq, &bdev);
	if (rc)
		return cfg_fail(err, errlen, "%s namespace %u: backend: %s", s->nqn,
				cn->nsid, strerror(-rc)), rc;
	rc = blox_config_ns_attach(s, cn, bdev, bp.store_path, out, err, errlen);
	if (rc)
		blox_bdev_destroy(bdev);
	return rc;
}
