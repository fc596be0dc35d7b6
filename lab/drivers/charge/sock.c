// SPDX-License-Identifier: GPL-2.0
/*
 * sock: the seeds' netperf TCP_SENDFILE shape over loopback.  Each worker
 * is a client with its own server: it listens on [::1] (127.0.0.1 when the
 * host has no IPv6), starts a receiver thread in the same process, hence in
 * the same cgroup, that accepts the connection and reads until EOF, and
 * then sends msg bytes per sendfile() from a memfd.  The accepted socket is
 * charged to the receiver's memcg and the connecting one to the client's:
 * the whole pair lives in the worker's cgroup.
 *
 * The receiver may run on any CPU the process was allowed at start (the
 * seeds did not pin netserver); the client stays on the worker's CPU.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>
#include "drivers/charge/loops.h"
#include "util/cpus.h"

struct sock {
	int lfd, cfd, src;
	size_t msg;
	pthread_t rx;
	bool rx_started;
	cpu_set_t any;		/* the online CPUs (the kernel keeps it inside cpusets) */
};

static void *receiver(void *arg)
{
	struct sock *s = arg;
	size_t len = 64 * 1024;
	char *buf = malloc(len);
	int fd;

	/* Unpinned, like the seeds' netserver; failure leaves it on the client's CPU. */
	sched_setaffinity(0, sizeof(s->any), &s->any);
	fd = buf ? accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC) : -1;
	while (fd >= 0) {
		ssize_t r = recv(fd, buf, len, 0);

		if (r == 0 || (r < 0 && errno != EINTR))
			break;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* Listens on a loopback port chosen by the kernel; fills addr for connect(). */
static int listen_loopback(struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&a6, sizeof(a6)) < 0) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -1;
		if (bind(fd, (struct sockaddr *)&a4, sizeof(a4)) < 0) {
			close(fd);
			return -1;
		}
	}
	*len = sizeof(*ss);
	if (listen(fd, 1) < 0 || getsockname(fd, (struct sockaddr *)ss, len) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void sock_teardown(void *state)
{
	struct sock *s = state;

	if (s->cfd >= 0) {
		shutdown(s->cfd, SHUT_WR);
		close(s->cfd);
	}
	if (s->rx_started) {
		/* No connection came: wake accept() by shutting the listener. */
		shutdown(s->lfd, SHUT_RDWR);
		pthread_join(s->rx, NULL);
	}
	if (s->lfd >= 0)
		close(s->lfd);
	if (s->src >= 0)
		close(s->src);
	free(s);
}

static int sock_fail(struct hworker *w, struct sock *s, const char *what)
{
	int e = errno ? errno : EIO;

	snprintf(w->err, sizeof(w->err), "%s: %s", what, strerror(e));
	sock_teardown(s);
	return -e;
}

static int sock_setup(struct hworker *w, void **state)
{
	const struct charge_opts *o = w->cfg;
	struct sock *s = calloc(1, sizeof(*s));
	struct sockaddr_storage ss;
	socklen_t len;
	char *data;
	int e;

	if (!s)
		return -ENOMEM;
	s->lfd = s->cfd = s->src = -1;
	s->msg = o->msg;
	e = cpus_online(&s->any, NULL);
	if (e < 0) {
		errno = -e;
		return sock_fail(w, s, "online CPUs");
	}
	/* The file sendfile() reads: msg bytes on shmem, like netperf's fill file. */
	s->src = memfd_create("memcg-lab-sendfile", MFD_CLOEXEC);
	if (s->src < 0 || ftruncate(s->src, (off_t)s->msg) < 0)
		return sock_fail(w, s, "memfd for sendfile");
	data = mmap(NULL, s->msg, PROT_WRITE, MAP_SHARED, s->src, 0);
	if (data == MAP_FAILED)
		return sock_fail(w, s, "mmap of the sendfile memfd");
	memset(data, 'm', s->msg);
	munmap(data, s->msg);
	s->lfd = listen_loopback(&ss, &len);
	if (s->lfd < 0)
		return sock_fail(w, s, "listen on loopback");
	e = pthread_create(&s->rx, NULL, receiver, s);
	if (e) {
		errno = e;
		return sock_fail(w, s, "receiver thread");
	}
	s->rx_started = true;
	s->cfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->cfd < 0 || connect(s->cfd, (struct sockaddr *)&ss, len) < 0)
		return sock_fail(w, s, "connect over loopback");
	*state = s;
	return 0;
}

static int sock_loop(void *state, uint64_t *count, const int *stop)
{
	struct sock *s = state;

	while (!hstop(stop)) {
		off_t off = 0;
		ssize_t n = sendfile(s->cfd, s->src, &off, s->msg);

		if (n > 0)
			hcount_add(count, (uint64_t)n);
		else if (n < 0 && errno != EINTR && errno != EAGAIN)
			return -errno;
	}
	return 0;
}

const struct hloop loop_sock = {
	.name = "sock",
	.what = "sendfile() messages over loopback TCP to a receiver in the same cgroup "
		"(socket memory charged on both ends)",
	.unit = "bytes",
	.rate_unit = "Mbps",
	.rate_scale = 8e-6,
	.setup = sock_setup,
	.loop = sock_loop,
	.teardown = sock_teardown,
};
