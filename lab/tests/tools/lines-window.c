// SPDX-License-Identifier: GPL-2.0
/*
 * lines-window: opens or closes the lines plugin's window from a shell in a
 * guest (c2c/lines_window.h), around a command the plugin should count:
 *
 *   lines-window open; memcg-lab charge ...; lines-window close
 *
 * The window is the guest's, not a process's: any program opens it for
 * every vCPU.  Static, like lines-truth: it needs nothing of the guest.
 */
#include <stdio.h>
#include <string.h>
#include "c2c/lines_window.h"

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "open")) {
		lines_window_open();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "close")) {
		lines_window_close();
		return 0;
	}
	fprintf(stderr, "usage: lines-window open|close\n");
	return 2;
}
