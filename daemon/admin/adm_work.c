/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Work the event loop must not wait for (a namespace's store file, FTL
 * format or recovery, clean stop, file removal) on a thread of its own,
 * one per piece of work: they are rare and few at a time, so a pool
 * would buy nothing.
 *
 * The result comes back through an eventfd the loop watches, one per
 * piece of work, rather than libevent's event_active() from the thread:
 * that needs evthread_use_pthreads(), which puts a lock around every
 * operation of the event base, data path included, for the sake of one
 * wake-up per namespace created or deleted. pthread_join() on the loop
 * orders everything the thread wrote before what the loop then reads.
 */
#include "adm_internal.h"

#include <errno.h>
#include <event2/event.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct adm_work {
	pthread_t thread;
	int efd;
	struct event *ev;
	void (*run)(void *arg);
	void (*done)(void *arg);
	void *arg;
};

static void *work_main(void *p)
{
	struct adm_work *w = p;
	uint64_t one = 1;

	w->run(w->arg);
	/* An eventfd write only fails on overflow, which one write cannot do. */
	while (write(w->efd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	return NULL;
}

static void work_done_cb(evutil_socket_t fd, short what, void *p)
{
	struct adm_work *w = p;

	(void)fd;
	(void)what;
	pthread_join(w->thread, NULL);
	event_free(w->ev);
	close(w->efd);
	w->done(w->arg);
	free(w);
}

int adm_work_start(struct event_base *base, void (*run)(void *arg),
		   void (*done)(void *arg), void *arg)
{
	struct adm_work *w = calloc(1, sizeof(*w));
	sigset_t all, old;
	int rc;

	if (!w)
		return -ENOMEM;
	w->run = run;
	w->done = done;
	w->arg = arg;
	w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->efd < 0) {
		rc = -errno;
		goto free_w;
	}
	w->ev = event_new(base, w->efd, EV_READ, work_done_cb, w);
	if (!w->ev || event_add(w->ev, NULL)) {
		rc = -ENOMEM;
		goto close_efd;
	}
	/* Signals (SIGTERM, SIGINT) stay with the loop's thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = -pthread_create(&w->thread, NULL, work_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		goto close_efd;
	return 0;

close_efd:
	if (w->ev)
		event_free(w->ev);
	close(w->efd);
free_w:
	free(w);
	return rc;
}
