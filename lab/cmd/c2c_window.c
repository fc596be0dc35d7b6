// SPDX-License-Identifier: GPL-2.0
/*
 * memcg-lab c2c window -- CMD: the lines plugin's window open around a
 * command of the user's (inside a guest that `vm --lines` booted): opened,
 * the command run, closed, the command's exit status returned.  A program
 * that knows nothing of the plugin counts this way (vm --lines-window
 * command writes this around --shell CMD).  Under vm --lines the window is
 * the lab's session's, with its label (c2c/lines_session.h: windows.tsv,
 * lines/LABEL/ on the host); elsewhere the plugin's markers are no-ops and
 * the command just runs.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "c2c/lines_session.h"
#include "c2c/lines_window.h"
#include "cmd/builtin.h"
#include "util/err.h"
#include "util/options.h"

static const struct options_cmd window_cmd = {
	.name = "c2c window",
	.usage =
	"usage: memcg-lab c2c window [--label LABEL] -- CMD [ARGS...]\n"
	"\n"
	"Runs CMD with the lines plugin's window open (in a guest of `memcg-lab vm\n"
	"--lines`), closes it when CMD ends, and exits with CMD's status: the\n"
	"plugin counts what CMD (and everything else on the guest) does meanwhile.\n"
	"`vm --lines-window command --shell CMD` puts it around CMD.  Outside such a\n"
	"guest CMD just runs.\n"
	"\n",
	.stop_at_arg = true,
};

/* CMD's exit status (128+N for signal N), or -1 with errno (no fork). */
static int run_wait(char **argv)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		sigset_t none;

		/* What the lab handles or ignores, as the command would have it. */
		for (int s = 1; s < NSIG; s++)
			if (s != SIGKILL && s != SIGSTOP)
				signal(s, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		lines_session_thp_restore();
		execvp(argv[0], argv);
		fprintf(stderr, "%s: c2c window: %s: %s\n", lab_progname, argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int cmd_c2c_window(int argc, char **argv)
{
	const char *label = "command";
	const struct lab_option opts[] = {
		OPT_STRING(0, "label", &label, "LABEL", "command", "the window's label (lines/LABEL/ on the host)"),
		OPT_END(),
	};
	int arg = options_parse(&window_cmd, opts, argc, argv), index = -1, rc;

	if (arg >= argc)
		die("c2c window: no command (c2c window -- CMD [ARGS...])");
	if (lines_session_active()) {
		struct lines_window_info w = { .label = label, .who = "command" };

		index = lines_session_open(&w);
		if (index < 0)
			die("c2c window: the window '%s' did not open (the line above says why)", label);
	} else {
		lines_window_open();
	}
	fflush(NULL);
	rc = run_wait(argv + arg);
	if (index >= 0)
		lines_session_close(index);
	else
		lines_window_close();
	if (rc < 0)
		die("c2c window: cannot run %s: %s", argv[arg], strerror(errno));
	return rc;
}
