/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The admin API's listeners: a unix stream socket (mode 0660, peer
 * credentials checked: root, bloxd's own user or the socket's group) and
 * an optional TLS listener (TLS 1.3, client certificates required), both
 * on the target's event loop; a listener whose accept() fails pauses
 * (tcp_accept_pause). Their options are checked before anything is made.
 */
#include "adm_internal.h"

#include <errno.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <grp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <netinet/in.h>
#include <arpa/inet.h>

/* Root, bloxd's own user, or a member of the socket's group. */
static bool peer_allowed(const struct blox_admin *a, const struct ucred *cr)
{
	struct passwd pw, *pwp = NULL;
	char buf[4096];
	gid_t groups[256];
	int n = 256;

	if (cr->uid == 0 || cr->uid == geteuid() || cr->gid == a->sock_gid)
		return true;
	if (getpwuid_r(cr->uid, &pw, buf, sizeof(buf), &pwp) || !pwp)
		return false;
	if (getgrouplist(pw.pw_name, pw.pw_gid, groups, &n) < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (groups[i] == a->sock_gid)
			return true;
	return false;
}

/* accept() failed: pause the listener (one log line per pause). @arg: the listener's. */
static void accept_error_cb(struct evconnlistener *lev, void *arg)
{
	struct blox_admin *a = arg;
	struct tcp_accept_pause *p = lev == a->unix_lev ? &a->unix_pause : &a->tls_pause;
	int err = EVUTIL_SOCKET_ERROR();
	uint32_t ms;

	a->accept_errors++;
	ms = tcp_accept_pause(p, a->base, blox_clock_now(a->tgt->clock));
	blox_log(a->log, BLOX_LOG_WARN, "admin: accept: %s: pausing %u ms",
		 evutil_socket_error_to_string(err), ms);
}

/* Watch @lev's accept errors (its pause: @p). */
static void accept_pause_init(struct tcp_accept_pause *p, struct evconnlistener *lev)
{
	p->lev = lev;
	evconnlistener_set_error_cb(lev, accept_error_cb);
}

static void unix_accept(struct evconnlistener *l, evutil_socket_t fd,
			struct sockaddr *sa, int slen, void *arg)
{
	struct blox_admin *a = arg;
	struct ucred cr = { 0 };
	socklen_t len = sizeof(cr);
	struct bufferevent *bev;
	struct adm_conn *c;
	char peer[64];

	(void)l;
	(void)sa;
	(void)slen;
	bev = bufferevent_socket_new(a->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!bev) {
		close(fd);
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		cr.uid = cr.gid = (uid_t)-1;
	snprintf(peer, sizeof(peer), "pid %d uid %u", (int)cr.pid, (unsigned)cr.uid);
	c = adm_conn_new(a, bev, peer);
	if (c && !peer_allowed(a, &cr)) {
		c->denied = true;
		blox_log(a->log, BLOX_LOG_WARN, "admin: %s denied", peer);
	}
}

static void tls_accept(struct evconnlistener *l, evutil_socket_t fd,
		       struct sockaddr *sa, int slen, void *arg)
{
	struct blox_admin *a = arg;
	struct bufferevent *bev;
	struct adm_conn *c;
	char host[INET6_ADDRSTRLEN] = "?", peer[64];
	SSL *ssl = SSL_new(a->ssl_ctx);

	(void)l;
	(void)slen;
	if (!ssl) {
		close(fd);
		return;
	}
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)sa)->sin_addr, host,
			  sizeof(host));
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)sa)->sin6_addr, host,
			  sizeof(host));
	snprintf(peer, sizeof(peer), "tls %s", host);
	bev = bufferevent_openssl_socket_new(a->base, fd, ssl,
					     BUFFEREVENT_SSL_ACCEPTING,
					     BEV_OPT_CLOSE_ON_FREE);
	if (!bev) {
		SSL_free(ssl);
		close(fd);
		return;
	}
	c = adm_conn_new(a, bev, peer);
	if (c)
		c->tls = true; /* the handshake verified the client certificate */
}

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

/* @path's directory into @dir (at most @len bytes, no trailing slash); "" for none. */
static void parent_of(const char *path, char *dir, size_t len)
{
	char *slash;

	snprintf(dir, len, "%s", path);
	slash = strrchr(dir, '/');
	if (!slash) {
		dir[0] = '\0';
		return;
	}
	while (slash > dir && slash[-1] == '/')
		slash--;
	slash[slash == dir] = '\0'; /* "/x": the root stays "/" */
}

/* @a and @b name the same directory as written (trailing slashes aside). */
static bool same_dir(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	while (la > 1 && a[la - 1] == '/')
		la--;
	while (lb > 1 && b[lb - 1] == '/')
		lb--;
	return la == lb && !strncmp(a, b, la);
}

/* A file bloxd is to read: there and readable, else the reason. */
static int check_readable(const char *opt, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return fail(err, errlen, -EINVAL, "%s %s: %s", opt, path, strerror(errno));
	fclose(f);
	return 0;
}

int blox_admin_check_opts(const struct blox_admin_opts *o, const char *data_dir, char *err,
			  size_t errlen)
{
	const char *path = o->socket_path ? o->socket_path : BLOX_DEFAULT_ADMIN_SOCKET;
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)], own[sizeof(dir)];
	struct stat st;
	int rc;

	if (!path[0] || strlen(path) >= sizeof(dir))
		return fail(err, errlen, -EINVAL, "--admin-socket '%s': %s", path,
			    path[0] ? "path too long" : "empty");
	parent_of(path, dir, sizeof(dir));
	parent_of(BLOX_DEFAULT_ADMIN_SOCKET, own, sizeof(own));
	if (dir[0] && stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return fail(err, errlen, -EINVAL, "--admin-socket %s: %s is not a directory",
				    path, dir);
	} else if (dir[0] && !same_dir(dir, own) && !(data_dir && same_dir(dir, data_dir))) {
		/* Not ours to make (as root, a typo would make a tree anywhere). */
		return fail(err, errlen, -EINVAL,
			    "--admin-socket %s: directory %s: %s (bloxd makes only its own %s "
			    "and the data directory; create it first)",
			    path, dir, strerror(errno), own);
	}
	if (o->group) {
		struct group gr, *grp = NULL;
		char buf[4096];

		if (getgrnam_r(o->group, &gr, buf, sizeof(buf), &grp) || !grp)
			return fail(err, errlen, -EINVAL, "--admin-group %s: no such group",
				    o->group);
	}
	if (!o->tls_listen)
		return 0;
	if (!o->tls_cert || !o->tls_key || !o->tls_ca)
		return fail(err, errlen, -EINVAL,
			    "--admin-tls: --admin-tls-cert, --admin-tls-key and "
			    "--admin-tls-ca are all required");
	if ((rc = check_readable("--admin-tls-cert", o->tls_cert, err, errlen)) ||
	    (rc = check_readable("--admin-tls-key", o->tls_key, err, errlen)) ||
	    (rc = check_readable("--admin-tls-ca", o->tls_ca, err, errlen)))
		return rc;
	return 0;
}

/* Make bloxd's own run directory, the default socket's (one level, as its parent is /run). */
static void make_own_dir(const char *path)
{
	char dir[108], own[108];

	parent_of(path, dir, sizeof(dir));
	parent_of(BLOX_DEFAULT_ADMIN_SOCKET, own, sizeof(own));
	if (same_dir(dir, own))
		mkdir(dir, 0755);
}

/* OpenSSL's reason for its last error; never NULL. */
static const char *ssl_reason(const char *fallback)
{
	unsigned long e = ERR_get_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;

	ERR_clear_error();
	return r ? r : fallback;
}

int adm_listen_unix(struct blox_admin *a, const struct blox_admin_opts *o,
		     char *err, size_t errlen)
{
	const char *path = o->socket_path ? o->socket_path : BLOX_DEFAULT_ADMIN_SOCKET;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path))
		return fail(err, errlen, -ENAMETOOLONG, "admin socket %s: path too long",
			    path);
	snprintf(a->sock_path, sizeof(a->sock_path), "%s", path);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	a->sock_gid = getegid();
	if (o->group) {
		struct group gr, *grp = NULL;
		char buf[4096];

		if (getgrnam_r(o->group, &gr, buf, sizeof(buf), &grp) || !grp)
			return fail(err, errlen, -ENOENT, "admin group %s: no such group",
				    o->group);
		a->sock_gid = grp->gr_gid;
	}
	make_own_dir(path);
	if (lstat(path, &st) == 0) {
		int probe;

		if (!S_ISSOCK(st.st_mode))
			return fail(err, errlen, -EEXIST,
				    "admin socket %s: exists and is not a socket", path);
		/* A live socket belongs to a running bloxd: do not steal it. */
		probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe >= 0 &&
		    connect(probe, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
			close(probe);
			return fail(err, errlen, -EADDRINUSE,
				    "admin socket %s: another bloxd answers there", path);
		}
		if (probe >= 0)
			close(probe);
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return fail(err, errlen, -errno, "admin socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) ||
	    chmod(path, 0660) ||
	    (o->group && chown(path, (uid_t)-1, a->sock_gid)) || listen(fd, 64)) {
		int e = errno;

		close(fd);
		unlink(path);
		return fail(err, errlen, -e, "admin socket %s: %s", path, strerror(e));
	}
	a->unix_lev = evconnlistener_new(a->base, unix_accept, a,
					 LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC,
					 -1, fd);
	if (!a->unix_lev) {
		close(fd);
		unlink(path);
		return fail(err, errlen, -ENOMEM, "admin socket: listener");
	}
	accept_pause_init(&a->unix_pause, a->unix_lev);
	return 0;
}

int adm_listen_tls(struct blox_admin *a, const struct blox_admin_opts *o,
		    char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	int sslen = sizeof(ss);

	if (!o->tls_cert || !o->tls_key || !o->tls_ca)
		return fail(err, errlen, -EINVAL,
			    "admin TLS: --admin-tls-cert, --admin-tls-key and "
			    "--admin-tls-ca are all required");
	if (evutil_parse_sockaddr_port(o->tls_listen, (struct sockaddr *)&ss, &sslen))
		return fail(err, errlen, -EINVAL,
			    "admin TLS: '%s' is not ADDR:PORT or [V6ADDR]:PORT",
			    o->tls_listen);
	a->ssl_ctx = SSL_CTX_new(TLS_server_method());
	if (!a->ssl_ctx)
		return fail(err, errlen, -ENOMEM, "admin TLS: no SSL context");
	SSL_CTX_set_min_proto_version(a->ssl_ctx, TLS1_2_VERSION);
	if (SSL_CTX_use_certificate_chain_file(a->ssl_ctx, o->tls_cert) != 1)
		return fail(err, errlen, -EINVAL, "--admin-tls-cert %s: %s", o->tls_cert,
			    ssl_reason("not a PEM certificate"));
	if (SSL_CTX_use_PrivateKey_file(a->ssl_ctx, o->tls_key, SSL_FILETYPE_PEM) != 1)
		return fail(err, errlen, -EINVAL, "--admin-tls-key %s: %s", o->tls_key,
			    ssl_reason("not a PEM private key"));
	if (SSL_CTX_check_private_key(a->ssl_ctx) != 1)
		return fail(err, errlen, -EINVAL, "--admin-tls-key %s: %s", o->tls_key,
			    ssl_reason("not the key of --admin-tls-cert"));
	if (SSL_CTX_load_verify_locations(a->ssl_ctx, o->tls_ca, NULL) != 1)
		return fail(err, errlen, -EINVAL, "--admin-tls-ca %s: %s", o->tls_ca,
			    ssl_reason("no PEM certificate in it"));
	SSL_CTX_set_verify(a->ssl_ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
			   NULL);
	a->tls_lev = evconnlistener_new_bind(a->base, tls_accept, a,
					     LEV_OPT_CLOSE_ON_FREE |
						     LEV_OPT_CLOSE_ON_EXEC |
						     LEV_OPT_REUSEABLE,
					     64, (struct sockaddr *)&ss, sslen);
	if (!a->tls_lev)
		return fail(err, errlen, -errno, "admin TLS %s: %s", o->tls_listen,
			    strerror(errno));
	accept_pause_init(&a->tls_pause, a->tls_lev);
	return 0;
}
