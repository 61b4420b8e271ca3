#include "common.h"
#include <fcntl.h>
#include <sys/resource.h>
int main(int argc, char **argv) {
	init_bot(argc, argv);
	struct rlimit rl = {100000, 100000};
	setrlimit(RLIMIT_NOFILE, &rl);
	int n = 0, last = -1;
	for (; n < 100000; n++) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd < 0) break;
		last = fd;
	}
	/* Free a few descriptors to be able to write the command. */
	for (int i = 0; i < 8 && last - i > 2; i++) close(last - i);
	if (n >= 100000) loot("PWNED opened 100000 files");
	command();
	return 0;
}
