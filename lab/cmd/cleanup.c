// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab cleanup: remove what lab runs that are gone left on this host.
 * The same pass (for dead owners only) runs at the start of every run
 * through leftovers_cleanup_dead().
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include "cmd/builtin.h"
#include "kernel/leftovers.h"
#include "util/err.h"
#include "util/hoststate.h"

static const char usage_text[] =
	"usage: memcg-lab cleanup [--force] [--dry-run]\n"
	"\n"
	"Removes what lab runs whose process is gone left on this host, one line\n"
	"per thing:\n"
	"  - cgroup trees memcg-lab-<pid>-<start> at the top of the memory\n"
	"    hierarchy (cgroup v1 and cgroup2 roots), killing what runs inside;\n"
	"  - tracefs instances of that name (instances other tools made stay);\n"
	"  - host settings they changed, restored to the value journaled under\n"
	"    /run/memcg-lab/<owner> ($MEMCG_LAB_STATE_DIR);\n"
	"  - temporary directories of that name in $TMPDIR or /tmp (vm's guest\n"
	"    images).\n"
	"A run still going is never touched without --force.\n"
	"\n"
	"  --force     also remove what runs still going own (kills their workers)\n"
	"  --dry-run   only print what would be removed\n"
	"\n"
	"Exit status: 0 (also when nothing was left), 2 when something could not\n"
	"be removed or when not root.\n";

int cmd_cleanup(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	bool force = false, dry_run = false;
	struct leftovers n;
	int c;

	while ((c = getopt_long(argc, argv, "+fnh", opts, NULL)) != -1) {
		switch (c) {
		case 'f': force = true; break;
		case 'n': dry_run = true; break;
		case 'h': usage_exit(usage_text, 0);
		default:
			usage_exit(usage_text, EXIT_LAB_ERR);
		}
	}
	if (optind < argc)
		die("cleanup: unexpected argument '%s' (see 'memcg-lab cleanup --help')", argv[optind]);
	if (!dry_run && geteuid() != 0)
		die("cleanup: removing cgroups and tracefs instances needs root (running as uid %d); "
		    "--dry-run works without", (int)geteuid());
	leftovers_cleanup(stdout, force, dry_run, &n);
	if (!n.cgroups && !n.instances && !n.settings && !n.tmpdirs && !n.failed)
		printf("nothing left by lab runs%s%s\n", force ? "" : " that are gone",
		       n.unreadable ? " where this user may look" : "");
	fflush(stdout);
	if (n.failed)
		die("cleanup: %d kind(s) of leftovers could not be removed (see above)", n.failed);
	return 0;
}
