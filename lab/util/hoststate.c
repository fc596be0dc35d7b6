// SPDX-License-Identifier: GPL-2.0
/*
 * The host-state journal (see util/hoststate.h).  Restoring may run from a
 * signal handler, so the entries live in a static table and the restore
 * path uses only open/read/write/unlink/rmdir and util/rawdir.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/cleanup.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/hoststate.h"
#include "util/owner.h"
#include "util/rawdir.h"

#define HS_MAX 32
#define HS_VALUE 256
#define HS_PATH 512

struct hs_entry {
	char path[HS_PATH];	/* the setting */
	char orig[HS_VALUE];	/* the host's value before any lab run */
	char journal[HS_PATH];	/* our journal file for it */
	int handle;
	bool active;
};

static struct hs_entry entries[HS_MAX];
static char state_dir[256];
static char owner_dir[HS_PATH];
static pid_t owner_pid;

const char *hoststate_dir(void)
{
	if (!state_dir[0]) {
		const char *e = getenv("MEMCG_LAB_STATE_DIR");

		snprintf(state_dir, sizeof(state_dir), "%s", e && *e ? e : "/run/memcg-lab");
	}
	return state_dir;
}

/* "/proc/sys/kernel/x" -> "%proc%sys%kernel%x" */
static void path_key(const char *path, char *key, size_t n)
{
	size_t i;

	for (i = 0; path[i] && i + 1 < n; i++)
		key[i] = path[i] == '/' ? '%' : path[i];
	key[i] = '\0';
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* Parses a journal file "<path>\n<original>\n" (no malloc). */
static int read_journal(const char *file, char *path, size_t pn, char *orig, size_t on)
{
	char buf[HS_PATH + HS_VALUE + 4], *nl;
	ssize_t n = read_buf(file, buf, sizeof(buf));

	if (n < 0)
		return n;
	nl = strchr(buf, '\n');
	if (!nl || (size_t)(nl - buf) >= pn)
		return -EINVAL;
	memcpy(path, buf, nl - buf);
	path[nl - buf] = '\0';
	snprintf(orig, on, "%s", nl + 1);
	chomp(orig);
	return 0;
}

/*
 * Looks for another owner's journal entry for the same setting.  Sets
 * *live when one of them still runs, and copies an original value found
 * into orig (when not NULL).
 */
struct others_ctx {
	const char *key;
	const char *skip;	/* an owner name to ignore */
	bool live;
	bool found;
	char *orig;
	size_t orig_len;
};

static int others_walk(const char *dir, const char *name, bool is_dir, void *arg)
{
	struct others_ctx *o = arg;
	char odir[HS_PATH], file[HS_PATH], path[HS_PATH], orig[HS_VALUE];
	unsigned long long start;
	pid_t pid;

	if (!is_dir || !lab_owner_parse(name, &pid, &start) || (o->skip && !strcmp(name, o->skip)))
		return 0;
	if (path_join(odir, sizeof(odir), dir, name) || path_join(file, sizeof(file), odir, o->key))
		return 0;
	if (read_journal(file, path, sizeof(path), orig, sizeof(orig)))
		return 0;
	if (o->orig && !o->found)
		snprintf(o->orig, o->orig_len, "%s", orig);
	o->found = true;
	if (lab_owner_alive(name))
		o->live = true;
	return 0;
}

static void restore_entry(void *arg)
{
	struct hs_entry *e = arg;
	struct others_ctx o = { 0 };
	char key[HS_PATH], me[64];
	int r;

	if (!e->active || owner_pid != getpid())
		return;
	e->active = false;
	path_key(e->path, key, sizeof(key));
	lab_owner_name(me, sizeof(me));
	o.key = key;
	o.skip = me;
	rawdir_foreach(hoststate_dir(), others_walk, &o);
	/* Another live run still wants its value; it restores the original. */
	if (!o.live) {
		r = write_text(e->path, e->orig);
		if (r) {
			char msg[HS_PATH + HS_VALUE + 96];
			int n = snprintf(msg, sizeof(msg), "%s: could not restore %s to '%s': %s\n",
					 lab_progname, e->path, e->orig, strerror(-r));

			if (write(STDERR_FILENO, msg, n > 0 && n < (int)sizeof(msg) ? n : 0) < 0)
				return;
			return;	/* keep the journal: cleanup retries */
		}
	}
	unlink(e->journal);
	rmdir(owner_dir);	/* fails while other entries remain: fine */
}

void hoststate_restore_all(void)
{
	for (int i = HS_MAX - 1; i >= 0; i--)
		if (entries[i].active)
			cleanup_pop(entries[i].handle, true);
}

void hoststate_restore(const char *path)
{
	for (int i = 0; i < HS_MAX; i++)
		if (entries[i].active && owner_pid == getpid() && !strcmp(entries[i].path, path))
			cleanup_pop(entries[i].handle, true);
}

int hoststate_set(const char *path, const char *value, char *err, size_t errlen)
{
	struct others_ctx o = { 0 };
	struct hs_entry *e = NULL;
	char key[HS_PATH], me[64], cur[HS_VALUE], *journal_text;
	ssize_t n;
	int r;

	for (int i = 0; i < HS_MAX; i++)
		if (entries[i].active && owner_pid == getpid() && !strcmp(entries[i].path, path))
			e = &entries[i];
	if (!e) {
		for (int i = 0; i < HS_MAX && !e; i++)
			if (!entries[i].active)
				e = &entries[i];
		if (!e) {
			snprintf(err, errlen, "too many host settings changed (at most %d)", HS_MAX);
			return -1;
		}
		if (strlen(path) >= sizeof(e->path)) {
			snprintf(err, errlen, "path too long: %s", path);
			return -1;
		}
		n = read_buf(path, cur, sizeof(cur));
		if (n < 0) {
			snprintf(err, errlen, "cannot read %s: %s", path, strerror(-n));
			return -1;
		}
		chomp(cur);
		lab_owner_name(me, sizeof(me));
		path_key(path, key, sizeof(key));
		/* A run that overlaps with ours holds the host's true original. */
		o.key = key;
		o.skip = me;
		o.orig = cur;
		o.orig_len = sizeof(cur);
		rawdir_foreach(hoststate_dir(), others_walk, &o);

		if (owner_pid != getpid()) {
			owner_pid = getpid();
			if (path_join(owner_dir, sizeof(owner_dir), hoststate_dir(), me)) {
				snprintf(err, errlen, "state directory path too long: %s", hoststate_dir());
				return -1;
			}
		}
		r = mkdir_p(owner_dir, 0700);
		if (r) {
			snprintf(err, errlen, "cannot create the host-state journal %s: %s", owner_dir,
				 strerror(-r));
			return -1;
		}
		memset(e, 0, sizeof(*e));
		snprintf(e->path, sizeof(e->path), "%s", path);
		snprintf(e->orig, sizeof(e->orig), "%s", cur);
		if (path_join(e->journal, sizeof(e->journal), owner_dir, key)) {
			snprintf(err, errlen, "journal path too long for %s", path);
			return -1;
		}
		journal_text = xasprintf("%s\n%s\n", e->path, e->orig);
		r = write_file_atomic(e->journal, journal_text, strlen(journal_text));
		free(journal_text);
		if (r) {
			snprintf(err, errlen, "cannot write the host-state journal %s: %s", e->journal,
				 strerror(-r));
			return -1;
		}
		e->active = true;
		e->handle = cleanup_push(restore_entry, e, "host setting");
	}
	r = write_text(path, value);
	if (r) {
		snprintf(err, errlen, "cannot set %s to '%s': %s", path, value, strerror(-r));
		cleanup_pop(e->handle, true);
		return -1;
	}
	return 0;
}

/* ---- stale journals ----------------------------------------------------- */

struct stale_ctx {
	FILE *out;
	bool force, dry_run;
	const char *owner;	/* the owner directory being walked */
	const char *owner_dir;
	bool owner_alive;
	pid_t pid;
	int restored, failed;
};

static int stale_entry(const char *dir, const char *name, bool is_dir, void *arg)
{
	struct stale_ctx *s = arg;
	char file[HS_PATH], path[HS_PATH], orig[HS_VALUE], key[HS_PATH];
	struct others_ctx o = { 0 };
	const char *why = s->owner_alive ? "still running, --force" : "gone";
	int r;

	(void)dir;
	if (is_dir || strstr(name, ".tmp."))	/* write_file_atomic()'s temp files */
		return 0;
	if (path_join(file, sizeof(file), s->owner_dir, name))
		return 0;
	if (read_journal(file, path, sizeof(path), orig, sizeof(orig))) {
		fprintf(s->out, "skipped unreadable host-state journal %s\n", file);
		return 0;
	}
	path_key(path, key, sizeof(key));
	o.key = key;
	o.skip = s->owner;
	rawdir_foreach(hoststate_dir(), others_walk, &o);
	if (o.live && !s->force) {
		/* A live run still changes it and restores it itself. */
		if (!s->dry_run)
			unlink(file);
		fprintf(s->out, "%s journal of %s (owner pid %d gone): a running lab run restores it\n",
			s->dry_run ? "would drop" : "dropped", path, (int)s->pid);
		return 0;
	}
	if (s->dry_run) {
		fprintf(s->out, "would restore %s to '%s' (owner pid %d %s)\n", path, orig, (int)s->pid,
			s->owner_alive ? "still running" : "gone");
		s->restored++;
		return 0;
	}
	r = write_text(path, orig);
	if (r) {
		fprintf(s->out, "could not restore %s to '%s': %s\n", path, orig, strerror(-r));
		s->failed++;
		return 0;
	}
	unlink(file);
	fprintf(s->out, "restored %s to '%s' (owner pid %d %s)\n", path, orig, (int)s->pid, why);
	s->restored++;
	return 0;
}

static int stale_owner(const char *dir, const char *name, bool is_dir, void *arg)
{
	struct stale_ctx *s = arg;
	char odir[HS_PATH];
	unsigned long long start;

	if (!is_dir || !lab_owner_parse(name, &s->pid, &start))
		return 0;
	s->owner_alive = lab_owner_alive(name);
	if (s->owner_alive && !s->force)
		return 0;
	if (path_join(odir, sizeof(odir), dir, name))
		return 0;
	s->owner = name;
	s->owner_dir = odir;
	rawdir_foreach(odir, stale_entry, s);
	if (!s->dry_run)
		rmdir(odir);
	return 0;
}

int hoststate_restore_stale(FILE *out, bool force, bool dry_run)
{
	struct stale_ctx s = { .out = out, .force = force, .dry_run = dry_run };
	int r = rawdir_foreach(hoststate_dir(), stale_owner, &s);

	if (r == -ENOENT)
		r = 0;	/* no run ever changed anything here */
	if (r < 0)
		fprintf(out, "could not look for journaled host settings in %s: %s\n", hoststate_dir(),
			strerror(-r));
	fflush(out);
	if (r < 0)
		return r;
	return s.failed ? -EIO : s.restored;
}
