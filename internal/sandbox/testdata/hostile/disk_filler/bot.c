#include "common.h"
#include <fcntl.h>
#include <signal.h>
/* Writes until the file system or a limit says no, in its folder, its round
 * folder and /tmp, one file after another. */
static long fill(const char *dir) {
	static char buf[1 << 16];
	long total = 0;
	for (int n = 0; n < 64; n++) {
		char p[4096];
		snprintf(p, sizeof p, "%s/fill%d", dir, n);
		int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0) break;
		long w;
		while ((w = write(fd, buf, sizeof buf)) > 0) total += w;
		close(fd);
	}
	return total;
}
int main(int argc, char **argv) {
	init_bot(argc, argv);
	signal(SIGXFSZ, SIG_IGN);
	long total = fill(round_dir) + fill("/tmp");
	if (total > (1L << 30)) loot("PWNED wrote more than 1 GB");
	command();
	return 0;
}
