// SPDX-License-Identifier: GPL-2.0
int cmd_cleanup(int argc, char **argv) { (void)argc; (void)argv; return 0; }
