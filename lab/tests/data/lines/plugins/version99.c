// SPDX-License-Identifier: GPL-2.0
/*
 * A plugin built against a qemu-plugin.h newer than the qemu that loads it:
 * it declares QEMU_PLUGIN_VERSION 99, which qemu 7.2 (API 0..1) refuses in
 * its own words (lab/tests/vm-lines-errors.sh; built there with cc).
 */
int qemu_plugin_version __attribute__((visibility("default"))) = 99;

int qemu_plugin_install(unsigned long long id, const void *info, int argc, char **argv)
	__attribute__((visibility("default")));

int qemu_plugin_install(unsigned long long id, const void *info, int argc, char **argv)
{
	(void)id;
	(void)info;
	(void)argc;
	(void)argv;
	return 0;
}
