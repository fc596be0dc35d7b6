// SPDX-License-Identifier: GPL-2.0
/* The guest's side of vm --lines (c2c/lines_session.h). */
#include <bpf/btf.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include "c2c/c2c.h"
#include "c2c/lines_ksyms.h"
#include "c2c/lines_session.h"
#include "c2c/lines_window.h"
#include "kernel/btf.h"
#include "kernel/cgroup.h"
#include "kernel/kallsyms.h"
#include "kernel/kread.h"
#include "kernel/memcg_addr.h"
#include "util/err.h"
#include "util/fileio.h"
#include "util/owner.h"
#include "util/tsv.h"

#define OPEN_STATE ".window-open"

static int append(const char *name, const char *format, const char *const cols[], const char *text);
static bool open_state_counted(int *index, pid_t *pid, pid_t *counted);

/* objects.PID (no header): what publish_objects writes, published_objects reads. */
static const char *const pub_obj_cols[] = { "label", "type", "address", "size", "source", NULL };
/* counters.PID: "# unit<TAB>UNIT", then these columns. */
static const char *const counter_cols[] = { "address", "n", "stride", NULL };
/* The window's files (c2c/lines_session.h; c2c/lines_guest.c reads them). */
static const char *const win_cols[] = { "index", "label", "who", "repeat", "pid", "start_s", "len_s", "objects",
					"ranges", NULL };
static const char *const obj_cols[] = { "window", "label", "type", "address", "size", "source", NULL };
static const char *const rng_cols[] = { "window", "name", "address", "size", "stride", "fields", NULL };
static const char *const ops_cols[] = { "window", "ops", "unit", NULL };

/* A text cell that may be NULL: "-" then. */
static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

bool lines_session_active(void)
{
	const char *d = getenv(LINES_ENV_DIR);

	return d && *d;
}

static char *session_path(const char *name)
{
	return xasprintf("%s/%s", getenv(LINES_ENV_DIR), name);
}

static void note_line(const char *line, void *arg)
{
	(void)arg;
	note("lines: %s", line);
}

static struct {
	bool valid;
	pid_t owner;
	struct c2c_objects objs;
} cache;

/* KIND.PID in the session's directory: what this process publishes to the
 * host side, written whole (a reader never sees half of it); frees text. */
static void publish(const char *kind, char *text, size_t len)
{
	char name[64], *p;
	int e;

	snprintf(name, sizeof(name), "%s.%d", kind, (int)getpid());
	mkdir_p(getenv(LINES_ENV_DIR), 0755);
	p = session_path(name);
	e = write_file_atomic(p, text, len);
	if (e < 0)
		note("lines: %s: cannot write: %s", p, strerror(-e));
	free(p);
	free(text);
}

/* objects.PID: "label type address size source" per object (no header;
 * util/tsv.h's writer: a label with a tab stays in its cell). */
static void publish_objects(const struct c2c_objects *o)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	for (size_t i = 0; i < o->n; i++)
		tsv_write_row(f, "%s\t%s\t0x%" PRIx64 "\t%" PRIu64 "\t%s\n", or_dash(o->v[i].label), or_dash(o->v[i].type),
			      o->v[i].base, o->v[i].size, or_dash(o->v[i].source));
	fclose(f);
	publish("objects", text, len);
}

/* The objects owner published; false when it published none.  A row that
 * is not one (its file:line:field said) is left out. */
static bool published_objects(pid_t owner, struct c2c_objects *o)
{
	char *p, name[64], err[512];
	struct tsv t;
	int r;

	snprintf(name, sizeof(name), "objects.%d", (int)owner);
	p = session_path(name);
	if (!path_exists(p)) {
		free(p);
		return false;
	}
	if (tsv_open(&t, p, pub_obj_cols, TSV_NO_HEADER, err, sizeof(err)) < 0)
		note_line(err, NULL);
	while ((r = tsv_next(&t)) != TSV_END) {
		uint64_t base, size;
		struct c2c_object *ob;

		if (r == TSV_ERROR || tsv_u64(&t, 2, &base) || tsv_u64(&t, 3, &size)) {
			note_line(err, NULL);
			continue;
		}
		if (o->n == o->cap) {
			o->cap = o->cap ? 2 * o->cap : 16;
			o->v = xrealloc(o->v, o->cap * sizeof(*o->v));
		}
		ob = &o->v[o->n++];
		*ob = (struct c2c_object){ .label = xstrdup(tsv_get(&t, 0)), .type = xstrdup(tsv_get(&t, 1)),
					   .type_id = -1, .base = base, .size = size, .source = xstrdup(tsv_get(&t, 4)) };
	}
	tsv_close(&t);
	free(p);
	return true;
}

/* One object, unless the run's objects hold it already (the stocks). */
static void add_one(struct c2c_objects *o, const struct kbtf *k, const char *type, uint64_t addr, const char *label,
		    const char *source)
{
	char err[300];

	for (size_t i = 0; i < o->n; i++)
		if (o->v[i].base == addr && !strcmp(o->v[i].type, type))
			return;
	if (c2c_objects_add(o, k, type, addr, label, source, err, sizeof(err)) < 0)
		note_line(err, NULL);
}

/* The instances of struct name the kernel's BTF knows as variables: every
 * per-CPU one (each CPU's copy), and the globals where its BTF has their
 * VARs (pahole writes them for per-CPU variables only, unless the kernel
 * was built with global_var); how many it found. */
static int add_struct_vars(struct c2c_objects *o, const struct kbtf *k, struct kread *kr, const struct ksyms *syms,
			   const char *name)
{
	int found = 0, n = (int)btf__type_cnt(k->btf), ncpus = possible_cpus();
	char err[300], label[300], source[300];

	for (int id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(k->btf, id), *rt;
		const char *var;

		if (!btf_is_var(t))
			continue;
		rt = btf__type_by_id(k->btf, kbtf_resolve(k, t->type));
		if (!rt || !btf_is_struct(rt) || strcmp(btf__name_by_offset(k->btf, rt->name_off), name))
			continue;
		var = btf__name_by_offset(k->btf, t->name_off);
		if (kbtf_has_datasec_var(k, ".data..percpu", var)) {
			uint64_t *addrs = xcalloc(ncpus, sizeof(*addrs));

			if (percpu_var_addrs(kr, syms, var, addrs, ncpus, err, sizeof(err)) < 0) {
				note_line(err, NULL);
			} else {
				snprintf(source, sizeof(source), "--trace-struct %s: per-CPU %s (kallsyms + __per_cpu_offset)",
					 name, var);
				for (int cpu = 0; cpu < ncpus; cpu++) {
					snprintf(label, sizeof(label), "%s cpu%d", var, cpu);
					add_one(o, k, name, addrs[cpu], label, source);
				}
				found++;
			}
			free(addrs);
		} else {
			const struct ksym *sym = ksyms_find(syms, var);

			if (sym && sym->addr) {
				snprintf(source, sizeof(source), "--trace-struct %s: global %s (kallsyms)", name, var);
				add_one(o, k, name, sym->addr, var, source);
				found++;
			}
		}
	}
	return found;
}

/*
 * MEMCG_LAB_LINES_STRUCTS (vm --trace-struct): "NAME,NAME@SYMBOL,...":
 * NAME, every per-CPU variable (and global with a BTF VAR) of type
 * struct NAME; NAME@SYMBOL, the global SYMBOL as a struct NAME.  Instances
 * that are no variable (inside a memcg, allocated) cannot be found by
 * type: said, once per name.
 */
static void add_named_structs(struct c2c_objects *o, const struct kbtf *k, const char *list)
{
	char *copy = xstrdup(list), *save = NULL, err[300];
	struct kread kr;
	struct ksyms syms;
	bool have_kr = kread_open(&kr, err, sizeof(err)) == 0, have_syms;

	if (!have_kr)
		note("lines: --trace-struct: per-CPU variables cannot be read: %s", err);
	have_syms = ksyms_load(&syms, NULL, err, sizeof(err)) == 0;
	if (!have_syms)
		note("lines: --trace-struct: no kallsyms: %s", err);
	for (char *tok = strtok_r(copy, ",", &save); tok && have_syms; tok = strtok_r(NULL, ",", &save)) {
		char *at = strchr(tok, '@');

		if (at) {
			const struct ksym *sym;

			*at++ = '\0';
			sym = ksyms_find(&syms, at);
			if (kbtf_find_struct(k, tok) < 0)
				note("lines: --trace-struct %s@%s: this kernel's BTF has no struct %s", tok, at, tok);
			else if (!sym || !sym->addr)
				note("lines: --trace-struct %s@%s: no symbol %s in kallsyms", tok, at, at);
			else
				add_one(o, k, tok, sym->addr, at, "--trace-struct: kallsyms");
			continue;
		}
		if (kbtf_find_struct(k, tok) < 0)
			note("lines: --trace-struct %s: this kernel's BTF has no struct %s", tok, tok);
		else if (!have_kr || add_struct_vars(o, k, &kr, &syms, tok) == 0)
			note("lines: --trace-struct %s: no per-CPU or global variable of type struct %s in this kernel's "
			     "BTF (it holds per-CPU variables, globals only where pahole wrote them: give %s@SYMBOL "
			     "for a global; instances inside other objects or allocated cannot be found by type)",
			     tok, tok, tok);
	}
	if (have_syms)
		ksyms_free(&syms);
	if (have_kr)
		kread_close(&kr);
	free(copy);
}

/*
 * The kernel's code symbols for the host (perf names the plugin's code
 * addresses by them), written here, before the first window, while the
 * guest's code still runs uninstrumented (on qemu 7.2 it stays
 * instrumented after it, and reading /proc/kallsyms then takes ~2.5x as
 * long), delta-encoded (c2c/lines_ksyms.h: the payload a quarter
 * smaller); /init sends the plain code symbols where nobody did.
 */
static void save_kallsyms(void)
{
	char *p = session_path("kallsyms.delta"), *tmp = xasprintf("%s.tmp", p), line[512];
	FILE *in, *out;
	uint64_t prev = 0;

	if (path_exists(p) || !(in = fopen("/proc/kallsyms", "re"))) {
		free(tmp);
		free(p);
		return;
	}
	out = fopen(tmp, "we");
	if (out)
		fputs(LINES_KSYMS_DELTA_HEADER, out);
	while (out && fgets(line, sizeof(line), in))
		lines_ksyms_encode_line(line, &prev, out);
	fclose(in);
	if (!out || ferror(out) | fclose(out) || rename(tmp, p))
		unlink(tmp);
	free(tmp);
	free(p);
}

const struct c2c_objects *lines_session_objects(pid_t owner)
{
	struct cg_env cg;
	struct kbtf k;
	char err[512], name[96], **dirs = NULL;
	int n = 0;

	if (cache.valid && cache.owner == owner)
		return &cache.objs;
	c2c_objects_free(&cache.objs);
	memset(&cache.objs, 0, sizeof(cache.objs));
	cache.valid = true;
	cache.owner = owner;
	/* vm --insns: instructions only; objects would name nothing. */
	if (getenv("MEMCG_LAB_LINES_COLLECT") && !strcmp(getenv("MEMCG_LAB_LINES_COLLECT"), "insns"))
		return &cache.objs;
	if (owner != getpid()) {
		if (published_objects(owner, &cache.objs))
			return &cache.objs;
		note("lines: pid %d published no objects: searching for them here", (int)owner);
	}
	if (kbtf_open(&k, NULL, NULL, err, sizeof(err)) < 0) {
		note_line(err, NULL);
		return &cache.objs;
	}
	if (cg_detect(&cg, NULL) < 0) {
		note_line("no memory cgroup controller: no memcg addresses", NULL);
	} else {
		snprintf(name, sizeof(name), LAB_OWNER_PREFIX "%d-%llu", (int)owner, proc_start_time(owner));
		c2c_run_memcgs(cg.memory_root, name, &dirs, &n);
	}
	c2c_find_objects(&cache.objs, &k, (const char *const *)dirs, n, note_line, NULL);
	if (getenv("MEMCG_LAB_LINES_STRUCTS") && *getenv("MEMCG_LAB_LINES_STRUCTS"))
		add_named_structs(&cache.objs, &k, getenv("MEMCG_LAB_LINES_STRUCTS"));
	for (int i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
	kbtf_close(&k);
	if (owner == getpid())
		publish_objects(&cache.objs);
	save_kallsyms();
	return &cache.objs;
}

void lines_session_claim(void)
{
	char *p, name[64];
	int fd;

	if (!lines_session_active())
		return;
	snprintf(name, sizeof(name), "driver-windows.%d", (int)getpid());
	mkdir_p(getenv(LINES_ENV_DIR), 0755);
	p = session_path(name);
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		note("lines: %s: %s", p, strerror(errno));
	else
		close(fd);
	free(p);
}

void lines_session_unclaim(void)
{
	char *p, name[64];

	if (!lines_session_active())
		return;
	snprintf(name, sizeof(name), "driver-windows.%d", (int)getpid());
	p = session_path(name);
	unlink(p);
	free(p);
}

void lines_session_phase(double t)
{
	char *p, name[64], buf[64];
	int e;

	if (!lines_session_active())
		return;
	snprintf(name, sizeof(name), "phase.%d", (int)getpid());
	mkdir_p(getenv(LINES_ENV_DIR), 0755);
	p = session_path(name);
	if (t < 0) {
		unlink(p);
	} else {
		snprintf(buf, sizeof(buf), "%.6f\n", t);
		e = write_file_atomic(p, buf, strlen(buf));
		if (e < 0)
			note("lines: %s: cannot write: %s", p, strerror(-e));
	}
	free(p);
}

bool lines_session_phase_of(pid_t pid, double *t)
{
	char *p, name[64], *text;
	bool yes;

	if (!lines_session_active())
		return false;
	snprintf(name, sizeof(name), "phase.%d", (int)pid);
	p = session_path(name);
	text = read_text(p, NULL);
	yes = text && sscanf(text, "%lf", t) == 1;
	free(text);
	free(p);
	return yes;
}

bool lines_session_claimed(pid_t pid)
{
	char *p, name[64];
	bool yes;

	if (!lines_session_active())
		return false;
	snprintf(name, sizeof(name), "driver-windows.%d", (int)pid);
	p = session_path(name);
	yes = path_exists(p);
	free(p);
	return yes;
}


/* ---- the measured process's operation counters ---- */

void lines_session_counters(const struct lines_counter *c, size_t n, const char *unit)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!lines_session_active())
		return;
	lines_session_no_thp();
	f = open_memstream(&text, &len);
	tsv_write_row(f, "# unit\t%s\n", unit);
	tsv_write_header(f, counter_cols);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "0x%" PRIxPTR "\t%zu\t%zu\n", (uintptr_t)c[i].addr, c[i].n, c[i].stride);
	fclose(f);
	publish("counters", text, len);
}

/* How long a process whose operations another's window counts keeps its
 * counters for that window's closing. */
#define UNPUBLISH_WAIT_MS 10000

void lines_session_unpublish(void)
{
	static const char *const what[] = { "counters", "objects" };
	int index, waited = 0;
	pid_t owner, counted;

	if (!lines_session_active())
		return;
	/*
	 * A window the runner opened counts this process's operations: it
	 * reads the counters at its closing, which it may reach late (a
	 * starved vCPU under TCG stalls it for seconds).  The counters stay
	 * until then, the workers still at work, so that the window's
	 * operations and its transfers cover the same time.
	 */
	while (open_state_counted(&index, &owner, &counted) && counted == getpid() && owner != getpid() &&
	       kill(owner, 0) == 0 && waited < UNPUBLISH_WAIT_MS) {
		usleep(20 * 1000);
		waited += 20;
	}
	if (waited >= UNPUBLISH_WAIT_MS)
		note("lines: window %d of pid %d still open %d s after this process's measured phase: its "
		     "operations are not counted", index, (int)owner, UNPUBLISH_WAIT_MS / 1000);
	for (size_t i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		char *p, name[64];

		snprintf(name, sizeof(name), "%s.%d", what[i], (int)getpid());
		p = session_path(name);
		unlink(p);
		free(p);
	}
}

/*
 * pid's counters (counters.PID): their addresses and unit, and for another
 * process its /proc/PID/mem (process_vm_readv needs
 * CONFIG_CROSS_MEMORY_ATTACH, which the lab kernel's tinyconfig leaves
 * out), opened before a window opens and kept until it closes, so that
 * each edge of the window reads them with a pread per counter and nothing
 * else.  Inside a window the guest's kernel runs instrumented, and opening
 * /proc/PID/mem and the first read through it (which faults the counters'
 * page in) took 0.4 to 3 s there on the lab kernel: at the opening, the
 * window's first seconds without their operations.
 */
struct counters {
	pid_t pid;
	int mem;		/* -1: this process's own */
	struct counter_group {
		uintptr_t addr;
		size_t n, stride;
	} *g;
	size_t ng;
	char unit[32];
};

static void counters_close(struct counters *c)
{
	if (c->mem >= 0)
		close(c->mem);
	free(c->g);
	memset(c, 0, sizeof(*c));
	c->mem = -1;
}

/* The sum of c's counters; false (and why) when one cannot be read, or the
 * process no longer publishes them (its measured phase is over). */
static bool counters_read(const struct counters *c, uint64_t *sum, const char **why)
{
	char name[64], *p;
	bool there;

	snprintf(name, sizeof(name), "counters.%d", (int)c->pid);
	p = session_path(name);
	there = path_exists(p);
	free(p);
	if (!there) {
		*why = "it published no counters (or no longer: its measured phase is over)";
		return false;
	}
	*sum = 0;
	for (size_t k = 0; k < c->ng; k++)
		for (size_t i = 0; i < c->g[k].n; i++) {
			uintptr_t a = c->g[k].addr + i * c->g[k].stride;
			uint64_t v;

			if (c->mem < 0)
				v = __atomic_load_n((const uint64_t *)a, __ATOMIC_RELAXED);
			else if (pread(c->mem, &v, sizeof(v), (off_t)a) != (ssize_t)sizeof(v)) {
				*why = "a counter cannot be read from its memory";
				return false;
			}
			*sum += v;
		}
	return true;
}

/* pid's counters opened and read once (the page faulted in); false and why. */
static bool counters_open(pid_t pid, struct counters *c, const char **why)
{
	static char bad[600];
	char *p, name[64], err[512];
	bool ok = true, have_unit = false;
	struct tsv t;
	uint64_t warm;
	int r;

	memset(c, 0, sizeof(*c));
	c->mem = -1;
	c->pid = pid;
	snprintf(name, sizeof(name), "counters.%d", (int)pid);
	p = session_path(name);
	*why = "it published no counters (or no longer: its measured phase is over)";
	if (!path_exists(p)) {
		free(p);
		return false;
	}
	if (pid != getpid()) {
		snprintf(name, sizeof(name), "/proc/%d/mem", (int)pid);
		c->mem = open(name, O_RDONLY | O_CLOEXEC);
		ok = c->mem >= 0;
		*why = "its memory cannot be read (/proc/PID/mem)";
	}
	memset(&t, 0, sizeof(t));
	r = ok ? tsv_open(&t, p, counter_cols, TSV_COMMENTS, err, sizeof(err)) : 0;
	while (ok && !r && (r = tsv_next(&t)) > TSV_END) {
		uint64_t addr, n, stride;

		if (r == TSV_COMMENT) {
			if (tsv_ncells(&t) == 2 && !strcmp(tsv_cell(&t, 0), "# unit")) {
				snprintf(c->unit, sizeof(c->unit), "%s", tsv_cell(&t, 1));
				have_unit = true;
			}
			r = 0;
			continue;
		}
		r = tsv_u64(&t, 0, &addr) || tsv_u64(&t, 1, &n) || tsv_u64(&t, 2, &stride) ? -1 : 0;
		if (!r) {
			c->g = xrealloc(c->g, (c->ng + 1) * sizeof(*c->g));
			c->g[c->ng++] = (struct counter_group){ (uintptr_t)addr, n, stride };
		}
	}
	tsv_close(&t);
	free(p);
	if (ok && r < 0) {
		snprintf(bad, sizeof(bad), "its counters file has a bad line: %s", err);
		*why = bad;
		ok = false;
	}
	if (ok && !have_unit) {
		*why = "its counters file names no unit";
		ok = false;
	}
	ok = ok && counters_read(c, &warm, why);
	if (!ok)
		counters_close(c);
	return ok;
}

/* The window this process has open: its counters, their sum at the opening. */
static struct {
	int index;		/* -1: none counted */
	struct counters c;
	uint64_t start;
} counting = { .index = -1, .c = { .mem = -1 } };

/* Closes the window, its operations into window-ops.tsv (read just
 * before the window closes). */
static void count_close(int index)
{
	uint64_t end = 0;
	char *row;
	const char *why = NULL;
	bool read_ok;

	if (counting.index != index) {
		lines_window_close();
		return;
	}
	counting.index = -1;
	/* Read, then closed at once: the row is written after the closing,
	 * so that no system call (a vCPU switch) comes between the two. */
	read_ok = counters_read(&counting.c, &end, &why);
	lines_window_close();
	if (!read_ok || (end < counting.start && (why = "its counters went back"))) {
		note("lines: window %d: the operations of pid %d could not be read at its closing: %s (not counted)",
		     index, (int)counting.c.pid, why);
		return;
	}
	row = tsv_asprintf("%d\t%llu\t%s\n", index, (unsigned long long)(end - counting.start), counting.c.unit);
	append(LINES_OPS_FILE, NULL, ops_cols, row);
	free(row);
}

/* The data rows of a TSV with a header (0 when it does not exist yet). */
static int data_rows(const char *path)
{
	char *text = read_text(path, NULL);
	int n = -1;

	if (!text)
		return 0;
	for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (*l != '#' && *l != '\n')
			n++;
	free(text);
	return n < 0 ? 0 : n;
}

/* Appends text (rows util/tsv.h's writer made) to dir/name, with the
 * format line (when not NULL) and the header of cols first when the file
 * is new. */
static int append(const char *name, const char *format, const char *const cols[], const char *text)
{
	char *p = session_path(name);
	FILE *f = fopen(p, "ae");
	bool fresh = f && ftell(f) == 0;
	int rc = 0;

	if (f && fresh) {
		if (format)
			fprintf(f, "%s\n", format);
		tsv_write_header(f, cols);
	}
	if (!f || ferror(f) || fputs(text, f) == EOF)
		rc = -1;
	if (f && fclose(f))
		rc = -1;
	if (rc)
		note("lines: %s: cannot write: %s", p, strerror(errno));
	free(p);
	return rc;
}

/* The window open now: "INDEX PID COUNTED" (its opener, and the process
 * whose operations it counts, 0 for none); false when none. */
static bool open_state_counted(int *index, pid_t *pid, pid_t *counted)
{
	char *p = session_path(OPEN_STATE), *t = read_text(p, NULL);
	int c = 0;
	bool yes = t && sscanf(t, "%d %d %d", index, pid, &c) >= 2;

	*counted = c;
	free(t);
	free(p);
	return yes;
}

static bool open_state(int *index, pid_t *pid)
{
	pid_t counted;

	return open_state_counted(index, pid, &counted);
}

static int lock_session(void)
{
	char *p = session_path(LINES_WINDOWS_FILE);
	int fd;

	mkdir_p(getenv(LINES_ENV_DIR), 0755);
	fd = open(p, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		note("lines: %s: %s", p, strerror(errno));
	else
		while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
			;
	free(p);
	return fd;
}

void lines_prio_raise(struct lines_prio *p)
{
	struct sched_param rt = { .sched_priority = 1 };

	static bool said;

	p->policy = sched_getscheduler(0);
	p->raised = p->policy >= 0 && !sched_getparam(0, &p->param) && !sched_setscheduler(0, SCHED_FIFO, &rt);
	if (!p->raised && p->policy != SCHED_FIFO && !said) {
		said = true;
		note("lines: real-time priority refused (%s): a window's edges may wait for a vCPU the workers hold",
		     strerror(errno));
	}
}

void lines_prio_restore(const struct lines_prio *p)
{
	if (p->raised)
		sched_setscheduler(0, p->policy, &p->param);
}

static bool thp_off;	/* this process (or the lab process it was forked from) set it */

void lines_session_no_thp(void)
{
	if (!thp_off && lines_session_active() && !prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		thp_off = true;
}

void lines_session_thp_restore(void)
{
	if (thp_off && !prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0))
		thp_off = false;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int lines_session_open(const struct lines_window_info *w)
{
	char *objs = NULL, *ranges = NULL, *row = NULL, *wp;
	const char *label = or_dash(w->label);
	size_t ol = 0, rl = 0;
	FILE *of, *rf;
	int fd, index, prev, rc = 0;
	pid_t owner;
	struct lines_prio edge;
	const char *why;

	double t0 = mono_s(), t_lock, t_rows = 0, t_files = 0, t_announce = 0;

	if (!lines_session_active())
		return -1;
	lines_session_no_thp();
	lines_prio_raise(&edge);
	fd = lock_session();
	if (fd < 0) {
		lines_prio_restore(&edge);
		return -1;
	}
	t_lock = mono_s();
	if (open_state(&prev, &owner)) {
		if (owner != getpid() && kill(owner, 0) == 0) {
			note("lines: window '%s' not opened: window %d of pid %d is still open (windows do not nest)",
			     label, prev, (int)owner);
			close(fd);
			lines_prio_restore(&edge);
			return -1;
		}
		/* Its process died inside it: closed now, so that the plugin's
		 * window numbers stay ours. */
		lines_window_close();
		note("lines: window %d was left open by pid %d, which is gone: closed", prev, (int)owner);
	}
	wp = session_path(LINES_WINDOWS_FILE);
	index = data_rows(wp);
	free(wp);
	of = open_memstream(&objs, &ol);
	rf = open_memstream(&ranges, &rl);
	for (size_t i = 0; w->objs && i < w->objs->n; i++) {
		const struct c2c_object *o = &w->objs->v[i];

		tsv_write_row(of, "%d\t%s\t%s\t0x%" PRIx64 "\t%" PRIu64 "\t%s\n", index, or_dash(o->label),
			      or_dash(o->type), o->base, o->size, or_dash(o->source));
	}
	for (size_t i = 0; i < w->nranges; i++) {
		const struct lines_range *r = &w->ranges[i];

		tsv_write_row(rf, "%d\t%s\t0x%" PRIx64 "\t%" PRIu64 "\t%" PRIu64 "\t%s\n", index, or_dash(r->name),
			      r->addr, r->size, r->stride ? r->stride : r->size, or_dash(r->fields));
	}
	fclose(of);
	fclose(rf);
	row = tsv_asprintf("%d\t%s\t%s\t%d\t%d\t%.3f\t%.3f\t%zu\t%zu\n", index, label, or_dash(w->who), w->repeat,
			   (int)getpid(), w->start_s, w->len_s, w->objs ? w->objs->n : 0, w->nranges);
	if ((ol && append(LINES_OBJECTS_FILE, NULL, obj_cols, objs)) ||
	    (rl && append(LINES_RANGES_FILE, NULL, rng_cols, ranges)) ||
	    append(LINES_WINDOWS_FILE, "# memcg-lab lines-windows 1", win_cols, row)) {
		rc = -1;
	} else {
		char *sp = session_path(OPEN_STATE), st[64];

		snprintf(st, sizeof(st), "%d %d %d\n", index, (int)getpid(), w->counted > 0 ? (int)w->counted : 0);
		t_rows = mono_s();
		int e = write_file_atomic(sp, st, strlen(st));

		if (e < 0) {
			note("lines: %s: cannot write: %s", sp, strerror(-e));
			rc = -1;
		}
		free(sp);
	}
	t_files = mono_s();
	if (!rc) {
		/* Followed in detail from this opening on: every access to them. */
		for (size_t i = 0; w->objs && i < w->objs->n; i++)
			lines_detail_announce(w->objs->v[i].base, w->objs->v[i].size);
		for (size_t i = 0; i < w->nranges; i++)
			lines_detail_announce(w->ranges[i].addr, w->ranges[i].size);
		t_announce = mono_s();
		/* The counters opened (and read once) before the window opens. */
		counting.index = -1;
		counters_close(&counting.c);
		if (w->counted > 0 && !counters_open(w->counted, &counting.c, &why))
			note("lines: window %d: the operations of pid %d cannot be read: %s (not counted)", index,
			     (int)w->counted, why);
		/* Every vCPU instrumented first (a flush of qemu's translations,
		 * which lets the other vCPUs run under single-threaded TCG). */
		lines_window_prepare();
		/*
		 * This process's own counters (the harness's window): read
		 * between the preparation and the opening, a few loads with no
		 * system call, so that no vCPU runs between them and the window
		 * counts exactly the operations it holds (as at the closing:
		 * read, then closed).
		 */
		if (counting.c.pid > 0 && counting.c.mem < 0) {
			if (counters_read(&counting.c, &counting.start, &why))
				counting.index = index;
			else
				note("lines: window %d: the operations of pid %d cannot be read: %s (not counted)", index,
				     (int)w->counted, why);
		}
		lines_window_open();
		/*
		 * Another process's (through /proc/PID/mem, system calls a vCPU
		 * switch may come between): read inside the window, after the
		 * opening (and at the closing before it), so that they never
		 * count time outside it, where the workers run ~10x faster: read
		 * after the closing, one window of ~9 K faults once counted 720 K
		 * (the opener waited 14 s for a vCPU between the closing and its
		 * read; it now runs at real-time priority, lines_prio_raise).
		 */
		if (counting.c.pid > 0 && counting.c.mem >= 0) {
			if (counters_read(&counting.c, &counting.start, &why))
				counting.index = index;
			else
				note("lines: window %d: the operations of pid %d cannot be read: %s (not counted)", index,
				     (int)w->counted, why);
		}
		/* Its planned time is what the window's length is counted from:
		 * a slow opening says where the time went. */
		if (mono_s() - t0 > 0.5)
			note("lines: window %d: opening took %.2f s (session lock %.2f s, files %.2f s of which the "
			     "state %.2f s, announcing %.2f s, counters %.2f s)", index, mono_s() - t0, t_lock - t0,
			     t_files - t_lock, t_rows ? t_files - t_rows : 0, t_announce - t_files, mono_s() - t_announce);
	}
	close(fd);
	lines_prio_restore(&edge);
	free(objs);
	free(ranges);
	free(row);
	return rc ? -1 : index;
}

void lines_session_close(int index)
{
	int fd, prev;
	pid_t owner;
	char *sp;
	struct lines_prio edge;

	double t0, t_lock, t_count = 0;

	if (index < 0 || !lines_session_active())
		return;
	t0 = mono_s();
	lines_prio_raise(&edge);
	fd = lock_session();
	t_lock = mono_s();
	if (open_state(&prev, &owner) && prev == index && owner == getpid()) {
		count_close(index);	/* closes the window */
		t_count = mono_s();
		counters_close(&counting.c);
		sp = session_path(OPEN_STATE);
		unlink(sp);
		free(sp);
	}
	if (fd >= 0)
		close(fd);
	lines_prio_restore(&edge);
	/* A late closing counts more than the window's planned time: say where
	 * the time went (as the opening does). */
	if (mono_s() - t0 > 0.5)
		note("lines: window %d: closing took %.2f s (session lock %.2f s, the operations' read %.2f s)", index,
		     mono_s() - t0, t_lock - t0, t_count ? t_count - t_lock : 0);
}

int lines_plan_window(double measured_s, double *start_s, double *len_s)
{
	struct c2c_opts o;
	struct c2c_window w;

	c2c_opts_default(&o);
	if (c2c_plan_window(&o, measured_s, &w) == 0 && w.len_s >= 1.0) {
		*start_s = w.start_s;
		*len_s = w.len_s;
		return 0;
	}
	*start_s = 0.5 * measured_s;
	*len_s = 0.4 * measured_s;
	return *len_s >= 0.5 ? 0 : -1;
}
