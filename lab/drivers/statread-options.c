// SPDX-License-Identifier: GPL-2.0
/*
 * The statread driver's options into a statread_config: one parser for the
 * command (cmd/statread.c) and for the experiment plan, which reads the
 * same command lines the runner would start (experiment/plan.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/statread.h"
#include "util/err.h"
#include "util/expfile.h"

enum {
	OPT_TOP = 256, OPT_CHILDREN, OPT_ALLOCATORS, OPT_READERS, OPT_TOTAL_READERS, OPT_LEVELS,
	OPT_FILES, OPT_INTERVAL, OPT_DURATION, OPT_WARMUP, OPT_ALLOC, OPT_LIMIT, OPT_TOP_LIMIT,
	OPT_ALLOC_SIZE, OPT_WORK, OPT_FILE_DIR, OPT_REOPEN, OPT_HOST_ROOT, OPT_RESULTS,
	OPT_DRY_RUN, OPT_MOUNTS, OPT_VALIDATE,
};


static const struct option options[] = {
	{ "top", required_argument, NULL, OPT_TOP },
	{ "children", required_argument, NULL, OPT_CHILDREN },
	{ "allocators", required_argument, NULL, OPT_ALLOCATORS },
	{ "readers", required_argument, NULL, OPT_READERS },
	{ "total-readers", required_argument, NULL, OPT_TOTAL_READERS },
	{ "levels", required_argument, NULL, OPT_LEVELS },
	{ "files", required_argument, NULL, OPT_FILES },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "alloc", required_argument, NULL, OPT_ALLOC },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "top-limit", required_argument, NULL, OPT_TOP_LIMIT },
	{ "alloc-size", required_argument, NULL, OPT_ALLOC_SIZE },
	{ "work", required_argument, NULL, OPT_WORK },
	{ "file-dir", required_argument, NULL, OPT_FILE_DIR },
	{ "reopen", no_argument, NULL, OPT_REOPEN },
	{ "host-root", no_argument, NULL, OPT_HOST_ROOT },
	{ "results", required_argument, NULL, OPT_RESULTS },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "mounts", required_argument, NULL, OPT_MOUNTS },
	{ "validate", no_argument, NULL, OPT_VALIDATE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Counts are capped well above any real tree so the products cannot
 * overflow; the plan then checks them against the kernel's limits. */
#define MAX_COUNT 10000000

static int count_opt(const char *opt, const char *s, long long min)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end || errno || v < min || v > MAX_COUNT)
		die("%s: '%s' is not a whole number from %lld to %d", opt, s, min, MAX_COUNT);
	return (int)v;
}

/* The shared parsers (util/expfile.h) go through strtod, which also takes
 * "inf" and "nan": only plain decimals here. */
static bool plain_number(const char *s)
{
	return (*s >= '0' && *s <= '9') || (*s == '.' && s[1] >= '0' && s[1] <= '9');
}

static int64_t duration_opt(const char *opt, const char *s)
{
	unsigned long long v;

	if (!plain_number(s) || parse_duration_ns(s, &v) || v > (unsigned long long)INT64_MAX / 2)
		die("%s: '%s' is not a duration (e.g. 100ms, 1s, 2m)", opt, s);
	return (int64_t)v;
}

static int64_t size_opt(const char *opt, const char *s)
{
	unsigned long long v;

	if (!plain_number(s) || parse_bytes(s, &v) || v == 0 || v > (unsigned long long)INT64_MAX / 2)
		die("%s: '%s' is not a size above 0 (e.g. 25M, 1G)", opt, s);
	return (int64_t)v;
}

/* "root,top" -> mask over names; dies naming the bad element. */
static unsigned list_opt(const char *opt, const char *s, const char *const *names, int n,
			 const char *strip)
{
	char *copy = xstrdup(s), *save, *tok;
	unsigned mask = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < n; i++) {
			const char *name = names[i];

			if (strip && !strncmp(name, strip, strlen(strip)))
				name += strlen(strip);
			if (!strcmp(tok, name))
				break;
		}
		if (i == n)
			die("%s: unknown element '%s' in '%s'", opt, tok, s);
		mask |= 1u << i;
	}
	free(copy);
	return mask;
}

int statread_parse_options(int argc, char **argv, struct statread_config *c, struct statread_cli *cli)
{
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case OPT_TOP:
			c->top = count_opt("--top", optarg, 1);
			break;
		case OPT_CHILDREN:
			c->children = count_opt("--children", optarg, 1);
			break;
		case OPT_ALLOCATORS:
			c->allocators = count_opt("--allocators", optarg, 0);
			break;
		case OPT_READERS:
			c->readers_per_cg = count_opt("--readers", optarg, 1);
			break;
		case OPT_TOTAL_READERS:
			c->total_readers = count_opt("--total-readers", optarg, 1);
			break;
		case OPT_LEVELS:
			c->level_mask = list_opt("--levels", optarg, statread_level_names, SR_NLEVELS, NULL);
			break;
		case OPT_FILES:
			c->file_mask = list_opt("--files", optarg, statread_file_names, SR_NFILES, "memory.");
			break;
		case OPT_INTERVAL:
			if (!strcmp(optarg, "flat")) {
				c->flat_out = true;
				c->interval_ns = 0;
			} else {
				c->flat_out = false;
				c->interval_ns = duration_opt("--interval", optarg);
			}
			break;
		case OPT_DURATION:
			c->duration_ns = duration_opt("--duration", optarg);
			break;
		case OPT_WARMUP:
			c->warmup_ns = duration_opt("--warmup", optarg);
			break;
		case OPT_ALLOC:
			if (alloc_kind_parse(optarg, &c->kind))
				die("--alloc: '%s' is not file, tmpfs or anon", optarg);
			break;
		case OPT_LIMIT:
			c->limit_bytes = !strcmp(optarg, "none") ? -1 : size_opt("--limit", optarg);
			break;
		case OPT_TOP_LIMIT:
			c->top_limit_bytes = size_opt("--top-limit", optarg);
			break;
		case OPT_ALLOC_SIZE:
			c->alloc_bytes = size_opt("--alloc-size", optarg);
			break;
		case OPT_WORK:
			c->work_bytes = size_opt("--work", optarg);
			break;
		case OPT_FILE_DIR:
			c->file_dir = optarg;
			break;
		case OPT_REOPEN:
			c->reopen = true;
			break;
		case OPT_HOST_ROOT:
			c->host_root = true;
			break;
		case OPT_RESULTS:
			cli->results = optarg;
			break;
		case OPT_DRY_RUN:
			cli->dry_run = true;
			break;
		case OPT_MOUNTS:
			cli->mounts = optarg;
			break;
		case OPT_VALIDATE:
			cli->validate = true;
			break;
		case 'h':
			return 1;
		default:
			return -1;
		}
	}
	if (optind < argc)
		die("statread: unexpected argument '%s' (see --help)", argv[optind]);
	if (cli->mounts && !cli->dry_run && !cli->validate)
		die("--mounts: only with --dry-run or --validate (a real run uses this machine's mounts)");
	return 0;
}

