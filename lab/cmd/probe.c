// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
int cmd_probe(int argc, char **argv) { (void)argc; (void)argv; return 0; }
