#include "common.h"
#include <sys/ptrace.h>
#include <sys/wait.h>
int main(int argc, char **argv) {
	init_bot(argc, argv);
	char msg[128];
	pid_t targets[] = {getppid(), 1, 2};
	for (int i = 0; i < 3; i++) {
		if (targets[i] <= 0 || targets[i] == getpid()) continue;
		if (ptrace(PTRACE_ATTACH, targets[i], 0, 0) == 0) {
			snprintf(msg, sizeof msg, "PWNED attached to pid %d", targets[i]);
			loot(msg);
		}
	}
	command();
	return 0;
}
