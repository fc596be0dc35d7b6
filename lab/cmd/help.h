/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `memcg-lab help NAME`: a command's or a topic's manual page.  Each is
 * doc/memcg-lab-NAME.txt (AsciiDoc, as perf's Documentation/ pages), built by
 * make into build/man/man1/memcg-lab-NAME.1 (asciidoctor -b manpage).  On a
 * terminal with man(1) the built page opens in man; otherwise its text is
 * printed: man's plain rendering of the built page, or, where none was built
 * (no asciidoctor) or man is missing, the .txt itself.
 */
#ifndef LAB_CMD_HELP_H
#define LAB_CMD_HELP_H

/* Shows NAME's page (NAME "memcg-lab": doc/memcg-lab.txt); 0 once shown,
 * -1 when doc/ has no page of that name (nothing printed).  On a terminal it
 * does not return: man takes the process over. */
int help_page(const char *name);

/* The NAMEs of doc/memcg-lab-NAME.txt, sorted, NULL-terminated (malloc'd,
 * each name too); none where doc/ cannot be read. */
char **help_pages(void);

#endif
