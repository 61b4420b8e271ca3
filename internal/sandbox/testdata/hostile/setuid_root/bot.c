#include "common.h"
#include <sys/stat.h>
/* Tries to become root, and to plant a setuid copy of a shell in its folder. */
int main(int argc, char **argv) {
	init_bot(argc, argv);
	if (setuid(0) == 0 || geteuid() == 0) loot("PWNED became root");
	if (system("su -c id root >/dev/null 2>&1") == 0) loot("PWNED su worked");
	if (system("mount -t tmpfs none /mnt >/dev/null 2>&1") == 0) loot("PWNED mount worked");
	char p[4096];
	round_path(p, sizeof p, "suid-sh");
	char cmd[8300];
	snprintf(cmd, sizeof cmd, "cp /bin/sh '%s' && chmod 4755 '%s'", p, p);
	system(cmd);
	command();
	return 0;
}
