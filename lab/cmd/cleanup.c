// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab cleanup: remove what lab runs that are gone left on this host.
 * The same pass (for dead owners only) runs at the start of every run
 * through leftovers_cleanup_dead().
 */
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include "cmd/builtin.h"
#include "kernel/leftovers.h"
#include "util/err.h"
#include "util/hoststate.h"
#include "util/options.h"

static const struct options_cmd cleanup_cmd = {
	.name = "cleanup",
	.usage =
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
	"A run still going is never touched without --force.  Only what the lab\n"
	"made goes: a directory owned by this user, of mode 0700, carrying the\n"
	"lab's mark (the xattr trusted.memcg-lab naming its run; for a tracefs\n"
	"instance the mode is the mark).  Anything else of such a name stays, with\n"
	"a line saying why (\"not removing /tmp/X: owned by uid 65534, ...\").\n"
	"\n",
	.footer =
	"\n"
	"Exit status: 0 (also when nothing was left), 2 when something could not\n"
	"be removed or when not root.\n",
	.stop_at_arg = true,
};

int cmd_cleanup(int argc, char **argv)
{
	bool force = false, dry_run = false;
	const struct lab_option opts[] = {
		OPT_FLAG('f', "force", &force, "also remove what runs still going own (kills their workers)"),
		OPT_FLAG('n', "dry-run", &dry_run, "only print what would be removed"),
		OPT_END(),
	};
	struct leftovers n;
	int arg = options_parse(&cleanup_cmd, opts, argc, argv);

	if (arg < argc)
		die("cleanup: unexpected argument '%s' (see 'memcg-lab cleanup --help')", argv[arg]);
	if (!dry_run && geteuid() != 0)
		die("cleanup: removing cgroups and tracefs instances needs root (running as uid %d); "
		    "--dry-run works without", (int)geteuid());
	leftovers_cleanup(stdout, force, dry_run, &n);
	if (!n.cgroups && !n.instances && !n.settings && !n.tmpdirs && !n.kept && !n.failed)
		printf("nothing left by lab runs%s%s\n", force ? "" : " that are gone",
		       n.unreadable ? " where this user may look" : "");
	fflush(stdout);
	if (n.failed)
		die("cleanup: %d kind(s) of leftovers could not be removed (see above)", n.failed);
	return 0;
}
