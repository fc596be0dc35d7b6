// SPDX-License-Identifier: GPL-2.0
/*
 * A plugin that crashes qemu mid-boot: at its 20000th translated block it
 * dereferences NULL (lab/tests/vm-lines-errors.sh; built there with cc).
 * The API 1 calls it needs are declared here, as qemu-plugin.h has them.
 */
#include <stddef.h>
#include <stdint.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));

int qemu_plugin_version __attribute__((visibility("default"))) = 1;
int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
	__attribute__((visibility("default")));

static unsigned long blocks;

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	(void)tb;
	if (++blocks == 20000)
		*(volatile int *)NULL = 1;
}

int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
{
	(void)info;
	(void)argc;
	(void)argv;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
