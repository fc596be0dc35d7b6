// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bpf/kread.bpf.h"
#include "kernel/kread.h"
#include "util/fileio.h"

extern const char bpf_obj_kread[], bpf_obj_kread_end[];

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int kread_open(struct kread *kr, char *err, size_t errlen)
{
	struct bpf_program *prog;
	struct bpf_map *map;
	libbpf_print_fn_t old;
	int e;

	memset(kr, 0, sizeof(*kr));
	kr->map_fd = -1;
	old = libbpf_set_print(quiet_print);
	kr->obj = bpf_object__open_mem(bpf_obj_kread, bpf_obj_kread_end - bpf_obj_kread, NULL);
	if (!kr->obj) {
		e = errno;
		snprintf(err, errlen, "BPF kernel reader: cannot open the embedded object: %s", strerror(e));
		goto fail;
	}
	e = bpf_object__load(kr->obj);
	if (e) {
		snprintf(err, errlen, "BPF kernel reader: the kernel refused the program (%s)%s", strerror(-e),
			 geteuid() ? "; it needs root" : "");
		goto fail;
	}
	prog = bpf_object__find_program_by_name(kr->obj, "kread");
	map = bpf_object__find_map_by_name(kr->obj, "kread_req");
	if (!prog || !map) {
		snprintf(err, errlen, "BPF kernel reader: program or map missing from the object");
		goto fail;
	}
	kr->link = bpf_program__attach_raw_tracepoint(prog, "task_rename");
	if (!kr->link) {
		e = errno;
		snprintf(err, errlen, "BPF kernel reader: cannot attach to the task_rename raw tracepoint: %s",
			 strerror(e));
		goto fail;
	}
	kr->map_fd = bpf_map__fd(map);
	libbpf_set_print(old);
	return 0;
fail:
	libbpf_set_print(old);
	kread_close(kr);
	return -1;
}

void kread_close(struct kread *kr)
{
	if (kr->link)
		bpf_link__destroy(kr->link);
	if (kr->obj)
		bpf_object__close(kr->obj);
	memset(kr, 0, sizeof(*kr));
	kr->map_fd = -1;
}

static int arm(struct kread *kr, pid_t tid, uint64_t start, const uint64_t *offs, int nsteps,
	       struct kread_req *req, char *err, size_t errlen)
{
	__u32 key = 0;

	if (nsteps < 1 || nsteps > KREAD_STEPS) {
		snprintf(err, errlen, "kread: %d steps (1..%d)", nsteps, KREAD_STEPS);
		return -1;
	}
	memset(req, 0, sizeof(*req));
	req->tid = (__u32)tid;
	req->nsteps = (__u32)nsteps;
	req->start = start;
	for (int i = 0; i < nsteps; i++)
		req->off[i] = offs[i];
	if (bpf_map_update_elem(kr->map_fd, &key, req, BPF_ANY)) {
		snprintf(err, errlen, "kread: map update: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int collect(struct kread *kr, int nsteps, uint64_t *vals, char *err, size_t errlen)
{
	struct kread_req req;
	__u32 key = 0;

	if (bpf_map_lookup_elem(kr->map_fd, &key, &req)) {
		snprintf(err, errlen, "kread: map lookup: %s", strerror(errno));
		return -1;
	}
	if (!req.seq) {
		snprintf(err, errlen, "kread: the task_rename tracepoint did not fire for the reader's thread");
		return -1;
	}
	if (req.err) {
		snprintf(err, errlen, "kread: reading kernel memory failed at step %u: error %lld",
			 req.failed_step, (long long)req.err);
		return -1;
	}
	for (int i = 0; i < nsteps; i++)
		vals[i] = req.val[i];
	return 0;
}

static void trigger(void)
{
	char comm[17] = { 0 };

	/* Setting the name to itself fires task:task_rename in our context. */
	prctl(PR_GET_NAME, comm);
	prctl(PR_SET_NAME, comm);
}

int kread_chain(struct kread *kr, uint64_t start, const uint64_t *offs, int nsteps, uint64_t *vals,
		char *err, size_t errlen)
{
	struct kread_req req;

	if (arm(kr, (pid_t)syscall(SYS_gettid), start, offs, nsteps, &req, err, errlen) < 0)
		return -1;
	trigger();
	return collect(kr, nsteps, vals, err, errlen);
}

int kread_chain_in_cgroup(struct kread *kr, const char *cgroup_dir, const uint64_t *offs, int nsteps,
			  uint64_t *vals, char *err, size_t errlen)
{
	struct kread_req req;
	int go[2], done[2], st;
	char procs[4096], msg[256] = "";
	pid_t pid;
	ssize_t n;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cgroup_dir);
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(done, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "kread: pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "kread: fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char c;
		int e;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(go[1]);
		close(done[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		e = write_text(procs, "0");
		if (e < 0) {
			snprintf(msg, sizeof(msg), "cannot join %s: %s", cgroup_dir, strerror(-e));
			if (write(done[1], msg, strlen(msg)) < 0)
				_exit(3);
			_exit(2);
		}
		trigger();
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	if (arm(kr, pid, 0, offs, nsteps, &req, err, errlen) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(go[1]);
		close(done[0]);
		return -1;
	}
	if (write(go[1], "g", 1) != 1) {
		snprintf(err, errlen, "kread: cannot start the helper: %s", strerror(errno));
		kill(pid, SIGKILL);
	}
	close(go[1]);
	n = read(done[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(done[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		snprintf(err, errlen, "kread: helper in %s failed: %s", cgroup_dir, msg[0] ? msg : "no reason given");
		return -1;
	}
	return collect(kr, nsteps, vals, err, errlen);
}
