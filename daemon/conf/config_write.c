/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A configuration as config-file JSON (bloxd --print-config, and the state
 * file, which the provisioning service writes as a configuration of what
 * runs), and the atomic write of such a file.
 */
#include "config_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static json_object *listener_json(const struct blox_cfg_listener *l)
{
	json_object *o = json_object_new_object(), *ana = NULL;

	json_object_object_add(o, "address", json_object_new_string(l->addr));
	json_object_object_add(o, "port", json_object_new_int(atoi(l->port)));
	if (l->discovery_only)
		json_object_object_add(o, "discovery_only", json_object_new_boolean(1));
	if (l->tls != NVMF_TLS_NONE)
		json_object_object_add(o, "tls", json_object_new_string(blox_tls_mode_name(l->tls)));
	if (l->advertise[0])
		json_object_object_add(o, "advertise", json_object_new_string(l->advertise));
	/* The groups set to anything but optimized. */
	for (uint32_t g = 1; g <= NVMF_ANAGRPMAX; g++) {
		char spec[40];

		if (!l->ana_state[g] || l->ana_state[g] == NVME_ANA_STATE_OPTIMIZED)
			continue;
		if (!ana) {
			ana = json_object_new_array();
			json_object_object_add(o, "ana_state", ana);
		}
		snprintf(spec, sizeof(spec), "%u=%s", g, nvmf_ana_state_name(l->ana_state[g]));
		json_object_array_add(ana, json_object_new_string(spec));
	}
	return o;
}

/* A subsystem's object, its "hosts" and "namespaces" arrays for the caller to fill. */
static json_object *subsys_json(const char *nqn, const char *serial, const char *model,
				bool any, json_object **hosts, json_object **nss)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "nqn", json_object_new_string(nqn));
	if (serial[0])
		json_object_object_add(o, "serial", json_object_new_string(serial));
	if (model[0])
		json_object_object_add(o, "model", json_object_new_string(model));
	json_object_object_add(o, "allow_any_host", json_object_new_boolean(any));
	*hosts = json_object_new_array();
	json_object_object_add(o, "hosts", *hosts);
	*nss = json_object_new_array();
	json_object_object_add(o, "namespaces", *nss);
	return o;
}

/* A host: its NQN, or an object with its secrets (the file is 0600). */
static json_object *host_json(const char *nqn, const char *key, const char *ctrl_key,
				const char *tls_psk)
{
	json_object *o;

	if (!key[0] && !tls_psk[0])
		return json_object_new_string(nqn);
	o = json_object_new_object();
	json_object_object_add(o, "nqn", json_object_new_string(nqn));
	if (tls_psk[0])
		json_object_object_add(o, "tls_psk", json_object_new_string(tls_psk));
	if (key[0])
		json_object_object_add(o, "dhchap_key", json_object_new_string(key));
	if (ctrl_key[0])
		json_object_object_add(o, "dhchap_ctrl_key", json_object_new_string(ctrl_key));
	return o;
}

/* The JSON text of @root (consumed), as the config file has it. */
static char *json_text(json_object *root)
{
	char *text = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_SPACED));

	json_object_put(root);
	return text;
}

char *blox_config_json(const struct blox_config *cfg)
{
	json_object *root = json_object_new_object(), *arr, *hosts, *nss;

	if (!root)
		return NULL;
	arr = json_object_new_array();
	for (size_t i = 0; i < cfg->nr_listeners; i++)
		json_object_array_add(arr, listener_json(&cfg->listeners[i]));
	json_object_object_add(root, "listeners", arr);
	if (cfg->nr_referrals)
		json_object_object_add(root, "referrals", cfg_referrals_json(cfg));
	if (cfg->nr_devices) {
		arr = json_object_new_array();
		for (size_t i = 0; i < cfg->nr_devices; i++)
			json_object_array_add(arr, cfg_device_json(&cfg->devices[i].params));
		json_object_object_add(root, "devices", arr);
	}
	arr = json_object_new_array();
	for (size_t i = 0; i < cfg->nr_subsys; i++) {
		const struct blox_cfg_subsys *s = &cfg->subsys[i];

		json_object_array_add(arr, subsys_json(s->nqn, s->serial, s->model,
						       s->allow_any_host, &hosts, &nss));
		for (size_t h = 0; h < s->nr_hosts; h++)
			json_object_array_add(hosts, host_json(s->hosts[h].nqn,
							       s->hosts[h].dhchap_key,
							       s->hosts[h].dhchap_ctrl_key,
							       s->hosts[h].tls_psk));
		for (size_t n = 0; n < s->nr_ns; n++)
			json_object_array_add(nss, cfg_ns_json(&s->ns[n].params));
	}
	json_object_object_add(root, "subsystems", arr);
	return json_text(root);
}

static int fail_errno(char *err, size_t errlen, const char *what, const char *path)
{
	int e = errno;

	snprintf(err, errlen, "%s %s: %s", what, path, strerror(e));
	return -e;
}

int blox_state_write(const char *path, const char *text, char *err,
		     size_t errlen)
{
	char tmp[4200], dir[4200];
	size_t len = strlen(text), off = 0;
	int fd, rc = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp)) {
		snprintf(err, errlen, "state file path too long");
		return -ENAMETOOLONG;
	}
	/* Owner only: it holds the hosts' DH-HMAC-CHAP (and TLS) secrets. */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail_errno(err, errlen, "create", tmp);
	if (fchmod(fd, 0600)) {
		rc = fail_errno(err, errlen, "chmod", tmp);
		close(fd);
		unlink(tmp);
		return rc;
	}
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = fail_errno(err, errlen, "write", tmp);
			break;
		}
		off += (size_t)n;
	}
	if (!rc && fsync(fd))
		rc = fail_errno(err, errlen, "fsync", tmp);
	close(fd);
	if (!rc && rename(tmp, path))
		rc = fail_errno(err, errlen, "rename to", path);
	if (rc) {
		unlink(tmp);
		return rc;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		if (fsync(fd))
			rc = fail_errno(err, errlen, "fsync directory of", path);
		close(fd);
	}
	return rc;
}
