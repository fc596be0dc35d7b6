// SPDX-License-Identifier: GPL-2.0
/*
 * The host-state journal's mounts (hoststate_mount) on a real tracefs,
 * mounted at a temporary directory inside this test's own mount namespace
 * (so the host's tracefs is never touched), with the journal under a
 * temporary $MEMCG_LAB_STATE_DIR: unmount at the end and on SIGTERM,
 * unmount by cleanup after SIGKILL, a mount someone else made is never
 * touched, overlapping runs share the mount (the last one unmounts it),
 * a stale owner's journal next to a live one, a mount replaced after the
 * owner died, and a run killed in another mount namespace.  The lab's
 * "runs" are this program re-executed.  Needs root (mount).
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/tap.h"
#include "util/cleanup.h"
#include "util/fileio.h"
#include "util/hoststate.h"
#include "util/hoststate_stale.h"
#include "util/run.h"

static char target[256], state[256];

static int private_ns(void)
{
	return unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ? -1 : 0;
}

/* A run: mounts tracefs at target and waits for signals.  "runns" first
 * moves into a mount namespace of its own, with a holder process that
 * outlives the run there (a namespace somebody still uses). */
static int run_main(const char *mode)
{
	char err[512];
	pid_t holder = 0;
	int r;

	if (!strcmp(mode, "runns")) {
		if (private_ns())
			return 3;
		holder = fork();
		if (holder == 0) {
			for (;;)
				pause();
		}
	}
	cleanup_init();
	r = hoststate_mount("tracefs", target, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	printf("ready %d %d\n", r, (int)holder);
	fflush(stdout);
	for (;;)
		pause();
}

struct run {
	pid_t pid;
	FILE *out;
	int got;	/* what hoststate_mount returned in the run */
	int holder;	/* "runns": the process left in its namespace */
};

static int run_spawn(struct run *r, const char *mode);
static int run_ready(struct run *r);

static int run_start(struct run *r, const char *mode)
{
	return run_spawn(r, mode) ? -1 : run_ready(r);
}

static int run_spawn(struct run *r, const char *mode)
{
	int p[2];

	if (pipe(p))
		return -1;
	fflush(NULL);
	r->pid = fork();
	if (r->pid == 0) {
		char *args[] = { "unit-hostmount", (char *)mode, target, state, NULL };

		dup2(p[1], 1);
		close(p[0]);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	close(p[1]);
	r->out = fdopen(p[0], "r");
	r->got = -1;
	return 0;
}

static int run_ready(struct run *r)
{
	char line[32];

	if (!fgets(line, sizeof(line), r->out) || sscanf(line, "ready %d %d", &r->got, &r->holder) != 2)
		return -1;
	return 0;
}

static void run_end(struct run *r, int sig)
{
	kill(r->pid, sig);
	waitpid(r->pid, NULL, 0);
	fclose(r->out);
}

/* Is tracefs mounted at target in the mount namespace of pid (0: ours)? */
static bool mounted_in(pid_t pid)
{
	char file[64], *text, *line, *save = NULL;
	bool yes = false;

	snprintf(file, sizeof(file), "/proc/%d/mounts", pid ? (int)pid : (int)getpid());
	text = read_text(file, NULL);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char dev[256], mnt[256], type[64];

		if (sscanf(line, "%255s %255s %63s", dev, mnt, type) == 3 && !strcmp(mnt, target) &&
		    !strcmp(type, "tracefs"))
			yes = true;
	}
	free(text);
	return yes;
}

static bool mounted(void)
{
	return mounted_in(0);
}

/* How many tracefs are mounted at target here (stacked ones too). */
static int mounts_at_target(void)
{
	char *text = read_text("/proc/self/mounts", NULL), *line, *save = NULL;
	int n = 0;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char dev[256], mnt[256], type[64];

		if (sscanf(line, "%255s %255s %63s", dev, mnt, type) == 3 && !strcmp(mnt, target) &&
		    !strcmp(type, "tracefs"))
			n++;
	}
	free(text);
	return n;
}

static char *stale(bool force, bool dry_run, int *n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	*n = hoststate_restore_stale(f, force, dry_run, NULL);
	fclose(f);
	return text;
}

static int journal_entries(void)
{
	/* journal entries, not the lock file .mounts.lock */
	char *out = run_capture_argv((const char *const[]){ "find", state, "-type", "f", "!", "-name", ".*", NULL },
				     RUN_STDERR_DISCARD, NULL);
	int n = 0;

	for (const char *p = out; *p; p++)
		n += *p == '\n';
	free(out);
	return n;
}

static void host_mount(void)
{
	if (mount("tracefs", target, "tracefs", 0, NULL))
		tap_diag("mount %s: %s", target, strerror(errno));
}

/* In this process: mount, journal, unmount. */
TEST(mount_journal_unmount_in_process)
{
	char err[512];

	ok(hoststate_mount("tracefs", target, err, sizeof(err)) == 1 && mounted(),
	   "hoststate_mount mounts tracefs where none is");
	is_int(journal_entries(), 1, "the journal holds the mount");
	ok(hoststate_mount("tracefs", target, err, sizeof(err)) == 1 && journal_entries() == 1,
	   "asking again is the same mount, journaled once");
	hoststate_restore_all();
	ok(!mounted(), "unmounted at the end of the run");
	is_int(journal_entries(), 0, "the journal entry is gone");
	ok(hoststate_mount("tracefs", "/nonexistent/t", err, sizeof(err)) == -1 &&
	   !strcmp(err, "cannot mount tracefs at /nonexistent/t: No such file or directory"),
	   "a refused mount: one line naming the mount point and the errno (%s)", err);
	is_int(journal_entries(), 0, "and nothing journaled");
}

/* A tracefs someone else mounted is used and never unmounted. */
TEST(foreign_mount_never_unmounted)
{
	char err[512], *out;
	struct run a;
	int n;

	host_mount();
	ok(hoststate_mount("tracefs", target, err, sizeof(err)) == 0 && journal_entries() == 0,
	   "a mount the lab did not make: 0, nothing journaled");
	hoststate_restore_all();
	ok(mounted(), "and it stays mounted after the run");
	run_start(&a, "run");
	run_end(&a, SIGKILL);
	out = stale(true, false, &n);
	ok(n == 0 && mounted(), "nor does cleanup --force unmount it");
	free(out);
	umount(target);
}

/* SIGTERM: the run's undo steps unmount. */
TEST(sigterm_unmounts)
{
	struct run a;

	ok(run_start(&a, "run") == 0 && a.got == 1 && mounted(), "a run mounts tracefs");
	run_end(&a, SIGTERM);
	ok(!mounted() && journal_entries() == 0, "after SIGTERM it is unmounted, the journal empty");
}

/* A live run is left alone without force; with force it is unmounted. */
TEST(live_run_left_without_force)
{
	char *out;
	struct run a;
	int n;

	run_start(&a, "run");
	out = stale(false, false, &n);
	ok(n == 0 && mounted(), "cleanup leaves a live run's mount");
	free(out);
	out = stale(true, false, &n);
	ok(n == 1 && !mounted() && strstr(out, "unmounted tracefs at ") && strstr(out, "still running, --force"),
	   "cleanup --force unmounts it: %s", strtok(out, "\n"));
	free(out);
	run_end(&a, SIGTERM);
}

/* SIGKILL: the journal survives, cleanup unmounts from it. */
TEST(sigkill_journal_cleanup_unmounts)
{
	char *out;
	struct run a;
	int n;

	run_start(&a, "run");
	run_end(&a, SIGKILL);
	ok(mounted() && journal_entries() == 1, "after SIGKILL tracefs stays mounted, journaled");
	out = stale(false, true, &n);
	ok(n == 1 && strstr(out, "would unmount tracefs at ") && mounted(),
	   "cleanup --dry-run lists it and unmounts nothing");
	free(out);
	out = stale(false, false, &n);
	ok(n == 1 && !mounted() && strstr(out, "unmounted tracefs at ") && strstr(out, "gone"),
	   "cleanup unmounts it: %s", strtok(out, "\n"));
	free(out);
	is_int(journal_entries(), 0, "and the dead run's journal is gone");
}

/* Overlapping runs share the mount: the last one to end unmounts. */
TEST(overlapping_runs_share_mount)
{
	struct run a, b;

	run_start(&a, "run");
	run_start(&b, "run");
	ok(a.got == 1 && b.got == 1 && journal_entries() == 2,
	   "a second run joins the first one's mount (both journal it)");
	run_end(&a, SIGTERM);
	ok(mounted(), "the first run ends while the second still runs: tracefs stays mounted");
	run_end(&b, SIGTERM);
	ok(!mounted() && journal_entries() == 0, "the second ends: unmounted");
}

/* Runs that start at the same moment mount once, not stacked. */
TEST(simultaneous_runs_mount_once)
{
	for (int round = 0; round < 20; round++) {
		struct run many[4];
		int got = 0, stacked;

		for (int i = 0; i < 4; i++)
			run_spawn(&many[i], "run");
		for (int i = 0; i < 4; i++)
			got += run_ready(&many[i]) == 0 && many[i].got == 1;
		stacked = mounts_at_target();
		for (int i = 0; i < 4; i++)
			run_end(&many[i], SIGTERM);
		if (got != 4 || stacked != 1 || mounted() || journal_entries()) {
			ok(0, "4 runs started at once, round %d: %d mounts, %d of them holding it, %d left after",
			   round, stacked, got, mounts_at_target());
			while (mounts_at_target())
				umount(target);
			break;
		}
		if (round == 19)
			ok(1, "4 runs started at once, 20 times: one mount each time, unmounted by the last");
	}
}

/* A stale owner next to a live one. */
TEST(stale_owner_next_to_live_one)
{
	char *out;
	struct run a, b;
	int n;

	run_start(&a, "run");
	run_start(&b, "run");
	run_end(&a, SIGKILL);
	out = stale(false, false, &n);
	ok(n == 0 && mounted() && strstr(out, "the tracefs mount at") && strstr(out, "running lab run restores it"),
	   "a dead run's journal is dropped while a live run shares the mount");
	free(out);
	run_end(&b, SIGTERM);
	ok(!mounted() && journal_entries() == 0, "and the live one unmounts it at its end");
}

/* A run after a killed one whose mount is still there takes it over. */
TEST(new_run_adopts_killed_runs_mount)
{
	char *out;
	struct run a, b;
	int n;

	run_start(&a, "run");
	run_end(&a, SIGKILL);
	run_start(&b, "run");
	ok(b.got == 1, "a new run adopts the mount a killed run left");
	run_end(&b, SIGTERM);
	ok(!mounted(), "and unmounts it at its end");
	out = stale(false, false, &n);
	ok(n == 0 && strstr(out, "not mounted any more") && journal_entries() == 0,
	   "cleanup then drops the killed run's journal: %s", strtok(out, "\n"));
	free(out);
}

/* The mount replaced after the owner died: not the lab's, kept. */
TEST(replaced_mount_kept)
{
	char *out;
	struct run a;
	int n;

	run_start(&a, "run");
	run_end(&a, SIGKILL);
	umount(target);
	host_mount();
	out = stale(false, false, &n);
	ok(n == 0 && mounted() && strstr(out, "not mounted any more") && journal_entries() == 0,
	   "a tracefs mounted anew after the run died is someone else's: left mounted");
	free(out);
	umount(target);
}

/* A run killed in a mount namespace of its own that still lives. */
TEST(killed_in_live_namespace)
{
	char *out;
	struct run a;
	int n;

	if (run_start(&a, "runns") == 0 && a.got == 1) {
		pid_t holder = a.holder;

		run_end(&a, SIGKILL);
		ok(holder > 0 && mounted_in(holder) && !mounted(),
		   "a run killed in another mount namespace left its mount there only");
		out = stale(false, false, &n);
		ok(n == 1 && holder > 0 && !mounted_in(holder) && strstr(out, "in mount namespace mnt:["),
		   "cleanup unmounts it in that namespace: %s", strtok(out, "\n"));
		free(out);
		if (holder > 0)
			kill(holder, SIGKILL);	/* reparented to init: not ours to wait for */
	} else {
		ok(0, "a run in a mount namespace of its own mounts tracefs");
	}
}

/* A run killed in a namespace nobody uses any more. */
TEST(killed_in_gone_namespace)
{
	char *out;
	pid_t pid;
	int st, n;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct run c;

		if (private_ns() || run_start(&c, "run") || c.got != 1)
			_exit(1);
		run_end(&c, SIGKILL);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	out = stale(false, false, &n);
	ok(WIFEXITED(st) && !WEXITSTATUS(st) && journal_entries() == 0 &&
	   strstr(out, "mount namespace mnt:[") && strstr(out, "is gone"),
	   "a journal from a mount namespace that is gone is dropped: %s", strtok(out, "\n"));
	free(out);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/unit-hostmount.XXXXXX", lock[300];
	int rc;

	if (argc == 4 && (!strcmp(argv[1], "run") || !strcmp(argv[1], "runns"))) {
		snprintf(target, sizeof(target), "%s", argv[2]);
		snprintf(state, sizeof(state), "%s", argv[3]);
		return run_main(argv[1]);
	}
	if (geteuid() != 0)
		tap_skip_all("needs root (it mounts tracefs, in a mount namespace of its own)");
	if (private_ns())
		tap_skip_all("cannot make a private mount namespace (unshare/mount refused here)");
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(target, sizeof(target), "%s/t", dir);
	snprintf(state, sizeof(state), "%s/state", dir);
	mkdir_p(target, 0700);
	mkdir_p(state, 0700);
	setenv("MEMCG_LAB_STATE_DIR", state, 1);
	/* Each case starts from no tracefs at target and an empty journal,
	 * and leaves them so. */
	rc = tap_main(argc, argv);
	rmdir(target);
	/* The journal's lock file stays by design (util/hoststate.c): the
	 * test's own copy goes with its directory. */
	snprintf(lock, sizeof(lock), "%s/.mounts.lock", state);
	unlink(lock);
	rmdir(state);
	rmdir(dir);
	return rc;
}
