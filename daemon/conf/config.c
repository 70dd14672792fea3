/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * JSON start-up configuration (json-c): the top level, listeners,
 * subsystems and hosts, and loading a file, into the typed configuration
 * that the provisioning service applies (prov.c). Strict: unknown keys
 * and wrong types are errors that name the offending field, because a
 * typo in a storage config should never silently produce a different
 * device. The typed getters are in config_json.c, namespaces and devices
 * in config_ns.c, what their values mean in params.c.
 */
#include "config_internal.h"
#include "blox_nqn.h"
#include "nvme_tls.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Add a listener, once: the same address and port again is the same
 * listener (a command line may repeat what the state file holds); the
 * same address and port as the other kind is an error, as is an address
 * that is not an IPv4 or IPv6 literal or a port outside 1..65535. The
 * address is kept in its canonical form so that "::1" and "0::1" are one.
 */
int blox_tls_mode_parse(const char *s, enum nvmf_tls_mode *m)
{
	if (!*s || !strcmp(s, "none"))
		*m = NVMF_TLS_NONE;
	else if (!strcmp(s, "required"))
		*m = NVMF_TLS_REQUIRED;
	else if (!strcmp(s, "allowed"))
		*m = NVMF_TLS_ALLOWED;
	else
		return -EINVAL;
	return 0;
}

const char *blox_tls_mode_name(enum nvmf_tls_mode m)
{
	return m == NVMF_TLS_REQUIRED ? "required" : m == NVMF_TLS_ALLOWED ? "allowed" : "none";
}

int blox_tls_psk_check(const char *psk, char *err, size_t errlen)
{
	struct nvme_tls_key k;
	int rc;

	if (strlen(psk) >= NVMF_TLS_PSK_MAX)
		return blox_fail(err, errlen, "TLS PSK: too long for the interchange format");
	rc = nvme_tls_key_parse(psk, &k, err, errlen);
	nvme_tls_wipe(&k, sizeof(k));
	return rc;
}

int blox_ana_spec_parse(const char *spec, uint32_t *grp, uint8_t *st, char *err,
			size_t errlen)
{
	const char *eq = strchr(spec, '=');
	unsigned long g;
	char *end;

	errno = 0;
	g = eq ? strtoul(spec, &end, 10) : 0;
	if (!eq || end != eq || errno || eq == spec || !isdigit((unsigned char)spec[0]))
		return blox_fail(err, errlen, "ANA state '%s': expected GROUP=STATE", spec);
	if (g == 0 || g > NVMF_ANAGRPMAX)
		return blox_fail(err, errlen, "ANA state '%s': the group must be 1..%u", spec,
				 NVMF_ANAGRPMAX);
	if (nvmf_ana_state_parse(eq + 1, st))
		return blox_fail(err, errlen,
				 "ANA state '%s': the state must be optimized, non-optimized, "
				 "inaccessible, persistent-loss or change",
				 spec);
	*grp = (uint32_t)g;
	return 0;
}

int blox_advertise_check(const char *addr, const char *adv, char canon[NVMF_TRADDR_SIZE],
			 char *err, size_t errlen)
{
	char own[NVMF_TRADDR_SIZE];
	int fam = nvmf_addr_canon(adv, canon), lfam = nvmf_addr_canon(addr, own);

	if (fam < 0)
		return blox_fail(err, errlen, "advertised address '%s': not an IPv4 or IPv6 address",
				 adv);
	if (!strcmp(canon, "0.0.0.0") || !strcmp(canon, "::"))
		return blox_fail(err, errlen,
				 "advertised address '%s': hosts cannot connect to it; give the "
				 "address they reach the listener by",
				 adv);
	if (lfam >= 0 && fam != lfam)
		return blox_fail(err, errlen,
				 "advertised address '%s' is %s, the listener's address %s is %s",
				 adv, fam == AF_INET ? "IPv4" : "IPv6", addr,
				 lfam == AF_INET ? "IPv4" : "IPv6");
	return 0;
}

/*
 * A listener on @addr:@port with @o's kind, TLS mode, ANA states and
 * advertised address (checked); one already there keeps its own ANA states.
 */
static int listener_add(struct blox_config *cfg, const char *addr, const char *port,
			const struct blox_cfg_listener *o, char *err, size_t errlen)
{
	bool disc = o->discovery_only;
	enum nvmf_tls_mode tls = o->tls;
	char adv[NVMF_TRADDR_SIZE] = "", why[300];
	unsigned char bin[sizeof(struct in6_addr)];
	char canon[NVMF_TRADDR_SIZE];
	struct blox_cfg_listener *l;
	unsigned long pnum;
	char *end;
	int fam = AF_INET;

	if (inet_pton(AF_INET, addr, bin) != 1) {
		fam = AF_INET6;
		if (inet_pton(AF_INET6, addr, bin) != 1)
			return blox_fail(err, errlen,
					 "listener %s:%s: '%s' is not an IPv4 or IPv6 address",
					 addr, port, addr);
	}
	inet_ntop(fam, bin, canon, sizeof(canon));
	errno = 0;
	pnum = strtoul(port, &end, 10);
	if (!*port || *end || errno || pnum == 0 || pnum > 65535)
		return blox_fail(err, errlen, "listener %s:%s: port must be 1..65535", addr,
				 port);
	if (o->advertise[0] && blox_advertise_check(canon, o->advertise, adv, why, sizeof(why)))
		return blox_fail(err, errlen, "listener %s:%lu: %s", canon, pnum, why);
	for (size_t i = 0; i < cfg->nr_listeners; i++) {
		l = &cfg->listeners[i];
		if (strcmp(l->addr, canon) || strtoul(l->port, NULL, 10) != pnum)
			continue;
		if (l->discovery_only != disc)
			return blox_fail(err, errlen,
					 "listener %s:%lu: given both as an NVMe/TCP and as "
					 "a discovery-only listener",
					 canon, pnum);
		if (l->tls != tls)
			return blox_fail(err, errlen,
					 "listener %s:%lu: given with TLS %s and with TLS %s", canon,
					 pnum, blox_tls_mode_name(l->tls), blox_tls_mode_name(tls));
		if (strcmp(l->advertise, adv))
			return blox_fail(err, errlen,
					 "listener %s:%lu: given with two advertised addresses, "
					 "'%s' and '%s'",
					 canon, pnum, l->advertise, adv);
		return 0; /* already there: one listener */
	}
	l = cfg_grow(cfg->listeners, cfg->nr_listeners, sizeof(*l));
	if (!l)
		return -ENOMEM;
	cfg->listeners = l;
	l += cfg->nr_listeners++;
	snprintf(l->addr, sizeof(l->addr), "%s", canon);
	snprintf(l->port, sizeof(l->port), "%lu", pnum);
	l->discovery_only = disc;
	l->tls = tls;
	memcpy(l->ana_state, o->ana_state, sizeof(l->ana_state));
	memcpy(l->advertise, adv, sizeof(l->advertise));
	return 0;
}

/*
 * One emulated TLC SSD, nand0: 8 channels x 4 dies (2 planes, 64 blocks of
 * 384 16 KiB pages), 24 GiB of flash in a sparse file, so that isolation
 * means something; the default namespace, a 1 GiB vSSD on one channel of
 * its own, leaves 7 for the vSSDs bloxctl makes. It is overcommitted: a
 * first try on a small disk starts (with a warning) and costs only what
 * is written.
 */
static const char default_json[] =
	"{\"listeners\": ["
	"{\"address\": \"127.0.0.1\", \"port\": 4420},"
	"{\"address\": \"127.0.0.1\", \"port\": 8009, \"discovery_only\": true}],"
	"\"devices\": [{\"name\": \"nand0\", \"overcommit\": true}],"
	"\"subsystems\": [{\"nqn\": \"" BLOX_DEFAULT_NQN "\", \"allow_any_host\": true,"
	"\"namespaces\": [{\"nsid\": 1, \"backend\": \"nand\", \"size\": 1073741824,"
	"\"device\": \"nand0\", \"isolation\": \"channel:1\"}]}]}";

int blox_config_default(struct blox_config *cfg)
{
	char err[256];

	return blox_config_parse(default_json, cfg, err, sizeof(err));
}

void blox_config_clear_listeners(struct blox_config *cfg)
{
	free(cfg->listeners);
	cfg->listeners = NULL;
	cfg->nr_listeners = 0;
}

int blox_addr_split(const char *spec, const char *what, char *addr, size_t addrlen,
		    char *port, size_t portlen, char *err, size_t errlen)
{
	const char *colon, *p;
	size_t alen;

	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');

		if (!close || close[1] != ':')
			return blox_fail(err, errlen, "%s '%s': expected [ADDR]:PORT", what, spec);
		alen = (size_t)(close - spec - 1);
		memcpy(addr, spec + 1, BLOX_MIN(alen, addrlen - 1));
		p = close + 2;
	} else {
		colon = strrchr(spec, ':');
		if (!colon)
			return blox_fail(err, errlen, "%s '%s': expected ADDR:PORT", what, spec);
		alen = (size_t)(colon - spec);
		memcpy(addr, spec, BLOX_MIN(alen, addrlen - 1));
		p = colon + 1;
	}
	if (alen == 0 || alen >= addrlen || !*p || strlen(p) >= portlen)
		return blox_fail(err, errlen, "%s '%s': bad address or port", what, spec);
	addr[alen] = '\0';
	snprintf(port, portlen, "%s", p);
	return 0;
}

int blox_config_add_listener(struct blox_config *cfg, const char *spec,
			     bool disc, char *err, size_t errlen)
{
	struct blox_cfg_listener o = { .discovery_only = disc };
	char addr[NVMF_TRADDR_SIZE], port[6];
	int rc = blox_addr_split(spec, "listener", addr, sizeof(addr), port, sizeof(port), err,
				 errlen);

	if (rc)
		return rc;
	return listener_add(cfg, addr, port, &o, err, errlen);
}

/* A listener's "ana_state": an array of "GROUP=STATE", a group once. */
static int parse_ana_states(json_object *o, const char *where, uint8_t *ana, char *err,
			    size_t errlen)
{
	json_object *arr;

	if (!json_object_object_get_ex(o, "ana_state", &arr))
		return 0;
	if (!json_object_is_type(arr, json_type_array))
		return blox_fail(err, errlen, "%s.ana_state: expected an array of \"GROUP=STATE\"",
				 where);
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		char why[200];
		uint32_t g;
		uint8_t st;

		if (!json_object_is_type(e, json_type_string))
			return blox_fail(err, errlen, "%s.ana_state[%zu]: expected \"GROUP=STATE\"",
					 where, i);
		if (blox_ana_spec_parse(json_object_get_string(e), &g, &st, why, sizeof(why)))
			return blox_fail(err, errlen, "%s.ana_state[%zu]: %s", where, i, why);
		if (ana[g])
			return blox_fail(err, errlen, "%s.ana_state[%zu]: group %u given twice",
					 where, i, g);
		ana[g] = st;
	}
	return 0;
}

static int parse_listener(json_object *o, const char *where,
			  struct blox_config *cfg, char *err, size_t errlen)
{
	static const char *const keys[] = { "address", "port", "discovery_only", "tls",
					    "ana_state", "advertise", NULL };
	struct blox_cfg_listener l = { 0 };
	char addr[NVMF_TRADDR_SIZE], port[8], tls_text[16] = "";
	bool present;
	uint64_t pnum = 0;
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return blox_fail(err, errlen, "%s: expected an object", where);
	if ((rc = cfg_check_keys(o, where, keys, err, errlen)) ||
	    (rc = cfg_get_string(o, "address", where, addr, sizeof(addr), true, err,
				 errlen)) ||
	    (rc = cfg_get_u64(o, "port", where, false, &pnum, &present, err, errlen)) ||
	    (rc = cfg_get_bool(o, "discovery_only", where, &l.discovery_only, err, errlen)) ||
	    (rc = cfg_get_string(o, "tls", where, tls_text, sizeof(tls_text), false, err,
				 errlen)) ||
	    (rc = cfg_get_string(o, "advertise", where, l.advertise, sizeof(l.advertise), false,
				 err, errlen)))
		return rc;
	if (!present || pnum == 0 || pnum > 65535)
		return blox_fail(err, errlen, "%s.port: must be 1..65535", where);
	if (blox_tls_mode_parse(tls_text, &l.tls))
		return blox_fail(err, errlen, "%s.tls: '%s': expected \"none\", \"required\" or \"allowed\"",
				 where, tls_text);
	if ((rc = parse_ana_states(o, where, l.ana_state, err, errlen)))
		return rc;
	if (l.discovery_only && json_object_object_get_ex(o, "ana_state", NULL))
		return blox_fail(err, errlen,
				 "%s.ana_state: a discovery-only listener serves no namespace", where);
	if (l.discovery_only && l.advertise[0])
		return blox_fail(err, errlen,
				 "%s.advertise: a discovery-only listener is not in the discovery "
				 "log: nothing to advertise",
				 where);
	snprintf(port, sizeof(port), "%u", (unsigned)pnum);
	rc = listener_add(cfg, addr, port, &l, err, errlen);
	if (rc == -EINVAL) {
		char why[300];

		snprintf(why, sizeof(why), "%s", err);
		blox_fail(err, errlen, "%s: %s", where, why);
	}
	return rc;
}

/*
 * A host of a subsystem: its NQN, or an object with "nqn" and its
 * DH-HMAC-CHAP secrets "dhchap_key" and "dhchap_ctrl_key" (DHHC-1) and its
 * TLS PSK "tls_psk" (NVMeTLSkey-1).
 */
static int parse_host(json_object *h, const char *where, struct blox_cfg_host *out,
		      char *err, size_t errlen)
{
	static const char *const keys[] = { "nqn", "dhchap_key", "dhchap_ctrl_key", "tls_psk", NULL };
	struct nvmf_host check = { 0 };
	char why[384];
	const char *bad = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (json_object_is_type(h, json_type_string)) {
		snprintf(out->nqn, sizeof(out->nqn), "%s", json_object_get_string(h));
	} else if (json_object_is_type(h, json_type_object)) {
		if ((rc = cfg_check_keys(h, where, keys, err, errlen)) ||
		    (rc = cfg_get_string(h, "nqn", where, out->nqn, sizeof(out->nqn), true, err,
					 errlen)) ||
		    (rc = cfg_get_string(h, "dhchap_key", where, out->dhchap_key,
					 sizeof(out->dhchap_key), false, err, errlen)) ||
		    (rc = cfg_get_string(h, "dhchap_ctrl_key", where, out->dhchap_ctrl_key,
					 sizeof(out->dhchap_ctrl_key), false, err, errlen)) ||
		    (rc = cfg_get_string(h, "tls_psk", where, out->tls_psk, sizeof(out->tls_psk),
					 false, err, errlen)))
			return rc;
		/* Say what is wrong with the key, never the key. */
		if (out->tls_psk[0] && blox_tls_psk_check(out->tls_psk, why, sizeof(why)))
			return blox_fail(err, errlen, "%s.tls_psk: %s", where, why);
	} else {
		return blox_fail(err, errlen, "%s: expected a host NQN or an object", where);
	}
	if (blox_nqn_check(out->nqn, false, why, sizeof(why)))
		return blox_fail(err, errlen, "%s: %s", where, why);
	rc = nvmf_host_set_keys(&check, out->dhchap_key, out->dhchap_ctrl_key, &bad);
	dhchap_wipe(&check, sizeof(check));
	if (rc)
		return blox_fail(err, errlen, "%s: DH-HMAC-CHAP secret: %s", where, bad);
	return 0;
}

static int parse_subsys(json_object *o, const char *where,
			struct blox_cfg_subsys *s, char *err, size_t errlen)
{
	static const char *const keys[] = { "nqn", "serial", "model",
					    "allow_any_host", "hosts",
					    "namespaces", NULL };
	json_object *arr;
	char w[128], why[384];
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return blox_fail(err, errlen, "%s: expected an object", where);
	if ((rc = cfg_check_keys(o, where, keys, err, errlen)) ||
	    (rc = cfg_get_string(o, "nqn", where, s->nqn, sizeof(s->nqn), true, err,
				 errlen)) ||
	    (rc = cfg_get_string(o, "serial", where, s->serial, sizeof(s->serial),
				 false, err, errlen)) ||
	    (rc = cfg_get_string(o, "model", where, s->model, sizeof(s->model), false,
				 err, errlen)) ||
	    (rc = cfg_get_bool(o, "allow_any_host", where, &s->allow_any_host, err,
			       errlen)))
		return rc;
	if (blox_nqn_check(s->nqn, false, why, sizeof(why)))
		return blox_fail(err, errlen, "%s.nqn: %s", where, why);

	arr = cfg_get_array(o, "hosts", where, &rc, err, errlen);
	if (rc)
		return rc;
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		void *p = cfg_grow(s->hosts, s->nr_hosts, sizeof(*s->hosts));

		if (!p)
			return -ENOMEM;
		s->hosts = p;
		snprintf(w, sizeof(w), "%s.hosts[%zu]", where, i);
		rc = parse_host(json_object_array_get_idx(arr, i), w, &s->hosts[s->nr_hosts],
				err, errlen);
		if (rc)
			return rc;
		s->nr_hosts++;
	}

	arr = cfg_get_array(o, "namespaces", where, &rc, err, errlen);
	if (rc)
		return rc;
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		void *p = cfg_grow(s->ns, s->nr_ns, sizeof(*s->ns));

		if (!p)
			return -ENOMEM;
		s->ns = p;
		snprintf(w, sizeof(w), "%s.namespaces[%zu]", where, i);
		rc = cfg_parse_ns(json_object_array_get_idx(arr, i), w,
				  &s->ns[s->nr_ns++], err, errlen);
		if (rc)
			return rc;
		for (size_t j = 0; j + 1 < s->nr_ns; j++)
			if (s->ns[j].nsid && s->ns[j].nsid == s->ns[s->nr_ns - 1].nsid)
				return blox_fail(err, errlen, "%s.nsid: %u used twice", w,
						s->ns[j].nsid);
	}
	return 0;
}

/* A namespace of the file with the UUID hosts will see for it. */
struct ns_uuid {
	size_t si, ni; /* subsystems[si].namespaces[ni] */
	uint32_t nsid; /* as it will be: one left out takes the lowest free */
	uint8_t uuid[16];
};

static bool nsid_taken(const struct ns_uuid *all, size_t from, size_t to, uint32_t nsid)
{
	for (size_t j = from; j < to; j++)
		if (all[j].nsid == nsid)
			return true;
	return false;
}

/* Where namespace @u's UUID comes from, for a message. */
static void uuid_where(const struct ns_uuid *u, const struct blox_config *cfg, char *out,
		       size_t len)
{
	if (cfg->subsys[u->si].ns[u->ni].has_uuid)
		snprintf(out, len, "subsystems[%zu].namespaces[%zu].uuid", u->si, u->ni);
	else
		snprintf(out, len, "subsystems[%zu].namespaces[%zu], derived from its NQN and nsid "
			 "as it has none given", u->si, u->ni);
}

/*
 * No two namespaces of the file may have the same UUID, given or derived
 * (nvmf_ns_default_uuid()), in a subsystem or across them: Linux drops a
 * namespace whose UUID another it sees has, so the second is refused here,
 * naming the first. Its NGUID is derived from its NQN and nsid, which are
 * unique already; no EUI-64 is reported.
 */
static int check_ns_uuids(const struct blox_config *cfg, char *err, size_t errlen)
{
	struct ns_uuid *all;
	size_t n = 0, total = 0, first;
	int rc = 0;

	for (size_t si = 0; si < cfg->nr_subsys; si++)
		total += cfg->subsys[si].nr_ns;
	all = calloc(total + 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (size_t si = 0; !rc && si < cfg->nr_subsys; si++) {
		const struct blox_cfg_subsys *cs = &cfg->subsys[si];

		first = n;
		for (size_t ni = 0; !rc && ni < cs->nr_ns; ni++, n++) {
			const struct blox_cfg_ns *ns = &cs->ns[ni];
			struct ns_uuid *u = &all[n];

			u->si = si;
			u->ni = ni;
			/* Left out: the lowest not taken by those before it, as when it is made. */
			u->nsid = ns->nsid;
			if (!u->nsid)
				for (u->nsid = 1; nsid_taken(all, first, n, u->nsid); u->nsid++)
					;
			if (ns->has_uuid)
				memcpy(u->uuid, ns->uuid, sizeof(u->uuid));
			else
				nvmf_ns_default_uuid(cs->nqn, u->nsid, u->uuid);
			for (size_t j = 0; j < n; j++) {
				char str[37], where[160], other[160];

				if (memcmp(all[j].uuid, u->uuid, sizeof(u->uuid)))
					continue;
				blox_uuid_str(u->uuid, str);
				uuid_where(&all[j], cfg, other, sizeof(other));
				snprintf(where, sizeof(where), "subsystems[%zu].namespaces[%zu]", si, ni);
				if (ns->has_uuid)
					rc = blox_fail(err, errlen, "%s.uuid: %s is already the UUID of "
						       "namespace %u of %s (%s)", where, str,
						       all[j].nsid, cfg->subsys[all[j].si].nqn, other);
				else
					rc = blox_fail(err, errlen, "%s: %s, the UUID it gets with none "
						       "given (derived from its NQN and nsid), is already "
						       "the UUID of namespace %u of %s (%s)", where, str,
						       all[j].nsid, cfg->subsys[all[j].si].nqn, other);
				break;
			}
		}
	}
	free(all);
	return rc;
}

void cfg_text_pos(const char *text, size_t off, unsigned *line, unsigned *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && text[i]; i++) {
		if (text[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

int blox_config_parse(const char *text, struct blox_config *cfg, char *err,
		      size_t errlen)
{
	static const char *const keys[] = { "listeners", "subsystems", "devices",
					    "referrals", NULL };
	enum json_tokener_error jerr;
	struct json_tokener *tok;
	json_object *root, *arr;
	unsigned line, col;
	char w[64];
	size_t len, at;
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	/* The terminating NUL ends a bare number as well. */
	len = strlen(text);
	root = json_tokener_parse_ex(tok, text, (int)len + 1);
	jerr = json_tokener_get_error(tok);
	if (root && jerr == json_tokener_success) {
		/*
		 * One JSON value and nothing but white space after it. The
		 * tokener may have consumed the NUL too (a comment after a
		 * bare value, "0//"): never look past it.
		 */
		const char *end = text + BLOX_MIN(json_tokener_get_parse_end(tok), len);

		while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
			end++;
		if (*end) {
			json_object_put(root);
			json_tokener_free(tok);
			cfg_text_pos(text, (size_t)(end - text), &line, &col);
			return blox_fail(err, errlen,
					"not valid JSON: line %u, column %u: text after the end",
					line, col);
		}
	}
	/* Where the tokener stopped: the character it could not take. */
	at = BLOX_MIN(json_tokener_get_parse_end(tok), len);
	json_tokener_free(tok);
	if (!root || jerr != json_tokener_success) {
		json_object_put(root);
		cfg_text_pos(text, at, &line, &col);
		return blox_fail(err, errlen, "not valid JSON: line %u, column %u: %s", line, col,
				json_tokener_error_desc(jerr == json_tokener_success
								? json_tokener_continue
								: jerr));
	}
	if (!json_object_is_type(root, json_type_object)) {
		rc = blox_fail(err, errlen, "top level: expected an object");
		goto out;
	}
	if ((rc = cfg_check_keys(root, "top level", keys, err, errlen)))
		goto out;
	arr = cfg_get_array(root, "listeners", "top level", &rc, err, errlen);
	for (size_t i = 0; !rc && arr && i < json_object_array_length(arr); i++) {
		snprintf(w, sizeof(w), "listeners[%zu]", i);
		rc = parse_listener(json_object_array_get_idx(arr, i), w, cfg, err,
				    errlen);
	}
	if (rc || (rc = cfg_parse_referrals(root, cfg, err, errlen)))
		goto out;
	arr = cfg_get_array(root, "devices", "top level", &rc, err, errlen);
	for (size_t i = 0; !rc && arr && i < json_object_array_length(arr); i++) {
		void *p = cfg_grow(cfg->devices, cfg->nr_devices, sizeof(*cfg->devices));

		if (!p) {
			rc = -ENOMEM;
			break;
		}
		cfg->devices = p;
		snprintf(w, sizeof(w), "devices[%zu]", i);
		rc = cfg_parse_device(json_object_array_get_idx(arr, i), w,
				      &cfg->devices[cfg->nr_devices++], err, errlen);
		for (size_t j = 0; !rc && j + 1 < cfg->nr_devices; j++)
			if (!strcmp(cfg->devices[j].name, cfg->devices[i].name))
				rc = blox_fail(err, errlen, "%s.name: '%s' used twice", w,
					      cfg->devices[i].name);
	}
	if (rc)
		goto out;
	arr = cfg_get_array(root, "subsystems", "top level", &rc, err, errlen);
	for (size_t i = 0; !rc && arr && i < json_object_array_length(arr); i++) {
		void *p = cfg_grow(cfg->subsys, cfg->nr_subsys, sizeof(*cfg->subsys));

		if (!p) {
			rc = -ENOMEM;
			break;
		}
		cfg->subsys = p;
		snprintf(w, sizeof(w), "subsystems[%zu]", i);
		rc = parse_subsys(json_object_array_get_idx(arr, i), w,
				  &cfg->subsys[cfg->nr_subsys++], err, errlen);
		for (size_t j = 0; !rc && j + 1 < cfg->nr_subsys; j++)
			if (!strcmp(cfg->subsys[j].nqn, cfg->subsys[i].nqn))
				rc = blox_fail(err, errlen, "%s.nqn: '%s' used twice", w,
					      cfg->subsys[i].nqn);
	}
	if (!rc)
		rc = check_ns_uuids(cfg, err, errlen);
	/*
	 * Shared devices: the provisioning service plans where their
	 * namespaces go now, so that a file it cannot place is refused whole
	 * (it plans again, the same way, when it applies the file).
	 */
	if (!rc)
		rc = blox_config_plan(cfg, err, errlen);
out:
	json_object_put(root);
	if (rc)
		blox_config_free(cfg);
	return rc;
}

int blox_config_load(const char *path, struct blox_config *cfg, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc;

	if (!f) {
		int e = errno;

		blox_fail(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *p = realloc(buf, cap = cap * 2 + 8192);

			if (!p) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = p;
		}
		size_t n = fread(buf + len, 1, cap - len - 1, f);

		len += n;
		if (n == 0)
			break;
	}
	rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (rc) {
		free(buf);
		return blox_fail(err, errlen, "%s: read error", path), rc;
	}
	buf[len] = '\0';
	/* The parser would see only the text before a NUL: not a JSON file. */
	if (memchr(buf, '\0', len)) {
		size_t at = (size_t)((char *)memchr(buf, '\0', len) - buf);

		free(buf);
		memset(cfg, 0, sizeof(*cfg));
		return blox_fail(err, errlen, "%s: not a text file (a NUL byte at offset %zu)",
				 path, at), -EINVAL;
	}
	rc = blox_config_parse(buf, cfg, err, errlen);
	free(buf);
	if (rc) {
		char tmp[256];

		snprintf(tmp, sizeof(tmp), "%s", err);
		snprintf(err, errlen, "%s: %s", path, tmp);
	}
	return rc;
}

void blox_config_free(struct blox_config *cfg)
{
	for (size_t i = 0; i < cfg->nr_subsys; i++) {
		if (cfg->subsys[i].hosts)
			dhchap_wipe(cfg->subsys[i].hosts,
				    cfg->subsys[i].nr_hosts * sizeof(*cfg->subsys[i].hosts));
		free(cfg->subsys[i].hosts);
		free(cfg->subsys[i].ns);
	}
	free(cfg->subsys);
	free(cfg->listeners);
	free(cfg->referrals);
	free(cfg->devices);
	memset(cfg, 0, sizeof(*cfg));
}
