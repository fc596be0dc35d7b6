// SPDX-License-Identifier: GPL-2.0
/*
 * The host-state journal on a stand-in setting (a file under a temporary
 * directory, with the journal there too through $MEMCG_LAB_STATE_DIR):
 * restore on exit and SIGTERM, restore by cleanup after SIGKILL, never for
 * a live run without force, and overlapping runs keep the host's original.
 * Runs (the lab's own "runs" are this program re-executed) without root.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tests/tap.h"
#include "util/cleanup.h"
#include "util/fileio.h"
#include "util/hoststate.h"
#include "util/hoststate_stale.h"
#include "util/run.h"

static char dir[] = "/tmp/unit-hoststate.XXXXXX", setting[256];

static int run_main(const char *path, const char *value)
{
	char err[512];

	cleanup_init();
	if (hoststate_set(path, value, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}

struct run {
	pid_t pid;
	FILE *out;
};

/* Starts a run that sets the setting to value and waits for signals. */
static int run_start(struct run *r, const char *value)
{
	char line[16];
	int p[2];

	if (pipe(p))
		return -1;
	fflush(NULL);
	r->pid = fork();
	if (r->pid == 0) {
		char *args[] = { "unit-hoststate", "run", setting, (char *)value, NULL };

		dup2(p[1], 1);
		close(p[0]);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	close(p[1]);
	r->out = fdopen(p[0], "r");
	return fgets(line, sizeof(line), r->out) && !strcmp(line, "ready\n") ? 0 : -1;
}

static void run_end(struct run *r, int sig)
{
	kill(r->pid, sig);
	waitpid(r->pid, NULL, 0);
	fclose(r->out);
}

static char *value(void)
{
	static char buf[64];

	if (read_buf(setting, buf, sizeof(buf)) < 0)
		return "(unreadable)";
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
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

static int journal_entries(const char *dir)
{
	char *out = run_capture_argv((const char *const[]){ "find", dir, "-type", "f", NULL }, RUN_STDERR_DISCARD, NULL);
	int n = 0;

	for (const char *p = out; *p; p++)
		n += *p == '\n';
	free(out);
	return n;
}

/* In this process: set, journal, restore. */
TEST(set_journal_restore_in_process)
{
	char err[512];

	ok(hoststate_set(setting, "200", err, sizeof(err)) == 0 && !strcmp(value(), "200"),
	   "hoststate_set writes the new value");
	is_int(journal_entries(dir), 2, "the journal holds the original (one entry besides the setting)");
	hoststate_restore_all();
	ok(!strcmp(value(), "100"), "restored to 100 at the end of the run");
	is_int(journal_entries(dir), 1, "the journal entry is gone");
	ok(hoststate_set("/nonexistent/knob", "1", err, sizeof(err)) == -1 && strstr(err, "/nonexistent/knob"),
	   "a missing setting: one line naming it (%s)", err);
}

/* SIGTERM: the run's undo steps restore. */
TEST(sigterm_restores)
{
	struct run a;

	ok(run_start(&a, "300") == 0 && !strcmp(value(), "300"), "a run sets 300");
	run_end(&a, SIGTERM);
	ok(!strcmp(value(), "100"), "after SIGTERM the setting is back to 100");
}

/* A live run is left alone without force; with force it is restored. */
TEST(live_run_left_without_force)
{
	struct run a;
	char *out;
	int n;

	run_start(&a, "400");
	out = stale(false, false, &n);
	ok(n == 0 && !strcmp(value(), "400"), "cleanup leaves a live run's setting (400)");
	free(out);
	out = stale(true, false, &n);
	ok(n == 1 && !strcmp(value(), "100") && strstr(out, "still running, --force"),
	   "cleanup --force restores it: %s", strtok(out, "\n"));
	free(out);
	run_end(&a, SIGTERM);
}

/* SIGKILL: the journal survives, cleanup restores from it. */
TEST(sigkill_journal_cleanup_restores)
{
	struct run a;
	char *out;
	int n;

	run_start(&a, "500");
	run_end(&a, SIGKILL);
	ok(!strcmp(value(), "500"), "after SIGKILL the setting stays 500");
	out = stale(false, true, &n);
	ok(n == 1 && strstr(out, "would restore") && !strcmp(value(), "500"),
	   "cleanup --dry-run lists it and changes nothing");
	free(out);
	out = stale(false, false, &n);
	ok(n == 1 && !strcmp(value(), "100") && strstr(out, "restored ") && strstr(out, "'100'") &&
	   strstr(out, "gone"), "cleanup restores 100: %s", strtok(out, "\n"));
	free(out);
	is_int(journal_entries(dir), 1, "and the dead run's journal is gone");
}

/* Overlapping runs: the last one to end restores the true original. */
TEST(overlapping_runs_keep_original)
{
	struct run a, b;

	run_start(&a, "600");
	run_start(&b, "700");
	run_end(&a, SIGTERM);
	ok(!strcmp(value(), "700"), "the first run ends while the second still runs: 700 stays");
	run_end(&b, SIGTERM);
	ok(!strcmp(value(), "100"), "the second ends: back to the host's 100, not the first run's 600");
}

/* A dead run's entry next to a live run that holds the same setting. */
TEST(dead_run_dropped_next_to_live_one)
{
	struct run a, b;
	char *out;
	int n;

	run_start(&a, "800");
	run_start(&b, "900");
	run_end(&a, SIGKILL);
	out = stale(false, false, &n);
	ok(n == 0 && !strcmp(value(), "900") && strstr(out, "running lab run restores it"),
	   "a dead run's entry is dropped while a live run holds the same setting");
	free(out);
	run_end(&b, SIGTERM);
	ok(!strcmp(value(), "100"), "and the live one restores the host's 100 at its end");
}

int main(int argc, char **argv)
{
	int rc;

	if (argc == 4 && !strcmp(argv[1], "run"))
		return run_main(argv[2], argv[3]);
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	setenv("MEMCG_LAB_STATE_DIR", dir, 1);
	snprintf(setting, sizeof(setting), "%s/setting", dir);
	/* Each case starts from the host's 100 and an empty journal, and leaves them so. */
	write_file_atomic(setting, "100\n", 4);
	rc = tap_main(argc, argv);
	unlink(setting);
	rmdir(dir);
	return rc;
}
