#include "common.h"
#include <sys/wait.h>
/* Leaves a grandchild in a new session that would play the next turns. */
int main(int argc, char **argv) {
	init_bot(argc, argv);
	pid_t p = fork();
	if (p == 0) {
		setsid();
		if (fork() == 0) {
			for (int i = 0; i < 1000; i++) { sleep(1); }
			loot("PWNED orphan survived");
			_exit(0);
		}
		_exit(0);
	}
	waitpid(p, NULL, 0);
	command();
	return 0;
}
